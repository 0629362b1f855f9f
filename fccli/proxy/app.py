"""The proxy as an ASGI app: each request forwarded unchanged, its answer streamed back as it
arrives (each piece goes on to the client before fc records it), model requests recorded.

What it answers itself, in the provider's own error shape so the client's SDK reads it:
502 when the upstream cannot be reached, 400 for a request `--strict-check` stops. Everything
else the client gets is the upstream's answer, byte for byte, headers and status included.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fccli.core.errors import FcError, FindingsError, InputFileError, ProviderError
from fccli.core.jsonio import parse_json
from fccli.core.manifest import Manifest, Options
from fccli.core.models import Message, Request
from fccli.core.secrets import Secrets
from fccli.i18n import Msg
from fccli.proxy.conversations import Conversation, Conversations, keys_of
from fccli.proxy.journal import Journal
from fccli.proxy.recorder import Step, checks_of, header_secrets, question_of, said_of
from fccli.proxy.target import Target
from fccli.proxy.upstreams import Upstreams
from fccli.wire.base import openai_error_body
from fccli.wire.registry import WireFormat, route_at

if TYPE_CHECKING:
    import httpx

    from fccli.render.proxy_view import ProxyView

HOP_BY_HOP = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-authenticate",
        b"proxy-authorization",
        b"te",
        b"trailer",
        b"transfer-encoding",
        b"upgrade",
    }
)
"""Headers about one connection (RFC 9110, 7.6.1), not the message: never passed on."""
NOT_FORWARDED = HOP_BY_HOP | {b"host", b"content-length"}
"""Also set anew for the upstream connection: its host, the body's length (httpx counts it)."""


STOPPED = Msg("fc proxy stopped before the answer ended")


@dataclass
class Settings:
    out: Path
    strict_check: bool = False
    max_record_bytes: int = 16 * 1024 * 1024
    """A request or answer body above this is forwarded and not recorded."""
    timeout: float = 600.0
    """Seconds an answer may go silent before fc gives up on it."""


class ProxyApp:
    def __init__(self, target: Target, settings: Settings, view: ProxyView) -> None:
        self.target = target
        self.settings = settings
        self.view = view
        self.conversations = Conversations()
        self.journal = Journal(view.bug)
        """Writes the traces and prints, in order, off the requests' path (journal.py)."""
        self.upstreams = Upstreams(settings.timeout)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopped = False
        self.stopping: Callable[[], bool] = lambda: False
        """Whether the server is shutting down (set by server/launch.py)."""

    # the ASGI entry

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        try:
            await self._http(scope, receive, send)
        except Exception as e:  # a bug in fc: one line on the terminal, a 500 to the client
            self.journal(self.view.bug, e)
            with contextlib.suppress(Exception):
                await _answer(send, 500, openai_error_body(500, f"fc proxy: internal error: {e}"))

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    def close(self) -> None:
        """Stopped (Ctrl-C): every trace still open is closed as `interrupted`, said once,
        and the journal is written out."""
        if self._stopped:
            return
        self._stopped = True
        self.journal(self._close_open, list(self.conversations.open))
        self.journal.close()

    def _close_open(self, conversations: list[Conversation]) -> None:
        from fccli.core.errors import Interrupted

        stopped = Interrupted(Msg("fc proxy stopped before the conversation ended"))
        closed = [c for c in conversations if c.finish("interrupted", stopped)]
        self.view.stopped(closed)

    async def aclose(self) -> None:
        self.close()
        await self.upstreams.aclose()

    def flush(self) -> None:
        """Wait until every trace file and line so far is written (tests)."""
        self.journal.flush()

    def _settle(self, conversation: Conversation, answer: Message | None, closed: bool) -> None:
        """From the journal's thread: a step is recorded; the loop learns its outcome."""
        loop = self._loop
        if loop is None or loop.is_closed():
            self.conversations.settle(conversation, answer, closed)
            return
        with contextlib.suppress(RuntimeError):  # the loop has just stopped
            loop.call_soon_threadsafe(self.conversations.settle, conversation, answer, closed)

    # one request

    async def _http(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self._loop = self._loop or asyncio.get_running_loop()
        body = await _read_body(receive)
        if body is None:  # the client left before its request was complete
            return
        method: str = scope["method"]
        path: str = scope["path"]
        query: bytes = scope.get("query_string", b"")
        fmt = self.target.format_at(path) if method == "POST" else None
        secrets = header_secrets(scope["headers"], _query_values(query))
        step: Step | None = None
        if fmt is not None:
            prepared = await self._prepare(fmt, path, body, secrets)
            if isinstance(prepared, Msg):  # --strict-check: not forwarded
                await _answer(send, 400, fmt.error_body(400, prepared))
                return
            step = prepared
        client = self.upstreams.lend()
        try:  # given back once the upstream's answer is closed (_Relay.run), however it ended
            await self._forward(client, (scope, receive, send), body, fmt, step, secrets)
        finally:
            self.upstreams.give_back(client)

    async def _forward(
        self,
        client: httpx.AsyncClient,
        asgi: tuple[dict[str, Any], Any, Any],
        body: bytes,
        fmt: WireFormat | None,
        step: Step | None,
        secrets: Secrets,
    ) -> None:
        """The request sent upstream with `client`, its answer relayed to the client."""
        scope, receive, send = asgi
        method: str = scope["method"]
        path: str = scope["path"]
        raw_path = scope.get("raw_path") or path.encode("utf-8")
        query: bytes = scope.get("query_string", b"")
        path_and_query = raw_path.decode("latin-1") + (
            "?" + query.decode("latin-1") if query else ""
        )
        url = self.target.upstream(fmt, path_and_query)
        headers = [(k, v) for k, v in scope["headers"] if k.lower() not in NOT_FORWARDED]
        try:
            import httpx

            # Built as it is, not by the client, which would add its own Accept,
            # Accept-Encoding and User-Agent where the agent sent none (and an upstream would
            # then compress an answer for an agent that never asked for it).
            request = httpx.Request(
                method,
                url,
                headers=headers,
                content=body,
                extensions={"timeout": self.upstreams.timeout},
            )
            upstream = await client.send(request, stream=True)
        except Exception as e:
            if not isinstance(e, httpx.HTTPError):
                raise
            why = _unanswered(secrets.text(self.target.shown), e, secrets)
            self.journal(self.view.refused, method, path, 502, why)
            if step is not None:
                self.journal(step.unreachable, self.view, ProviderError(why, status=502))
            shape = fmt.error_body if fmt is not None else openai_error_body
            await _answer(send, 502, shape(502, f"fc proxy: {why}"))
            return
        relay = _Relay(upstream, send, step)
        outcome = await relay.run(receive, self)
        if step is not None:
            step.ended()
            if outcome == "done":
                self.journal(step.done, self.view)
            elif outcome == "disconnected":
                self.journal(step.cut, self.view, self._gone())
            elif outcome == "broken":
                why = Msg(
                    "the upstream's answer broke off: {reason}", reason=secrets.text(relay.broken)
                )
                self.journal(step.cut, self.view, why)
        elif fmt is None:
            self.journal(
                self.view.passed, method, path, upstream.status_code, Msg("not a model request")
            )

    async def _prepare(
        self, fmt: WireFormat, path: str, body: bytes, secrets: Secrets
    ) -> Step | Msg | None:
        """The request read, checked and matched to its trace, its recording handed to the
        journal; None when it is forwarded without a record (said on the terminal); what to
        answer when --strict-check stops it."""
        limit = self.settings.max_record_bytes
        if len(body) > limit:
            self._pass(
                path,
                Msg(
                    "its body is {size} bytes, above the limit of {limit}",
                    size=format(len(body), ","),
                    limit=format(limit, ","),
                ),
            )
            return None
        try:
            wire = parse_json(body, path)
        except InputFileError as e:  # said in fc's words (Python's are English only)
            self._pass(path, Msg("its body is not JSON: {error}", error=e.problem))
            return None
        if not isinstance(wire, dict):
            self._pass(path, Msg("its body is not a JSON object"))
            return None
        try:
            request = fmt.from_wire_request(wire)
        except FcError as e:
            self._pass(
                path,
                Msg(
                    "not a {format} request fc can read: {error}", format=fmt.name, error=said_of(e)
                ),
            )
            return None
        route = route_at(fmt, path)
        stream = (
            route.streams if route and route.streams is not None else wire.get("stream") is True
        )
        # What Gemini says in the path (the model, a stream) goes into the internal request,
        # as `fc run` writes it.
        said: dict[str, Any] = {"model": route.captured(path).get("model") if route else None}
        said["stream"] = True if stream and not request.stream else None
        request = request.model_copy(update={k: v for k, v in said.items() if v})
        # `fc check` blocks only with --strict-check; otherwise it runs in the journal, off the
        # request's path (its findings still go with the step: Step.opened).
        findings = checks_of(wire, fmt) if self.settings.strict_check else None
        keys = keys_of(request.messages)
        conversation = await self.conversations.continued(fmt.name, keys)
        if conversation is None:
            conversation = Conversation(fmt.name, (fmt.results_layout, fmt.stop_field))
            self.conversations.start(conversation, keys)
            self.journal(self._open, conversation, self._header(fmt, request, stream))
        step = Step(
            conversation,
            conversation.steps,
            fmt,
            request,
            body,
            wire,
            stream,
            None if findings is None else [text for _, text in findings],
            secrets,
            self._settle,
            max_bytes=self.settings.max_record_bytes,
        )
        self.journal(step.opened, self.view)
        errors = [text for severity, text in findings or () if severity == "error"]
        if errors:
            why = Msg("fc proxy --strict-check: not forwarded: {finding}", finding=errors[0])
            self.journal(self.view.refused, "POST", path, 400, why)
            self.journal(step.blocked, self.view, FindingsError(why))
            return why
        return step

    def _header(self, fmt: WireFormat, request: Request, stream: bool) -> Manifest:
        """What a new trace's manifest says before its first step, read from its first request."""
        choice = request.tool_choice
        options = Options(
            tools_offered=[t.name for t in request.tools],
            system=request.system,
            stream=stream,
            thinking=request.thinking,
            tool_choice=None if choice is None else (choice.name or choice.type),
            parallel_tool_calls=request.parallel_tool_calls,
            max_tokens=request.max_tokens,
        )
        return Manifest(
            provider=self.target.name,
            wire_format=fmt.name,
            model=request.model,
            base_url=self.target.shown_for(fmt),
            question=question_of(request.messages),
            options=options,
            recorded_by="fc proxy",
        )

    def _open(self, conversation: Conversation, header: Manifest) -> None:
        """(In the journal) the trace's directory, claimed, and its first manifest. One that
        cannot be written leaves the conversation unrecorded, and says so."""
        from fccli.cities import cities
        from fccli.slug import slugify
        from fccli.trace.writer import TraceWriter, default_dir, prepare_dir

        names = {c["zh"]: c["en"] for c in cities()}
        slug = slugify(header.question or "agent", names)
        try:
            path = prepare_dir(default_dir(self.settings.out, slug), force=False)
            conversation.writer = TraceWriter(path, header)
        except FcError as e:
            self.view.passed(
                "POST", "", None, Msg("the trace cannot be written: {error}", error=said_of(e))
            )
            return
        self.view.opened(conversation)

    def _gone(self) -> Msg:
        """Why a client's connection closed mid-answer: it went away, or fc proxy is stopping."""
        return (
            STOPPED if self.stopping() else Msg("the client disconnected before the answer ended")
        )

    def _pass(self, path: str, why: Msg) -> None:
        self.journal(self.view.passed, "POST", path, None, why)


class _Relay:
    """The upstream's answer passed on to the client piece by piece, while the client is
    watched: one that goes away ends the relay (and the upstream request) at once."""

    def __init__(self, upstream: httpx.Response, send: Any, step: Step | None) -> None:
        self.upstream = upstream
        self.send = send
        self.step = step
        self.finished = False
        self.broken = ""

    async def run(self, receive: Any, app: ProxyApp) -> str:
        """`done`, `disconnected` (the client left), or `broken` (the upstream did)."""
        relay = asyncio.ensure_future(self._relay())
        watch = asyncio.ensure_future(_disconnected(receive))
        try:
            done, _ = await asyncio.wait({relay, watch}, return_when=asyncio.FIRST_COMPLETED)
            if relay in done or self.finished:
                return await relay
            relay.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await relay
            return "disconnected"
        except asyncio.CancelledError:  # fc proxy stops: the step is cut, the task goes on ending
            relay.cancel()
            if self.step is not None:
                self.step.ended()
                app.journal(self.step.cut, app.view, STOPPED)
            raise
        finally:
            watch.cancel()
            await self.upstream.aclose()

    async def _relay(self) -> str:
        import httpx

        upstream, send, step = self.upstream, self.send, self.step
        headers = [(k, v) for k, v in upstream.headers.raw if k.lower() not in HOP_BY_HOP]
        if step is not None:
            step.answered(upstream.status_code, upstream.headers.get("content-encoding", ""))
        await send(
            {"type": "http.response.start", "status": upstream.status_code, "headers": headers}
        )
        try:
            async for chunk in upstream.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
                if step is not None:
                    step.on_bytes(chunk)
        except httpx.HTTPError as e:
            self.broken = _reason(e)
            return "broken"  # the client's connection is dropped: its answer was cut too
        self.finished = True
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        return "done"


async def _disconnected(receive: Any) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def _read_body(receive: Any) -> bytes | None:
    parts = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        parts.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(parts)


async def _answer(send: Any, status: int, body: dict[str, Any]) -> None:
    data = json.dumps(body, ensure_ascii=False).encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


def _query_values(query: bytes) -> list[str]:
    from urllib.parse import parse_qsl

    return [value for _, value in parse_qsl(query.decode("latin-1"))]


def _reason(error: Exception) -> str:
    return str(error) or type(error).__name__


def _unanswered(upstream: str, error: Exception, secrets: Secrets) -> Msg:
    """Why a request got no answer from `upstream`, in one line (a secret in it masked)."""
    import httpx

    reason = secrets.text(_reason(error))
    if isinstance(error, httpx.ConnectError):
        return Msg(
            "cannot reach {upstream}: no connection ({reason}): is it running, and is the address right?",
            upstream=upstream,
            reason=reason,
        )
    if isinstance(error, httpx.TimeoutException):
        return Msg(
            "no answer from {upstream} in time ({reason})",
            upstream=upstream,
            reason=type(error).__name__,
        )
    return Msg("no answer from {upstream}: {reason}", upstream=upstream, reason=reason)
