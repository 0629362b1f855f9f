"""The names of a trace's files, defined once (CLI.md, "The trace directory").

manifest.json                  the run's record (core/manifest.py)
N-request.json                 step N's request in fc's internal format
N-request.<format>.json        ... as it went on the wire (<format>: wire/registry.py)
N-response.json                the answer, internal
N-response.<format>.json       ... as it came (a stream: assembled)
N-response.<format>.sse        a stream's raw bytes
mcp-<server>.jsonl             an MCP server's JSON-RPC, one message a line (fccli/mcp/wiretap.py)
mcp-<server>.stderr            a stdio MCP server's stderr, as it wrote it
"""

from __future__ import annotations

import re
from pathlib import Path

MANIFEST = "manifest.json"
TRACES_ROOT = Path("traces")
"""Where `fc run` writes traces by default, and where readers look when given none."""

STEP_FILE = re.compile(r"(\d+)-(request|response)(?:\.([a-z][a-z-]*))?\.(json|sse)")
"""A step's file: (number, role, format or None for internal, extension)."""
MCP_LOG = re.compile(r"mcp-([a-z0-9_-]+)\.jsonl")
"""An MCP server's traffic: (its name in the trace)."""
LOCK = ".fc-writing"
"""The lock a run holds on its trace directory while it writes."""
_FC_FILE = (
    r"manifest\.json|\d+-(?:request|response)(?:\.[a-z][a-z-]*)?\.(?:json|sse)"
    r"|mcp-[a-z0-9_-]+\.(?:jsonl|stderr)"
)
TRACE_FILE = rf"(?:{_FC_FILE})|\.(?:{_FC_FILE})\.[A-Za-z0-9_]+\.tmp|{re.escape(LOCK)}"
"""What fc writes into a trace directory, its temporary files (`.NAME.PID_N.tmp`, or
`.NAME.RANDOM.tmp`) and its lock included: --force replaces these, and only these. Kept as text:
only a writer replacing a trace compiles it, not every reader of one."""


def step_file(step: int, role: str, fmt: str | None = None, ext: str = "json") -> str:
    """Name a step's file: `2-request.json`, `2-request.deepseek.json`, `1-response.anthropic.sse`.

    `fmt` None: the internal format."""
    return f"{step}-{role}" + (f".{fmt}" if fmt else "") + f".{ext}"
