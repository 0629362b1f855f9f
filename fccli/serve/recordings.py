"""The steps `fc serve` can play back, read from trace directories.

A step is played from its wire files alone: the request as it was sent (to match against) and
the response bytes as they came (to answer with), the raw stream beside them when there was one.
The internal files are not needed: a trace fc proxy wrote and one fc run wrote serve alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fccli.core.errors import InputFileError, UsageError
from fccli.core.jsonio import parse_json, read_bytes
from fccli.i18n import Msg
from fccli.trace.reader import read_trace
from fccli.wire.registry import get_format


@dataclass(frozen=True)
class Recorded:
    """One step of a trace, as a provider's answer to one request."""

    label: str
    """(A Msg: fccli/i18n) How the terminal and error messages name it: `step 2`, or `step 2 of traces/a` when
    several traces are served."""
    format: str
    """The trace's wire format (wire/registry.py)."""
    request: Any
    """The wire request as sent, parsed."""
    response: bytes | None
    """`N-response.<format>.json` as stored: the body as received (a stream: assembled);
    None when the run stopped before an answer."""
    stream: bytes | None
    """`N-response.<format>.sse`: the stream's raw bytes, when the step was streamed."""
    status: int = 200
    """The HTTP status the answer came with: the recorded error's, for a step that failed."""


def load_recordings(paths: list[Path]) -> list[Recorded]:
    """Every step of every trace, in the order given (then by step number)."""
    if not paths:
        raise UsageError(Msg("give at least one trace directory to serve"))
    several = len(paths) > 1
    out: list[Recorded] = []
    for path in paths:
        out += _trace_steps(path, several)
    return out


def _trace_steps(path: Path, several: bool) -> list[Recorded]:
    trace = read_trace(path)
    if not trace.steps:
        raise UsageError(Msg("{path} has no steps: there is nothing to play back", path=str(path)))
    fmt = trace.wire_format
    # A format that names the model in the URL (Gemini) has none in the body: the manifest's
    # stands in, so a request to another model's path does not match.
    url_model = trace.manifest.get("model") if fmt and not get_format(fmt).model_in_body else None
    played = [s for s in trace.steps if "wire_request" in s.files]
    if fmt is None or not played:
        raise UsageError(
            Msg(
                "{path} has no wire files: fc serve answers with the bytes the provider sent",
                path=str(path),
            ),
            hint=Msg("it needs N-request.<format>.json and N-response.<format>.json in the trace"),
        )
    if not get_format(fmt).routes:
        raise UsageError(
            Msg(
                "{path} is in the {format} format, which fc serve cannot answer in yet",
                path=str(path),
                format=fmt,
            )
        )
    error = trace.manifest.get("error")
    error = error if isinstance(error, dict) else {}
    out = []
    for step in played:
        status = error.get("http_status") if error.get("step") == step.number else None
        failed = step.error_body is not None and isinstance(status, int)
        label = (
            Msg("step {step} of {trace}", step=step.number, trace=str(path))
            if several
            else Msg("step {step}", step=step.number)
        )
        out.append(
            Recorded(
                label=label,
                format=fmt,
                request=_with_url_model(_request(step.files["wire_request"]), url_model),
                response=_bytes(step.files.get("wire_response")),
                stream=_bytes(step.files.get("wire_stream")),
                status=status if failed and isinstance(status, int) else 200,
            )
        )
    return out


def _request(path: Path) -> Any:
    data = parse_json(read_bytes(path), str(path))
    if not isinstance(data, dict):
        raise InputFileError(str(path), Msg("is not a request: expected a JSON object"))
    return data


def _with_url_model(request: Any, model: Any) -> Any:
    if isinstance(model, str) and model and "model" not in request:
        return {"model": model, **request}
    return request


def _bytes(path: Path | None) -> bytes | None:
    return None if path is None else read_bytes(path)
