"""Every file edgematch writes goes through one safe writer (issue 22, items 16 and 19).

A write makes a fresh temporary file beside the target (``mkstemp``: unique, ``O_EXCL``, never through a
planted link), syncs it and renames it over the target; it replaces only a regular file (a symbolic link,
FIFO, device node or directory there is refused in one line naming the path); on any failure (a full
disk) the old file stays, no temporary file is left, and the error names the target. ``best --save`` goes
on when a save fails: the board is printed, one warning names the file, the exit code is 2.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import tempfile
import threading
from pathlib import Path

import pytest

import edgematch
from edgematch.errors import FormatError
from edgematch.formats import read_puzzle, read_solution, write_puzzle, write_solution
from edgematch.formats.source import save, writing
from edgematch.render import render_png
from edgematch.solvers.base import Task
from tests.test_bad_input import cli, one_line

EXAMPLES = Path(__file__).parent.parent / "examples"
INSECTS = EXAMPLES / "insects.em"
HUNDE = EXAMPLES / "hunde.hunde"
FULL = Path("/dev/full")


def refused(call, path: Path, kind: str) -> None:
    """``call()`` raises one FormatError line naming ``path`` (never a temporary name) and the kind found."""
    with pytest.raises(FormatError) as caught:
        call()
    message = str(caught.value)
    assert message == f"{path}: cannot write: it is {kind}, and edgematch only replaces regular files"
    assert "\n" not in message and ".tmp" not in message


# ----- the writer ------------------------------------------------------------------------------------------

def test_a_normal_write_replaces_the_file_keeps_its_mode_and_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "out.txt"
    save(target, "first\n")
    assert target.read_text() == "first\n"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask  # as open() would have made it
    target.chmod(0o640)
    save(target, b"second\n")
    assert target.read_text() == "second\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # the old file's permissions carry over
    assert os.listdir(tmp_path) == ["out.txt"]


def test_a_symbolic_link_at_the_target_is_refused_and_its_file_untouched(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    link = tmp_path / "out.emsol"
    link.symlink_to(victim)
    refused(lambda: save(link, "x"), link, "a symbolic link")
    dangling = tmp_path / "dangling.em"
    dangling.symlink_to(tmp_path / "nowhere")  # a link to nothing yet: writing would create its target
    refused(lambda: save(dangling, "x"), dangling, "a symbolic link")
    assert victim.read_text() == "precious\n" and link.is_symlink() and dangling.is_symlink()
    assert not (tmp_path / "nowhere").exists()
    assert sorted(os.listdir(tmp_path)) == ["dangling.em", "out.emsol", "victim.txt"]


def test_links_planted_under_temporary_names_are_never_followed(tmp_path, monkeypatch):
    """The old fixed name PATH.partial, and the very name mkstemp tries first: a link planted there is
    skipped (O_EXCL), the victim stays as it was, and the write lands at PATH."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    target = tmp_path / "best.emsol"
    planted = [tmp_path / "best.emsol.partial", tmp_path / ".best.emsol.guessed.tmp"]
    for name in planted:
        name.symlink_to(victim)
    names = iter(["guessed", "fresh"])
    monkeypatch.setattr(tempfile, "_get_candidate_names", lambda: names)
    save(target, "board\n")
    assert target.read_text() == "board\n" and not target.is_symlink()
    assert victim.read_text() == "precious\n"
    assert all(name.is_symlink() and os.readlink(name) == str(victim) for name in planted)
    assert sorted(os.listdir(tmp_path)) == sorted(["victim.txt", "best.emsol", *(p.name for p in planted)])


def test_a_fifo_is_refused_without_waiting_for_a_reader(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    failures: list[BaseException] = []

    def attempt() -> None:
        try:
            save(fifo, "x")
        except BaseException as exc:  # noqa: BLE001  (looked at below)
            failures.append(exc)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(10)
    assert not worker.is_alive(), "the write opened the FIFO and waits for a reader"
    assert len(failures) == 1 and str(failures[0]) == (
        f"{fifo}: cannot write: it is a named pipe (FIFO), and edgematch only replaces regular files")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.parametrize("device", ["/dev/null", "/dev/full"])
def test_a_device_node_is_refused_and_stays_a_device(device):
    path = Path(device)
    if not path.exists():
        pytest.skip(f"needs {device}")
    refused(lambda: save(path, "x"), path, "a character device")
    assert path.is_char_device()


def test_a_directory_or_a_missing_folder_is_one_line_naming_the_target(tmp_path):
    refused(lambda: save(tmp_path, "x"), tmp_path, "a directory")
    missing = tmp_path / "no" / "such" / "file.em"
    with pytest.raises(FormatError, match=f"^{missing}: cannot write: there is no folder '{missing.parent}'$"):
        save(missing, "x")
    assert not (tmp_path / "no").exists()


def test_a_full_disk_keeps_the_old_file_and_names_the_target(tmp_path, full_disk):
    target = tmp_path / "puzzle.em"
    target.write_text("the last good file\n")
    with pytest.raises(FormatError) as caught:
        save(target, "new text\n" * 1000)
    assert str(caught.value) == f"{target}: cannot write: No space left on device"
    assert target.read_text() == "the last good file\n"
    assert os.listdir(tmp_path) == ["puzzle.em"]


def test_an_error_inside_a_streamed_write_leaves_the_old_file(tmp_path):
    target = tmp_path / "proof.drat"
    target.write_text("old proof\n")
    with pytest.raises(RuntimeError), writing(target) as stream:
        stream.write("half a proof\n")
        raise RuntimeError("killed halfway")
    with pytest.raises(FormatError, match=f"^{target}: cannot write: No space left on device$"), \
            writing(target) as stream:
        stream.write("half a proof\n")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    assert target.read_text() == "old proof\n" and os.listdir(tmp_path) == ["proof.drat"]


# ----- every writer goes through it ---------------------------------------------------------------------

def test_every_library_writer_refuses_a_link(tmp_path):
    puzzle = read_puzzle(INSECTS)
    solution = edgematch.solve(puzzle, "native").solution
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    for name, call in [
        ("p.em", lambda path: write_puzzle(puzzle, path)),
        ("s.emsol", lambda path: write_solution(solution, path, puzzle=puzzle)),
        ("b.png", lambda path: render_png(puzzle, solution, path)),
    ]:
        link = tmp_path / name
        link.symlink_to(victim)
        refused(lambda call=call, link=link: call(link), link, "a symbolic link")
    assert victim.read_text() == "precious\n"


def test_the_proof_writer_refuses_a_link_before_the_search(tmp_path):
    from edgematch.solvers.sat import _proof_paths, _write

    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    link = tmp_path / "no.drat"
    link.symlink_to(victim)
    refused(lambda: _proof_paths(str(link), "cadical153", Task("first")), link, "a symbolic link")
    refused(lambda: _write(link, ["1 0"]), link, "a symbolic link")
    cnf_link = tmp_path / "other.cnf"
    cnf_link.symlink_to(victim)
    refused(lambda: _proof_paths(str(tmp_path / "other.drat"), "cadical153", Task("first")), cnf_link,
            "a symbolic link")
    good = tmp_path / "good.drat"
    _write(good, ["1 2 0", "0"])
    assert good.read_text() == "1 2 0\n0\n" and victim.read_text() == "precious\n"


def test_solve_save_and_render_refuse_a_link_before_solving(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    for option in ("--save", "-o"):
        link = tmp_path / f"link{option}.svg"
        link.symlink_to(victim)
        args = ["--render", "svg"] if option == "-o" else []
        result = cli("solve", HUNDE, option, link, *args)
        one_line(result, f"{link}: ", "it is a symbolic link")
        assert "status" not in result.stdout  # refused before the search, not after it
    assert victim.read_text() == "precious\n"


# ----- best --save -----------------------------------------------------------------------------------------

@pytest.mark.skipif(not FULL.exists(), reason="needs /dev/full")
def test_best_save_refuses_a_device_and_a_link_to_one(tmp_path):
    link = tmp_path / "best.emsol"
    link.symlink_to(FULL)
    one_line(cli("best", HUNDE, "-t", "5", "--save", link), f"{link}: ", "it is a symbolic link")
    one_line(cli("best", HUNDE, "-t", "5", "--save", FULL), f"{FULL}: ", "it is a character device")
    assert FULL.is_char_device() and link.is_symlink()
    assert sorted(os.listdir(tmp_path)) == ["best.emsol"]


def test_best_save_never_writes_through_a_planted_partial_link(tmp_path):
    """The old fixed temporary name PATH.partial, planted as a link by another user, is left alone."""
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    target = tmp_path / "best.emsol"
    (tmp_path / "best.emsol.partial").symlink_to(victim)
    result = cli("best", HUNDE, "-b", "native", "-t", "20", "--save", target)
    assert result.exit_code == 0, result.output
    assert victim.read_text() == "precious\n"
    assert edgematch.check(read_puzzle(HUNDE), read_solution(target, puzzle=read_puzzle(HUNDE))).score == 12
    assert sorted(os.listdir(tmp_path)) == ["best.emsol", "best.emsol.partial", "victim"]


def test_best_save_to_a_folder_names_the_folder(tmp_path):
    text = one_line(cli("best", HUNDE, "-t", "5", "--save", tmp_path), f"{tmp_path}: ", "it is a directory")
    assert ".partial" not in text and os.listdir(tmp_path) == []


def test_best_save_onto_a_full_disk_keeps_the_last_good_board_and_prints_the_best(tmp_path, monkeypatch):
    """The first board is saved; then the disk fills: the run goes on, one warning names the file, the best
    board is printed, the file keeps the first board, no temporary file is left, and the exit code is 2."""
    real = os.fsync
    saved: list[int] = []

    def fsync(fd: int) -> None:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            if saved:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            saved.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    target = tmp_path / "best.emsol"
    result = cli("best", HUNDE, "-b", "native", "-t", "20", "--save", target, "--json")
    data = json.loads(result.stdout)
    assert data["score"] == data["max_score"] == 12 and len(data["history"]) > 1  # it improved after the failure
    assert result.exit_code == data["exit_code"] == 2
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and f"{target}: cannot write: No space left on device" in warnings[0]
    puzzle = read_puzzle(HUNDE)
    kept = read_solution(target, puzzle=puzzle)
    first_score = data["history"][0][1]
    assert edgematch.check(puzzle, kept).score == first_score < 12  # the last good file: the first board
    assert data["save_error"].startswith(f"{target}: cannot write: No space left on device")
    assert os.listdir(tmp_path) == ["best.emsol"]


def test_best_save_failure_is_said_once_and_the_board_printed(tmp_path, full_disk):
    target = tmp_path / "best.emsol"
    result = cli("best", HUNDE, "-b", "native", "-t", "20", "--save", target)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len([line for line in lines if "No space left" in line and "warning" in line]) == 1
    assert lines[-1].startswith(f"edgematch: {target}: cannot write: No space left on device: the best board "
                                "(score 12) is printed above; ")
    assert "12/12 seams fit" in result.stdout and "saved to" not in result.stdout
    assert "spotted-tail" in result.stdout  # the board itself
    assert os.listdir(tmp_path) == []


def test_a_read_only_file_is_refused_as_open_would_refuse_it(tmp_path, monkeypatch):
    target = tmp_path / "kept.em"
    target.write_text("old")
    target.chmod(0o444)
    if os.geteuid() == 0:  # root may write anything: ask as an ordinary user would be answered
        real = os.access
        monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if Path(p) == target else real(p, mode, **kw))
    with pytest.raises(FormatError, match="read-only"):
        save(target, "new")
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["kept.em"]
