; label 0 is no insect
(1 2 3 4)
(1 2 3 4)
(1 2 3 4)
(1 0 3 4)
