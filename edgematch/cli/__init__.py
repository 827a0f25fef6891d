"""The ``edgematch`` command line (top layer: may import everything below it)."""
