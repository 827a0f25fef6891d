"""Benchmark harness: suites -> tasks -> isolated runs -> results store -> summaries, reports, comparisons."""
