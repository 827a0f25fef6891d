edgematch puzzzle
size 1 1
tile 1 2 3 4
