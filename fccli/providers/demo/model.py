"""The offline demo model: a deterministic stand-in for DeepSeek, working at the wire level.

It takes the DeepSeek-format body fc built and answers in DeepSeek's format, so every offline
run goes through the real translators. It executes nothing: it writes call intents and, once
results come back, an answer made from those results alone; an error result makes it say it
could not find out. It reads only what a model reads: the question, the tools' names,
descriptions and schemas, a long tool result by its start and length. With thinking on it says
a line before calling; off, it calls with `content: null`. It answers a history that breaks
DeepSeek's rules with DeepSeek's 400, and the same request bytes with the same response bytes.

With a fault (`fc run --demo-fault KIND`, faults.py) it makes one classic mistake in its first
tool-calling answer, then reads the error result and corrects itself in the next step. A strict
tool's schema holds it as strict mode holds a model: a fault that would break it does not
happen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fccli.core.body import Body

import hashlib
import json
import re
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from fccli.core import cities
from fccli.core.errors import ProviderError, UsageError
from fccli.core.jsonio import encode
from fccli.i18n import Msg
from fccli.providers.base import ProviderInfo, Reply
from fccli.providers.demo.faults import DEMO_FAULTS
from fccli.providers.demo.fill import (
    Filling,
    fill_object,
    first_required_string,
    is_place,
    properties_of,
    resolved,
    string_values,
)
from fccli.providers.demo.json_mode import json_answer
from fccli.providers.demo.phrases import PHRASES
from fccli.providers.demo.reading import (
    WET,
    Question,
    match,
    read_question,
    said_words,
    topics_of,
)
from fccli.providers.demo.request import LongText, long_texts, read_request
from fccli.providers.demo.sentences import DONE, FILED, is_lookup, said_of
from fccli.providers.demo.stream import cut_inside_first_call, sse_events
from fccli.wire.chat.codec import ERROR_MARKER
from fccli.wire.registry import get_format
from fccli.wire.view import texts

INFO = ProviderInfo(
    name="demo", wire_format="deepseek", default_model="fc-demo", base_url=None, key_env=None
)
DEMO_STREAM_PACE = 0.015
"""Seconds between the events of a streamed answer when someone watches them arrive."""
DEMO_SKILLS = ("strong", "weak")
SCHEMA_FAULTS = ("bad-json", "missing-arg", "wrong-type")
"""The faults whose call breaks the tool's schema: a strict tool never gets them."""
CREATED = 1767225600  # 2026-01-01T00:00:00Z: fixed, so traces repeat byte for byte


class DemoProvider:
    info = INFO

    def __init__(self, fault: str | None = None, skill: str = "strong") -> None:
        if fault is not None and fault not in DEMO_FAULTS:
            raise UsageError(
                Msg("unknown demo fault {fault!r}", fault=fault),
                hint=Msg("kinds: {kinds}", kinds=", ".join(DEMO_FAULTS)),
            )
        self.fault = fault
        """The classic mistake to make in the first tool-calling answer, or None."""
        if skill not in DEMO_SKILLS:
            raise UsageError(
                Msg("unknown demo skill {skill!r}", skill=skill), hint=Msg("weak or strong")
            )
        self.skill = skill
        """strong: fills arguments from the question by type and schema; weak: the whole
        question into the first required string parameter, as the course's first demo."""
        self.pace = 0.0
        """Seconds to wait between the events of a streamed answer (0: all at once)."""

    def mask(self, text: str) -> str:
        return text  # offline: no secret to keep

    def send(self, body: Body, *, step: int) -> Reply:
        return Reply(encode(self._respond(read_request(body), step)))

    def send_stream(self, body: Body, *, step: int, on_bytes: Callable[[bytes], None]) -> Reply:
        request = read_request(body)
        response = self._respond(request, step)
        options = request.get("stream_options")
        events = sse_events(
            response, include_usage=isinstance(options, dict) and bool(options.get("include_usage"))
        )
        cut = None
        first_calls = not any(m.get("tool_calls") for m in request.get("messages", []))
        calls = response["choices"][0]["message"].get("tool_calls")
        if self.fault == "cut-stream" and first_calls and calls:
            events = cut_inside_first_call(events)
            cut = Msg("the connection closed mid-stream (the demo fault cut-stream)")
        for n, event in enumerate(events):
            if self.pace and n:
                time.sleep(self.pace)
            on_bytes(event)
        return Reply(b"".join(events), cut=cut)

    def _respond(self, request: dict[str, Any], step: int) -> dict[str, Any]:
        problem = history_problem(request)
        if problem is not None:
            error = {
                "error": {
                    "message": problem,
                    "type": "invalid_request_error",
                    "param": None,
                    "code": "invalid_request_error",
                }
            }
            raw = encode(error).decode()
            raise ProviderError(
                # The provider's own sentence (DeepSeek's, as the demo says it) is never translated.
                Msg("the demo model answered HTTP 400: {problem}", problem=problem),
                status=400,
                body=raw,
                step=step,
            )
        # cut-stream is a fault of the connection, not of the answer: send_stream makes it.
        return respond(request, None if self.fault == "cut-stream" else self.fault, self.skill)


# ---------------------------------------------------------------------------------------------
# the rules DeepSeek enforces on a history (PROTOCOL.md, "What providers answer")


def _refusal(rule: str, **values: Any) -> str:
    """DeepSeek's own sentence for a broken history, as its wire format declares it."""
    return get_format(INFO.wire_format).refusals[rule][1].format(**values)


def history_problem(request: dict[str, Any]) -> str | None:
    thinking_on = _thinking_on(request)
    messages = request.get("messages", [])
    open_calls: list[str] = []
    for i, m in enumerate(messages):
        role = m.get("role")
        if role == "tool":
            if m.get("tool_call_id") not in open_calls:
                return _refusal("FC102")
            open_calls.remove(m["tool_call_id"])
            if not isinstance(m.get("content"), str):
                return _refusal("FC113", n=i, found="sequence")
            continue
        if open_calls:
            return _refusal("FC101", ids=", ".join(open_calls))
        if role == "assistant" and m.get("tool_calls"):
            if thinking_on and "reasoning_content" not in m:
                return _refusal("FC112")
            for k, call in enumerate(m["tool_calls"]):
                try:
                    arguments = call["function"]["arguments"]
                    if isinstance(arguments, LongText):  # read by its start: an object's?
                        ok = arguments.lstrip().startswith("{")
                    else:
                        ok = isinstance(json.loads(arguments), dict)
                except (ValueError, TypeError, KeyError):
                    ok = False
                if not ok:
                    return _refusal("FC108", n=i, k=k)
            open_calls = [c["id"] for c in m["tool_calls"]]
    if open_calls:  # the history ends on calls that were never answered
        return _refusal("FC101", ids=", ".join(open_calls))
    return None


# ---------------------------------------------------------------------------------------------
# what the model says


class _Call(NamedTuple):
    name: str
    arguments: dict[str, Any]


def respond(
    request: dict[str, Any], fault: str | None = None, skill: str = "strong"
) -> dict[str, Any]:
    messages = request.get("messages", [])
    question = _last_user_text(messages)
    q = read_question(question)
    say = PHRASES[q.language]
    tools = _offered(request)
    choice = _choose_tool(tools, request.get("tool_choice"), q)

    # With a fault, the errors its own mistake drew are not answers: it asks those again.
    slipped = _slipped(messages) if fault is not None else {}
    asked = _asked_arguments(messages, skip=slipped)
    if choice.tool is not None:
        plan = _plan(choice, q, skill, asked, request.get("parallel_tool_calls") is False)
        if plan.calls:
            first_calls = not any(m.get("tool_calls") for m in messages)
            if (fault == "no-call" and first_calls) or _carried_on(messages):
                return _made_up_response(
                    request, plan.values, question, say, carried=_carried_on(messages)
                )
            return _tool_call_response(
                request,
                plan,
                q,
                say,
                choice,
                fault=fault if first_calls else None,
                correction=_correction(messages, slipped, choice.tool["name"], say),
            )
    return _answer_response(request, messages, q, say, why_no_call=choice.basis, skip=slipped)


class _Plan(NamedTuple):
    """The calls to make now, and how their arguments were found (for the reasoning)."""

    calls: list[_Call]
    key: str | None
    """The parameter the question fills (the first required string): one call per value."""
    values: list[Any]
    language: str | None
    place: bool
    filling: Filling


def _plan(
    choice: _ToolChoice, q: Question, skill: str, asked: list[dict[str, Any]], one: bool
) -> _Plan:
    tool = choice.tool or {}
    params = _parameters(tool)
    strict = tool.get("strict") is True
    key = first_required_string(params)
    key_schema = resolved(properties_of(params).get(key), params)[0] if key else {}
    language = _language_asked(tool, key)
    # The parameter a weather tool asks its question by is a place, whatever its name.
    place = key is not None and (is_place(key, key_schema) or choice.weather)
    filling = Filling(q, skill, strict, language)
    if key is None:
        values: list[Any] = [None]
    elif skill == "weak":
        values = [q.text.strip()]
    else:
        values = string_values(key, key_schema, filling, key, place=place)
        if not values and "enum" not in key_schema:
            values = [q.text.strip()]  # nothing fits: the whole question, as a weak model
            filling.how.append((key, "fallback_question", values[0]))
        elif not values:
            values = [_enum_value(key, key_schema, filling)]
    asked_values = [a.get(key) for a in asked] if key else []
    pending = [v for v in values if v not in asked_values] if key else ([] if asked else [None])
    if one:
        pending = pending[:1]
    calls = []
    for value in pending:
        fixed = {key: value} if key else None
        calls.append(_Call(tool.get("name", ""), fill_object(params, filling, fixed=fixed)))
    return _Plan(calls, key, pending, language, place, filling)


def _enum_value(key: str, schema: dict[str, Any], filling: Filling) -> Any:
    return fill_object({"properties": {key: schema}, "required": [key]}, filling)[key]


class _ToolChoice(NamedTuple):
    tool: dict[str, Any] | None
    basis: str
    """Why this tool, or why none: description | name | forced | none_fits | forbidden |
    no_tools."""
    shared: tuple[str, ...] = ()
    """What the question and the definition have in common (said in the reasoning)."""
    weather: bool = False
    """The tool speaks of weather: the built-in example's words apply."""


def _choose_tool(tools: list[dict[str, Any]], choice: Any, q: Question) -> _ToolChoice:
    """Pick a tool the way a model does: from what the definitions say, and nothing else.

    The description counts first, then the name: the tool whose text shares most with the
    question (its topics, then its words). A tool that shares nothing is not called unless
    tool_choice forces it. So editing a tool's description changes what the demo does.
    """
    if not tools:
        return _ToolChoice(None, "no_tools")
    if choice == "none":
        return _ToolChoice(None, "forbidden")

    def chosen(tool: dict[str, Any], basis: str, shared: tuple[str, ...] = ()) -> _ToolChoice:
        text = f"{tool.get('name', '')} {tool.get('description') or ''}".replace("_", " ")
        return _ToolChoice(tool, basis, shared, "weather" in topics_of(text))

    if isinstance(choice, dict):
        name = choice.get("function", {}).get("name")
        return chosen(next((t for t in tools if t.get("name") == name), tools[0]), "forced")
    for basis, key in (("description", "description"), ("name", "name")):
        scored = [(match(q, str(t.get(key) or "").replace("_", " ")), t) for t in tools]
        best = max(scored, key=lambda st: st[0].score)
        if best[0].score > 0:
            return chosen(best[1], basis, best[0].shared)
    if choice == "required":
        return chosen(tools[0], "forced")
    return _ToolChoice(None, "none_fits")


# ---------------------------------------------------------------------------------------------
# the classic mistakes, made on purpose (faults.py), and the correction after them


def _slipped(messages: list[dict[str, Any]]) -> dict[str, str]:
    """The calls of the first tool-calling answer that came back as errors, by id, with the
    error: the fault's doing, so neither asked again nor quoted in the answer."""
    first = next((m for m in messages if m.get("tool_calls")), None)
    if first is None:
        return {}
    ids = {c.get("id") for c in first["tool_calls"]}
    out = {}
    for m in messages:
        content = texts(m.get("content"))
        answers_first = m.get("role") == "tool" and m.get("tool_call_id") in ids
        if answers_first and content.startswith(ERROR_MARKER):
            out[m["tool_call_id"]] = content[len(ERROR_MARKER) :]
    return out


def _correction(
    messages: list[dict[str, Any]], slipped: dict[str, str], tool: str, say: dict[str, str]
) -> str | None:
    """What the model tells itself after its mistake, in the answer right after the errors."""
    if not slipped or sum(1 for m in messages if m.get("tool_calls")) != 1:
        return None
    return say["think_fix"].format(error=_first_sentence(next(iter(slipped.values()))), tool=tool)


def _not_offered(name: str, offered: list[str]) -> str:
    """A tool name the model makes up: get_weather -> get_current_weather, the name from a
    famous documentation example that models have read many times."""
    made_up = "get_current_" + name[4:] if name.startswith("get_") else "get_" + name
    while made_up in offered:
        made_up += "_v2"
    return made_up


def _cut_mid_string(arguments: str) -> str:
    """`{"city":"杭州"}` -> `{"city":"杭`: cut one character into the last string value."""
    quote = arguments.rfind('"', 0, len(arguments) - 2)
    return arguments[: quote + 2] if quote > 0 else arguments[:1]


def _faulty(
    fault: str, calls: list[tuple[str, str]], param: str | None, offered: list[str]
) -> list[tuple[str, str]]:
    """The (name, arguments) of a tool-calling answer, as the model makes `fault` in it."""
    name, arguments = calls[0]
    if fault == "bad-json":
        return [(name, _cut_mid_string(arguments)), *calls[1:]]
    if fault == "missing-arg":
        return [(name, "{}"), *calls[1:]]
    if fault == "wrong-type" and param is not None:
        # All the values in one call, as an array where the schema asks for a string; the
        # other arguments as they were.
        values = [json.loads(a).get(param) for _, a in calls]
        wrong = {**json.loads(arguments), param: values}
        return [(name, json.dumps(wrong, ensure_ascii=False, separators=(",", ":")))]
    if fault == "unknown-tool":
        return [(_not_offered(n, offered), a) for n, a in calls]
    return calls


def _made_up_response(
    request: dict[str, Any],
    values: list[Any],
    question: str,
    say: dict[str, str],
    *,
    carried: bool = False,
) -> dict[str, Any]:
    """no-call: a weather report from nowhere, and a stop as if it were the answer."""
    places = [v for v in values if isinstance(v, str) and v != question.strip()]
    text = "\n".join(say["made_up"].format(place=p) for p in places) or say["made_up_nowhere"]
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if _thinking_on(request):
        message["reasoning_content"] = say["think_made_up_carried" if carried else "think_made_up"]
    return _envelope(request, message, "stop")


def _carried_on(messages: list[dict[str, Any]]) -> bool:
    """Whether the history ends on its own turn, come back as plain text with no result after
    it: a harness that took its call for a reply. It believes it looked already, and says what
    it "found" (the course's opening story: a result made up in the next round)."""
    last = messages[-1] if messages else {}
    return last.get("role") == "assistant" and not last.get("tool_calls")


def _offered(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The function definitions offered, skipping what is not one (a hand-written request)."""
    offered = request.get("tools")
    return [
        t["function"]
        for t in (offered if isinstance(offered, list) else [])
        if isinstance(t, dict)
        and t.get("type") == "function"
        and isinstance(t.get("function"), dict)
    ]


def _tool_names(request: dict[str, Any]) -> list[str]:
    return [str(t.get("name")) for t in _offered(request)]


def _parameters(tool: dict[str, Any]) -> dict[str, Any]:
    params = tool.get("parameters")
    return params if isinstance(params, dict) else {}


def _language_asked(tool: dict[str, Any], param: str | None) -> str | None:
    """ "en" or "zh" when the parameter's description asks for names in that language
    ("城市的英文名，例如：Hangzhou"); None: names as the question writes them."""
    schema = properties_of(_parameters(tool)).get(param) if param else None
    described = schema.get("description") if isinstance(schema, dict) else None
    if not isinstance(described, str):
        return None
    text = described.casefold()
    if "英文" in text or "english" in text:
        return "en"
    if "中文" in text or "chinese" in text:
        return "zh"
    return None


def _thinking_on(request: dict[str, Any]) -> bool:
    return get_format(INFO.wire_format).thinking_on(request)


def _last_user_text(messages: list[dict[str, Any]]) -> str:
    for m in reversed(messages):
        if m.get("role") == "user":
            return texts(m.get("content"))
    return ""


def _asked_arguments(
    messages: list[dict[str, Any]], skip: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    asked = []
    for m in messages:
        for call in m.get("tool_calls") or []:
            if skip and call.get("id") in skip:
                continue
            try:
                asked.append(json.loads(call["function"]["arguments"]))
            except (ValueError, KeyError, TypeError):
                asked.append({})
    return asked


def _digest(request: dict[str, Any]) -> str:
    # Without the stream switches: the same question streamed gets the same ids.
    request = {k: v for k, v in request.items() if k not in ("stream", "stream_options")}
    canonical = json.dumps(request, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(canonical.encode("utf-8", "surrogatepass"))
    for text in long_texts(request):  # read by its start: the rest of it counts too
        digest.update(text.digest.encode())
    return digest.hexdigest()


CHARS_PER_TOKEN = 2
DEFAULT_MAX_TOKENS = {False: 4096, True: 32768}
"""The bound on a request without `max_tokens`, by thinking off or on: DeepSeek's defaults
(deepseek-chat 4K, deepseek-reasoner 32K with its reasoning, api-docs.deepseek.com "Models &
Pricing")."""


def _cut_to(message: dict[str, Any], budget: int) -> bool:
    """Cut what the model writes (reasoning, then text, then each call's arguments, in the
    order a model generates them) to `budget` characters, as `max_tokens` cuts a real answer.
    True when something was cut: the arguments may now be half a JSON object."""
    cut = False
    for key in ("reasoning_content", "content"):
        text = message.get(key)
        if isinstance(text, str):
            if len(text) > budget:
                message[key], cut = text[:budget], True
            budget -= len(message[key])
    kept = []
    for call in message.get("tool_calls", []):
        if budget <= 0:
            cut = True
            break
        arguments = call["function"]["arguments"]
        if len(arguments) > budget:
            call["function"]["arguments"], cut = arguments[:budget], True
        budget -= len(call["function"]["arguments"])
        kept.append(call)
    if "tool_calls" in message:
        message["tool_calls"] = kept
        if not kept:
            del message["tool_calls"]
    return cut


def _envelope(
    request: dict[str, Any], message: dict[str, Any], finish_reason: str
) -> dict[str, Any]:
    h = _digest(request)
    max_tokens = request.get("max_tokens")
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool):
        max_tokens = DEFAULT_MAX_TOKENS[_thinking_on(request)]
    if _cut_to(message, max_tokens * CHARS_PER_TOKEN):
        finish_reason = "length"
    reasoning = message.get("reasoning_content") or ""
    # What the model wrote, counted as _cut_to counts it, so a cut answer stays in its budget.
    arguments = "".join(c["function"]["arguments"] for c in message.get("tool_calls", []))
    written = reasoning + (message.get("content") or "") + arguments
    read = [request.get("messages", []), request.get("tools", [])]
    prompt = sum(len(json.dumps(part, ensure_ascii=False)) for part in read)
    prompt += sum(text.chars - len(text) for text in long_texts(read))
    prompt_tokens = prompt // 2 + 1
    # Token counts are an estimate (about 2 characters a token), but the same every time.
    completion_tokens = -(-len(written) // CHARS_PER_TOKEN)
    reasoning_tokens = -(-len(reasoning) // CHARS_PER_TOKEN)
    return {
        "id": f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}",
        "object": "chat.completion",
        "created": CREATED,
        "model": request.get("model", INFO.default_model),
        "choices": [
            {"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "completion_tokens_details": {"reasoning_tokens": reasoning_tokens},
        },
        "system_fingerprint": "fc-demo",
    }


def _tool_call_response(
    request: dict[str, Any],
    plan: _Plan,
    q: Question,
    say: dict[str, str],
    choice: _ToolChoice,
    *,
    fault: str | None = None,
    correction: str | None = None,
) -> dict[str, Any]:
    h = _digest(request)
    written = [
        (c.name, json.dumps(c.arguments, ensure_ascii=False, separators=(",", ":")))
        for c in plan.calls
    ]
    # A strict tool's calls are decoded to its schema: a fault that breaks it cannot come out.
    prevented = fault in SCHEMA_FAULTS and (choice.tool or {}).get("strict") is True
    if fault is not None and not prevented:
        offered = _tool_names(request)
        written = _faulty(fault, written, plan.key, offered)
    tool = written[0][0]
    reasoning, text = _why_these_calls(plan, q, say, choice, tool)
    if fault in SCHEMA_FAULTS and not prevented:  # the reasoning says the call as it went out
        reasoning += say["think_slipped"].format(
            slip=say[f"slip_{fault}"].strip(), arguments=written[0][1]
        )
    if correction is not None:
        reasoning = correction + reasoning
    # Content beside calls: with thinking on, the model says a line before calling (the text
    # block of the course's first response); with thinking off it calls at once, content null,
    # as real models often do. One rule, so the same request always gets the same shape.
    thinking = _thinking_on(request)
    content = text if thinking else None
    if prevented:  # said beside the call either way: the fault asked for did not happen
        said = say["strict_prevents"].format(fault=fault, tool=tool, slip=say[f"slip_{fault}"])
        content = text + said if thinking else said.lstrip()
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if thinking:
        message["reasoning_content"] = reasoning
    message["tool_calls"] = [
        {
            "id": "call_" + hashlib.sha256(f"{h}:{i}".encode()).hexdigest()[:24],
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }
        for i, (name, arguments) in enumerate(written)
    ]
    return _envelope(request, message, "tool_calls")


def _why_these_calls(
    plan: _Plan, q: Question, say: dict[str, str], choice: _ToolChoice, tool: str
) -> tuple[str, str]:
    """The reasoning (why this tool, where each argument came from) and the line said."""
    question = q.text
    values = [str(v) for v in plan.values if v is not None]
    basis_key = choice.basis
    if basis_key == "description" and not plan.place:
        basis_key = "match"  # the built-in example's words say why; other tools need it said
    words = said_words(q, choice.shared)[:3]
    if basis_key == "match" and not words:
        basis_key = "match_plain"  # nothing worth quoting: said without quotes
    basis = say.get(f"think_basis_{basis_key}", "").format(
        tool=tool, words=say["list_sep"].join(words), what=_topic_name(q, say)
    )
    if plan.filling.skill == "weak" and plan.key is not None:
        reasoning = basis + say["think_weak"].format(param=plan.key)
        rest = {k: v for k, v in plan.calls[0].arguments.items() if k != plan.key}
        if plan.filling.strict and rest:  # the shape strict mode holds even a weak model to
            shown = say["reason_sep"].join(
                f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in rest.items()
            )
            reasoning += say["think_weak_strict"].format(rest=shown)
        return reasoning, say["say_nothing"]
    if plan.place:
        # The built-in example's words: a place, and what the question wants to know of it.
        if any(cities.lookup(v) is not None for v in values):
            what = say["list_sep"].join(values)
            goal = say[f"goal_{q.aspect}"].format(what=what)
            reasoning = basis + say["think_known"].format(what=what, tool=tool, goal=goal)
            reasoning += say["think_parallel"] if len(plan.calls) > 1 else say["think_single"]
            if plan.language is not None:
                reasoning += say[f"think_language_{plan.language}"].format(
                    param=plan.key, what=what
                )
            return reasoning, say["say_known"].format(what=what)
        if values and values[0] != question.strip():
            place = values[0]
            reasoning = basis + say["think_place"].format(place=place, tool=tool, param=plan.key)
            return reasoning, say["say_place"].format(place=place)
        param = plan.key or say["the_arguments"]
        return basis + say["think_nothing"].format(param=param), say["say_nothing"]
    notes = [_how(where, source, value, say) for where, source, value in plan.filling.how]
    filled = say["think_filled"].format(notes=say["pair_sep"].join(n for n in notes if n))
    if len(plan.calls) > 1:
        filled += say["think_several"].format(n=len(plan.calls), param=plan.key)
    return basis + filled, say["say_call"].format(tool=tool)


def _how(where: str, source: str, value: Any, say: dict[str, str]) -> str:
    shown = json.dumps(value, ensure_ascii=False)
    return say.get(f"how_{source}", "").format(param=where, value=shown)


def _topic_name(q: Question, say: dict[str, str]) -> str:
    for topic in sorted(q.topics):
        if f"topic_{topic}" in say:
            return say[f"topic_{topic}"]
    return say["topic_other"]


def _answer_response(
    request: dict[str, Any],
    messages: list[dict[str, Any]],
    q: Question,
    say: dict[str, str],
    *,
    why_no_call: str,
    skip: dict[str, str] | None = None,
) -> dict[str, Any]:
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    order: list[str] = []
    results: dict[str, str] = {}
    for m in messages:
        for call in m.get("tool_calls") or []:
            try:
                args = json.loads(call["function"]["arguments"])
            except (ValueError, KeyError, TypeError):
                args = {}
            calls[call["id"]] = (call["function"]["name"], args if isinstance(args, dict) else {})
            order.append(call["id"])
        if m.get("role") == "tool":
            results[m["tool_call_id"]] = texts(m.get("content"))

    lines: list[str] = []
    pairing: list[str] = []
    found: dict[str, Any] = {}
    weathers: list[tuple[str, dict[str, Any]]] = []
    failed = False
    for call_id in order:
        if call_id not in results or (skip and call_id in skip):
            continue
        name, args = calls[call_id]
        subject = next((str(v) for v in args.values() if isinstance(v, str)), name)
        pairing.append(f"{call_id} → {subject}")
        line, data = _describe_result(subject, name, args, results[call_id], q, say)
        failed = failed or data is None
        found.update(data or {})
        lines.append(line)
        if data and {"temp_c", "condition"} <= data.keys():
            weathers.append((subject, data))
    if q.aspect == "run" and q.compares and len(weathers) > 1:
        best = _best_for_a_run(weathers)
        if best is not None:
            lines.append(say["best_for_a_run"].format(place=best))

    weather = "weather" in q.topics
    if not lines:
        why = why_no_call if f"no_call_{why_no_call}" in say else "no_tools"
        general = "" if weather else "_general"
        names = say["list_sep"].join(_tool_names(request))
        cannot = say[f"cannot_{q.aspect}"]
        text = say[f"no_call_{why}{general}"].format(cannot=cannot)
        reasoning = (
            say[f"think_no_call_{why}{general}"].format(tools=names)
            + say[f"no_tool_think{general}"]
        )
    else:
        reasoning = say["think_pairing"].format(pairs=say["pair_sep"].join(pairing))
        text = "\n".join([*lines, say["footer_failed"] if failed else say["footer_ok"]])
        if q.language == "zh":  # a subject that ends a question (`…吗？`) takes no mark after it
            reasoning, text = _one_mark(reasoning), _one_mark(text)

    response_format = request.get("response_format")
    if isinstance(response_format, dict) and response_format.get("type") in (
        "json_object",
        "json_schema",
    ):
        text, note = json_answer(response_format, q, found, text)
        if not _says_json(messages):
            # DeepSeek's JSON Output guide: the word "json" goes in the prompt; output it cannot
            # recognise as JSON is replaced with spaces, so `content` may be only spaces. The
            # guide names json_object only; fc check (FC132) holds json_schema to it too, and
            # so does the demo.
            text, note = " " * len(text), "think_json_unasked"
        reasoning += say[note].format(kind=response_format.get("type"))

    message: dict[str, Any] = {"role": "assistant", "content": text}
    if _thinking_on(request):
        message["reasoning_content"] = reasoning
    return _envelope(request, message, "stop")


_DOUBLED = re.compile("(?<=[。？！])[。：；，]")


def _one_mark(text: str) -> str:
    """Return Chinese `text` without a mark right after the end of a sentence (`吗？。`)."""
    return _DOUBLED.sub("", text)


def _says_json(messages: list[dict[str, Any]]) -> bool:
    """Whether a system or user message says "json", as DeepSeek's JSON mode wants."""
    return any(
        "json" in texts(m.get("content")).casefold()
        for m in messages
        if m.get("role") in ("system", "user")
    )


def _describe_result(
    subject: str,
    tool: str,
    args: dict[str, Any],
    content: str,
    q: Question,
    say: dict[str, str],
) -> tuple[str, dict[str, Any] | None]:
    """A line of the answer for one result, and the result's fields (None for an error)."""
    if content.startswith(ERROR_MARKER):
        short = _first_sentence(content[len(ERROR_MARKER) :])
        # A lookup that failed found nothing; an action that failed did not happen.
        key = "result_error" if is_lookup(tool) or "weather" in q.topics else "result_error_action"
        return say[key].format(subject=subject, error=short, tool=tool), None
    try:
        data = json.loads(content)
    except ValueError:
        data = None
    if isinstance(data, list) and not isinstance(content, LongText):
        return said_of(subject, tool, args, data, say) or "", {}
    if not isinstance(data, (dict, list)) and content.strip().casefold() in FILED | DONE:
        return said_of(subject, tool, args, {"status": content.strip()}, say) or "", {}
    if not isinstance(data, dict):
        key = "result_opaque" if "weather" in q.topics else "result_text"
        n = content.chars if isinstance(content, LongText) else len(content)
        if n > QUOTED:  # said by its start and length, as a model sums up a long text
            key, content = key + "_long", content[: QUOTED // 2]
        return say[key].format(subject=subject, tool=tool, content=content, n=n), {}
    if not {"temp_c", "condition"} <= data.keys():
        sentence = said_of(subject, tool, args, data, say)
        if sentence is not None:
            return sentence, data
        fields = [
            say["field"].format(key=k, value=_clipped(json.dumps(v, ensure_ascii=False)))
            for k, v in list(data.items())[:FIELDS_SAID]
        ]
        if len(data) > FIELDS_SAID:
            fields.append(say["more_fields"].format(n=len(data) - FIELDS_SAID))
        line = say["result_fields"].format(
            subject=subject, tool=tool, fields=say["reason_sep"].join(fields)
        )
        return line, data
    # The city the call asked for: the model trusts the pairing by id (so a harness that pairs
    # by position makes it speak of 北京 with 上海's weather).
    city = subject
    temp, condition, aqi = data["temp_c"], str(data["condition"]), data.get("aqi")
    verdict = _verdict(temp, condition, aqi, q.aspect, say)
    key = "result_weather" if aqi is not None else "result_weather_no_aqi"
    line = say[key].format(city=city, temp=temp, condition=condition, aqi=aqi, verdict=verdict)
    return line, data


QUOTED = 160
"""The longest text result the answer quotes whole: a longer one is said by its start and length."""
FIELDS_SAID = 8
"""The fields of a result the answer names; the rest are counted."""


def _clipped(value: str) -> str:
    return value if len(value) <= QUOTED else value[: QUOTED // 2] + "…"


def _first_sentence(error: str) -> str:
    """The first sentence of an error says what went wrong; the rest (say, the list of known
    cities) is for the model to retry with, not for the person reading the answer."""
    short = error.split(". ")[0].split("。")[0]  # an error said in English or in Chinese
    return short if len(short) <= 160 else short[:160] + "…"


def _for_a_run(temp: Any, wet: bool, aqi: Any) -> tuple[list[str], list[str]]:
    """What rules a run out and what calls for care, as phrase keys: rain or snow, AQI above
    150, 33 °C and up, or -10 °C and below rule it out; AQI above 100, 28 °C and up, or 0 °C
    and below call for care."""
    bad: list[str] = []
    caution: list[str] = []
    if wet:
        bad.append("wet")
    if isinstance(aqi, (int, float)):
        if aqi > 150:
            bad.append("polluted")
        elif aqi > 100:
            caution.append("so_so_air")
    if isinstance(temp, (int, float)):
        if temp >= 33:
            bad.append("too_hot")
        elif temp <= -10:
            bad.append("too_cold")
        elif temp >= 28:
            caution.append("warm")
        elif temp <= 0:
            caution.append("cold")
    return bad, caution


def _best_for_a_run(weathers: list[tuple[str, dict[str, Any]]]) -> str | None:
    """The place best for a run, of several (none ruled out first, then fewest cautions, then the
    cleanest air); None when none fits or two tie."""

    def rank(data: dict[str, Any]) -> tuple[int, int, float]:
        wet = any(w in str(data["condition"]).lower() for w in WET)
        bad, caution = _for_a_run(data["temp_c"], wet, data.get("aqi"))
        aqi = data.get("aqi")
        return (len(bad), len(caution), aqi if isinstance(aqi, (int, float)) else 500)

    ranked = sorted(weathers, key=lambda cw: rank(cw[1]))
    if rank(ranked[0][1])[0] or rank(ranked[0][1]) == rank(ranked[1][1]):
        return None
    return ranked[0][0]


def _verdict(temp: Any, condition: str, aqi: Any, aspect: str, say: dict[str, str]) -> str:
    """What the question wants to know, by simple rules. An umbrella: rain, snow or a storm.
    A run: as _for_a_run says. Plain weather: no verdict."""
    wet = any(w in condition.lower() for w in WET)
    if aspect == "umbrella":
        return say["umbrella_yes" if wet else "umbrella_no"].format(condition=condition)
    if aspect != "run":
        return ""
    bad, caution = _for_a_run(temp, wet, aqi)
    bad = [say[k] for k in bad]
    caution = [say[k] for k in caution]
    if bad:
        return say["verdict_bad"].format(reasons=say["reason_sep"].join(bad))
    if caution:
        return say["verdict_caution"].format(reasons=say["reason_sep"].join(caution))
    return say["verdict_good"]
