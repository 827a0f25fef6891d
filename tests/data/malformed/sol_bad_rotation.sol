c tile col row rot
0 0 0 0
1 1 0 4
2 0 1 0
3 1 1 0
