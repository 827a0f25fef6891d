# found by edgematch xcheck before the cpsat:table fix of issue 13; replayed on every backend by tests/test_xcheck.py
# edgematch xcheck: wrong answers from cpsat:table
# seed 1, puzzle #260 of the stream; class 3x3 framed rot signed; planted; hints: none
# the stream: edgematch xcheck --seed 1 --count 261 --sizes 3x3 --framed yes --rotations yes (this is its last puzzle)
# xcheck planted: 3:1 6:0 1:1 8:1 7:3 0:3 5:3 4:0 2:2
# answers to 'count --distinct':
#   brute            solved, 96 raw / 3 distinct (0.012 s)
#   native           solved, 96 raw / 3 distinct (0.001 s)
#   native:restarts  solved, 96 raw / 3 distinct (0.001 s)
#   cpsat            solved, 96 raw / 3 distinct (0.104 s)
#   cpsat:table      solved, 32 raw / 1 distinct (0.120 s)   <- 32 raw / 1 distinct, but brute says 96 raw / 3 distinct
#   sat              solved, 96 raw / 3 distinct (0.066 s)
#   sat:cadical195   solved, 96 raw / 3 distinct (0.057 s)
# reproduce: edgematch xcheck tests/data/xcheck/xcheck-s1-00260-3x3-framed-rot.em -b cpsat:table,native
# one backend: edgematch count tests/data/xcheck/xcheck-s1-00260-3x3-framed-rot.em --distinct -b cpsat:table
edgematch puzzle
name xcheck seed 1 #260
size 3 3
rule signed
rotations yes
frame 0
# tiles: N E S W
tile 2  1  0  -1  # 0
tile 0  -1 1  0   # 1
tile 0  1  1  0   # 2
tile 1  1  0  0   # 3
tile -2 -1 0  -1  # 4
tile 0  -1 1  0   # 5
tile 0  -1 2  -1  # 6
tile -2 -2 -2 2   # 7
tile 2  1  0  -1  # 8
