"""The parallel layer: how any search runs on more than one core, here or on a Dask cluster.

It sits below every backend and question that uses it (the native questions, SAT's cubes, the bench) and knows
none of them:

- :mod:`~edgematch.solvers.parallel.processes`: child processes that cannot outlive their caller, a single
  streamed child, and the :class:`~edgematch.solvers.parallel.processes.Dealer` that deals jobs to local workers;
- :mod:`~edgematch.solvers.parallel.cluster`: naming and reaching a Dask cluster (``local:N``, an address, a
  client);
- :mod:`~edgematch.solvers.parallel.tasks`: one call's Dask tasks, submitted, collected and stopped in one loop;
- :mod:`~edgematch.solvers.parallel.shared`: a few integers the chains of one call change through named
  operations, each applied whole, in shared memory or on the Dask scheduler (the race's handover, the best board
  a cluster's chains share);
- :mod:`~edgematch.solvers.parallel.chains`: N copies of one search sharing the best board, on local processes
  or on Dask (best-score chains and the first-solution race).

Its rules hold for every user: a dead worker's job is done again by another (the others go on); a job that
cannot be done again is named in the answer, which then claims nothing it did not prove; Ctrl-C stops every
child and keeps what was already reported.
"""
