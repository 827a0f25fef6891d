edgematch puzzle
# Plain random tiles (random_tiles(3, 3, colours=3, rule="signed", seed=0)): no solution, and the CNF
# needs a real refutation (glucose4 logs about 80 lemmas), so a DRAT proof of it is worth checking.
name random 3x3 signed, no solution
size 3 3
rule signed
rotations yes
frame none
# tiles: N E S W
tile -2 -2 1  2   # 0
tile 3  -2 -2 2   # 1
tile -2 2  3  -1  # 2
tile 3  -1 2  -1  # 3
tile 1  3  2  3   # 4
tile -3 3  -1 2   # 5
tile 1  -3 1  -3  # 6
tile 2  -2 3  1   # 7
tile 2  -2 2  3   # 8
