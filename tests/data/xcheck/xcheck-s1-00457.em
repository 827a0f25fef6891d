# found by edgematch xcheck before the cpsat:table fix of issue 13; replayed on every backend by tests/test_xcheck.py
# edgematch xcheck: wrong answers from cpsat:table
# seed 1, puzzle #457 of the stream; class 4x4 framed rot signed; planted; hints: none
# the stream: edgematch xcheck --seed 1 --count 458 (this is its last puzzle)
# xcheck planted: 0:0 8:1 10:2 3:2 1:1 6:3 15:3 9:2 14:0 4:1 12:0 7:3 13:3 2:3 11:3 5:0
# answers to 'count --distinct':
#   native           solved, 8 raw / 2 distinct (0.002 s)
#   native:restarts  solved, 8 raw / 2 distinct (0.001 s)
#   cpsat            solved, 8 raw / 2 distinct (0.032 s)
#   cpsat:table      unsat, 0 raw / 0 distinct (0.033 s)   <- 0 raw / 0 distinct, but the majority says 8 raw / 2 distinct
#   sat              solved, 8 raw / 2 distinct (0.078 s)
#   sat:cadical195   solved, 8 raw / 2 distinct (0.024 s)
# reproduce: edgematch xcheck tests/data/xcheck/xcheck-s1-00457.em -b cpsat:table,native
# one backend: edgematch count tests/data/xcheck/xcheck-s1-00457.em --distinct -b cpsat:table
edgematch puzzle
name xcheck seed 1 #457
size 4 4
rule signed
rotations yes
frame 0
# tiles: N E S W
tile 0  -1 -3 0   # 0
tile -5 2  0  3   # 1
tile 2  -4 -2 0   # 2
tile -1 3  0  0   # 3
tile 5  4  5  5   # 4
tile -3 0  0  3   # 5
tile 5  5  -4 -5  # 6
tile -5 -1 0  3   # 7
tile -1 -5 1  0   # 8
tile 1  4  1  0   # 9
tile -4 1  0  -3  # 10
tile 2  -5 -3 0   # 11
tile 4  5  5  -5  # 12
tile 0  -2 -2 0   # 13
tile -2 -5 2  0   # 14
tile 4  4  -4 -4  # 15
