edgematch puzzle
name planted 3x3 seed 13
# Found by a random cross-check (issue 13): 128 raw / 2 distinct; cpsat:table counted 64 / 1 (OR-tools presolve).
size 3 3
rule same
rotations yes
frame 0
# tiles: N E S W
tile 3 1 0 2  # 0
tile 1 0 2 3  # 1
tile 2 0 1 3  # 2
tile 0 0 2 2  # 3
tile 3 3 3 3  # 4
tile 1 3 1 0  # 5
tile 0 1 1 0  # 6
tile 0 1 1 0  # 7
tile 0 1 2 0  # 8
