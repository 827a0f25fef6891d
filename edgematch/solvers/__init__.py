"""Solver backends by short name, one result type, and solve() / solutions() / count().

Filled in by the backend issues; solver libraries are imported lazily inside each backend.
"""
