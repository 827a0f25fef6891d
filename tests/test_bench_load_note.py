"""The report's load caveat weighs the machine-wide load average against the machine's cores, and a bench
pinned to fewer cores (taskset -c 0 on a 2-core machine while another job holds core 1) is not called busy
for the load on the other core."""

from edgematch.bench.report import load_note


def env(load: float, cores: int, usable: int) -> dict:
    return {"cores": cores, "usable_cores": usable,
            "stretches": [{"load_before": [0.5, 0.5, 0.5], "load_after": [load, load, load]}]}


def test_a_quiet_machine_has_no_caveat():
    assert load_note(env(0.9, 2, 2)) is None


def test_load_above_every_core_is_busy_and_names_the_pinning():
    note = load_note(env(2.44, 2, 1))
    assert note is not None and note.startswith("The machine was busy")
    assert "against its 2 cores" in note and "pinned to 1 of them" in note


def test_a_pinned_bench_is_not_busy_for_the_other_cores_load():
    note = load_note(env(1.9, 2, 1))
    assert note is not None and "busy" not in note and "pinned to 1" in note


def test_unpinned_busy_machine_keeps_the_plain_caveat():
    note = load_note(env(3.0, 2, 2))
    assert note is not None and "busy" in note and "pinned" not in note


def test_no_load_recorded_says_nothing():
    assert load_note({"cores": 2, "usable_cores": 1}) is None
