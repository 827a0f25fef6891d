; The 3x3 tile puzzle from the Racket article "Tile Puzzle" (seed 002, r/dailyprogrammer #183),
; transcribed exactly. Each string is N E S W; upper and lower case are the two halves of a colour.
; name: racket3x3
'("cymK" "KyCy" "ymkc" "mkYc" "MycK" "mCkY" "cmKY" "KYmC" "McMk")
