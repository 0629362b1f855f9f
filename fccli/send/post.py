"""`fc send FILE`: a wire-format request file posted as it is, through fc's transport (retries,
errors said plainly, keys from the environment and masked), and the raw response handed back.

Also what `fc curl` shares with it: reading the file (its format from its content) and choosing
the provider (by the format, `-p` to change it within the format's family).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from fccli.core.errors import InputFileError, Interrupted, ProviderError, StreamCut, UsageError
from fccli.core.jsonio import parse_json, read_bytes
from fccli.core.secrets import Secrets, url_secrets
from fccli.i18n import Msg
from fccli.providers.demo.model import INFO as DEMO
from fccli.providers.profiles import PROFILES, apis_of, profile_for, provider_of_format
from fccli.providers.registry import KNOWN, Connection, get_provider, read_key, wire_format_of
from fccli.wire.detect import TraceManifest, Unrecognised, detect
from fccli.wire.registry import WireFormat, family, get_format


@dataclass
class RequestFile:
    name: str
    """The path as given."""
    body: bytes
    """The file's bytes: exactly what is sent."""
    data: dict[str, Any]
    format: str
    """A wire format's name (fccli/wire/registry.py)."""
    stream: bool
    """The file asks for a stream (`"stream": true`)."""
    strict: bool
    """A tool in it asks for strict mode (DeepSeek's is a beta at another base URL)."""
    model: str | None = None
    """The model, for a format that names it in the URL, not the body (Gemini): from the
    trace's manifest beside the file; None: the provider's default."""


def read_request_file(name: str) -> RequestFile:
    path = Path(name)
    if path.is_dir():
        raise InputFileError(
            name, Msg("is a directory; give a request file, e.g. TRACE/1-request.deepseek.json")
        )
    body = read_bytes(path)
    data = parse_json(body, name)
    try:
        detected = detect(data, name_hint=name)
    except TraceManifest:
        raise InputFileError(
            name, Msg("is a trace's manifest; give one of its N-request.<format>.json")
        ) from None
    except Unrecognised as e:
        problem = e.args[0] if e.args and isinstance(e.args[0], Msg) else str(e)
        raise InputFileError(
            name, Msg("not a request fc can send: {problem}", problem=problem)
        ) from None
    if detected.kind != "request" or not isinstance(data, dict):
        raise InputFileError(
            name,
            Msg(
                "is {a_format} {kind}, not a request body",
                a_format=_a(detected.format),
                kind=_kind(detected.kind),
            ),
        )
    if detected.format == "internal":
        error = InputFileError(name, Msg("is in fc's internal format, which no provider takes"))
        error.hint = Msg(
            "fc convert {file} --to deepseek -o body.json, then send body.json", file=name
        )
        raise error
    tools = data.get("tools")
    strict = isinstance(tools, list) and any(_strict(t) for t in tools)
    stream = data.get("stream") is True
    model = None
    if "model" not in data:
        # The format names the model (and the stream) in the URL: the trace's manifest says
        # which were asked when the file was sent.
        model, stream = _from_manifest(path.parent / "manifest.json")
    return RequestFile(name, body, data, detected.format, stream, strict, model)


def _from_manifest(path: Path) -> tuple[str | None, bool]:
    """The model and the stream switch a trace's manifest records; (None, False) without one."""
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None, False
    if not isinstance(manifest, dict):
        return None, False
    model = manifest.get("model")
    options = manifest.get("options")
    stream = isinstance(options, dict) and options.get("stream") is True
    return (model if isinstance(model, str) and model else None), stream


def _strict(tool: Any) -> bool:
    if not isinstance(tool, dict):
        return False
    function = tool.get("function")  # chat: {"type": "function", "function": {..., "strict"}}
    return tool.get("strict") is True or (
        isinstance(function, dict) and function.get("strict") is True
    )


def _kind(kind: str) -> str:
    """A document's kind in words (`messages`: a messages array, 消息数组 in Chinese)."""
    if kind == "response":
        return Msg("response")
    if kind == "messages":
        return Msg("messages")
    return Msg("request") if kind == "request" else kind


def _a(word: str) -> str:
    """`a deepseek`, `an anthropic`, `an openai`."""
    # A Msg: Chinese has no article (`一个` would be wrong before a format's name).
    return (
        Msg("an {word}", word=word) if word[:1].lower() in "aeiou" else Msg("a {word}", word=word)
    )


def provider_for(file: RequestFile, asked: str | None) -> str:
    """`-p`, else the provider of the file's format; refused across format families."""
    # A format's own provider bears its name (Responses': openai, through --api responses);
    # formats of one family (DeepSeek and OpenAI chat) may go to any provider of the family.
    name = asked or provider_of_format(file.format)
    if name not in KNOWN:
        raise UsageError(
            Msg("unknown provider {name}", name=repr(name)),
            hint=Msg("known providers: {providers}", providers=", ".join(KNOWN)),
        )
    takes = wire_format_of(name)
    if api_for(file, name) is not None:
        takes = file.format  # DeepSeek takes an Anthropic-format file at its /anthropic endpoint
    if family(takes) != family(file.format):
        raise UsageError(
            Msg(
                "{file} is {a_format} request, and {name} takes the {takes} format",
                file=file.name,
                a_format=_a(file.format),
                name=name,
                takes=takes,
            ),
            hint=Msg(
                "fc convert {file} --to {takes} -o body.json, then send body.json",
                file=file.name,
                takes=takes,
            ),
        )
    return name


def api_for(file: RequestFile, name: str) -> str | None:
    """The `--api` the file's format asks of the provider, when it is not the provider's own
    (an Anthropic-format file to DeepSeek: `anthropic`); None otherwise."""
    if name not in PROFILES or family(PROFILES[name].wire_format) == family(file.format):
        return None
    for api in apis_of(name)[1:]:
        if family(profile_for(name, api).wire_format) == family(file.format):
            return api
    return None


@dataclass(frozen=True)
class ModelSwap:
    """A demo trace's file names the demo's model, which no real provider serves: it goes out
    with the provider's model instead, and fc says so."""

    old: str
    new: str
    matched: bytes
    """The file's bytes that name the model (`"model": "fc-demo"`), the one place changed."""

    @property
    def replacement(self) -> bytes:
        return self.matched.replace(json.dumps(self.old).encode(), json.dumps(self.new).encode())

    def note(self, file: str, name: str) -> str:
        return Msg(
            "{file} names the demo's model {old}; sent to {name} as {new}, its model",
            file=file,
            old=self.old,
            name=name,
            new=self.new,
        )


def model_swap(file: RequestFile, name: str) -> ModelSwap | None:
    """The swap `file` needs on its way to provider `name`, or None. Only the model's own bytes
    change; a file where they cannot be found alone is refused rather than rewritten."""
    old = file.data.get("model")
    if name == "demo" or old != DEMO.default_model:
        return None
    new = profile_for(name, api_for(file, name)).default_model
    found = re.findall(rb'"model" *: *' + re.escape(json.dumps(old).encode()), file.body)
    swap = ModelSwap(old, new, found[0]) if len(found) == 1 else None
    if swap is None or json.loads(swapped_body(file, swap)) != {**file.data, "model": new}:
        error = InputFileError(
            file.name,
            Msg(
                "names the demo's model {old}, which {name} does not serve, and fc cannot change "
                "it alone in this file",
                old=str(old),
                name=name,
            ),
        )
        error.hint = Msg('set "model": "{new}" in it', new=new)
        raise error
    return swap


def swapped_body(file: RequestFile, swap: ModelSwap) -> bytes:
    return file.body.replace(swap.matched, swap.replacement, 1)


def with_provider_model(file: RequestFile, name: str) -> tuple[RequestFile, str | None]:
    """The file as it goes to `name`, and the one line that says what changed (or None)."""
    swap = model_swap(file, name)
    if swap is None:
        return file, None
    data = {**file.data, "model": swap.new}
    return replace(file, body=swapped_body(file, swap), data=data), swap.note(file.name, name)


def secrets_of(name: str, base_url: str | None) -> list[str]:
    """The values that must never be shown: the key, a password in the URL (and the Basic auth
    made of it), a key in its query string."""
    if name == "demo":
        return []
    key = read_key(name)
    return [s for s in (key, *url_secrets(base_url)) if s]


def send_file(
    file: RequestFile,
    name: str,
    *,
    base_url: str | None,
    retries: int,
    timeout: float,
    max_response_bytes: int = 64 * 1024 * 1024,
    on_bytes: Callable[[bytes], None],
) -> bytes:
    """Post the file's bytes; return the response body as shown (a key it echoed masked). A
    stream's pieces go to `on_bytes` as they arrive (masked too); the whole is returned."""
    # imported to send: fc curl reads the file without the engine (start-up)
    from fccli.run.prepare import close_provider, refuse_demo_base_url

    refuse_demo_base_url(name, base_url)
    provider = get_provider(
        name,
        connection=Connection(
            base_url=base_url,
            strict=file.strict,
            retries=retries,
            timeout=timeout,
            api=api_for(file, name),
            max_response_bytes=max_response_bytes,
            model=file.model,
        ),
    )
    try:
        url = base_url or os.environ.get("FC_BASE_URL")
        masker = StreamMasker(Secrets(secrets_of(name, url)), get_format(file.format), on_bytes)
        try:
            if file.stream:
                reply = provider.send_stream(file.body, step=1, on_bytes=masker.feed)
            else:
                reply = provider.send(file.body, step=1)
        except ProviderError as e:
            # There are no steps here: the provider's sentence is the message.
            raise e.at(step=None) from e
        finally:
            if file.stream:
                masker.close()  # what came of a stream cut short is shown too
    finally:
        close_provider(provider)
    got = reply.stored or reply.body
    if not file.stream and reply.cut is not None:  # past --max-response-mb or --timeout
        on_bytes(got)
        raise ProviderError(
            Msg("the answer was cut short: {why}", why=reply.cut),
            hint=Msg(
                "the {n} bytes that came are kept as they came", n=format(len(reply.body), ",")
            ),
        )
    if file.stream:
        if reply.interrupted:
            raise Interrupted(Msg("interrupted after {n} bytes of the stream", n=len(reply.body)))
        if reply.cut is not None:
            raise StreamCut(
                Msg("the stream was cut short: {why}", why=reply.cut),
                bytes_received=len(reply.body),
                hint=Msg(
                    "{n} bytes arrived before it stopped; they are kept as they came",
                    n=len(reply.body),
                ),
            )
    return got


class StreamMasker:
    """Masks secrets in a stream that arrives in pieces, an event at a time: server-sent events
    and NDJSON line by line, a line waiting while a field's text so far ends as a secret
    begins (its rest may come in the next events); a stream framed its format's own way
    (Bedrock's binary frames) whole at its end, by the format, its frames still reading."""

    HELD = 16 * 1024
    """Held back beyond this, a text stream is masked whole at its end too (each piece would
    otherwise read the whole held part again)."""

    def __init__(self, secrets: Secrets, fmt: WireFormat, write: Callable[[bytes], None]) -> None:
        self._secrets = secrets
        self._fmt = fmt
        self._held = bytearray()  # appended to in place: a stream held whole grows long
        self._whole: bool | None = None
        self._write = write

    def feed(self, piece: bytes) -> None:
        if not self._secrets:
            self._write(piece)
            return
        self._held += piece
        if self._whole is None and len(self._held) >= OWN_STREAM_PROBE:
            self._whole = self._fmt.is_own_stream(bytes(self._held[:OWN_STREAM_PROBE]))
        if self._whole is None or self._whole:
            return
        masked, ready = self._secrets.stream_part(bytes(self._held))
        if ready:
            self._write(masked)
            del self._held[:ready]
        self._whole = len(self._held) > self.HELD

    def close(self) -> None:
        held, self._held = bytes(self._held), bytearray()
        if not held:
            return
        own = self._fmt.mask_stream(held, self._secrets)
        self._write(self._secrets.stream(held) if own is None else own)


OWN_STREAM_PROBE = 12
"""Bytes enough to tell a stream framed its format's own way (an event-stream prelude)."""
