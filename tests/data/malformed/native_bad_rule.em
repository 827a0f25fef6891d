edgematch puzzle
size 1 1
rule equal
tile 1 2 3 4
