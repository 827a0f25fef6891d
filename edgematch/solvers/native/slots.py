"""The slots of the search loop's state and counter arrays and its return codes: what the C kernel, the
numba kernel and the driver agree on (ckernel.c repeats them as enums). Imports nothing heavy, so the
numba kernel and the kernel selector can both import it without importing each other."""

# slots of the state array, of the counters array, and the loop's return codes
DEPTH, STARTED, STORED = 0, 1, 2
NODES, SOLUTIONS, CANONICAL = 0, 1, 2
FINISHED, BUDGET, BUFFER_FULL, OVERFLOW = 0, 1, 2, 3  # OVERFLOW: em_memo's count passed 2^63 - 1
