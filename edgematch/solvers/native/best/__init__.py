"""The native answer to the best-score question, a room per search (every one anytime: an admissible board at
once, then better ones, each passing the checker; the regime and stages in ``docs/best.md``):

- :mod:`.admissible`: the first board, keeping every rule but the seams (a matching of cells and tiles);
- :mod:`.candidates`: the candidate tables the compiled loops read, and their shuffles;
- :mod:`.dfs`: depth-first search under a schedule of breaks (``dfs.c``), the default up to
  ``dfs.EXACT_UP_TO`` free cells, where its branch and bound proves the answer;
- :mod:`.beam`, :mod:`.repair`, :mod:`.stages`: beams then window repair (``beam.c``, ``repair.c``), the
  default above;
- :mod:`.exact`: the first-solution search's share of the time in both;
- :mod:`.chains`: several searches at once on local processes or Dask workers, sharing the best board.
"""
