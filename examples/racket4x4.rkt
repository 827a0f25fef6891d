; The 4x4 puzzle with 7 colours from the Racket article (seed 002): the output of
; (define p4x4 (random-puzzle 4 #:colors 7)), transcribed exactly. Each string is N E S W.
; The article's solver answered:
;   '("rCgr" "BBMc" "YmYb" "yBMM"
;     "GBRy" "mBmb" "ycyb" "mKCC"
;     "rkbr" "MmCK" "YyyM" "cMkY"
;     "BMrY" "cgRm" "YybG" "KmGY")
; name: p4x4
(define p4x4
  '("yyMY" "mCKM" "Cgrr" "BMMy"
    "MrYB" "mGYK" "BRyG" "gRmc"
    "KCCm" "cyby" "mYbY" "BMcB"
    "Bmbm" "kbrr" "MkYc" "ybGY"))
