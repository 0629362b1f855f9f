"""The names of a trace's files, defined once (CLI.md, "The trace directory").

manifest.json                  the run's record (core/manifest.py)
N-request.json                 step N's request in fc's internal format
N-request.<format>.json        ... as it went on the wire (<format>: wire/registry.py)
N-response.json                the answer, internal
N-response.<format>.json       ... as it came (a stream: assembled)
N-response.<format>.sse        a stream's raw bytes
"""

from __future__ import annotations

import re
from pathlib import Path

MANIFEST = "manifest.json"
TRACES_ROOT = Path("traces")
"""Where `fc run` writes traces by default, and where readers look when given none."""

STEP_FILE = re.compile(r"(\d+)-(request|response)(?:\.([a-z]+))?\.(json|sse)")
"""A step's file: (number, role, format or None for internal, extension)."""
TRACE_FILE = re.compile(r"(manifest\.json|\d+-(request|response)(\.[a-z]+)?\.(json|sse)|\..+\.tmp)")
"""What fc writes into a trace directory (temporary files of an atomic write included)."""


def step_file(step: int, role: str, fmt: str | None = None, ext: str = "json") -> str:
    """`2-request.json`, `2-request.deepseek.json`, `1-response.anthropic.sse`."""
    return f"{step}-{role}" + (f".{fmt}" if fmt else "") + f".{ext}"
