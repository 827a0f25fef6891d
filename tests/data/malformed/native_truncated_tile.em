edgematch puzzle
size 2 2
tile 1 1 1 1
tile 1 1 1 1
tile 1 1 1
tile 1 1 1 1
