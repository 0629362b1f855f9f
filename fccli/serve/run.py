"""`fc serve`: read the traces, bind, say where to point the agent, serve until Ctrl-C."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fccli.serve.recordings import Recorded, load_recordings


def serve_traces(paths: list[Path], host: str, port: int, say: Callable[[str], None]) -> None:
    from fccli.server.launch import bind, exposure_warning, run

    recordings = load_recordings(paths)
    bound = bind(host, port)
    for line in opening(recordings, paths, bound.url):
        say(line)
    warning = exposure_warning(host)
    if warning:
        say(f"warning: {warning}")
    from fccli.serve.app import make_app

    run(make_app(recordings, say), bound)


def opening(recordings: list[Recorded], paths: list[Path], url: str) -> list[str]:
    """What fc serve says once it listens: what it plays, and the line to give the agent."""
    from fccli.core.controls import escape_controls
    from fccli.wire.registry import get_format

    formats = list(dict.fromkeys(r.format for r in recordings))
    what = (
        f"{len(recordings)} step(s) of {len(paths)} trace(s)"
        if len(paths) > 1
        else (f"{len(recordings)} step(s) of {paths[0]}")
    )
    lines = [escape_controls(f"fc serve: playing {what} ({', '.join(formats)}) on {url}")]
    for name in formats:
        sdk = get_format(name).sdk_base_url
        setting = f"{sdk[0]}={url}{sdk[1]}" if sdk else f"base URL {url}"
        if f"point the agent at it: {setting}" not in lines:
            lines.append(f"point the agent at it: {setting}")
    return [*lines, "Ctrl-C stops"]
