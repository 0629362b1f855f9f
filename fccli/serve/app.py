"""The ASGI application of `fc serve`: each request answered with the bytes of the step it is.

What it answers (docs/reference/serve.md):

- a request that matches a step: the step's response file exactly as recorded, with the status
  it came with (a step that failed answers its error again); asked to stream, the step's raw
  stream (`.sse`) event by event; not asked to stream, a streamed step's assembled answer;
- asked to stream a step that was recorded without a stream: HTTP 400 saying so (fc does not
  make up a stream the provider never sent);
- a request that matches no step: HTTP 400 in the provider's error shape, saying which step came
  closest and what differs; a body that is not JSON: HTTP 400; a path no format answers at: 404.

Every request is said on the terminal in one line, a miss with the same words the client got
(and its next differences below).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from fccli.core.controls import escape_controls
from fccli.core.errors import InputFileError
from fccli.core.jsonio import parse_json
from fccli.i18n import Msg, _, localized
from fccli.serve.guard import Guard, Guarded
from fccli.serve.match import Matcher, Miss, history_size
from fccli.serve.recordings import MAX_REQUEST_BYTES, Played, Recorded
from fccli.wire.registry import get_format

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

MORE_MESSAGES = 1000
"""How many more messages than the longest recorded history a request may hold."""
MORE_SHOWN = 5
"""Differences after the first that the terminal lists under a miss."""
SSE_TYPE = "text/event-stream; charset=utf-8"
"""What OpenAI, DeepSeek and Anthropic send a stream as."""


def make_app(
    recordings: list[Recorded],
    say: Callable[[str], None],
    guard: Guard | None = None,
    player: Player | None = None,
) -> Any:
    """The Starlette app serving `recordings`, behind `guard` (guard.py); `say` prints one line
    on the terminal. `player`: one of its own (the pytest plugin's keeps what it played)."""
    from starlette.applications import Starlette
    from starlette.routing import Route

    player = player or Player(recordings, say)
    methods = ["GET", "POST", "PUT", "PATCH", "DELETE"]
    app = Starlette(routes=[Route("/{path:path}", player.answer, methods=methods)])
    return Guarded(app, guard or Guard(), say)


MAX_BODY_BYTES = MAX_REQUEST_BYTES
"""A request above this gets HTTP 413 before it is all read: none recorded is that large."""


class Player:
    def __init__(
        self, recordings: list[Recorded], say: Callable[[str], None], matcher: Matcher | None = None
    ) -> None:
        self.matcher = matcher or Matcher(recordings)
        self.most_messages = MORE_MESSAGES + max(
            (history_size(r.request) for r in recordings), default=0
        )
        """A request with more messages than this is refused before it is matched."""
        self.say = say
        self.served = list(dict.fromkeys(r.format for r in recordings))
        """The formats of the served traces, in the order given."""

    async def answer(self, request: Request) -> Response:
        try:
            return await self._answer(request)
        except Exception as e:  # a bug in fc: one line on the terminal, a 500 to the client
            from starlette.responses import JSONResponse

            said = Msg(
                "internal error: {kind}: {error}",
                kind=escape_controls(type(e).__name__),
                error=escape_controls(str(e)),
            )
            self.say(_("{error} (a bug in fc)", error=said))
            body = get_format(self.served[0]).error_body(500, f"fc serve: {said}")
            return JSONResponse(body, 500)

    async def _answer(self, request: Request) -> Response:
        from fccli.core.secrets import header_secrets
        from fccli.wire.registry import formats_at

        path = request.url.path
        shown = escape_controls(f"{request.method} {path}")
        at = formats_at(path)
        formats = [f.name for f in at]
        # The error shape: the served format answering here, else any answering here, else the
        # first served (a path no provider has: its clients read errors of the traces' format).
        speaker = next((n for n in self.served if n in formats), None)
        speaker = speaker or (formats[0] if formats else self.served[0])
        fmt = get_format(speaker)
        if not at or request.method != "POST":
            where = fmt.routes[0].pattern if fmt.routes else Msg("the model's endpoint")
            return self._refuse(
                fmt,
                404,
                shown,
                Msg("no {request} here: it answers POST {where}", request=shown, where=where),
            )
        parts, size = [], 0
        async for piece in request.stream():  # not held past the limit (a 200 MB body took 2 GB)
            size += len(piece)
            if size > MAX_BODY_BYTES:
                said = Msg(
                    "the request body is above {limit} bytes: no recorded step is that large",
                    limit=format(MAX_BODY_BYTES, ","),
                )
                return self._refuse(fmt, 413, shown, said)
            parts.append(piece)
        raw = b"".join(parts)
        # Reading and matching a large body takes a while: in a thread, not holding up the
        # other clients' requests.
        read = await asyncio.to_thread(self._find, raw, fmt, path, formats)
        if isinstance(read, str):
            return self._refuse(fmt, 400, shown, read)
        found, stream = read
        if isinstance(found, Miss):
            # A miss quotes the request: the agent's key, should a message hold it, is masked.
            key = header_secrets(request.headers.raw, list(request.query_params.values()))
            refused = self._refuse(fmt, 400, shown, found.message, key.text)
            for difference in found.differences[1 : 1 + MORE_SHOWN]:
                # the terminal has room for more
                self.say("  " + _("also {difference}", difference=key.text(localized(difference))))
            return refused
        return self._play(fmt, found, stream, shown)

    def _find(
        self, raw: bytes, fmt: Any, path: str, formats: list[str]
    ) -> tuple[Recorded | Miss, bool] | Msg:
        """Read a request body and find its step (and whether it asks to stream); or say why
        the body is no request."""
        from fccli.wire.registry import route_at

        if not raw.strip():
            return Msg("the request body is empty: no JSON request")
        try:
            body = parse_json(raw, "the request body")
        except InputFileError as e:
            return Msg("the request body is not JSON ({problem})", problem=e.problem)
        if not isinstance(body, dict):
            return Msg("the request body is not a JSON object")
        size = history_size(body)
        if size > self.most_messages:
            return Msg(
                "the request holds {count} messages, far more than any recorded step",
                count=format(size, ","),
            )
        route = route_at(fmt, path)
        url_model = route.captured(path).get("model") if route else None
        if url_model and "model" not in body:  # compared as the recording's (recordings.py)
            body = {"model": url_model, **body}
        stream = route.streams if route and route.streams is not None else body.get("stream")
        return self.matcher.find(formats, body, stream is True), stream is True

    def _play(self, fmt: Any, step: Recorded, stream: bool, shown: str) -> Response:
        from starlette.responses import StreamingResponse

        if step.status != 200 and step.response is not None:
            self.say(
                _(
                    "{request}: {step}, its recorded error (HTTP {status})",
                    request=shown,
                    step=step.label,
                    status=step.status,
                )
            )
            return _file(step.response, step.status)
        if stream and step.stream is not None:
            self.say(_("{request}: {step}, streamed as recorded", request=shown, step=step.label))
            return StreamingResponse(
                _events(step.stream.pieces()),
                media_type=_media_type(fmt),
                headers={"Cache-Control": "no-cache"},
            )
        if stream:
            return self._refuse(
                fmt,
                400,
                shown,
                Msg(
                    "{step} matches, but it was recorded without a stream, and fc serve plays "
                    "only what the provider sent: ask without `stream`, or record with streaming "
                    "(fc run --stream)",
                    step=step.label,
                ),
            )
        if step.response is None:
            return self._refuse(
                fmt,
                400,
                shown,
                Msg("{step} matches, but the trace has no answer for it", step=step.label),
            )
        if step.stream is not None:
            self.say(
                _(
                    "{request}: {step} (assembled from its recorded stream)",
                    request=shown,
                    step=step.label,
                )
            )
        else:
            self.say(f"{shown}: {localized(step.label)}")
        return _file(step.response, 200)

    def _refuse(
        self,
        fmt: Any,
        status: int,
        shown: str,
        message: str,
        mask: Callable[[str], str] = str,
    ) -> Response:
        """`message` (a Msg) said on the terminal in the chosen language; the client's body,
        which its SDK reads, says it in English (wire data). `mask`: what hides the agent's key."""
        from starlette.responses import JSONResponse

        self.say(f"{shown}: HTTP {status}: {mask(localized(message))}")
        return JSONResponse(fmt.error_body(status, f"fc serve: {mask(message)}"), status)


def _media_type(fmt: Any) -> str:
    """Return the content type of a format's stream (SSE's with its charset, where it is SSE)."""
    kind = str(fmt.stream_media_type)
    return SSE_TYPE if kind == "text/event-stream" else kind


def _file(played: Played, status: int) -> Response:
    """Answer with a recorded file, read piece by piece as it is sent."""
    from starlette.responses import StreamingResponse

    length = {"Content-Length": str(played.size)}
    return StreamingResponse(played.pieces(), status, length, "application/json")


def _events(pieces: Iterable[bytes]) -> Iterator[bytes]:
    """The recorded stream, one event at a time (its blank lines kept), as a server sends it;
    an event longer than a piece goes in pieces."""
    held = b""
    for piece in pieces:
        held += piece
        start = 0
        while (end := held.find(b"\n\n", start)) >= 0:
            yield held[start : end + 2]
            start = end + 2
        held = held[start:]
        if len(held) > len(piece):  # no event end in sight: what is held goes now
            yield held
            held = b""
    if held:
        yield held
