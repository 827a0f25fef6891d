edgematch puzzle
size 1 1
colour red
tile 1 2 3 4
