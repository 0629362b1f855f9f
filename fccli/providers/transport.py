"""HTTP for the real providers: one client, timeouts, retries with backoff, errors said plainly.

- Retried: 429, 500, 502, 503, 504 and failures to connect, at most `retries` times, waiting
  `Retry-After` when the server says how long (seconds or an HTTP date), else exponential
  backoff with jitter (so many clients that failed together do not retry together).
- Not retried: other 4xx (the request itself is wrong; sending it again changes nothing) and a
  read timeout (the model may be working; the wait was already long).
- Every attempt is recorded (status or error, duration, wait before it) for the manifest.
- The body sent is exactly the bytes given; the body returned is exactly the bytes received,
  except that a key echoed back by the server is masked: secrets never reach a trace.

httpx errors are translated into FcError here, once (ARCHITECTURE.md, transport.py).
"""

from __future__ import annotations

import contextlib
import json
import random
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

import httpx

from fccli import __version__
from fccli.core.body import Body, FileBody
from fccli.core.errors import ProviderError, UsageError
from fccli.core.proxies import environment_names_a_proxy
from fccli.core.secrets import Secrets
from fccli.i18n import Msg

__all__ = ["Delivered", "HttpFailure", "Transport", "TransportSettings"]

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504, 529})
"""529 is Anthropic's "overloaded" (docs.claude.com, API errors); the rest are the usual ones."""


@dataclass(frozen=True)
class TransportSettings:
    connect_timeout: float = 10.0
    read_timeout: float = 600.0
    """`--timeout`: how long one answer may take in all, from the request to its last byte (a
    server trickling a byte now and then is stopped too). Long: a thinking model may reason for
    minutes before the first byte (DeepSeek closes the connection itself if inference has not
    started after 10 minutes)."""
    max_response_bytes: int = 64 * 1024 * 1024
    """`--max-response-mb`: the most bytes of one answer fc reads (decompressed: a gzip bomb
    stops here too); past it, fc stops reading and keeps what came."""
    retries: int = 3
    backoff_base: float = 0.5
    """The first wait; each retry doubles it, up to backoff_cap."""
    backoff_cap: float = 20.0
    max_retry_after: float = 120.0
    """A server asking for a longer wait than this gets no retry: fc says so and stops."""
    tls: bool = True
    """Whether a request may go over TLS (`needs_tls`): False spares loading the CA bundle."""


@dataclass
class Delivered:
    body: bytes
    """The response body exactly as received: what the engine reads."""
    attempts: list[dict[str, Any]]
    stored: bytes | None = None
    """The body to write and show, when it differs: a key the server echoed, masked."""
    cut: str | None = None
    """Why it stopped before the server ended it (the bytes so far are in body): a stream cut
    short, an answer past --max-response-mb or --timeout."""
    interrupted: bool = False
    """A stream only: Ctrl-C stopped it; the caller re-raises once the bytes are safe."""


@dataclass
class HttpFailure:
    """What the transport tells the provider about a failed exchange, before it becomes an error."""

    status: int | None
    message: str
    body: str | None = None
    attempts: list[dict[str, Any]] = field(default_factory=list)


def mask(text: str, secrets: list[str]) -> str:
    return Secrets(secrets).text(text)


def provider_message(body: str) -> str | None:
    """Return the provider's own sentence from an error body: OpenAI, DeepSeek and Anthropic put it
    at `error.message`; FastAPI-based servers (vLLM) at `detail`; some at `message`."""
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    error = data.get("error")
    candidates = [
        error.get("message") if isinstance(error, dict) else error,
        data.get("message"),
        data.get("detail"),
    ]
    for value in candidates:
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """Return `Retry-After` as seconds: a number, or an HTTP date (RFC 9110 10.2.3)."""
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class Transport:
    def __init__(
        self,
        settings: TransportSettings,
        *,
        secrets: list[str],
        sleep: Callable[[float], None] = time.sleep,
        client: httpx.Client | None = None,
    ) -> None:
        self.settings = settings
        self.secrets = Secrets(secrets)
        self._sleep = sleep
        self._client = client or _client(settings)

    def close(self) -> None:
        self._client.close()

    def mask(self, text: str) -> str:
        return self.secrets.text(text)

    def post(
        self,
        url: str,
        body: Body,
        headers: dict[str, str],
        *,
        on_bytes: Callable[[bytes], None] | None = None,
    ) -> Delivered | HttpFailure:
        """POST `body` to `url`; the reply, or why there is none, with every attempt made.

        With `on_bytes`, a successful answer is read as a stream: each piece goes to `on_bytes`
        as it arrives. Retries happen only before the first byte of a 2xx body: after that the
        model's words have been seen, and sending again would ask for different ones.
        Every answer is read in pieces, at most --max-response-mb of it and for at most
        --timeout seconds in all; what came is kept, with `cut` saying why it stopped.
        """
        attempts: list[dict[str, Any]] = []
        wait = 0.0
        shown = self.mask(url)  # a password in the URL is never printed
        for number in range(1, self.settings.retries + 2):
            if wait:
                self._sleep(wait)
            record: dict[str, Any] = {"attempt": number, "waited_s": round(wait, 2)}
            attempts.append(record)
            start = time.perf_counter()
            try:
                request = self._client.build_request(
                    "POST",
                    url,
                    content=_pieces(body),
                    headers={**headers, "content-length": str(len(body))},
                )
                response = self._client.send(request, stream=True)
            except httpx.TimeoutException as e:
                record["error"] = type(e).__name__
                record["duration_ms"] = _ms(start)
                if isinstance(e, httpx.ConnectTimeout) and number <= self.settings.retries:
                    wait = self._backoff(number)
                    continue
                if isinstance(e, httpx.ConnectTimeout):
                    message = Msg(
                        "timed out after {seconds} s waiting to connect from {url}",
                        seconds=format(self.settings.connect_timeout, "g"),
                        url=shown,
                    )
                else:
                    message = Msg(
                        "timed out after {seconds} s waiting for an answer from {url}",
                        seconds=format(self.settings.read_timeout, "g"),
                        url=shown,
                    )
                return HttpFailure(None, message, attempts=attempts)
            except (httpx.LocalProtocolError, httpx.UnsupportedProtocol) as e:
                # fc's own request cannot go out (a bad header, a bad URL): retrying changes nothing.
                record["error"] = type(e).__name__
                return HttpFailure(
                    None,
                    Msg("cannot send to {url}: {error}", url=shown, error=self.mask(str(e))),
                    attempts=attempts,
                )
            except httpx.TransportError as e:
                # Refused, reset, closed before any answer: retried. (A server that read the
                # request and then dropped the connection may see it twice, as with any SDK.)
                record["error"] = f"{type(e).__name__}: {self.mask(str(e))}"
                record["duration_ms"] = _ms(start)
                if number <= self.settings.retries:
                    wait = self._backoff(number)
                    continue
                reason = _reason(e)
                reason = reason if isinstance(reason, Msg) else self.mask(reason)
                message = (
                    Msg(
                        "cannot reach {url}: {reason} (after {n} attempts)",
                        url=shown,
                        reason=reason,
                        n=number,
                    )
                    if number > 1
                    else Msg("cannot reach {url}: {reason}", url=shown, reason=reason)
                )
                return HttpFailure(None, message, attempts=attempts)
            except httpx.RequestError as e:  # a body that cannot be decoded, ...
                record["error"] = type(e).__name__
                record["duration_ms"] = _ms(start)
                return HttpFailure(
                    None,
                    Msg(
                        "the answer from {url} cannot be read: {error}",
                        url=shown,
                        error=self.mask(str(e)),
                    ),
                    attempts=attempts,
                )
            record["status"] = response.status_code
            success = 200 <= response.status_code < 300
            received = self._read(response, start, on_bytes if success else None)
            record["duration_ms"] = _ms(start)
            if success:
                return self._delivered(received, attempts, record, stream=on_bytes is not None)
            if 300 <= response.status_code < 400:
                where = response.headers.get("location", "elsewhere")
                return HttpFailure(
                    response.status_code,
                    Msg(
                        "HTTP {status}: redirected to {where}; "
                        "fc does not follow a redirected POST: use that address as --base-url",
                        status=response.status_code,
                        where=self.mask(where),
                    ),
                    attempts=attempts,
                )
            text = self.secrets.raw(received.body).decode("utf-8", errors="replace")
            text = self.mask(text)
            retry_after = response.headers.get("retry-after")
            if retry_after is not None:
                record["retry_after"] = retry_after
            if response.status_code in RETRY_STATUSES and number <= self.settings.retries:
                asked = retry_after_seconds(retry_after)
                if asked is not None and asked > self.settings.max_retry_after:
                    return self._failure(
                        response.status_code,
                        text,
                        attempts,
                        Msg(
                            "it asks to retry after {seconds} s, longer than fc waits",
                            seconds=format(asked, "g"),
                        ),
                    )
                wait = asked if asked is not None else self._backoff(number)
                continue
            return self._failure(response.status_code, text, attempts)
        raise AssertionError("unreachable: the loop returns on its last attempt")

    def _read(
        self,
        response: httpx.Response,
        start: float,
        on_bytes: Callable[[bytes], None] | None,
    ) -> _Received:
        """Read a body to its end, or to where it broke or went past a limit; keep every byte
        that came (up to the size limit). With `on_bytes` (a stream), Ctrl-C is caught here,
        not lost: what arrived is returned for the trace, and the caller raises it once the
        bytes are safe."""
        settings = self.settings
        pieces: list[bytes] = []
        size = 0
        cut: str | None = None  # a Msg: kept in the manifest, said in the chosen language
        interrupted = False
        deadline = _Deadline(response, settings.read_timeout - (time.perf_counter() - start))
        try:
            for piece in response.iter_bytes():
                room = settings.max_response_bytes - size
                if len(piece) > room:
                    piece = piece[:room]
                    cut = Msg(
                        "the answer passed --max-response-mb {mb}, so fc stopped reading it",
                        mb=_mb(settings.max_response_bytes),
                    )
                pieces.append(piece)
                size += len(piece)
                if on_bytes is not None and piece:
                    on_bytes(piece)
                if cut is not None:
                    break
                if time.perf_counter() - start > settings.read_timeout:
                    cut = deadline.message(settings.read_timeout)
                    break
        except httpx.TimeoutException:
            cut = Msg(
                "no data for {seconds} s (--timeout), so fc stopped waiting",
                seconds=format(settings.read_timeout, "g"),
            )
        except httpx.TransportError as e:  # closed mid-body: h11's "incomplete chunked read", ...
            cut = (
                deadline.message(settings.read_timeout)
                if deadline.fired
                else Msg(
                    "the connection closed mid-stream ({error})",
                    error=self.mask(str(e) or type(e).__name__),
                )
            )
        except httpx.RequestError as e:  # a body that cannot be decoded (gzip cut short, ...)
            cut = Msg("the stream cannot be read further ({error})", error=self.mask(str(e)))
        except KeyboardInterrupt:
            if on_bytes is None:
                raise
            cut, interrupted = Msg("interrupted"), True
        finally:
            deadline.cancel()
            response.close()
        return _Received(b"".join(pieces), cut, interrupted)

    def _delivered(
        self,
        received: _Received,
        attempts: list[dict[str, Any]],
        record: dict[str, Any],
        *,
        stream: bool,
    ) -> Delivered:
        raw = received.body
        if stream:
            record["stream_bytes"] = len(raw)
        if received.cut is not None:
            record["error"] = received.cut
        # A key the server echoed is masked wherever it stands: plain, JSON-escaped, or (in a
        # stream) cut across the events of one field.
        stored = self.secrets.stream(raw) if stream else self.secrets.raw(raw)
        return Delivered(
            raw,
            attempts,
            stored if stored != raw else None,
            cut=received.cut,
            interrupted=received.interrupted,
        )

    def _failure(
        self, status: int, text: str, attempts: list[dict[str, Any]], extra: str | None = None
    ) -> HttpFailure:
        # The provider's own sentence, quoted as it is (never translated).
        quoted = self.mask(provider_message(text) or _snippet(text))
        if extra and len(attempts) <= 1:
            quoted = quoted.rstrip(".")  # "{message} ({extra})" below: no full stop before it
        message: str = (
            Msg("HTTP {status}: {said}", status=status, said=quoted) if quoted else f"HTTP {status}"
        )
        if len(attempts) > 1:
            message = Msg("{message} (after {n} attempts)", message=message, n=len(attempts))
        if extra:
            # i18n: a message and, in brackets, what it adds
            message = Msg("{message} ({extra})", message=message, extra=extra)
        return HttpFailure(status, message, body=text, attempts=attempts)

    def _backoff(self, number: int) -> float:
        ceiling = min(self.settings.backoff_cap, self.settings.backoff_base * 2.0 ** (number - 1))
        # "Equal jitter": at least half the step, so waits still grow, plus a random half.
        return ceiling / 2 + random.uniform(0, ceiling / 2)


_PIECE = 1 << 20


def _pieces(body: Body) -> Iterator[bytes]:
    """The body a megabyte at a time: the HTTP library joins what it sends before writing it
    to the socket, which for a whole body (a request carrying a 20 MB tool result) is a copy of
    it all. The length is given, so the body still goes as one, not chunked."""
    if isinstance(body, FileBody):
        yield from body.pieces()
        return
    for at in range(0, len(body), _PIECE):
        yield body[at : at + _PIECE]


@dataclass
class _Received:
    body: bytes
    cut: str | None
    interrupted: bool


class _Deadline:
    """Stops a read that would outlast --timeout: a server that sends a byte now and then never
    lets a per-read timeout fire, so at the deadline the socket is shut, which wakes the read."""

    def __init__(self, response: httpx.Response, remaining: float) -> None:
        self.fired = False
        stream = response.extensions.get("network_stream")
        self._socket = stream.get_extra_info("socket") if stream is not None else None
        self._timer: threading.Timer | None = None
        if self._socket is not None:
            self._timer = threading.Timer(max(0.0, remaining), self._fire)
            self._timer.daemon = True
            self._timer.start()

    def _fire(self) -> None:
        self.fired = True
        if self._socket is not None:
            with contextlib.suppress(OSError):
                self._socket.shutdown(socket.SHUT_RDWR)

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    @staticmethod
    def message(limit: float) -> str:
        return Msg(
            "the answer took longer than --timeout {seconds} s in all, so fc stopped reading it",
            seconds=format(limit, "g"),
        )


def _mb(size: int) -> str:
    return f"{size / (1024 * 1024):g}"


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 1)


def _reason(error: httpx.TransportError) -> str:
    text = str(error) or type(error).__name__
    if "refused" in text.lower():
        return Msg("connection refused (is the server running, and is the base URL right?)")
    return text


def _snippet(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= 200 else flat[:200] + "…"


def as_provider_error(
    failure: HttpFailure, *, provider: str, step: int, key_env: str | None, url: str
) -> ProviderError:
    """Return the failure as the one or two lines a user reads (CLI.md: exit 3)."""
    hint = None
    if failure.status in (401, 403):
        hint = (
            Msg(
                "the key was read from ${key_env}; check that it is valid for {url}",
                key_env=key_env,
                url=url,
            )
            if key_env
            else Msg(
                "{provider} needs no key in fc; does the server at {url} expect one?",
                provider=provider,
                url=url,
            )
        )
    elif failure.status == 404:
        hint = Msg("fc posted to {url}; check --base-url (or $FC_BASE_URL) and --model", url=url)
    elif failure.status == 429 and "longer than fc waits" in failure.message:
        hint = Msg("rate limited for a while: wait as long as it asks, then run again")
    elif failure.status == 429:
        hint = Msg("rate limited; wait, or raise --retries")
    return ProviderError(
        Msg("{provider} answered {message}", provider=provider, message=failure.message)
        if failure.status is not None
        else failure.message,
        status=failure.status,
        body=failure.body,
        step=step,
        hint=hint,
        attempts=failure.attempts,
    )


def needs_tls(url: str) -> bool:
    """Say whether posting to `url` may take TLS: not for http://, unless a proxy set in the
    environment stands between (it may be reached over https)."""
    return urlsplit(url).scheme.lower() != "http" or environment_names_a_proxy()


def _client(settings: TransportSettings) -> httpx.Client:
    # No TLS to make: a context that trusts no one, not the CA bundle's (docs/performance.md).
    verify = True if settings.tls else ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    try:
        return httpx.Client(
            verify=verify,
            timeout=httpx.Timeout(
                settings.read_timeout,
                connect=settings.connect_timeout,
                pool=settings.connect_timeout,
            ),
            headers={"user-agent": f"fc/{__version__}"},
            # A proxy set in the shell applies as it would to curl; redirects are not followed,
            # since a POST redirected is rarely what the user meant (see the 3xx answer below).
            follow_redirects=False,
        )
    except ImportError as e:  # a SOCKS proxy in ALL_PROXY needs an extra package
        raise UsageError(
            Msg(
                "the proxy set in the environment needs a package fc does not install ({error})",
                error=str(e),
            ),
            hint=Msg("pip install 'httpx[socks]' into fc's environment, or unset ALL_PROXY"),
        ) from None
