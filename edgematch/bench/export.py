"""Stored runs out to CSV (one row per run, counters and options as JSON text) or JSON (with the session)."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import fields
from typing import Any

from edgematch.bench.runner import RunRecord
from edgematch.bench.store import Session

FORMATS = ("csv", "json")


def to_csv(session: Session, runs: list[RunRecord]) -> str:
    names = [f.name for f in fields(RunRecord)]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["session", *names])
    for run in runs:
        values = run.as_dict()
        writer.writerow([session.id, *(json.dumps(values[n]) if isinstance(values[n], dict) else
                                       "" if values[n] is None else values[n] for n in names)])
    return buffer.getvalue()


def to_json(session: Session, runs: list[RunRecord]) -> str:
    data: dict[str, Any] = {
        "session": {"id": session.id, "started": session.started, "finished": session.finished,
                    "state": session.state, "elapsed": session.elapsed, "source": session.source,
                    "jobs": session.jobs, "environment": session.environment, "suite": session.suite.as_dict()},
        "runs": [r.as_dict() for r in runs],
    }
    return json.dumps(data, indent=1) + "\n"
