edgematch puzzle
# Found from outside (issue 13): cpsat:table said unsat (OR-tools presolve with AddInverse + tables).
# Exactly one solution, rows of tile indices, all turn 0: 7 4 11 1 / 12 5 10 14 / 8 6 15 0 / 9 2 3 13
size 4 4
rule same
rotations no
frame none
tile 4 3 2 3
tile 5 8 3 6
tile 5 5 8 3
tile 6 3 4 5
tile 4 8 5 3
tile 5 5 4 8
tile 4 5 5 2
tile 6 3 3 3
tile 7 2 1 1
tile 1 3 8 4
tile 5 1 1 5
tile 7 6 5 8
tile 3 8 7 6
tile 2 6 6 3
tile 3 5 4 1
tile 1 3 6 5
