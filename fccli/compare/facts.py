"""What one step did, as facts that can be compared across wire formats.

Everything is read in the internal format (a trace's internal files, or a wire file read through
its format, as `fc diff` reads it), so a DeepSeek chat step and an Anthropic step say the same
thing the same way. Ids are left out: each format (and each run) names its calls its own way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fccli.core.models import Message, Request, Response, Usage
from fccli.cost.price import StepPrice
from fccli.trace.reader import Document, Step

OPTIONS = (
    "system",
    "tool_choice",
    "parallel_tool_calls",
    "thinking",
    "effort",
    "max_tokens",
    "response_format",
    "stream",
)
"""The request's settings compared as part of the setup, by their internal names."""


@dataclass(frozen=True)
class Call:
    """A tool call the model asked for: the tool and its arguments."""

    name: str
    input: Any


@dataclass(frozen=True)
class HandedBack:
    """A tool result handed back in a step's request, with the name of the call it answers."""

    name: str
    content: str
    is_error: bool


@dataclass
class StepFacts:
    """What one step asked and answered; None where its file says nothing of it."""

    number: int
    format: str | None
    model: str | None = None
    tools: list[str] | None = None
    """The tools offered, by name (None: the request could not be read)."""
    tool_specs: dict[str, Any] = field(default_factory=dict)
    """Each tool offered as the request defines it (description, schema, strict), by name."""
    options: dict[str, Any] = field(default_factory=dict)
    """The request's settings that are set (system, tool_choice, thinking, effort...)."""
    question: str | None = None
    """The text of the request's newest user turn, when it has any (step 1: the question)."""
    handed_back: list[HandedBack] = field(default_factory=list)
    """The results the request hands back (of the step before's calls)."""
    stop_reason: str | None = None
    calls: list[Call] = field(default_factory=list)
    text: str | None = None
    """What the model wrote beside its calls, or its answer (None: no response)."""
    usage: dict[str, int] | None = None
    """Token counts (input, output, reasoning, cache), the internal form's names."""
    duration_ms: float | None = None
    error: str | None = None
    """Why the run stopped at this step (the manifest's error: its kind and message)."""
    cost: StepPrice | None = None
    """What the step cost (fccli/cost), or why it has no price; None: no token counts."""
    answered: bool = False
    """Whether the step has a response to compare."""


def step_facts(step: Step, wire_format: str | None) -> StepFacts:
    """Read the facts of a trace's step (its manifest record gives time and, failing the
    response, tokens and the stop reason)."""
    record = step.record or {}
    facts = _facts(step.number, wire_format, step.request, step.response)
    duration = record.get("duration_ms")
    facts.duration_ms = float(duration) if isinstance(duration, (int, float)) else None
    if facts.usage is None and isinstance(record.get("usage"), dict):
        facts.usage = _counts(record["usage"])
    if facts.stop_reason is None and isinstance(record.get("stop_reason"), str):
        facts.stop_reason = record["stop_reason"]
    return facts


def document_facts(doc: Document) -> StepFacts:
    """Read the facts of one step file: a request, a response or a messages array."""
    internal = doc.internal
    if isinstance(internal, list):
        internal = Request(model="", messages=internal)
    request = internal if isinstance(internal, Request) else None
    response = internal if isinstance(internal, Response) else None
    return _facts(1, doc.format, request, response)


def _facts(
    number: int, wire_format: str | None, request: Request | None, response: Response | None
) -> StepFacts:
    facts = StepFacts(number, wire_format)
    if request is not None:
        facts.model = request.model or None
        facts.tools = [t.name for t in request.tools]
        facts.tool_specs = {t.name: t.to_json_dict() for t in request.tools}
        settings = request.to_json_dict()
        facts.options = {k: settings[k] for k in OPTIONS if settings.get(k) is not None}
        facts.question, facts.handed_back = _newest_turn(request.messages)
    if response is not None:
        facts.answered = True
        facts.model = response.model or facts.model
        facts.stop_reason = response.stop_reason
        facts.calls = [Call(c.name, c.input) for c in response.tool_uses()]
        facts.text = response.text() or None
        if response.usage is not None:
            facts.usage = _counts(response.usage)
    return facts


def _newest_turn(messages: list[Message]) -> tuple[str | None, list[HandedBack]]:
    """The newest user turn's text and the results it hands back, each named by its call."""
    if not messages or messages[-1].role != "user":
        return None, []
    names = {c.id: c.name for m in messages for c in m.tool_uses()}
    turn = messages[-1]
    back = [
        HandedBack(names.get(r.tool_use_id, "?"), r.content, r.is_error)
        for r in turn.tool_results()
    ]
    return turn.text() or None, back


def _counts(usage: Usage | dict[str, Any]) -> dict[str, int] | None:
    data = usage.to_json_dict() if isinstance(usage, Usage) else usage
    counts = {k: v for k, v in data.items() if isinstance(v, int) and not isinstance(v, bool)}
    return counts or None
