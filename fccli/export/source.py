"""The export's one door to the trace reader.

Everything the export needs of `fccli.trace.reader` is named here, so that a change there
shows in one import and nowhere else in the export:

- `read_trace(path)`: the trace directory read as far as it goes (InputFileError when it is
  not a trace at all);
- `resolve_trace(None)`: the newest trace under ./traces, when the command names none;
- `Trace`: `record` (the typed manifest; `manifest` its JSON), `steps`, `results()` (the tool
  results handed back, by call id);
- `Step`: `number`, `record` (the manifest's step), `request`, `response`, `files` (by role),
  `notes` (what could not be read), `tool_runs()`.
"""

from __future__ import annotations

from fccli.trace.reader import Step, Trace, read_trace, resolve_trace

__all__ = ["Step", "Trace", "read_trace", "resolve_trace"]
