"""What an agent did, as the rules of `fc expect` look at it: the calls, their results, the
final answer and the stop reason, each with the file and the JSON path it was read from.

Built from a trace's steps (read by fccli/trace/reader.py), from steps held in memory (the
pytest plugin's), or from one request or response file. A place is a JSON path into fc's
internal form of the file named beside it (`2-response.json`, `$.content[1]`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from fccli.core.manifest import ToolRunRecord
from fccli.core.models import (
    Message,
    Request,
    Response,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from fccli.trace.names import MANIFEST, step_file


@dataclass
class Step:
    """One step held in memory: the request sent and the answer it got (None where missing)."""

    number: int
    request: Request | None = None
    response: Response | None = None
    runs: list[ToolRunRecord] = field(default_factory=list)
    """The tool runs fc's manifest records for the step (`tool_runs`), if any: a call whose
    error result no request hands back (the run's last step) is found there."""
    record_path: str | None = None
    """Where the step's record is in manifest.json (`$.steps[0]`), when there is one."""


@dataclass
class Call:
    step: int | None
    file: str | None
    place: str
    """The call's block: `$.content[2]`; its arguments are under `.input`."""
    name: str
    arguments: dict[str, Any]
    id: str


@dataclass
class Result:
    step: int | None
    file: str | None
    place: str | None
    call_id: str
    is_error: bool
    content: str


@dataclass
class Said:
    """A value read from one place: the final answer's text, the stop reason."""

    step: int | None
    file: str | None
    place: str | None
    value: str


@dataclass
class Facts:
    steps: int
    calls: list[Call] = field(default_factory=list)
    results: list[Result] = field(default_factory=list)
    answer: Said | None = None
    stop: Said | None = None
    no_answer: str | None = None
    """Why there is no final answer (`answer` None): the last step asked for tools, or has no
    response."""
    file: str | None = None
    """The file read, when the facts are of one file (not a trace)."""
    notes: list[tuple[int, str]] = field(default_factory=list)
    """What could not be read, by step (the trace reader's notes: Msgs)."""

    def tool_name(self, call_id: str) -> str | None:
        return next((c.name for c in self.calls if c.id == call_id), None)


def from_steps(steps: Sequence[Step]) -> Facts:
    """Gather the facts of steps in the order given (their numbers name their files)."""
    facts = Facts(len(steps))
    answered: dict[str, Result] = {}
    for step in steps:
        n = step.number
        if step.request is not None:
            _results(
                facts, step.request.messages, n, step_file(n, "request"), "$.messages", answered
            )
        if step.response is not None:
            _calls(facts, step.response.content, n, step_file(n, "response"), "$.content")
    for step in steps:
        for index, run in enumerate(step.runs):
            # a failed run handed back as a success (a harness's mistake) failed all the same
            if run.id is None or not run.is_error:
                continue
            handed_back = answered.get(run.id)
            if handed_back is not None and handed_back.is_error:
                continue
            where = f"{step.record_path}.tool_runs[{index}]" if step.record_path else None
            facts.results.append(
                Result(step.number, MANIFEST, where, run.id, True, run.error or "")
            )
    if steps:
        last = steps[-1]
        _last_answer(facts, last.response, last.number, step_file(last.number, "response"))
    return facts


def from_response(response: Response, file: str) -> Facts:
    """Gather the facts of one response file: one step, its calls and its answer."""
    facts = Facts(1, file=file)
    _calls(facts, response.content, None, file, "$.content")
    _last_answer(facts, response, None, file)
    return facts


def from_history(messages: list[Message], file: str, base: str) -> Facts:
    """Gather the facts of a request's history (or a messages array, `base` `$`): each
    assistant turn a step, the request itself the step after them."""
    turns = [m for m in messages if m.role == "assistant"]
    last_is_answer = bool(messages) and messages[-1].role == "assistant"
    facts = Facts(len(turns) + (0 if last_is_answer else 1), file=file)
    for i, message in enumerate(messages):
        if message.role == "assistant":
            _calls(facts, message.content, None, file, f"{base}[{i}].content")
    _results(facts, messages, None, file, base, {})
    if last_is_answer and not messages[-1].tool_uses():
        text, place = _text_of(messages[-1].content, f"{base}[{len(messages) - 1}].content")
        facts.answer = Said(None, file, place, text)
    else:
        facts.no_answer = "request"
    return facts


def _calls(facts: Facts, content: list[Any], step: int | None, file: str, base: str) -> None:
    for k, block in enumerate(content):
        if isinstance(block, ToolUseBlock):
            facts.calls.append(Call(step, file, f"{base}[{k}]", block.name, block.input, block.id))


def _results(
    facts: Facts,
    messages: list[Message],
    step: int | None,
    file: str,
    base: str,
    answered: dict[str, Result],
) -> None:
    """Add the results first handed back in these messages (a later request repeats them)."""
    for i, message in enumerate(messages):
        for j, block in enumerate(message.content):
            if isinstance(block, ToolResultBlock) and block.tool_use_id not in answered:
                place = f"{base}[{i}].content[{j}]"
                result = Result(step, file, place, block.tool_use_id, block.is_error, block.content)
                answered[block.tool_use_id] = result
                facts.results.append(result)


def _text_of(content: list[Any], base: str) -> tuple[str, str]:
    """Return the text blocks' text, and the place of the one block holding it, else the
    content's."""
    texts = [k for k, b in enumerate(content) if isinstance(b, TextBlock)]
    text = "".join(content[k].text for k in texts)
    return text, f"{base}[{texts[0]}]" if len(texts) == 1 else base


def _last_answer(facts: Facts, response: Response | None, step: int | None, file: str) -> None:
    """Read the stop reason and the final answer from the last step's response."""
    if response is None:
        facts.no_answer = "missing"
        return
    facts.stop = Said(step, file, "$.stop_reason", response.stop_reason)
    if response.stop_reason == "tool_use" or response.tool_uses():
        facts.no_answer = "tool_use"
        return
    text, place = _text_of(response.content, "$.content")
    facts.answer = Said(step, file, place, text)
