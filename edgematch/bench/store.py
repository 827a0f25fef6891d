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
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

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


class Store:
    """A results database at ``path`` (created on first use, in a folder that must exist: a mistyped
    ``--db`` path makes no folders). Every problem opening or writing it is a FormatError naming the file."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        if self.path.is_dir():
            raise FormatError("is a folder, not a results database", self.path)
        if self.path.exists() and not self.path.is_file():
            raise FormatError("is not a regular file (a device or a pipe), not a results database", self.path)
        if not self.path.parent.is_dir():
            raise FormatError(f"there is no folder {str(self.path.parent)!r} for the results database "
                              "(make it first)", self.path)
        try:
            self.db = sqlite3.connect(self.path)
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
