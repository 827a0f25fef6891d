"""The slots of the plain search loop's state and counter arrays and its return codes: what ``em_search``
(ckernel.c, which repeats them as enums) and the driver agree on. Imports nothing, so any module can."""

# slots of the state array, of the counters array, and the loop's return codes
DEPTH, STARTED, STORED = 0, 1, 2
NODES, SOLUTIONS, CANONICAL = 0, 1, 2
FINISHED, BUDGET, BUFFER_FULL, OVERFLOW = 0, 1, 2, 3  # OVERFLOW: em_memo's count passed 2^63 - 1
