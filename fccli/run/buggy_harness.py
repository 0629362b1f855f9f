"""What `--harness-bug KIND` does to the round trip: each function is one classic mistake.

The engine calls these at the one place each mistake happens in a real harness, and records in
the trace's manifest, on the step it changed, what it did (`fc show` prints it in red). The
mistakes are the program's, so the model sees them as a provider would: DeepSeek's 400 for a
turn without its reasoning, an answer built on results paired by position.
"""

from __future__ import annotations

import json
from typing import Any

from fccli.core.errors import HarnessAborted
from fccli.core.models import (
    Block,
    Message,
    ProviderBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from fccli.i18n import Joined, Msg
from fccli.tools.execute import ToolRun

INVENTED_SUCCESS = '{"status": "success"}'
"""What report-success hands back for a failed call: the harness's kind invention."""


def hand_back(bug: str | None, runs: list[ToolRun]) -> tuple[list[Message], Msg | None]:
    """Build the user message(s) that hand the results back; say what the bug changed (or None)."""
    results = [r.result for r in runs]
    if bug == "report-success":
        failed = [r for r in runs if r.result.is_error]
        if not failed:
            return [Message(role="user", content=list(results))], None
        told = [
            r.result
            if not r.result.is_error
            else ToolResultBlock(tool_use_id=r.call.id, content=INVENTED_SUCCESS)
            for r in runs
        ]
        return [Message(role="user", content=list(told))], Msg(
            "report-success: {ids} failed, and the model was told {success} instead of the error",
            ids=Joined([r.call.id for r in failed], ", "),
            success=INVENTED_SUCCESS,
        )
    if bug == "drop-results":
        ids = Joined([r.call.id for r in runs], ", ")
        return [], Msg("drop-results: the results of {ids} were not handed back", ids=ids)
    if bug == "split-results" and len(results) > 1:
        note = Msg("split-results: {n} results sent as {n} user messages, not one", n=len(results))
        return [Message(role="user", content=[r]) for r in results], note
    if bug == "pair-by-order" and len(results) > 1:
        # The results came back in another order and were matched to the calls by position:
        # each id now carries the next call's result.
        moved = [*results[1:], results[0]]
        paired = [
            ToolResultBlock(tool_use_id=r.tool_use_id, content=m.content, is_error=m.is_error)
            for r, m in zip(results, moved, strict=True)
        ]
        swaps = [
            Msg(
                "{id} ({arguments}) got the result of {other} ({other_arguments})",
                id=run.call.id,
                arguments=_label(run),
                other=other.call.id,
                other_arguments=_label(other),
            )
            for run, other in zip(runs, [*runs[1:], runs[0]], strict=True)
        ]
        joined = swaps[0]
        for swap in swaps[1:]:
            joined = Msg("{first}; {then}", first=joined, then=swap)
        return [Message(role="user", content=list(paired))], Msg(
            "pair-by-order: {swaps}", swaps=joined
        )
    return [Message(role="user", content=list(results))], None


def raise_on_error(step: int, runs: list[ToolRun]) -> None:
    """Raise on the first failed call, as a harness without error results does
    (raise-on-error): nothing goes back, and the model never answers."""
    failed = next((r for r in runs if r.result.is_error), None)
    if failed is None:
        return
    raise HarnessAborted(
        Msg(
            "raise-on-error: the tool error of {id} ({error}) was raised instead of handed back; "
            "the loop stopped, {n} result(s) never went back and the model never answered",
            id=failed.call.id,
            error=failed.result.content.split(". ")[0],
            n=len(runs),
        ),
        hint=Msg(
            "without the bug, fc hands the error back as a result (is_error) and the model "
            "reads it and goes on"
        ),
        step=step,
    )


def text_only(step: int, message: Message) -> tuple[Message, Msg]:
    """Cut a tool-calling turn down to its text (text-only-turn); say what was cut."""
    calls = [b.id for b in message.content if isinstance(b, ToolUseBlock)]
    kept: list[Block] = [b for b in message.content if isinstance(b, TextBlock)]
    said = (
        Msg(
            "text-only-turn: step {step}'s turn went back as its text only, without its calls "
            "{ids}",
            step=step,
            ids=Joined(calls, ", "),
        )
        if kept
        else Msg(
            "text-only-turn: step {step}'s turn had no text: it went back empty, without its "
            "calls {ids}",
            step=step,
            ids=Joined(calls, ", "),
        )
    )
    return Message(role=message.role, content=kept), said


def pack_wire_results(body: dict[str, Any]) -> int:
    """Put each turn's `role: "tool"` messages into ONE, its content a list of tool_result
    blocks, as content blocks hold them (pack-results); return how many results were packed.

    Only a format with one message per result (chat) has anything to pack."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        return 0
    out: list[Any] = []
    packed = 0
    for message in messages:
        if not (isinstance(message, dict) and message.get("role") == "tool"):
            out.append(message)
            continue
        block = {
            "type": "tool_result",
            "tool_use_id": message.get("tool_call_id"),
            "content": message.get("content"),
        }
        last = out[-1] if out else None
        if isinstance(last, dict) and last.get("role") == "tool":
            last["content"].append(block)
        else:
            out.append({"role": "tool", "tool_call_id": block["tool_use_id"], "content": [block]})
        packed += 1
    body["messages"] = out
    return packed


def identity_from_model(runs: list[ToolRun], session: dict[str, dict[str, Any]]) -> Msg | None:
    """Say which calls ran with an identity the model wrote (identity-from-args); `session`
    holds each tool's session values by tool name."""
    said = []
    for run in runs:
        for key, value in session.get(run.call.name, {}).items():
            given = run.call.input.get(key) if isinstance(run.call.input, dict) else None
            said.append(
                Msg(
                    "{id} ran with {key}={given} from the model's arguments, not the session's "
                    "{value}",
                    id=run.call.id,
                    key=key,
                    given=json.dumps(given, ensure_ascii=False),
                    value=json.dumps(value, ensure_ascii=False),
                )
            )
    if not said:
        return None
    return Msg("identity-from-args: {calls}", calls=Joined(said))


def _label(run: ToolRun) -> str:
    return json.dumps(run.call.input, ensure_ascii=False)


def without_reasoning(step: int, message: Message) -> tuple[Message, Msg]:
    """Drop the reasoning of an assistant turn (drop-reasoning); say what was dropped.

    Reasoning is a thinking block, or a provider's own reasoning item kept verbatim, as OpenAI
    Responses' `reasoning`."""
    kept = [b for b in message.content if not _is_reasoning(b)]
    if len(kept) == len(message.content):
        return message, Msg(
            "drop-reasoning: step {step} had no reasoning to drop (the turn is carried back whole)",
            step=step,
        )
    return Message(role=message.role, content=kept), Msg(
        "drop-reasoning: step {step}'s reasoning was not carried back", step=step
    )


def _is_reasoning(block: Block) -> bool:
    return isinstance(block, ThinkingBlock) or (
        isinstance(block, ProviderBlock) and block.kind() == "reasoning"
    )


def drop_wire_reasoning(body: dict[str, Any], field: str = "reasoning_content") -> int:
    """Drop `field` from the wire body's assistant turns (drop-reasoning); return how many lost it.

    The translator sends the key even empty (DeepSeek's rule); a harness that forgets it does
    not."""
    dropped = 0
    for message in body.get("messages", []):
        if isinstance(message, dict) and message.get("role") == "assistant" and field in message:
            del message[field]
            dropped += 1
    return dropped
