"""The core layer: puzzle model, validation, formats, generator, checker, symmetry and rendering.

Imports no solver library.
"""
