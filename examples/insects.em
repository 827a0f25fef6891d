# The insect puzzle from "Solving edge-match puzzles with Arc and backtracking" (seed 000).
# Heads are +k, tails are -k; a head matches the tail of the same insect.
# The article lists tiles as (top left right bottom); here they are N E S W.
edgematch puzzle
name insects
size 3 3
rule signed
rotations yes
frame none
label 1 mantis
label 2 beetle
label 3 dragonfly
label 4 ant
# tiles: N E S W
tile beetle     -dragonfly dragonfly  mantis
tile -beetle    mantis     -ant       dragonfly
tile ant        beetle     -beetle    -mantis
tile -dragonfly ant        mantis     -ant
tile ant        -dragonfly mantis     -beetle
tile beetle     -ant       dragonfly  -mantis
tile -ant       beetle     -mantis    -dragonfly
tile -beetle    mantis     -dragonfly ant
tile mantis     -dragonfly ant        beetle
