"""`fc serve`: read the traces, bind, say where to point the agent, serve until Ctrl-C."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

from fccli.core.controls import escape_controls
from fccli.i18n import _, localized
from fccli.serve.app import make_app
from fccli.serve.guard import Guard
from fccli.serve.launch import bind, is_loopback, run
from fccli.serve.recordings import MAX_RESPONSE_BYTES, Recorded, load_recordings
from fccli.wire.registry import get_format

JSON_CHECKED_BYTES = 8 * 1024 * 1024
"""The largest response file checked for JSON at start (a larger one is played unchecked)."""


def serve_traces(
    paths: list[Path],
    host: str,
    port: int,
    say: Callable[[str], None],
    allow_origins: Sequence[str] = (),
    max_response_bytes: int = MAX_RESPONSE_BYTES,
) -> None:
    guard = Guard(host, allow_origins)
    recordings = load_recordings(paths, max_response_bytes)
    bound = bind(host, port)
    for line in opening(recordings, paths, bound.url, host):
        say(line)
    run(make_app(recordings, say, guard), bound)


def opening(recordings: list[Recorded], paths: list[Path], url: str, host: str) -> list[str]:
    """What fc serve says once it listens: what it plays, the line to give the agent, and a
    warning when other machines can reach it."""
    formats = list(dict.fromkeys(r.format for r in recordings))
    where = {"steps": len(recordings), "formats": ", ".join(formats), "url": url}
    if len(paths) > 1:
        said = _(
            "fc serve: playing {steps} step(s) of {traces} trace(s) ({formats}) on {url}",
            traces=len(paths),
            **where,
        )
    else:
        said = _(
            "fc serve: playing {steps} step(s) of {trace} ({formats}) on {url}",
            trace=str(paths[0]),
            **where,
        )
    lines = [escape_controls(said)]
    for name in formats:
        sdk = get_format(name).sdk_base_url
        setting = (
            _("point the agent at it: {setting}", setting=sdk[0] + "=" + url + sdk[1])
            if sdk
            else _("base URL {url}", url=url)
        )
        if setting not in lines:
            lines.append(setting)
    for recorded in recordings:
        response = recorded.response
        if (
            response is not None
            and response.size <= JSON_CHECKED_BYTES
            and not _is_json(response.read())
        ):
            lines.append(
                escape_controls(
                    _(
                        "warning: {step}: its response file is not valid JSON; fc serve plays "
                        "it as it is",
                        step=localized(recorded.label),
                    )
                )
            )
    if not is_loopback(host):
        lines.append(
            escape_controls(
                _(
                    "warning: listening on {host}, not only this machine: anyone who can reach "
                    "it gets the traces' answers",
                    host=host,
                )
            )
        )
    return [*lines, _("Ctrl-C stops")]


def _is_json(data: bytes) -> bool:
    """A response file as a person may have edited it: does it still parse? (A recorded error
    that was not JSON, an HTML page from a proxy, is played too, and said.)"""
    try:
        json.loads(data)
    except ValueError:
        return False
    except RecursionError:  # nested deeper than Python reads: JSON all the same
        return True
    return True
