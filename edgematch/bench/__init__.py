"""Benchmark harness: suites -> tasks -> isolated runs -> results store -> reports (a later issue)."""
