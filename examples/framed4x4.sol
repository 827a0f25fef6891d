c tile col row rot (0-based; rot = anticlockwise quarter turns)
15 0 0 2
5 1 0 0
2 2 0 3
9 3 0 2
6 0 1 1
0 1 1 2
10 2 1 0
1 3 1 3
12 0 2 1
4 1 2 2
13 2 2 3
7 3 2 0
3 0 3 1
8 1 3 3
11 2 3 2
14 3 3 2
