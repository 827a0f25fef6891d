# found by edgematch xcheck before the cpsat:table fix of issue 13; replayed on every backend by tests/test_xcheck.py
# edgematch xcheck: wrong answers from cpsat:table
# seed 1, puzzle #75 of the stream; class 2x1 framed fixed signed; planted; hints: 2 true
# the stream: edgematch xcheck --seed 1 --count 76 (this is its last puzzle)
# xcheck planted: 1:0 0:0
# answers to 'count --distinct':
#   brute            solved, 1 raw / 1 distinct (0.000 s)
#   native           solved, 1 raw / 1 distinct (0.001 s)
#   native:restarts  solved, 1 raw / 1 distinct (0.000 s)
#   cpsat            solved, 1 raw / 1 distinct (0.080 s)
#   cpsat:table      error: cpsat:table: TypeError: The Inverse constraint does not accept empty arrays (0.066 s)   <- error: cpsat:table: TypeError: The Inverse constraint does not accept empty arrays
#   sat              solved, 1 raw / 1 distinct (0.053 s)
#   sat:cadical195   solved, 1 raw / 1 distinct (0.063 s)
# reproduce: edgematch xcheck tests/data/xcheck/xcheck-s1-00075.em -b cpsat:table,native
# one backend: edgematch count tests/data/xcheck/xcheck-s1-00075.em --distinct -b cpsat:table
edgematch puzzle
name xcheck seed 1 #75
size 2 1
rule signed
rotations no
frame 0
# tiles: N E S W
tile 0  0  0  -1  # 0
tile 0  1  0  0   # 1
# hints: cell tile rotation
hint 0 1 0
hint 1 0 0
