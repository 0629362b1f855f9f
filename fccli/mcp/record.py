"""`fc mcp record -- COMMAND`: stand between an MCP client and a stdio server, record both ways.

An MCP client (an IDE, a desktop assistant, an agent) is pointed at `fc mcp record -- COMMAND`
instead of COMMAND: fc starts the server, relays every line the client writes to the server's
stdin and every line the server writes back to fc's stdout, unchanged, byte for byte, and
keeps each in the trace's `mcp-<server>.jsonl` (wiretap.py) as it passes. The server's stderr
goes to `mcp-<server>.stderr`. The trace has no steps (no model was asked): its manifest names
the server, its protocol version and server info, read from the `initialize` that passed.

No SDK needed: the relay reads lines, it does not speak the protocol.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from fccli.core.errors import UsageError
from fccli.core.manifest import Manifest
from fccli.i18n import Msg
from fccli.mcp.servers import label_for, server_spec
from fccli.mcp.wiretap import HEAD_KEPT, KEPT_BYTES, Wiretap
from fccli.trace.mcp_log import McpLog, message
from fccli.trace.names import TRACES_ROOT
from fccli.trace.writer import TraceWriter, default_dir, prepare_dir

RECORDED_BY = "fc mcp record"


def record(command: list[str], out: Path | None, *, force: bool = False) -> Path:
    """Relay stdin/stdout between the client and COMMAND until either side ends; return the
    trace it wrote."""
    import shlex

    if not command:
        raise UsageError(
            Msg("fc mcp record needs the server's command after --"),
            hint="fc mcp record -- npx -y @modelcontextprotocol/server-everything",
        )
    spec = server_spec(shlex.join(command))
    path = prepare_dir(out or default_dir(TRACES_ROOT, "mcp-record"), force=force)
    trace = TraceWriter(path, Manifest(recorded_by=RECORDED_BY))
    tap = Wiretap(spec.secrets, lambda: None)
    named: list[str] = []

    def received(line: str) -> None:
        tap.received(line)
        if not named and (name := _server_name(tap)) is not None:
            named.append(name)
            tap.move(path / f"mcp-{label_for(spec, name, set())}.jsonl")

    # The server's stderr waits outside the trace until the server is named (its file's name).
    handle, scratch = tempfile.mkstemp(prefix="fc-mcp-record-", suffix=".stderr")
    os.close(handle)
    stderr_path = Path(scratch)
    try:
        with stderr_path.open("wb") as stderr:
            try:
                server = subprocess.Popen(
                    spec.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr
                )
            except OSError as e:
                raise UsageError(
                    Msg(
                        "cannot start {command}: {error}",
                        command=spec.shown(),
                        error=e.strerror or str(e),
                    )
                ) from None
            # Each message is written as it passes (a killed record keeps them), under the
            # command's name until the server names itself in its answer to initialize.
            tap.attach(path / f"mcp-{label_for(spec, None, set())}.jsonl")
            code = _relay(server, tap, _own_stdin(), sys.stdout.buffer, received)
        tap.event("exit", code=code)
        label = label_for(spec, _server_name(tap), set())
        kept = stderr_path.read_bytes()
        (path / f"mcp-{label}.stderr").write_bytes(spec.secrets.raw(kept) if spec.secrets else kept)
        trace.manifest.mcp_servers = [_server_record(spec, label, tap)]
        trace.finish("ok")
    except BaseException as e:
        trace.finish("error", error=e)
        raise
    finally:
        stderr_path.unlink(missing_ok=True)
    return path


def _own_stdin() -> IO[bytes]:
    """Return stdin as a reader of fc's own: the thread that reads it may still wait on it when
    a signal ends fc, and Python's shutdown, closing sys.stdin, would wait for that thread's
    lock (a fatal error, not exit 143)."""
    try:
        return os.fdopen(os.dup(sys.stdin.fileno()), "rb")
    except (AttributeError, OSError, ValueError):  # no file descriptor (a test's stdin)
        return sys.stdin.buffer


def _relay(
    server: subprocess.Popen[bytes],
    tap: Wiretap,
    inbound: IO[bytes],
    outbound: IO[bytes],
    received: Callable[[str], None],
) -> int:
    """Copy lines both ways, each kept as it passes; return the server's exit code."""
    assert server.stdin is not None and server.stdout is not None
    to_server, from_server = server.stdin, server.stdout

    def upstream() -> None:
        with contextlib.suppress(OSError, ValueError):
            _copy_lines(inbound, to_server, tap, tap.sent)
        with contextlib.suppress(OSError):
            to_server.close()  # the client is done: so is the server's stdin

    reader = threading.Thread(target=upstream, name="fc-mcp-record-in", daemon=True)
    reader.start()
    with contextlib.suppress(OSError, ValueError):
        _copy_lines(from_server, outbound, tap, received)
    return server.wait()


def _copy_lines(
    source: IO[bytes], sink: IO[bytes], tap: Wiretap, keep: Callable[[str], None]
) -> None:
    """Copy `source` to `sink` line by line, each line kept before it is passed on; of a line past
    KEPT_BYTES, its start kept and its length noted (`line_cut`), all of it passed on."""
    cut = 0
    for piece in iter(lambda: source.readline(KEPT_BYTES), b""):
        whole = piece.endswith(b"\n") or len(piece) < KEPT_BYTES  # its end, or the stream's
        if not cut and whole:
            keep(_text(piece))
        elif not cut:
            keep(_text(piece[:HEAD_KEPT]) + "…")
        sink.write(piece)  # after it is kept: what the other side saw is in the log
        sink.flush()
        if cut or not whole:
            cut += len(piece)
            if whole:
                tap.event("line_cut", bytes=cut, max_bytes=KEPT_BYTES)
                cut = 0
    if cut:
        tap.event("line_cut", bytes=cut, max_bytes=KEPT_BYTES)


def _text(line: bytes) -> str:
    return line.decode("utf-8", errors="replace").removesuffix("\n").removesuffix("\r")


def _server_name(tap: Wiretap) -> str | None:
    info = initialized(tap.messages).get("serverInfo")
    name = info.get("name") if isinstance(info, dict) else None
    return name if isinstance(name, str) else None


def initialized(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The result of the `initialize` that passed (empty if none did); a line kept as raw text
    (JSON not written compact, as Python's `json.dumps` writes it) is read too."""
    asked = {
        str(message(e).get("id")) for e in messages if message(e).get("method") == "initialize"
    }
    for entry in messages:
        body = message(entry)
        if entry.get("dir") == "received" and str(body.get("id")) in asked:
            result = body.get("result")
            if isinstance(result, dict):
                return result
    return {}


def _server_record(spec: Any, label: str, tap: Wiretap) -> dict[str, Any]:
    result = initialized(tap.messages)
    version = result.get("protocolVersion")
    info = result.get("serverInfo")
    return {
        "name": label,
        "transport": "stdio",
        "server": spec.shown(),
        "protocol_version": version if isinstance(version, str) else None,
        "server_info": info if isinstance(info, dict) else None,
        "session_id": None,
        "tools": McpLog(label, f"mcp-{label}.jsonl", tap.messages).listed() or [],
        "log": f"mcp-{label}.jsonl",
        "stderr": f"mcp-{label}.stderr",
    }
