"""The facts of a trace directory or of one file, read by fc's own readers (fccli/trace)."""

from __future__ import annotations

from pathlib import Path

from fccli.core.errors import InputFileError
from fccli.core.models import Request, Response
from fccli.expect.facts import Facts, Step, from_history, from_response, from_steps
from fccli.i18n import Msg


def facts_of(path: Path) -> Facts:
    """Read a trace directory, or one request, response or messages file, into facts."""
    if path.is_dir():
        return _trace_facts(path)
    from fccli.trace.reader import read_document

    doc = read_document(str(path))
    name = path.name
    if isinstance(doc.internal, Response):
        return from_response(doc.internal, name)
    if isinstance(doc.internal, Request):
        return from_history(doc.internal.messages, name, "$.messages")
    if isinstance(doc.internal, list):
        return from_history(doc.internal, name, "$")
    raise InputFileError(str(path), Msg("holds no request or response fc can read"))


def _trace_facts(path: Path) -> Facts:
    from fccli.trace.reader import read_trace

    trace = read_trace(path)
    records = {r.step: r for r in trace.record.steps}
    raw = trace.manifest.get("steps")
    # where each step's record is in the file (the typed manifest leaves out a broken one)
    index = {
        r.get("step"): i
        for i, r in enumerate(raw if isinstance(raw, list) else [])
        if isinstance(r, dict)
    }
    steps = []
    for s in trace.steps:
        record = records.get(s.number)
        runs = record.tool_runs if record is not None else []
        record_path = f"$.steps[{index[s.number]}]" if s.number in index else None
        steps.append(Step(s.number, s.request, s.response, runs, record_path))
    facts = from_steps(steps)
    facts.notes = [(s.number, note) for s in trace.steps for note in s.notes]
    return facts
