"""The native count beyond plain enumeration: memoised counting (:mod:`.memo`) and Knuth's estimate of a
count before counting (:mod:`.estimate`)."""
