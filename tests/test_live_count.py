"""The live count's figure is the count it ends with (issue 22 item 7).

``count --workers 2`` showed ``580 raw`` just before ``at least 400,896 raw``: the searches count boards
(identical tiles and the board's turns folded, each board standing for ``raw_per_board`` raw solutions),
and the live line was fed the boards. Now every progress report is raw solutions, merged over the workers.
"""

from __future__ import annotations

import pytest

from edgematch.core.generator import GeneratorSpec, generate
from edgematch.solvers import count


@pytest.fixture(scope="module")
def many():
    """A 4x4 with two colours: about 4.8e15 raw solutions, 185,794,560 raw per board, ~1 s to count."""
    puzzle, _ = generate(GeneratorSpec(4, 4, colours=2, seed=1))
    return puzzle


@pytest.mark.parametrize("workers", [2, 1])
def test_live_figures_are_raw_running_totals_of_the_final_count(many, workers):
    seen: list[int] = []
    # one process: the plain loop (the memo counts this board in a slice; test_memo checks its figures)
    result = count(many, backend="native", workers=workers, time_limit=120, memo="off",
                   progress=lambda info: seen.append(int(info["solutions"])))
    assert result.status == "solved" and result.count is not None
    per_board = int(result.counters["raw_per_board"])
    assert per_board > 1 and len(seen) >= 2
    assert seen == sorted(seen)  # never decreasing
    assert all(figure <= result.count and figure % per_board == 0 for figure in seen)
    assert max(seen) > result.count // per_board  # raw, not boards
    if workers == 2:  # the parts driver reports after the last part is merged: the count itself
        assert seen[-1] == result.count
