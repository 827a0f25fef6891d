# Das verflixte Hunde-Spiel (1979), from Mark Seemann's article (seed 001), written by hand.
# The article lists each tile "from top clockwise" (N E S W); a head is +k and meets the tail -k.
# Patterns are numbered in order of first appearance: brown 1, grey 2, umber 3, spotted 4.
# Tiles 2 and 3 (0-based) are identical.
edgematch puzzle
name Das verflixte Hunde-Spiel
size 3 3
rule signed
rotations yes
frame none
label 1 brown-head   brown-tail
label 2 grey-head    grey-tail
label 3 umber-head   umber-tail
label 4 spotted-head spotted-tail
# tiles: N E S W
tile brown-head  grey-head    umber-tail   spotted-tail
tile brown-head  spotted-head brown-tail   umber-tail
tile brown-head  spotted-head grey-tail    umber-tail
tile brown-head  spotted-head grey-tail    umber-tail
tile brown-head  umber-head   spotted-tail grey-tail
tile grey-head   brown-head   spotted-tail umber-tail
tile grey-head   spotted-head brown-tail   umber-tail
tile grey-head   umber-head   brown-tail   spotted-tail
tile grey-head   umber-head   grey-tail    spotted-tail
