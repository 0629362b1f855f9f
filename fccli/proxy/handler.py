"""The journal's work: from the facts the event loop hands it (facts.py) to traces and the live
transcript. Each model request is read, converted, checked (`fc check`, unless --strict-check
did it before forwarding), matched to its conversation and recorded as a step; each answer is
decoded, folded, masked and written. The same code runs in the journal's child process
(`fc proxy`) and in its thread (the in-process tests): journal.py.

Facts are handled in the order the loop saw them, with one exception that keeps the matching
right: a request that may continue a step whose answer is not recorded yet is held back, with
every later fact about it, until that step is settled (conversations.py says why).
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from fccli.core.cities import cities
from fccli.core.errors import FcError, FindingsError, InputFileError, Interrupted, ProviderError
from fccli.core.jsonio import parse_json
from fccli.core.manifest import Manifest, Options
from fccli.core.models import Message, Request
from fccli.core.secrets import maskers
from fccli.i18n import Msg
from fccli.proxy.conversations import Conversation, Conversations, keys_of
from fccli.proxy.facts import Asked, Close, Ended, Flush, Notice, Tick, Unrecorded, too_big
from fccli.proxy.settings import Settings
from fccli.proxy.step import Step, checks_of, error_message, question_of
from fccli.trace.slug import slugify
from fccli.trace.writer import TraceWriter, default_dir, prepare_dir
from fccli.wire.registry import FORMATS, WireFormat, route_at

if TYPE_CHECKING:
    from fccli.proxy.settings import Settings
    from fccli.proxy.target import Target
    from fccli.render.proxy_view import ProxyView


class FactHandler:
    """Handle the facts the event loop hands the journal: read, match and record each request,
    write and show each answer, in the order the loop saw them (but for requests held back)."""

    def __init__(self, target: Target, settings: Settings, view: ProxyView) -> None:
        self.target = target
        self.settings = settings
        self.view = view
        self.conversations = Conversations()
        self._steps: dict[int, Step] = {}
        """Steps whose request is recorded and whose answer is not, by request id."""
        self._held: dict[int, list[Any]] = {}
        """Requests held back (by id): the facts about each, in order, its `Asked` first."""
        self._waiting: dict[Conversation, list[int]] = {}
        """The requests each conversation's step in flight holds back."""
        self._released: list[int] = []
        self._layouts: dict[str, tuple[str, str]] = {}
        """Each format's results layout and stop field, one tuple for all its conversations."""
        self.closed = False

    def __call__(self, fact: Any) -> None:
        """Handle one fact, then whatever it released; a bug is said, and the journal goes on."""
        self._guarded(fact)
        while self._released:
            for later in self._held.pop(self._released.pop(0), []):
                self._guarded(later)

    def _guarded(self, fact: Any) -> None:
        try:
            self._handle(fact)
        except Exception as e:  # a bug in fc: one line, and the next fact is handled
            with contextlib.suppress(Exception):
                self.view.bug(type(e).__name__, str(e), recording=True)

    def _handle(self, fact: Any) -> None:
        rid = getattr(fact, "rid", None)
        if rid is not None and rid in self._held:
            self._held[rid].append(fact)
        elif isinstance(fact, Asked):
            self._asked(fact)
        elif isinstance(fact, Ended):
            self._ended(fact)
        elif isinstance(fact, Notice):
            self._notice(fact)
        elif isinstance(fact, Unrecorded):
            self.view.unrecorded(fact.count)
        elif isinstance(fact, Close):
            self.close()
        elif isinstance(fact, Tick):
            self.idle()
        elif isinstance(fact, Flush):
            fact.done.set()

    def _notice(self, fact: Notice) -> None:
        if fact.kind == "bug":
            self.view.bug(fact.path, fact.why)
        elif fact.kind == "refused":
            self.view.refused(fact.method, fact.path, fact.status or 0, fact.why)
        else:
            self.view.passed(fact.method, fact.path, fact.status, fact.why)

    def close(self) -> None:
        """Close every trace still open as `interrupted` (fc proxy stopped), and say so once."""
        if self.closed:
            return
        self.closed = True
        stopped = Interrupted(Msg("fc proxy stopped before the conversation ended"))
        closed = [c for c in self.conversations.open if self._finished(c, stopped)]
        self.view.stopped(closed)

    def idle(self) -> None:
        """Close the conversations whose agent sent no next request for the idle time."""
        seconds = self.settings.idle_seconds
        for c in self.conversations.idle(seconds):
            why = Msg(
                "no next request came for {seconds} s: fc proxy closed the conversation",
                seconds=format(round(seconds), ","),
            )
            if self._finished(c, Interrupted(why)):
                self.view.idle(c, why)

    def _finished(self, c: Conversation, why: Interrupted) -> bool:
        """Close `c`'s trace as interrupted; False when it was closed, or cannot be written:
        changed while it waited (said)."""
        try:
            return c.finish("interrupted", why)
        except FcError as e:
            self.view.warn(error_message(e))
            return False

    # a request

    def _asked(self, fact: Asked) -> None:
        self.idle()
        fmt = FORMATS[fact.fmt]
        read = self._read(fmt, fact.path, fact.body)
        if read is None:
            return
        wire, request, stream = read
        keys = keys_of(request.messages)
        busy = self.conversations.blocker(fmt.name, keys)
        if busy is not None:  # handled again, with what came after it, once `busy` settles
            self._held[fact.rid] = [fact]
            self._waiting.setdefault(busy, []).append(fact.rid)
            return
        conversation = self.conversations.continued(fmt.name, keys)
        if conversation is not None and not self._woken(conversation):
            conversation = None
        if conversation is None:
            layout = self._layouts.setdefault(fmt.name, (fmt.results_layout, fmt.stop_field))
            conversation = Conversation(fmt.name, layout)
            self.conversations.start(conversation, keys)
            self._open(conversation, self._header(fmt, request, stream))
        findings = fact.findings
        step = Step(
            conversation,
            conversation.steps,
            fmt,
            request,
            fact.body,
            wire,
            stream,
            None if findings is None else [text for _, text in findings],
            maskers(fact.secrets),
            self._settle,
            start=fact.start,
            wall=fact.wall,
            max_bytes=self.settings.max_record_bytes,
        )
        step.opened(self.view)
        if fact.blocked is not None:
            self.view.refused("POST", fact.path, 400, fact.blocked)
            step.blocked(self.view, FindingsError(fact.blocked))
            return
        self._steps[fact.rid] = step

    def _read(
        self, fmt: WireFormat, path: str, body: bytes
    ) -> tuple[dict[str, Any], Request, bool] | None:
        """Read the request's wire JSON, its internal form and whether it streams; None when
        it is not recorded (said on the terminal)."""
        read = read_request(fmt, path, body, self.settings.max_record_bytes)
        if isinstance(read, Msg):
            self.view.passed("POST", path, None, read)
            return None
        return read

    def _settle(self, conversation: Conversation, answer: Message | None, closed: bool) -> None:
        """Settle a recorded step: the requests it held back go on; a conversation waiting for
        its next request lets go of its trace's lock meanwhile."""
        self.conversations.settle(conversation, answer, closed)
        self._released += self._waiting.pop(conversation, [])
        if not conversation.closed:
            conversation.rest()

    def _woken(self, conversation: Conversation) -> bool:
        """Claim a waiting conversation's trace again for its next step; False (said) when
        that cannot be: the request starts a trace of its own."""
        try:
            conversation.wake()
        except FcError as e:
            self._unwritable(e)
            conversation.closed = True
            self.conversations.open.pop(conversation, None)
            return False
        return True

    def _ended(self, fact: Ended) -> None:
        step = self._steps.pop(fact.rid, None)
        if step is None:  # not recorded
            return
        step.end = fact.end
        step.answered(fact.status, fact.encoding, fact.pieces, fact.size, fact.first_byte)
        step.unkept = fact.unkept
        if fact.outcome == "done":
            step.done(self.view)
        elif fact.outcome == "unreachable":
            step.failed(self.view, ProviderError(fact.why, status=502))
        elif fact.outcome == "broken":
            why = Msg(
                "the upstream's answer broke off: {reason}",
                reason=step.secrets.text(fact.reason),
            )
            step.cut(self.view, why)
        elif fact.outcome == "left":
            step.left(self.view, fact.why)
        elif fact.outcome == "failed":
            why = Msg(
                "fc proxy failed while passing the answer on: {reason}",
                reason=step.secrets.text(fact.reason),
            )
            step.cut(self.view, why)
        else:
            step.cut(self.view, fact.why)  # a Msg: said in the chosen language

    # a new trace

    def _header(self, fmt: WireFormat, request: Request, stream: bool) -> Manifest:
        """Head a new trace's manifest from its first request."""
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
        """Claim the trace's directory and write its first manifest; one that cannot be written
        leaves the conversation unrecorded, and says so."""
        names = {c["zh"]: c["en"] for c in cities()}
        slug = slugify(header.question or "agent", names)
        try:
            path = prepare_dir(default_dir(self.settings.out, slug), force=False)
            conversation.writer = TraceWriter(path, header)
        except FcError as e:
            self._unwritable(e)
            return
        self.view.opened(conversation)

    def _unwritable(self, error: FcError) -> None:
        message = Msg("the trace cannot be written: {error}", error=error_message(error))
        self.view.passed("POST", "", None, message)


def read_request(
    fmt: WireFormat, path: str, body: bytes, limit: int
) -> tuple[dict[str, Any], Request, bool] | Msg:
    """Read a model request's wire JSON, its internal form and whether it streams; or say why
    it is forwarded without a record. (In the journal; on the event loop with --strict-check.)"""
    if len(body) > limit:
        return too_big(len(body), limit)
    try:
        wire = parse_json(body, path)
    except InputFileError as e:  # said in fc's words (Python's are English only)
        return Msg("its body is not JSON: {error}", error=e.problem)
    if not isinstance(wire, dict):
        return Msg("its body is not a JSON object")
    try:
        request = fmt.from_wire_request(wire)
    except FcError as e:
        return Msg(
            "not a {format} request fc can read: {error}", format=fmt.name, error=error_message(e)
        )
    route = route_at(fmt, path)
    # The format's reading knows a stream asked by default (Ollama's, without `"stream"`).
    asked = wire.get("stream") is True or request.stream is True
    stream = route.streams if route and route.streams is not None else asked
    # What Gemini says in the path (the model, a stream) goes into the internal request,
    # as `fc run` writes it.
    from_path: dict[str, Any] = {"model": route.captured(path).get("model") if route else None}
    from_path["stream"] = True if stream and not request.stream else None
    request = request.model_copy(update={k: v for k, v in from_path.items() if v})
    return wire, request, stream


def strict_findings(fmt: WireFormat, path: str, body: bytes, limit: int) -> list[tuple[str, str]]:
    """Check a request fc records as `fc check` does (on the event loop, --strict-check); none
    for one it does not record (the journal says why)."""
    read = read_request(fmt, path, body, limit)
    if isinstance(read, Msg):
        return []
    return checks_of(read[0], fmt)
