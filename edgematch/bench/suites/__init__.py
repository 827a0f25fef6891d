"""Built-in benchmark suites (TOML files read with importlib.resources)."""
