edgematch puzzle
size 2 2
rule signed
size 3 3
