"""``python -m edgematch``: the same as the ``edgematch`` command."""

from edgematch.cli.main import run

run()
