"""Which trace a request belongs to: the next step of a conversation, or the first of a new one.

A request continues a trace when its history begins with that trace's last request and the
answer it got (the assistant turn), and goes on (the results): what an agent sends as its next
step. Anything else starts a trace. Histories are compared in fc's internal form, so the client's
own spelling (key order, `"content": null` or `""`, extra fields an SDK echoes) does not matter;
thinking is left out of the comparison, so an agent that drops its reasoning (which `fc check`
then reports) still continues its trace.

An agent asks for its next step only after the answer came, but the last bytes of a stream reach
it about when the proxy reads them, so the journal may learn of the next request before it
learns how the step ended: a request that could continue a step still in flight waits for that
step to be recorded before it is matched (`blocker`; requests of other conversations do not
wait; the journal holds it back, journal.py).

Conversations are found by digests of their histories' prefixes, not by scanning them all: a
proxy that has seen thousands of conversations matches a request as fast as one that has seen
one (a chain of digests, one per message: each message's text is hashed once per request). A
digest of 16 bytes stands for the history it was made from: an open conversation keeps its
digests, not its messages, and between two steps neither its trace's writer nor its manifest
(trace/writer.py `rest`), so that thousands of them waiting cost a few hundred bytes each.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fccli.core.models import Message, ThinkingBlock, ToolUseBlock
from fccli.trace.writer import TraceWriter


def message_key(message: Message) -> str:
    """Key a message as the comparison sees it: its blocks but thinking, empty text left out."""
    blocks = [
        block.model_dump(mode="json", exclude_none=True)
        for block in message.content
        if not isinstance(block, ThinkingBlock)
        and not (block.type == "text" and not getattr(block, "text", "").strip())
    ]
    return json.dumps([message.role, blocks], sort_keys=True, ensure_ascii=False)


def keys_of(messages: list[Message]) -> list[str]:
    return [message_key(m) for m in messages]


def prefix_hashes(keys: list[str]) -> list[bytes]:
    """Digest every prefix: `out[n]` stands for `keys[:n]`, made from `out[n-1]` and one key."""
    out = [b""]
    for key in keys:
        out.append(next_hash(out[-1], key))
    return out


def next_hash(h: bytes, key: str) -> bytes:
    """Digest a history of digest `h` and one more message, of key `key`."""
    return hashlib.blake2b(h + key.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def calls_of(calls: list[ToolUseBlock]) -> bytes:
    """Keep the last answer's tool calls as little as may be: their ids, names and inputs, as
    JSON, to pair the next request's results with them (`paired`)."""
    return json.dumps([[c.id, c.name, c.input] for c in calls], ensure_ascii=False).encode()


def paired(calls: bytes) -> dict[str, tuple[str, Any]]:
    """Map each kept call's id to its name and input."""
    return {id_: (name, args) for id_, name, args in json.loads(calls)} if calls else {}


@dataclass(eq=False, slots=True)
class Conversation:
    """One agent's conversation, recorded as one trace.

    Lives in the journal (journal.py), which matches requests and writes the trace."""

    fmt: str
    layout: tuple[str, str] = ("", "")
    """The format's results layout and stop field, in its words (for the run view)."""
    steps: int = 0
    request_hash: bytes = b""
    """The last request's history's digest."""
    request_size: int = 0
    """How many messages that history holds."""
    history_hash: bytes = b""
    """What the next request must begin with: the last request's history and its answer;
    empty while that answer is in flight (or when it never came)."""
    in_flight: bool = False
    """A step was claimed and its answer is not recorded yet."""
    closed: bool = False
    """No further step: it ended (an answer without calls, an error), or fc proxy stopped."""

    writer: TraceWriter | None = None
    """The trace while a step is written; None before its first step, while it waits for the
    next (`rested`), or when it cannot be written."""
    rested: tuple[str, float] | None = None
    """The trace while it waits for the next step (TraceWriter.rest): `wake` claims it again."""
    calls: bytes = b""
    """The last answer's tool calls (`calls_of`): the next request's results are paired with them."""
    finished: bool = False
    waiting_since: float = 0.0
    """When its last answer was recorded (time.monotonic): how long it has waited for the
    agent's next request."""

    @property
    def path(self) -> Path:
        if self.writer is not None:
            return self.writer.path
        return Path(self.rested[0]) if self.rested is not None else Path("?")

    @property
    def recorded(self) -> bool:
        """Whether it has a trace (written now, or resting)."""
        return self.writer is not None or self.rested is not None

    def rest(self) -> None:
        """Let go of the trace until the next step (`wake`)."""
        if self.writer is not None:
            self.rested, self.writer = self.writer.rest(), None

    def wake(self) -> None:
        """Claim the trace again for its next step (a FcError when it cannot be: gone, or
        changed while it rested)."""
        if self.rested is not None:
            self.writer, self.rested = TraceWriter.woken(self.rested), None

    def finish(self, status: str, error: BaseException | None = None) -> bool:
        """Close the trace with `status` (in the journal); False when it was already closed.
        A FcError when a resting trace cannot be claimed again."""
        if self.finished or not self.recorded:
            return False
        self.wake()
        assert self.writer is not None
        self.finished = True
        self.writer.finish(status, error=error, step=self.steps or None)
        return True


class Conversations:
    """The conversations not closed yet, indexed by what their next request must begin with.
    In the journal, which hands them requests and outcomes in the order the proxy saw them."""

    def __init__(self) -> None:
        self.open: dict[Conversation, None] = {}
        """In the order they began (a dict as an ordered set)."""
        self._waiting: dict[bytes, Conversation | list[Conversation]] = {}
        """By their history's digest: those whose answer came, waiting for the next step; one
        alone under its digest as itself, not in a list (thousands may wait at once)."""
        self._flying: dict[bytes, Conversation | list[Conversation]] = {}
        """By their last request's digest: those whose answer is in flight."""
        self.waiting: dict[Conversation, None] = {}
        """Those waiting for their next request, the longest waiting first."""

    def blocker(self, fmt: str, keys: list[str]) -> Conversation | None:
        """Find a conversation whose step in flight a request of history `keys` may continue (it
        extends that step's request by an answer and more): the request must wait until that
        step is settled before it is matched. None: it can be matched now."""
        hashes = prefix_hashes(keys)
        for n in range(len(keys) - 2, 0, -1):
            for c in _found(self._flying, hashes[n]):
                if c.fmt == fmt and c.in_flight and c.request_size == n:
                    return c
        return None

    def continued(self, fmt: str, keys: list[str]) -> Conversation | None:
        """Find the open conversation that a request of history `keys` continues, its next step
        claimed; None: the request starts a conversation of its own. Asked once `blocker`
        says None."""
        hashes = prefix_hashes(keys)
        # The longest history this request goes on from (more than an answer: results).
        for n in range(len(keys) - 1, 0, -1):
            for c in _found(self._waiting, hashes[n]):
                if c.fmt == fmt and not c.closed and c.history_hash and c.request_size + 1 == n:
                    self.begin(c, len(keys), hashes[-1])
                    return c
        return None

    def start(self, conversation: Conversation, keys: list[str]) -> None:
        """Open a new conversation, its first step in flight."""
        self.open[conversation] = None
        self.begin(conversation, len(keys), prefix_hashes(keys)[-1])

    def begin(self, c: Conversation, size: int, request_hash: bytes) -> None:
        """Claim the next step of `c` for a request whose history holds `size` messages, of
        digest `request_hash`."""
        if c.history_hash:
            _drop(self._waiting, c.history_hash, c)
        self.waiting.pop(c, None)
        c.steps += 1
        c.request_size, c.request_hash = size, request_hash
        c.history_hash = b""
        c.in_flight = True
        _add(self._flying, request_hash, c)

    def settle(self, c: Conversation, answer: Message | None, closed: bool) -> None:
        """Settle the recorded step in flight: its answer is the history's next, unless the
        conversation ended with it (or got none)."""
        _drop(self._flying, c.request_hash, c)
        c.closed = c.closed or closed or answer is None
        if c.closed:
            self.open.pop(c, None)
        elif answer is not None:
            c.history_hash = next_hash(c.request_hash, message_key(answer))
            _add(self._waiting, c.history_hash, c)
            c.waiting_since = time.monotonic()
            self.waiting[c] = None
        c.in_flight = False

    def idle(self, seconds: float) -> list[Conversation]:
        """Close and return the conversations that have waited longer than `seconds`."""
        cutoff = time.monotonic() - seconds
        gone = []
        for c in self.waiting:
            if c.waiting_since > cutoff:
                break
            gone.append(c)
        for c in gone:
            del self.waiting[c]
            _drop(self._waiting, c.history_hash, c)
            self.open.pop(c, None)
            c.closed = True
        return gone


Index = dict[bytes, Conversation | list[Conversation]]


def _found(index: Index, key: bytes) -> list[Conversation]:
    found = index.get(key)
    if found is None:
        return []
    return found if isinstance(found, list) else [found]


def _add(index: Index, key: bytes, c: Conversation) -> None:
    found = index.get(key)
    if found is None:
        index[key] = c
    elif isinstance(found, list):
        found.append(c)
    else:
        index[key] = [found, c]


def _drop(index: Index, key: bytes, c: Conversation) -> None:
    found = index.get(key)
    if found is c:
        del index[key]
    elif isinstance(found, list) and c in found:
        found.remove(c)
        if len(found) == 1:
            index[key] = found[0]
