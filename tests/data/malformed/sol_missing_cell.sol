c tile col row rot
0 0 0 0
1 1 0 1
2 0 1 0
