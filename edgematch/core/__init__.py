"""The core layer: the puzzle model and its validation (``model``), identical tiles as types (``tiletypes``),
facts about a puzzle (``analysis``), the generator, the independent checker and board symmetry.

Imports no solver library (and nothing above it: reading and writing files is ``edgematch.formats``, drawing
boards ``edgematch.render``).
"""
