"""Encodings: puzzle -> CP-SAT model, puzzle -> CNF, each with a decoder back to a Solution.

Pure transformations; nothing here solves. Filled in by the CP-SAT and CNF issues.
"""
