# The 3x3 tile puzzle from the Racket article (seed 002), written by hand from its strings
# '("cymK" "KyCy" "ymkc" "mkYc" "MycK" "mCkY" "cmKY" "KYmC" "McMk"), each N E S W.
# Colours C M Y K are 1 2 3 4; upper case is +k, lower case -k, and they meet.
edgematch puzzle
name racket3x3
size 3 3
rule signed
rotations yes
frame none
label 1 C c
label 2 M m
label 3 Y y
label 4 K k
# tiles: N E S W
tile c y m K
tile K y C y
tile y m k c
tile m k Y c
tile M y c K
tile m C k Y
tile c m K Y
tile K Y m C
tile M c M k
