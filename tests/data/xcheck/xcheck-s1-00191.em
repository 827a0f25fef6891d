# found by edgematch xcheck before the cpsat:table fix of issue 13; replayed on every backend by tests/test_xcheck.py
# edgematch xcheck: wrong answers from cpsat:table
# seed 1, puzzle #191 of the stream; class 1x1 framed rot same; random; hints: 1 random
# the stream: edgematch xcheck --seed 1 --count 192 (this is its last puzzle)
# answers to 'count --distinct':
#   brute            solved, 1 raw / 1 distinct (0.000 s)
#   native           solved, 1 raw / 1 distinct (0.001 s)
#   native:restarts  solved, 1 raw / 1 distinct (0.000 s)
#   cpsat            solved, 1 raw / 1 distinct (0.144 s)
#   cpsat:table      error: cpsat:table: TypeError: The Inverse constraint does not accept empty arrays (0.043 s)   <- error: cpsat:table: TypeError: The Inverse constraint does not accept empty arrays
#   sat              solved, 1 raw / 1 distinct (0.066 s)
#   sat:cadical195   solved, 1 raw / 1 distinct (0.067 s)
# reproduce: edgematch xcheck tests/data/xcheck/xcheck-s1-00191.em -b cpsat:table,native
# one backend: edgematch count tests/data/xcheck/xcheck-s1-00191.em --distinct -b cpsat:table
edgematch puzzle
name xcheck seed 1 #191
size 1 1
rule same
rotations yes
frame 0
# tiles: N E S W
tile 0 0 0 0  # 0
# hints: cell tile rotation
hint 0 0 2
