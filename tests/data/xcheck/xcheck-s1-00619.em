# found by edgematch xcheck before the cpsat:table fix of issue 13; replayed on every backend by tests/test_xcheck.py
# edgematch xcheck: wrong answers from cpsat:table
# seed 1, puzzle #619 of the stream; class 1x2 unframed rot signed; planted; hints: 1 true, 1 wrong
# the stream: edgematch xcheck --seed 1 --count 620 (this is its last puzzle)
# answers to 'count --distinct':
#   brute            solved, 1 raw / 1 distinct (0.000 s)
#   native           solved, 1 raw / 1 distinct (0.001 s)
#   native:restarts  solved, 1 raw / 1 distinct (0.000 s)
#   cpsat            solved, 1 raw / 1 distinct (0.026 s)
#   cpsat:table      error: cpsat:table: TypeError: The Inverse constraint does not accept empty arrays (0.020 s)   <- error: cpsat:table: TypeError: The Inverse constraint does not accept empty arrays
#   sat              solved, 1 raw / 1 distinct (0.016 s)
#   sat:cadical195   solved, 1 raw / 1 distinct (0.024 s)
# reproduce: edgematch xcheck tests/data/xcheck/xcheck-s1-00619.em -b cpsat:table,native
# one backend: edgematch count tests/data/xcheck/xcheck-s1-00619.em --distinct -b cpsat:table
edgematch puzzle
name xcheck seed 1 #619
size 1 2
rule signed
rotations yes
frame none
# tiles: N E S W
tile 1  2  -2 1   # 0
tile -2 2  3  2   # 1
# hints: cell tile rotation
hint 0 0 0
hint 1 1 3
