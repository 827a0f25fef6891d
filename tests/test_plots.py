"""The report's plots tell the truth at a glance (issue 22, item 4): one colour per backend in every plot, a
cell solved 0/3 or 2/3 marked as such (never drawn as a fast point), no scaling panel for a family of one size,
coinciding cactus lines told apart, and a score axis zoomed to where the scores are.

The session is synthetic (stored runs with chosen times), so every case is there and the test takes a second:
- ``cpsat:table`` and ``sat:glucose4`` solve nothing of framed 6x6 (0/3), ``sat:cadical195`` 2 of 3 (fast);
- ``native`` and ``native:dfs`` have identical times everywhere (their cactus lines coincide);
- ``e2`` has one size; ``e2-best`` is a best-score family whose scores are all above 90%.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("jinja2")

from matplotlib.colors import to_hex  # noqa: E402

from edgematch.bench import plots  # noqa: E402
from edgematch.bench.report import figures, write_report  # noqa: E402
from edgematch.bench.runner import RunRecord  # noqa: E402
from edgematch.bench.scores import summarise_scores  # noqa: E402
from edgematch.bench.store import Store  # noqa: E402
from edgematch.bench.suite import parse_suite  # noqa: E402
from edgematch.bench.summary import VIRTUAL_BEST, summarise  # noqa: E402

SUITE = """
name = "plots"
task = "first"
timeout = 2.0
seeds = [1, 2, 3]
backends = ["sat:cadical195", "native", "cpsat:table", "native:dfs", "sat:glucose4"]

[[family]]
name = "framed"
sizes = [4, 5, 6]
framed = true

[[family]]
name = "unframed"
sizes = [4, 6]

[[family]]
name = "e2"
sizes = [5]

[[family]]
name = "e2-best"
like = "e2"
sizes = [4, 5]
task = "best"
timeout = 2.0
backends = ["native", "sat:cadical195"]
"""
LOST = {("framed", "6x6", "cpsat:table"), ("framed", "6x6", "sat:glucose4")}  # 0/3
PARTIAL = ("framed", "6x6", "sat:cadical195")  # 2/3: seed 3 unsolved, the others fast


def _time(family: str, size: str, backend: str, seed: int) -> float | None:
    """The chosen time of a run, None for unsolved."""
    tiles = int(size.split("x")[0]) ** 2
    if (family, size, backend) in LOST or ((family, size, backend) == PARTIAL and seed == 3):
        return None
    if (family, size, backend) == PARTIAL:
        return 0.002 * seed  # faster than everyone: it must not look fastest
    base = {"native": 0.01, "native:dfs": 0.01, "sat:cadical195": 0.03, "cpsat:table": 0.08,
            "sat:glucose4": 0.05}[backend]
    return base * tiles / 16 * (1 + 0.1 * seed)


def _best_run(instance, backend: str) -> RunRecord:
    width = int(instance.size.split("x")[0])
    top = 2 * width * (width - 1)
    steps = {"native": [(0.01, top - 3), (0.2, top - 1), (1.0, top)],
             "sat:cadical195": [(0.05, top - 2), (0.5, top - 1)]}[backend]
    final = steps[-1][1]
    return RunRecord(instance.key, backend, "best", "solved" if final == top else "timeout", "done", "correct",
                     2.0, 2.0 if final < top else steps[-1][0], family=instance.family, size=instance.size,
                     tiles=instance.tiles, fingerprint="f" * 16, score=final, max_score=top, history=steps)


def make_session(path: Path) -> Path:
    """A results database at ``path`` holding the synthetic session 1 (see the module docstring)."""
    suite = parse_suite(SUITE)
    with Store(path) as store:
        number = store.new_session(suite, "plots", 1, {})
        for instance in suite.instances:
            for backend in instance.backends or suite.backends:
                if suite.task_of(instance) == "best":
                    store.add_run(number, _best_run(instance, backend))
                    continue
                t = _time(instance.family, instance.size, backend, instance.seed)
                store.add_run(number, RunRecord(
                    instance.key, backend, "first", "solved" if t is not None else "timeout",
                    "done" if t is not None else "timeout", "correct" if t is not None else "timeout",
                    (t or 2.0) + 0.05, t if t is not None else 2.0, family=instance.family, size=instance.size,
                    tiles=instance.tiles, fingerprint="f" * 16))
        store.close_session(number, 12.0, True)
    return path


@pytest.fixture(scope="module")
def summary(tmp_path_factory):
    db = make_session(tmp_path_factory.mktemp("plots") / "plots.sqlite")
    with Store(db) as store:
        return summarise(store.session(1), store.runs(1))


@pytest.fixture(scope="module")
def drawn(summary):
    return figures(summary, ("native", "sat:cadical195"))


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """The report of a fresh copy of the session, written once for the tests that read its files and page
    (drawing one takes seconds), with every call of ``plots.scores_figure`` it made."""
    folder = tmp_path_factory.mktemp("written")
    db = make_session(folder / "again.sqlite")
    calls = []
    real = plots.scores_figure

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    with pytest.MonkeyPatch.context() as monkeypatch, Store(db) as store:
        monkeypatch.setattr(plots, "scores_figure", counted)
        report = write_report(store, out=folder / "report")
    return report, calls


def _colours(summary) -> dict[str, str]:
    """Backend -> colour in the report's plots (the virtual best included)."""
    return {backend: style.colour for backend, style in plots.report_styles(summary).items()}


def _legend(legend) -> dict[str, str]:
    """label -> colour of a legend's entries."""
    return {text.get_text(): to_hex(handle.get_color())
            for text, handle in zip(legend.get_texts(), legend.legend_handles, strict=True)}


def _line_colours(figure) -> set[str]:
    return {to_hex(line.get_color()) for ax in figure.axes for line in ax.get_lines() if len(line.get_xdata())}


def _marks(figure, kind: str) -> dict[str, list]:
    """gid -> the offsets of the marks of one kind (unsolved, partial, solved)."""
    return {c.get_gid(): c.get_offsets().tolist() for ax in figure.axes for c in ax.collections
            if (c.get_gid() or "").startswith(kind + "-")}


def test_every_plot_gives_a_backend_the_same_colour_and_its_legend_lists_the_backends(summary, drawn):
    expected = _colours(summary)
    scaling, cactus, scores = drawn["scaling"], drawn["cactus"], drawn["scores"]
    legends = {"scaling": _legend(scaling.legends[0]), "cactus": _legend(cactus.axes[0].get_legend()),
               "scores": _legend(scores.legends[0])}
    assert list(legends["scaling"]) == summary.backends
    assert list(legends["cactus"]) == [*summary.backends, VIRTUAL_BEST]
    assert list(legends["scores"]) == summary.scores.backends == ["sat:cadical195", "native"]
    for name, legend in legends.items():
        for backend, colour in legend.items():
            assert colour == expected[backend], (name, backend)
    # the colours follow the sorted names, not the plan order: the same in any report of these backends
    assert expected == _colours(summary) and expected["cpsat:table"] == plots.styles(["native",
                                                                                            "cpsat:table"])[
        "cpsat:table"].colour
    assert len({expected[b] for b in summary.backends}) == len(summary.backends)
    # every drawn line is in a legend colour (no line matches no legend entry)
    for name in ("scaling", "cactus", "scores"):
        drawn_colours = {c for c in _line_colours(drawn[name]) if c not in ("#999999", "#b3261e")}
        assert drawn_colours <= set(legends[name].values()), name


def test_unsolved_and_partly_solved_cells_carry_their_marks(summary, drawn):
    figure = drawn["scaling"]
    lost = _marks(figure, "unsolved")
    assert set(lost) == {plots.gid("unsolved", b, f, s) for f, s, b in LOST}
    places = [tuple(points[0]) for points in lost.values()]
    assert len(set(places)) == 2, "two backends unsolved at one size drawn as one mark"
    assert all(y > 2 * summary.cutoff for _, y in places)  # in the band above every PAR2 figure
    (partial,) = _marks(figure, "partial").values()
    assert partial[0][1] >= summary.cutoff * 2 / 3  # at its PAR2 figure, not the median of its fast runs
    texts = {t.get_text() for ax in figure.axes for t in ax.texts}
    assert {"2/3", "0/3", "unsolved"} <= texts
    partial_mark = next(c for ax in figure.axes for c in ax.collections if c.get_gid().startswith("partial-"))
    assert (partial_mark.get_facecolor()[0][:3] == 1).all()  # hollow (white inside)


def test_a_family_of_one_size_has_no_scaling_panel(summary, drawn, written):
    titles = [ax.get_title() for ax in drawn["scaling"].axes if ax.get_visible()]
    assert titles == ["framed", "unframed"]
    assert plots.multi_size_families(summary) == (["framed", "unframed"], ["e2"])
    page = written[0].html.read_text()
    assert "Family of one size (e2)" in page


def test_coinciding_cactus_lines_stay_apart(drawn):
    lines = {line.get_label(): line for line in drawn["cactus"].axes[0].get_lines()}
    same, other = lines["native"], lines["native:dfs"]
    assert list(same.get_ydata()) == list(other.get_ydata())  # the case: identical times
    assert same.get_linewidth() > other.get_linewidth() and same.get_zorder() < other.get_zorder()
    assert same._unscaled_dash_pattern != other._unscaled_dash_pattern  # dash patterns (no public getter)
    assert same.get_marker() != other.get_marker()
    assert same.get_markevery() != other.get_markevery()
    lone = lines["cpsat:table"]  # a line on its own keeps the base width
    assert lone.get_linewidth() == plots.BASE_WIDTH < other.get_linewidth() + 0.01 < same.get_linewidth()


def test_the_score_axis_starts_at_a_floor_that_does_not_blow_up_small_gaps(drawn):
    """The axis starts at a multiple of 10% at or below half the lowest final score (issue 39 item 10: an
    axis of 69-77% made a 2-point gap fill half the plot), and ends a little above the highest."""
    figure = drawn["scores"]
    low, high = figure.axes[0].get_ylim()
    finals = [line.get_ydata()[-1] for ax in figure.axes for line in ax.get_lines()]
    assert min(finals) > 90 and low == 40 and high >= 100  # not the 80-100% band of before
    assert len([line for line in figure.axes[0].get_lines()]) == 2  # one line per backend, not per run
    assert plots.score_floor(71) == 30 and plots.score_floor(95) == 40 and plots.score_floor(10) == 0
    assert plots.score_floor(100) == 50 and plots.score_floor(0) == 0
    for lowest, highest in ((71, 73), (69, 77), (93, 95), (30, 32)):  # a gap of 2-8 points: at most a fifth
        floor = plots.score_floor(lowest)
        assert highest - lowest <= 0.2 * (plots.score_ceiling(highest) - floor)
        # the lines' heights above the floor differ at most twice as much, relatively, as their scores do
        assert (highest - floor) / (lowest - floor) - 1 <= 2 * (highest / lowest - 1) + 1e-9
    assert plots.score_ceiling(94.7) == 96 and plots.score_ceiling(99.6) == plots.score_ceiling(100) == 100.5


def test_a_backend_without_a_board_is_named_in_its_panel(summary):
    """A backend that ran but had no checked board draws no line; the panel says so (not a silent gap)."""
    runs = [r for r in summary.scores.runs if r.backend != "sat:cadical195"]
    runs += [RunRecord(r.instance, "sat:cadical195", "best", "error", "done", "error", 2.0, 2.0, family=r.family,
                       size=r.size, tiles=r.tiles) for r in summary.scores.runs if r.backend == "native"]
    scores = summarise_scores(runs, summary.scores.backends, ["e2-best"])
    figure = plots.scores_figure(scores, 2.0)
    notes = [t.get_text() for ax in figure.axes for t in ax.texts]
    assert notes == ["no board: sat:cadical195"] * len(scores.classes)
    assert [line.get_label() for line in figure.axes[0].get_lines()] == ["native"]


def test_the_svg_carries_the_same_colours_and_marks(summary, written):
    page = written[0].html.read_text()
    expected = _colours(summary)
    for backend in summary.backends:
        assert expected[backend] in page
    assert re.search(r'id="unsolved-cpsat:table-framed-6x6"', page)
    assert re.search(r'id="partial-sat:cadical195-framed-6x6"', page)


RECT = """
name = "rect"
task = "first"
timeout = 1.0
seeds = [1, 2]
backends = ["native", "cpsat:table", "sat:glucose4"]

[[family]]
name = "rect"
sizes = ["6x4", "4x6"]
"""


def test_sizes_of_one_tile_count_keep_their_marks_apart(tmp_path):
    """A family whose sizes have the same tile count (6x4, 4x6) spans no tiles: its axis still has a width
    (matplotlib warned of identical limits), each size has a place of its own, and the marks of backends
    unsolved at one size stay apart, as elsewhere."""
    import warnings

    suite = parse_suite(RECT)
    with Store(tmp_path / "rect.sqlite") as store:
        number = store.new_session(suite, "rect", 1, {})
        for instance in suite.instances:
            for backend in suite.backends:
                solved = backend == "native"
                store.add_run(number, RunRecord(
                    instance.key, backend, "first", "solved" if solved else "timeout",
                    "done" if solved else "timeout", "correct" if solved else "timeout", 0.1 if solved else 1.05,
                    0.05 if solved else 1.0, family=instance.family, size=instance.size, tiles=instance.tiles,
                    fingerprint="f" * 16))
        store.close_session(number, 1.0, True)
        rect = summarise(store.session(1), store.runs(1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "Attempting to set identical low and high xlims" is a failure
        figure = plots.scaling_figure(rect)
        plots.svg(figure)
    ax = figure.axes[0]
    low, high = ax.get_xlim()
    assert high > low
    ticks = dict(zip((t.get_text() for t in ax.get_xticklabels()), ax.get_xticks(), strict=True))
    assert set(ticks) == {"6x4", "4x6"} and ticks["6x4"] != ticks["4x6"]
    assert all(low < x < high for x in ticks.values())
    lost = _marks(figure, "unsolved")
    assert set(lost) == {plots.gid("unsolved", b, "rect", s) for b in ("cpsat:table", "sat:glucose4")
                         for s in ("6x4", "4x6")}
    places = [tuple(points[0]) for points in lost.values()]
    assert len(set(places)) == 4, "marks of different backends or sizes drawn as one"
    assert min(abs(a[0] - b[0]) for i, a in enumerate(places) for b in places[i + 1:]) > 0.02 * (high - low)
    (solved,) = _marks(figure, "solved").values()
    assert len({x for x, _ in solved}) == 2  # native's two sizes, one place each


def test_the_score_figure_is_drawn_once_for_its_file_and_the_page(written):
    """write_report draws the score-over-time figure once: scores.svg and the page's inline plot are one
    drawing (it was drawn for each)."""
    report, calls = written
    assert len(calls) == 1
    picture = (report.markdown.parent / "scores.svg").read_text()
    assert picture.startswith("<svg") and picture in report.html.read_text()
