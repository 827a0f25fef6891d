# found by edgematch xcheck before the cpsat:table fix of issue 13; replayed on every backend by tests/test_xcheck.py
# edgematch xcheck: wrong answers from cpsat:table
# seed 1, puzzle #8 of the stream; class 3x3 framed rot same; planted; hints: none
# the stream: edgematch xcheck --seed 1 --count 9 --sizes 3x3 --framed yes --rotations yes (this is its last puzzle)
# xcheck planted: 8:3 7:2 2:0 4:0 3:1 6:3 1:1 0:3 5:0
# answers to 'count --distinct':
#   brute            solved, 32 raw / 2 distinct (0.007 s)
#   native           solved, 32 raw / 2 distinct (0.002 s)
#   native:restarts  solved, 32 raw / 2 distinct (0.001 s)
#   cpsat            solved, 32 raw / 2 distinct (0.118 s)
#   cpsat:table      solved, 16 raw / 1 distinct (0.091 s)   <- 16 raw / 1 distinct, but brute says 32 raw / 2 distinct
#   sat              solved, 32 raw / 2 distinct (0.064 s)
#   sat:cadical195   solved, 32 raw / 2 distinct (0.084 s)
# reproduce: edgematch xcheck tests/data/xcheck/xcheck-s1-00008-3x3-framed-rot.em -b cpsat:table,native
# one backend: edgematch count tests/data/xcheck/xcheck-s1-00008-3x3-framed-rot.em --distinct -b cpsat:table
edgematch puzzle
name xcheck seed 1 #8
size 3 3
rule same
rotations yes
frame 0
# tiles: N E S W
tile 3 5 3 0  # 0
tile 3 0 0 3  # 1
tile 0 0 1 3  # 2
tile 5 5 5 4  # 3
tile 3 5 3 0  # 4
tile 2 0 0 3  # 5
tile 5 1 0 2  # 6
tile 4 1 0 3  # 7
tile 0 0 1 3  # 8
