# found by edgematch xcheck before the cpsat:table fix of issue 13; replayed on every backend by tests/test_xcheck.py
# edgematch xcheck: wrong answers from cpsat:table
# seed 1, puzzle #4 of the stream; class 3x3 framed rot signed; planted; hints: none
# the stream: edgematch xcheck --seed 1 --count 5 --sizes 3x3 --framed yes --rotations yes (this is its last puzzle)
# xcheck planted: 5:3 8:0 1:3 6:0 2:1 4:3 3:0 7:0 0:0
# answers to 'count --distinct':
#   brute            solved, 4 raw / 1 distinct (0.001 s)
#   native           solved, 4 raw / 1 distinct (0.018 s)
#   native:restarts  solved, 4 raw / 1 distinct (0.002 s)
#   cpsat            solved, 4 raw / 1 distinct (0.104 s)
#   cpsat:table      unsat, 0 raw / 0 distinct (0.083 s)   <- 0 raw / 0 distinct, but brute says 4 raw / 1 distinct
#   sat              solved, 4 raw / 1 distinct (0.110 s)
#   sat:cadical195   solved, 4 raw / 1 distinct (0.044 s)
# reproduce: edgematch xcheck tests/data/xcheck/xcheck-s1-00004-3x3-framed-rot.em -b cpsat:table,native
# one backend: edgematch count tests/data/xcheck/xcheck-s1-00004-3x3-framed-rot.em --distinct -b cpsat:table
edgematch puzzle
name xcheck seed 1 #4
size 3 3
rule signed
rotations yes
frame 0
# tiles: N E S W
tile 1  0  0  2   # 0
tile -2 0  0  1   # 1
tile -3 3  -3 -3  # 2
tile -2 1  0  0   # 3
tile 3  -1 0  -1  # 4
tile 0  0  1  -1  # 5
tile 1  3  2  0   # 6
tile -3 -2 0  -1  # 7
tile 0  2  3  -1  # 8
