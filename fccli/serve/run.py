"""`fc serve`: read the traces, bind, say where to point the agent, serve until Ctrl-C."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fccli.serve.recordings import Recorded, load_recordings


def serve_traces(paths: list[Path], host: str, port: int, say: Callable[[str], None]) -> None:
    from fccli.serve.app import make_app
    from fccli.server.launch import bind, run

    recordings = load_recordings(paths)
    bound = bind(host, port)
    for line in opening(recordings, paths, bound.url, host):
        say(line)
    run(make_app(recordings, say), bound)


def opening(recordings: list[Recorded], paths: list[Path], url: str, host: str) -> list[str]:
    """What fc serve says once it listens: what it plays, the line to give the agent, and a
    warning when other machines can reach it."""
    from fccli.core.controls import escape_controls
    from fccli.server.launch import is_loopback
    from fccli.wire.registry import get_format

    formats = list(dict.fromkeys(r.format for r in recordings))
    traces = f"{len(paths)} trace(s)" if len(paths) > 1 else str(paths[0])
    said = (
        f"fc serve: playing {len(recordings)} step(s) of {traces} ({', '.join(formats)}) on {url}"
    )
    lines = [escape_controls(said)]
    for name in formats:
        sdk = get_format(name).sdk_base_url
        setting = f"point the agent at it: {sdk[0]}={url}{sdk[1]}" if sdk else f"base URL {url}"
        if setting not in lines:
            lines.append(setting)
    if not is_loopback(host):
        lines.append(
            escape_controls(
                f"warning: listening on {host}, not only this machine: anyone who can reach it "
                "gets the traces' answers"
            )
        )
    return [*lines, "Ctrl-C stops"]
