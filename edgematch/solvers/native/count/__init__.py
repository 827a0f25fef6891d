"""The native count beyond one plain enumeration: the search split into parts on local workers (:mod:`.parts`,
also ``solve --all`` and ``native:dfs -j``) or on a Dask cluster (:mod:`.cluster`), memoised counting
(:mod:`.memo`), the bounded count unique puzzles use (:mod:`.upto`) and Knuth's estimate of a count before
counting (:mod:`.estimate`)."""
