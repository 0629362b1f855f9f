"""The proxy as an ASGI app: each request forwarded unchanged, its answer streamed back as it
arrives, model requests recorded. The event loop only forwards: it reads the body, picks the
upstream from the path, applies the size limit (and with --strict-check reads and checks the
request before forwarding), relays each piece of the answer at once, and hands the journal
plain facts (facts.py); the journal reads, matches, checks, records and prints (journal.py).

What it answers itself, in the provider's own error shape so the client's SDK reads it:
502 when the upstream cannot be reached, 400 for a request `--strict-check` stops or a request
target that is not a plain path (target.py), 413 for a body above `--max-request-mb`; and in
one plain line, 421 or 403 for a request addressed to another host or sent by a web page
(serve/guard.py). Everything else the client gets is the upstream's answer, byte for byte,
headers and status included.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import time
import zlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

import httpx

from fccli.core.controls import escape_controls
from fccli.core.secrets import Secrets, header_secrets, secret_values
from fccli.i18n import Msg
from fccli.proxy.facts import Asked, Ended, Notice, Tick, too_big
from fccli.proxy.journal import ChildJournal, ThreadJournal
from fccli.proxy.settings import Settings
from fccli.proxy.target import Routed, Target
from fccli.proxy.upstreams import Upstream, Upstreams
from fccli.serve import guard
from fccli.serve.guard import Guard
from fccli.wire.routes import openai_error_body

if TYPE_CHECKING:
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


FORMATS_REMEMBERED = 1024
INFLATED_AT_ONCE = 64 * 1024
"""The most bytes one piece of a compressed answer is inflated to at once, to be counted."""
MAX_REQUEST_BYTES = 64 * 1024 * 1024
"""A request body above this gets HTTP 413, not forwarded (--max-request-mb)."""

STOPPED = Msg("fc proxy stopped before the answer ended")
TICK_SECONDS = 30.0
"""How often the journal is told to look for conversations gone idle (Settings.idle_seconds)."""


class ProxyApp:
    """Forward every request to `target`, and hand the journal the facts to record.

    `journal`: where the facts go (journal.py): a child process for `fc proxy`, a thread for
    the in-process tests; None: a thread journal printing with `view`."""

    def __init__(
        self,
        target: Target,
        settings: Settings,
        view: ProxyView,
        journal: ChildJournal | ThreadJournal | None = None,
        *,
        guard: Guard | None = None,
        max_request_bytes: int = MAX_REQUEST_BYTES,
    ) -> None:
        self.target = target
        self.guard = guard or Guard()
        """Which Host and Origin are answered (DNS rebinding, web pages)."""
        self.max_request_bytes = max_request_bytes
        self.settings = settings
        self.view = view
        self.journal = journal or ThreadJournal(target, settings, view)
        """Records and prints, in order, off the requests' path (journal.py)."""
        self.upstreams = Upstreams(settings.timeout, tls=target.tls)
        self._formats: dict[str, Routed | None] = {}
        self._forwarding = 0
        """Requests being read, forwarded or answered now."""
        if isinstance(self.journal, ChildJournal):
            self.journal.forwarding = lambda: self._forwarding
        self._asked = 0
        self._open: dict[int, _Relay | None] = {}
        """The requests handed to the journal whose end is not yet, by id: the relay of their
        answer, or None while the upstream has not answered."""
        self._stopped = False
        self.stopping: Callable[[], bool] = lambda: False
        """Whether the server is shutting down (set by serve/launch.py)."""

    # the ASGI entry

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        self._forwarding += 1
        try:
            await self._http(scope, receive, send)
        except Exception as e:  # a bug in fc: one line on the terminal, a 500 to the client
            secrets = header_secrets(
                scope["headers"], _query_values(scope.get("query_string", b""))
            )
            error = secrets.text(str(e))  # it may quote what the client sent
            self.journal(Notice("bug", "", type(e).__name__, None, error))
            with contextlib.suppress(Exception):
                await _answer(
                    send, 500, openai_error_body(500, f"fc proxy: internal error: {error}")
                )
        finally:
            self._forwarding -= 1

    async def _lifespan(self, receive: Any, send: Any) -> None:
        ticks: asyncio.Task[None] | None = None
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                ticks = asyncio.create_task(self._tick())
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if ticks is not None:
                    ticks.cancel()
                await self.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(max(1.0, min(TICK_SECONDS, self.settings.idle_seconds / 4)))
            self.journal(Tick())

    def close(self) -> None:
        """Stop (Ctrl-C): the journal closes every trace still open as `interrupted`, says so
        once, and writes what is queued (in a bounded time, said when it runs out)."""
        if self._stopped:
            return
        self._stopped = True
        # A request still open ends here, with what came of its answer: its task, cancelled by
        # the server, may get to say so only after the journal has closed.
        for rid, relay in list(self._open.items()):
            if relay is not None:
                self.ended(rid, relay.ended(rid, "cut", STOPPED))
            else:  # the upstream had not answered yet
                self.ended(rid, Ended(rid, "cut", end=time.perf_counter(), why=STOPPED))
        if not self.journal.close(say=lambda _: self.view.waiting_for_journal()):
            self.view.journal_unfinished()

    async def aclose(self) -> None:
        self.close()
        await self.upstreams.aclose()

    def flush(self) -> None:
        """Wait until every trace file and line so far is written (tests)."""
        self.journal.flush()

    # one request

    async def _http(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        refused = self.guard.refusal(scope)
        if refused is not None:
            status, why = refused
            self.journal(Notice("refused", scope["method"], scope["path"], status, why))
            await guard.answer(send, status, why)
            return
        method: str = scope["method"]
        path: str = scope["path"]
        fmt = self._format_at(path) if method == "POST" else None
        shape = fmt.error_body if fmt is not None else openai_error_body
        raw_path: bytes = scope.get("raw_path") or path.encode("utf-8")
        url = self.target.upstream(fmt, raw_path, scope.get("query_string", b""))
        if isinstance(url, Msg):
            shown = escape_controls(raw_path.decode("latin-1"))
            self.journal(Notice("refused", method, shown, 400, url))
            await _answer(send, 400, shape(400, f"fc proxy: {url}"))
            return
        limit = self.max_request_bytes
        try:
            body = await _read_body(receive, limit)
        except _TooBig:
            why = Msg(
                "the request body is above {limit} bytes (--max-request-mb): not forwarded",
                limit=format(limit, ","),
            )
            self.journal(Notice("refused", method, path, 413, why))
            await _answer(send, 413, shape(413, f"fc proxy: {why}"))
            return
        if body is None:  # the client left before its request was complete
            return
        rid = None
        if fmt is not None:
            asked = await self._ask(fmt, scope, body)
            if isinstance(asked, Msg):  # --strict-check: not forwarded
                await _answer(send, 400, fmt.error_body(400, asked))
                return
            rid = asked
        client = self.upstreams.lend()
        try:  # given back once the upstream's answer is closed (_Relay.run), however it ended
            await self._forward(client, (scope, receive, send), url, body, fmt, rid)
        finally:
            self.upstreams.give_back(client)

    def _format_at(self, path: str) -> Routed | None:
        """Find the format of a request to `path` (`Target.format_at`), remembered per path: an
        agent asks at the same path again and again."""
        try:
            return self._formats[path]
        except KeyError:
            pass
        if len(self._formats) >= FORMATS_REMEMBERED:  # paths name models (Gemini): bounded
            self._formats.clear()
        fmt = self._formats[path] = self.target.format_at(path)
        return fmt

    async def _ask(self, fmt: Routed, scope: dict[str, Any], body: bytes) -> int | Msg | None:
        """Hand the request to the journal; return its id (None: too big to record, said), or
        what to answer when --strict-check stops it."""
        path: str = scope["path"]
        limit = self.settings.max_record_bytes
        if len(body) > limit:
            self.journal(Notice("passed", "POST", path, None, too_big(len(body), limit)))
            return None
        self._asked += 1
        rid = self._asked
        values = secret_values(scope["headers"], _query_values(scope.get("query_string", b"")))
        asked = Asked(rid, fmt.name, path, body, values, time.perf_counter(), time.time())
        if not self.settings.strict_check:
            self.journal(asked)
            self._open[rid] = None
            return rid
        # --strict-check: `fc check` before forwarding (otherwise in the journal), in a thread:
        # a large request takes a while, and other clients' requests go on meanwhile.
        from fccli.proxy.handler import strict_findings  # the journal's reading: only then

        findings = await asyncio.to_thread(strict_findings, fmt.format(), path, body, limit)
        errors = [text for severity, text in findings if severity == "error"]
        blocked: Msg | None = None
        if errors:
            blocked = Msg("fc proxy --strict-check: not forwarded: {finding}", finding=errors[0])
        self.journal(dataclasses.replace(asked, findings=findings, blocked=blocked))
        if blocked is not None:
            return blocked
        self._open[rid] = None
        return rid

    async def _forward(
        self,
        client: Upstream,
        asgi: tuple[dict[str, Any], Any, Any],
        url: httpx.URL,
        body: bytes,
        fmt: Routed | None,
        rid: int | None,
    ) -> None:
        """Send the request upstream with `client`, and relay its answer to the client."""
        scope, receive, send = asgi
        method: str = scope["method"]
        path: str = scope["path"]
        headers = [(k, v) for k, v in scope["headers"] if k.lower() not in NOT_FORWARDED]
        try:
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
            deadline = asyncio.get_running_loop().time() + self.settings.timeout
            # --timeout is a total, as fc run's: headers that trickle in count too
            upstream = await asyncio.wait_for(
                client.handle_async_request(request), self.settings.timeout
            )
        except asyncio.TimeoutError:
            e = httpx.ReadTimeout(f"no answer within --timeout ({self.settings.timeout:g} s)")
            await self._unanswered(send, scope, e, fmt, rid)
            return
        except httpx.HTTPError as e:
            await self._unanswered(send, scope, e, fmt, rid)
            return
        keep = self.settings.max_record_bytes if rid is not None else -1
        relay = _Relay(upstream, send, keep, (deadline, self.settings.timeout))
        if rid is not None:
            self._open[rid] = relay
        try:
            outcome = await relay.run(receive, self, rid)
        except Exception as e:  # a bug in fc: the step ends here, with what came, and says so
            if rid is not None:
                relay.broken = f"{type(e).__name__}: {e}"
                self.ended(rid, relay.ended(rid, "failed"))
            raise
        if rid is not None:
            self.ended(rid, relay.ended(rid, outcome, self._gone() if outcome == "left" else ""))
        elif fmt is None:
            self.journal(
                Notice("passed", method, path, upstream.status_code, Msg("not a model request"))
            )

    async def _unanswered(
        self,
        send: Any,
        scope: dict[str, Any],
        error: Exception,
        fmt: Routed | None,
        rid: int | None,
    ) -> None:
        """Answer 502 for a request the upstream did not answer, and tell the journal why."""
        query: bytes = scope.get("query_string", b"")
        secrets = header_secrets(scope["headers"], _query_values(query))
        why = _unanswered(secrets.text(self.target.shown), error, secrets)
        self.journal(Notice("refused", scope["method"], scope["path"], 502, why, about=rid))
        if rid is not None:
            self.ended(rid, Ended(rid, "unreachable", end=time.perf_counter(), why=why))
        shape = fmt.error_body if fmt is not None else openai_error_body
        await _answer(send, 502, shape(502, f"fc proxy: {why}"))

    def ended(self, rid: int, ended: Ended) -> None:
        """Hand the journal the end of request `rid`, once."""
        if rid in self._open:
            del self._open[rid]
            self.journal(ended)

    def _gone(self) -> Msg:
        """Say why a client's connection closed mid-answer: it left, or fc proxy is stopping."""
        return (
            STOPPED if self.stopping() else Msg("the client disconnected before the answer ended")
        )


class _Relay:
    """Pass the upstream's answer on to the client piece by piece, while the client is
    watched: one that goes away ends the relay (and the upstream request) at once. Each piece
    goes to the client first; all the relay does besides is keep it for the journal (up to
    `keep` bytes in all; -1: nothing kept)."""

    def __init__(
        self, upstream: httpx.Response, send: Any, keep: int, deadline: tuple[float, float]
    ) -> None:
        """`deadline`: the loop's time by which the answer must have ended, and the --timeout
        it comes from."""
        self.upstream = upstream
        self.send = send
        self.keep = keep
        self.deadline = deadline
        self.pieces: list[bytes] = []
        self.size = 0
        """The answer's bytes so far, decompressed as the record holds them (past `keep`: stops)."""
        self._counted = _Counted(upstream.headers.get("content-encoding", ""), keep)
        self.first_byte: float | None = None
        self.finished = False
        self.broken = ""

    def ended(self, rid: int, outcome: str, why: str = "") -> Ended:
        """Build the fact for the journal: how the exchange ended, and what came."""
        upstream = self.upstream
        return Ended(
            rid,
            outcome,
            upstream.status_code,
            upstream.headers.get("content-encoding", ""),
            self.pieces,
            self.size,
            self.first_byte,
            time.perf_counter(),
            why,
            self.broken,
        )

    async def run(self, receive: Any, app: ProxyApp, rid: int | None) -> str:
        """Relay the answer; return `done`, `left` (the client did, before the upstream's answer
        ended), or `broken` (the upstream's answer broke off).

        The relay runs in the request's own task, at once: in a task of its own it would start
        one turn of the event loop later, behind what every other request has ready. A watcher
        task cancels the relay when the client goes away."""
        relaying = asyncio.current_task()
        assert relaying is not None
        left = expired = False

        async def watch() -> None:
            nonlocal left
            await _disconnected(receive)
            if not self.finished:
                left = True
                relaying.cancel()

        def expire() -> None:
            nonlocal expired
            if not self.finished and not left:
                expired = True
                relaying.cancel()

        watcher = asyncio.ensure_future(watch())
        timer = asyncio.get_running_loop().call_at(self.deadline[0], expire)
        try:
            return await self._relay()
        except asyncio.CancelledError:
            if left or expired:  # the client's leaving, or --timeout: not fc proxy stopping
                uncancel = getattr(relaying, "uncancel", None)  # Python 3.11+
                if uncancel is not None:
                    uncancel()
                if expired:
                    self.broken = f"no whole answer within --timeout ({self.deadline[1]:g} s)"
                    return "broken"
                return "left"
            # fc proxy stops: the step is cut, the task goes on ending
            if rid is not None:
                app.ended(rid, self.ended(rid, "cut", STOPPED))
            raise
        finally:
            timer.cancel()
            watcher.cancel()
            await self.upstream.aclose()

    async def _relay(self) -> str:
        upstream, send = self.upstream, self.send
        headers = [(k, v) for k, v in upstream.headers.raw if k.lower() not in HOP_BY_HOP]
        await send(
            {"type": "http.response.start", "status": upstream.status_code, "headers": headers}
        )
        pieces, keep = self.pieces, self.keep
        try:
            async for chunk in upstream.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
                if self.first_byte is None:
                    self.first_byte = time.perf_counter()
                self.size = self._counted.add(chunk)
                if self.size <= keep:
                    pieces.append(chunk)
                elif pieces:
                    pieces.clear()  # forwarded, not recorded: held no longer
        except httpx.HTTPError as e:
            self.broken = _reason(e)
            return "broken"  # the client's connection is dropped: its answer was cut too
        self.finished = True
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        return "done"


class _Counted:
    """Count an answer's bytes as the record holds them: a gzip or deflate answer inflated
    (a small gzip answer can be a huge record), a piece at a time into a bounded buffer, and no
    further once past `limit`; another encoding as it came (the record keeps none of it)."""

    def __init__(self, encoding: str, limit: int) -> None:
        encoding = encoding.strip().lower()
        self._z = zlib.decompressobj(47) if encoding in ("gzip", "deflate") else None
        self._deflate = encoding == "deflate"
        self.limit = limit
        self.size = 0

    def add(self, chunk: bytes) -> int:
        """Count `chunk`; return the size so far."""
        if self._z is None or self.size > self.limit:
            self.size += len(chunk) if self._z is None else 0
            return self.size
        try:
            data = chunk
            while data and self.size <= self.limit:
                self.size += len(self._z.decompress(data, INFLATED_AT_ONCE))
                data = self._z.unconsumed_tail
        except zlib.error:
            if self._deflate and self.size == 0:  # deflate sent raw, as some servers do
                self._deflate, self._z = False, zlib.decompressobj(-15)
                return self.add(chunk)
            self._z = None  # not decompressible: the journal says so; counted as it came
            self.size += len(chunk)
        return self.size


async def _disconnected(receive: Any) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


class _TooBig(Exception):
    """A request body above --max-request-mb."""


async def _read_body(receive: Any, limit: int) -> bytes | None:
    """Read the request body (None: the client left first); past `limit`, raise `_TooBig`
    (the rest is not read, nothing is kept)."""
    parts, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        part = message.get("body", b"")
        size += len(part)
        if size > limit:
            raise _TooBig
        parts.append(part)
        if not message.get("more_body"):
            return b"".join(parts)


async def _answer(send: Any, status: int, body: dict[str, Any]) -> None:
    data = json.dumps(body, ensure_ascii=False).encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


def _query_values(query: bytes) -> list[str]:
    return [value for _, value in parse_qsl(query.decode("latin-1"))]


def _reason(error: Exception) -> str:
    return str(error) or type(error).__name__


def _unanswered(upstream: str, error: Exception, secrets: Secrets) -> Msg:
    """Say why a request got no answer from `upstream`, in one line (a secret in it masked)."""
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
