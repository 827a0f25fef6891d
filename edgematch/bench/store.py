"""The results database (SQLite, standard library): sessions with their plan and environment, one row per
finished run, written (and committed) the moment the run finishes, so a killed bench loses nothing done.

A session stores its whole plan (the expanded suite), so ``--resume`` re-reads no suite file and redoes
no run already stored. Reads apply the cross-backend agreement check (:mod:`edgematch.bench.agreement`),
so every reader sees the same categories.

Schema 2 adds per run: ``cpu`` and ``peak_rss_mb`` (measured, :mod:`edgematch.bench.runner`), the puzzle's
``fingerprint`` (runs are matched on it), ``repetition`` (``--repeat``), ``ran`` (what auto or a portfolio
ran) and ``output`` (what the run printed). A schema 1 database is migrated when opened: the new columns
are added, and its runs' fingerprints are left unknown (``""``) because the database never stored their
puzzles (only how to make them, and the generator may have changed since); readers say so where it matters
(:data:`UNKNOWN_FINGERPRINT`). A read-only schema 1 database is read as it is.

Schema 3 adds the best-score task's figures per run: ``score`` and ``max_score`` (the checker's) and
``history`` (JSON, ``[[seconds, score], ...]``), and the ``board`` itself (JSON, ``[[tile, turn], ...]`` by
cell, so a reader can re-check or render it without re-running). Columns rather than entries in
``counters``: counters are the backend's own names (a backend may well report a ``score`` of its own), and
reports and the policy read these for every best run. Schema 1 and 2 databases gain them when opened (old
runs: none), and one this process may not write is read as it is.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from edgematch.bench.agreement import settle
from edgematch.bench.runner import RunRecord
from edgematch.bench.suite import Suite
from edgematch.errors import FormatError, UsageError

SCHEMA_VERSION = 3
UNKNOWN_FINGERPRINT = ""  # a run stored before fingerprints: its puzzle cannot be told apart by content

# columns schema 2 added to runs, with the value old rows get
_ADDED = {"cpu": "REAL", "peak_rss_mb": "REAL", "fingerprint": "TEXT NOT NULL DEFAULT ''",
          "repetition": "INTEGER NOT NULL DEFAULT 0", "ran": "TEXT NOT NULL DEFAULT ''",
          "output": "TEXT NOT NULL DEFAULT ''"}
# columns schema 3 added (the best task's figures)
_ADDED_3 = {"score": "INTEGER", "max_score": "INTEGER", "history": "TEXT NOT NULL DEFAULT '[]'",
            "board": "TEXT NOT NULL DEFAULT '[]'"}

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY,
    started TEXT NOT NULL,           -- ISO time, UTC
    finished TEXT,                   -- set when every planned run is stored
    state TEXT NOT NULL,             -- running | interrupted | finished (running after a kill)
    elapsed REAL NOT NULL DEFAULT 0, -- seconds of benching, summed over resumes
    suite TEXT NOT NULL,
    source TEXT NOT NULL,            -- what was asked for: a suite name, file or folder
    plan TEXT NOT NULL,              -- JSON: the expanded suite
    jobs INTEGER NOT NULL,
    environment TEXT NOT NULL        -- JSON: machine, versions, commit
);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    session INTEGER NOT NULL REFERENCES sessions(id),
    instance TEXT NOT NULL,
    family TEXT NOT NULL,
    size TEXT NOT NULL,
    tiles INTEGER NOT NULL,
    backend TEXT NOT NULL,
    task TEXT NOT NULL,
    status TEXT NOT NULL,
    termination TEXT NOT NULL,
    category TEXT NOT NULL,
    wall REAL NOT NULL,
    time REAL NOT NULL,
    build REAL NOT NULL,
    solve REAL NOT NULL,
    check_time REAL NOT NULL,
    count INTEGER,
    distinct_count INTEGER,
    counters TEXT NOT NULL,
    options TEXT NOT NULL,
    message TEXT NOT NULL,
    finished TEXT NOT NULL,
    cpu REAL,                        -- user + system seconds of the run's process tree in the backend call
    peak_rss_mb REAL,                -- peak resident memory of the run's process tree, MiB
    fingerprint TEXT NOT NULL DEFAULT '',  -- hash of the puzzle's content ('' = unknown: stored before schema 2)
    repetition INTEGER NOT NULL DEFAULT 0, -- which of the cell's --repeat runs
    ran TEXT NOT NULL DEFAULT '',    -- what auto / a portfolio actually ran
    output TEXT NOT NULL DEFAULT '', -- the end of what the run's processes printed
    score INTEGER,                   -- best: the checked score of the board returned
    max_score INTEGER,               -- best: the puzzle's inner seams
    history TEXT NOT NULL DEFAULT '[]', -- best: JSON [[seconds, score], ...] per improvement
    board TEXT NOT NULL DEFAULT '[]'    -- best: JSON [[tile, turn], ...] by cell, the board returned
);
CREATE INDEX IF NOT EXISTS runs_by_session ON runs (session, instance, backend, task);
"""

# RunRecord field -> column, where they differ (``check`` and ``distinct`` are SQL words)
_COLUMNS = {"check": "check_time", "distinct": "distinct_count", "repeat": "repetition"}
_JSON = ("counters", "options", "history", "board")


@dataclass
class Session:
    """One bench session as stored."""

    id: int
    started: str
    finished: str | None
    state: str
    elapsed: float
    suite: Suite
    source: str
    jobs: int
    environment: dict[str, Any]
    done: int  # runs stored

    @property
    def planned(self) -> int:
        return len(self.suite.runs()) * self.suite.repeat


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


_KINDS = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))
SIDE_FILES = ("-journal", "-wal", "-shm")  # what sqlite keeps beside a database (rollback journal, write-ahead log)
_DATABASE_MAGIC = b"SQLite format 3\x00"
_JOURNAL_MAGIC = bytes.fromhex("d9d505f920a163d7")  # a rollback journal's first bytes (zeros until it is synced)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def database_problem(path: Path) -> None:
    """Refuse ``path`` as a results database unless nothing or a regular file is there, in a folder that
    exists (a FormatError naming it). A symbolic link is refused whether or not its target exists: sqlite
    would create or write the target, and every file edgematch writes replaces only regular files; the
    message names the target, so a user who meant it can name it instead."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise FormatError(f"cannot open the results database: {exc.strerror or exc}", path) from None
    if info is not None and stat.S_ISLNK(info.st_mode):
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        raise FormatError(f"is a symbolic link (to {target!r}), not a results database: edgematch writes only "
                          "regular files; name the database file itself with --db", path)
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise FormatError("is a folder, not a results database", path)
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise FormatError(f"is not a regular file ({_kind(info.st_mode)}), not a results database", path)
    if not path.parent.is_dir():
        raise FormatError(f"there is no folder {str(path.parent)!r} for the results database (make it first)", path)


def _head(path: Path, size: int) -> bytes:
    """The first ``size`` bytes of the regular file at ``path`` (b"" when it cannot be read)."""
    try:
        with open(path, "rb") as stream:
            return stream.read(size)
    except OSError:
        return b""


def _journal_of(journal: bytes, header: bytes) -> bool:
    """Whether ``journal`` (a file's first 28 bytes) begins as sqlite's rollback journal of the database whose
    first 100 bytes are ``header``: the journal magic (or the zeros it holds until the journal is synced, what a
    process killed mid-write leaves), a sector size sqlite uses, and the database's own page size."""
    def power_of_two(value: int) -> bool:
        return 512 <= value <= 65536 and value & (value - 1) == 0

    if len(journal) < 28 or journal[:8] not in (_JOURNAL_MAGIC, bytes(8)):
        return False
    page = int.from_bytes(header[16:18], "big")
    page = 65536 if page == 1 else page
    sector, journal_page = int.from_bytes(journal[20:24], "big"), int.from_bytes(journal[24:28], "big")
    return power_of_two(sector) and journal_page == page


def foreign_side_files(path: Path) -> list[tuple[Path, str]]:
    """The files beside the database at ``path`` named as sqlite's side files (``-journal``, ``-wal``,
    ``-shm``) that sqlite did not make for this database, each with why: sqlite deletes any such file when
    it opens the database (a read included), so one planted there, or left from another file of that name,
    would be lost without a word. sqlite's own are left to it: a rollback journal beside an existing database
    (its header is sqlite's, with the database's page size) is what an interrupted write left, and sqlite rolls
    it back (or, never synced, drops it: the database was not touched yet); a write-ahead
    log and its index belong to a database in WAL mode (its header says so). Anything else is foreign: a
    link or other non-regular file, any side file with no database beside it, a journal sqlite did not
    write, a log beside a database that keeps none."""
    header = _head(path, 100) if path.is_file() else b""
    database = header.startswith(_DATABASE_MAGIC)
    wal_mode = database and len(header) >= 20 and header[18] == header[19] == 2
    found = []
    for suffix in SIDE_FILES:
        side = path.with_name(path.name + suffix)
        try:
            info = os.lstat(side)
        except FileNotFoundError:
            continue
        except OSError as exc:
            found.append((side, f"cannot be read: {exc.strerror or exc}"))
            continue
        if not stat.S_ISREG(info.st_mode):
            found.append((side, _kind(info.st_mode)))
        elif not database:
            found.append((side, "there is no database beside it"))
        elif suffix == "-journal" and not _journal_of(_head(side, 28), header):
            found.append((side, "not a journal sqlite wrote for it"))
        elif suffix != "-journal" and not wal_mode:
            found.append((side, "the database keeps no write-ahead log"))
    return found


class Store:
    """A results database at ``path`` (created on first use, in a folder that must exist: a mistyped
    ``--db`` path makes no folders). Every problem opening or writing it is a FormatError naming the file.

    The path must name the database itself: a symbolic link there (dangling or not) or anything but a
    regular file is refused before sqlite touches it, as every file edgematch writes refuses them (sqlite
    would create or write the link's target). Side files beside it that sqlite did not make for this
    database (:func:`foreign_side_files`) are refused too: sqlite would delete them on opening."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        database_problem(self.path)
        foreign = foreign_side_files(self.path)
        if foreign:
            names = "; ".join(f"{side.name} ({why})" for side, why in foreign)
            one = len(foreign) == 1
            raise FormatError(f"refused: beside it {'is' if one else 'are'} {names}, not made by sqlite for this "
                              f"database; opening the database would delete {'it' if one else 'them'} "
                              f"(move {'it' if one else 'them'} away, or name another --db)", self.path)
        try:
            # nofollow: a link planted between the check above and this open is refused by sqlite itself
            self.db = sqlite3.connect(f"file:{quote(str(self.path))}?nofollow=1", uri=True)
        except sqlite3.Error as exc:
            raise FormatError(f"cannot open the results database: {exc}", self.path) from None
        self.db.row_factory = sqlite3.Row
        try:
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.OperationalError as exc:  # cannot open or read it (no permission, a read-only place)
            self.db.close()
            raise FormatError(f"cannot open the results database: {exc}", self.path) from None
        except sqlite3.DatabaseError as exc:
            self.db.close()
            raise FormatError(f"not a results database: {exc}", self.path) from None
        if tables and version in (1, 2) and "runs" in tables:
            self._migrate(version)
            version = SCHEMA_VERSION
        if tables and (version != SCHEMA_VERSION or "runs" not in tables):
            self.db.close()
            raise FormatError(f"not an edgematch results database of schema {SCHEMA_VERSION} "
                              f"(schema {version}, tables {', '.join(sorted(tables))})", self.path)
        if not tables:  # a new database (an existing one is only read unless a bench writes to it)
            try:
                with self._writing():
                    self.db.executescript(_SCHEMA)
                    self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            except FormatError:
                self.db.close()
                raise

    legacy = False  # a schema 1 database read without migrating (read-only)

    def _migrate(self, version: int) -> None:
        """Schema 1 -> 2 -> 3: add the new run columns (old runs: fingerprint unknown, nothing measured, no
        scores). A database this process may not write is read as it is; the missing columns read as their
        defaults."""
        added = (_ADDED if version == 1 else {}) | _ADDED_3
        try:
            with self.db:
                for column, kind in added.items():
                    self.db.execute(f"ALTER TABLE runs ADD COLUMN {column} {kind}")
                self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except sqlite3.OperationalError:
            self.legacy = version == 1

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """One transaction; a database this process cannot write (a read-only file or folder, a full disk,
        one locked by another process) is a FormatError naming the file, not sqlite's bare message."""
        try:
            with self.db:
                yield
        except sqlite3.OperationalError as exc:
            raise FormatError(f"cannot write the results database: {exc}", self.path) from None

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing -------------------------------------------------------------------------------------

    def new_session(self, suite: Suite, source: str, jobs: int, environment: dict[str, Any]) -> int:
        with self._writing():
            cursor = self.db.execute(
                "INSERT INTO sessions (started, state, suite, source, plan, jobs, environment) "
                "VALUES (?, 'running', ?, ?, ?, ?, ?)",
                (_now(), suite.name, source, json.dumps(suite.as_dict()), jobs, json.dumps(environment)))
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def add_run(self, session: int, record: RunRecord) -> None:
        """Store one finished run, committed at once."""
        values = record.as_dict()
        for key in _JSON:
            values[key] = json.dumps(values[key])
        columns = [_COLUMNS.get(k, k) for k in values]
        with self._writing():
            self.db.execute(
                f"INSERT INTO runs (session, finished, {', '.join(columns)}) "
                f"VALUES (?, ?, {', '.join('?' * len(values))})", (session, _now(), *values.values()))

    def close_session(self, session: int, elapsed: float, complete: bool) -> None:
        """Record a stretch of benching: ``finished`` when every planned run is stored, else ``interrupted``."""
        with self._writing():
            self.db.execute(
                "UPDATE sessions SET elapsed = elapsed + ?, state = ?, finished = ? WHERE id = ?",
                (elapsed, "finished" if complete else "interrupted", _now() if complete else None, session))

    def reopen(self, session: int) -> None:
        with self._writing():
            self.db.execute("UPDATE sessions SET state = 'running' WHERE id = ?", (session,))

    # -- reading -------------------------------------------------------------------------------------

    def sessions(self) -> list[Session]:
        rows = self.db.execute("SELECT * FROM sessions ORDER BY id").fetchall()
        return [self._session(row) for row in rows]

    def session(self, which: int | None = None) -> Session:
        """Session ``which``, or the latest one."""
        if which is None:
            row = self.db.execute("SELECT * FROM sessions ORDER BY id DESC LIMIT 1").fetchone()
            if row is None:
                raise UsageError(f"{self.path}: no bench sessions yet (run `edgematch bench` first)")
        else:
            row = self.db.execute("SELECT * FROM sessions WHERE id = ?", (which,)).fetchone()
            if row is None:
                known = ", ".join(str(s.id) for s in self.sessions()) or "none"
                raise UsageError(f"{self.path}: no session {which} (sessions: {known})")
        return self._session(row)

    def _session(self, row: sqlite3.Row) -> Session:
        done = self.db.execute("SELECT COUNT(*) FROM runs WHERE session = ?", (row["id"],)).fetchone()[0]
        return Session(row["id"], row["started"], row["finished"], row["state"], row["elapsed"],
                       Suite.from_dict(json.loads(row["plan"])), row["source"], row["jobs"],
                       json.loads(row["environment"]), done)

    def runs(self, session: int) -> list[RunRecord]:
        """The session's runs in the order they finished, disagreeing answers recategorised as wrong."""
        names = [f.name for f in fields(RunRecord)]
        defaults = {f.name: f.default for f in fields(RunRecord)} | {"history": "[]", "board": "[]"}
        records = []
        for row in self.db.execute("SELECT * FROM runs WHERE session = ? ORDER BY id", (session,)):
            present = row.keys()
            values = {name: row[_COLUMNS.get(name, name)] if _COLUMNS.get(name, name) in present else defaults[name]
                      for name in names}
            for key in _JSON:
                values[key] = json.loads(values[key])
            values["history"] = [tuple(step) for step in values["history"]]
            values["board"] = [tuple(cell) for cell in values["board"]]
            records.append(RunRecord(**values))
        return settle(records)

    def unknown_fingerprints(self, session: int) -> int:
        """How many of the session's runs were stored without their puzzle's fingerprint (before schema 2)."""
        if self.legacy:
            return self.db.execute("SELECT COUNT(*) FROM runs WHERE session = ?", (session,)).fetchone()[0]
        return self.db.execute("SELECT COUNT(*) FROM runs WHERE session = ? AND fingerprint = ?",
                               (session, UNKNOWN_FINGERPRINT)).fetchone()[0]

    def update_environment(self, session: int, **values: Any) -> None:
        """Add to the session's stored environment (the load average after a stretch of benching)."""
        row = self.db.execute("SELECT environment FROM sessions WHERE id = ?", (session,)).fetchone()
        environment = json.loads(row[0]) | values
        with self._writing():
            self.db.execute("UPDATE sessions SET environment = ? WHERE id = ?", (json.dumps(environment), session))

    def done(self, session: int) -> dict[tuple[str, str, str, int], str]:
        """(instance, backend, task, repetition) of every stored run of the session, with its puzzle's
        fingerprint (``""`` when unknown)."""
        fingerprint = "''" if self.legacy else "fingerprint"
        repetition = "0" if self.legacy else "repetition"
        return {(r[0], r[1], r[2], r[3]): r[4] for r in self.db.execute(
            f"SELECT instance, backend, task, {repetition}, {fingerprint} FROM runs WHERE session = ?", (session,))}
