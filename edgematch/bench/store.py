"""The results database (SQLite, standard library): sessions with their plan and environment, one row per
finished run, written (and committed) the moment the run finishes, so a killed bench loses nothing done.

A session stores its whole plan (the expanded suite), so ``--resume`` re-reads no suite file and redoes
no run already stored. Reads apply the cross-backend agreement check (:mod:`edgematch.bench.agreement`),
so every reader sees the same categories.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from edgematch.bench.agreement import settle
from edgematch.bench.runner import RunRecord
from edgematch.bench.suite import Suite
from edgematch.errors import FormatError, UsageError

SCHEMA_VERSION = 1

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
    finished TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_session ON runs (session, instance, backend, task);
"""

# RunRecord field -> column, where they differ (``check`` and ``distinct`` are SQL words)
_COLUMNS = {"check": "check_time", "distinct": "distinct_count"}
_JSON = ("counters", "options")


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
        return len(self.suite.runs())


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Store:
    """A results database at ``path`` (created on first use)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        if self.path.is_dir():
            raise FormatError("is a folder, not a results database", self.path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path)
        self.db.row_factory = sqlite3.Row
        try:
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as exc:
            self.db.close()
            raise FormatError(f"not a results database: {exc}", self.path) from None
        if tables and (version != SCHEMA_VERSION or "runs" not in tables):
            self.db.close()
            raise FormatError(f"not an edgematch results database of schema {SCHEMA_VERSION} "
                              f"(schema {version}, tables {', '.join(sorted(tables))})", self.path)
        if not tables:  # a new database (an existing one is only read unless a bench writes to it)
            with self.db:
                self.db.executescript(_SCHEMA)
                self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing -------------------------------------------------------------------------------------

    def new_session(self, suite: Suite, source: str, jobs: int, environment: dict[str, Any]) -> int:
        with self.db:
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
        with self.db:
            self.db.execute(
                f"INSERT INTO runs (session, finished, {', '.join(columns)}) "
                f"VALUES (?, ?, {', '.join('?' * len(values))})", (session, _now(), *values.values()))

    def close_session(self, session: int, elapsed: float, complete: bool) -> None:
        """Record a stretch of benching: ``finished`` when every planned run is stored, else ``interrupted``."""
        with self.db:
            self.db.execute(
                "UPDATE sessions SET elapsed = elapsed + ?, state = ?, finished = ? WHERE id = ?",
                (elapsed, "finished" if complete else "interrupted", _now() if complete else None, session))

    def reopen(self, session: int) -> None:
        with self.db:
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
        records = []
        for row in self.db.execute("SELECT * FROM runs WHERE session = ? ORDER BY id", (session,)):
            values = {name: row[_COLUMNS.get(name, name)] for name in names}
            for key in _JSON:
                values[key] = json.loads(values[key])
            records.append(RunRecord(**values))
        return settle(records)

    def done(self, session: int) -> set[tuple[str, str, str]]:
        """(instance, backend, task) of every stored run of the session."""
        return {(r[0], r[1], r[2]) for r in self.db.execute(
            "SELECT instance, backend, task FROM runs WHERE session = ?", (session,))}
