"""Which trace a request belongs to: the next step of a conversation, or the first of a new one.

A request continues a trace when its history begins with that trace's last request and the
answer it got (the assistant turn), and goes on (the results): what an agent sends as its next
step. Anything else starts a trace. Histories are compared in fc's internal form, so the client's
own spelling (key order, `"content": null` or `""`, extra fields an SDK echoes) does not matter;
thinking is left out of the comparison, so an agent that drops its reasoning (which `fc check`
then reports) still continues its trace.

An agent asks for its next step only after the answer came, but the last bytes of a stream reach
it about when the proxy reads them: a request that could continue a step still in flight waits
for that step to be recorded before it is matched (requests of other conversations do not wait).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path

from fccli.core.models import Message, ThinkingBlock, ToolUseBlock
from fccli.trace.writer import TraceWriter


def message_key(message: Message) -> str:
    """A message as the comparison sees it: its blocks but thinking, empty text left out."""
    blocks = [
        block.model_dump(mode="json", exclude_none=True)
        for block in message.content
        if not isinstance(block, ThinkingBlock)
        and not (block.type == "text" and not getattr(block, "text", "").strip())
    ]
    return json.dumps([message.role, blocks], sort_keys=True, ensure_ascii=False)


def keys_of(messages: list[Message]) -> list[str]:
    return [message_key(m) for m in messages]


@dataclass(eq=False)
class Conversation:
    """One agent's conversation, recorded as one trace.

    Two threads share it, each its own fields: the event loop matches requests (`steps` to
    `closed`, changed only on the loop), the journal writes the trace (`writer` to `finished`,
    changed only in the journal's thread; journal.py)."""

    fmt: str
    layout: tuple[str, str] = ("", "")
    """The format's results layout and stop field, in its words (for the run view)."""
    steps: int = 0
    request_keys: list[str] = field(default_factory=list)
    """The last request's history."""
    history_keys: list[str] | None = None
    """What the next request must begin with: the last request's history and its answer;
    None while that answer is in flight (or when it never came)."""
    in_flight: asyncio.Event | None = None
    closed: bool = False
    """No further step: it ended (an answer without calls, an error), or fc proxy stopped."""

    writer: TraceWriter | None = None
    """The trace, once its first step is written; None before, or when it cannot be."""
    calls: dict[str, ToolUseBlock] = field(default_factory=dict)
    """The last answer's tool calls by id: the next request's results are paired with them."""
    finished: bool = False

    @property
    def path(self) -> Path:
        return self.writer.path if self.writer is not None else Path("?")

    def begin(self, keys: list[str]) -> int:
        """Claim the next step for a request of history `keys`; returns its number."""
        self.steps += 1
        self.request_keys = keys
        self.history_keys = None
        self.in_flight = asyncio.Event()
        return self.steps

    def settle(self, answer: Message | None, closed: bool) -> None:
        """(On the loop) the step in flight is recorded: its answer is the history's next; an
        answer that ends the conversation (or none at all) closes it."""
        if answer is not None and not closed:
            self.history_keys = [*self.request_keys, message_key(answer)]
        self.closed = self.closed or closed
        if self.in_flight is not None:
            self.in_flight.set()
            self.in_flight = None

    def finish(self, status: str, error: BaseException | None = None) -> bool:
        """(In the journal) close the trace with `status`; False when it was already closed."""
        if self.finished or self.writer is None:
            return False
        self.finished = True
        self.writer.finish(status, error=error, step=self.steps or None)
        return True


class Conversations:
    """The traces open under one `--out`."""

    def __init__(self) -> None:
        self.open: list[Conversation] = []

    async def continued(self, fmt: str, keys: list[str]) -> Conversation | None:
        """The open conversation that a request of history `keys` continues, its next step
        claimed; None: the request starts a conversation of its own."""
        for waiting in [c for c in self.open if c.in_flight and self._may_continue(c, fmt, keys)]:
            if waiting.in_flight is not None:
                await waiting.in_flight.wait()
        best: Conversation | None = None
        for c in self.open:
            history = c.history_keys
            if (
                c.fmt == fmt
                and not c.closed
                and c.in_flight is None
                and history is not None
                and len(keys) > len(history)
                and keys[: len(history)] == history
                and (best is None or len(history) > len(best.history_keys or ()))
            ):
                best = c
        if best is not None:  # claimed before anything else runs: no await from the match on
            best.begin(keys)
        return best

    @staticmethod
    def _may_continue(c: Conversation, fmt: str, keys: list[str]) -> bool:
        n = len(c.request_keys)
        return c.fmt == fmt and not c.closed and len(keys) > n + 1 and keys[:n] == c.request_keys

    def add(self, conversation: Conversation) -> None:
        self.open.append(conversation)

    def forget_closed(self) -> None:
        self.open = [c for c in self.open if not c.closed]
