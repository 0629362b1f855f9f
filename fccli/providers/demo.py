"""The offline demo model: a deterministic stand-in for DeepSeek, working at the wire level.

It receives the DeepSeek-format request body exactly as fc built it and answers with a
DeepSeek-format response body, so every offline run goes through the real translators. It is
a model, so it executes nothing: it only writes call intents and, once results are handed back,
an answer made from those results alone (edit a result, and the answer follows). An error
result makes it say it could not find out; it never invents weather.

Like DeepSeek, it answers 400 with DeepSeek's own words to a history that breaks the rules.
Same request bytes in, same response bytes out: ids are hashes of the request, `created` fixed.

Told to (`DemoProvider(fault=KIND)`, `fc run --demo-fault KIND`), it makes one of the classic
mistakes in its first tool-calling answer (faults.py lists them), then reads the error result the
harness hands back and corrects itself in the next step, saying so in its reasoning. Its faulty
calls, answered with errors, are not asked again, nor quoted in the answer.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fccli import cities
from fccli.core.errors import ProviderError, UsageError
from fccli.core.jsonio import encode
from fccli.providers.base import ProviderInfo, Reply
from fccli.providers.demo_phrases import PHRASES
from fccli.providers.faults import DEMO_FAULTS

INFO = ProviderInfo(
    name="demo", wire_format="deepseek", default_model="fc-demo", base_url=None, key_env=None
)
DEMO_STREAM_PACE = 0.015
"""Seconds between the events of a streamed answer when someone watches them arrive."""
CREATED = 1767225600  # 2026-01-01T00:00:00Z: fixed, so traces repeat byte for byte
ERROR_MARKER = "[tool error] "  # how fc's chat translator marks an error result (chat has no flag)

_CJK = re.compile(r"[\u4e00-\u9fff]")
# "巴黎今天适合跑步吗" -> 巴黎: a place-like head before a time or weather word.
_ZH_PLACE = re.compile(r"^([\u4e00-\u9fff]{2,8}?)(?:今天|明天|现在|今日|的天气|天气)")
_EN_PLACE = re.compile(r"\b(?:in|at|for)\s+([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)")


class DemoProvider:
    info = INFO

    def __init__(self, fault: str | None = None) -> None:
        if fault is not None and fault not in DEMO_FAULTS:
            raise UsageError(
                f"unknown demo fault {fault!r}", hint=f"kinds: {', '.join(DEMO_FAULTS)}"
            )
        self.fault = fault
        """The classic mistake to make in the first tool-calling answer, or None."""
        self.pace = 0.0
        """Seconds to wait between the events of a streamed answer (0: all at once)."""

    def mask(self, text: str) -> str:
        return text  # offline: no secret to keep

    def send(self, body: bytes, *, step: int) -> Reply:
        return Reply(encode(self._respond(json.loads(body), step)))

    def send_stream(self, body: bytes, *, step: int, on_bytes: Callable[[bytes], None]) -> Reply:
        from fccli.providers.demo_stream import cut_inside_first_call, sse_events

        request = json.loads(body)
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
            cut = "the connection closed mid-stream (the demo fault cut-stream)"
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
                f"step {step}: the demo model answered HTTP 400: {problem}", status=400, body=raw
            )
        # cut-stream is a fault of the connection, not of the answer: send_stream makes it.
        return respond(request, None if self.fault == "cut-stream" else self.fault)


# ---------------------------------------------------------------------------------------------
# the rules DeepSeek enforces on a history (PROTOCOL.md, "What providers answer")


def history_problem(request: dict[str, Any]) -> str | None:
    thinking_on = _thinking_on(request)
    messages = request.get("messages", [])
    open_calls: list[str] = []
    for i, m in enumerate(messages):
        role = m.get("role")
        if role == "tool":
            if m.get("tool_call_id") not in open_calls:
                return "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'"
            open_calls.remove(m["tool_call_id"])
            if not isinstance(m.get("content"), str):
                return (
                    "Failed to deserialize the JSON body into the target type: "
                    f"messages[{i}]: invalid type: sequence, expected a string"
                )
            continue
        if open_calls:
            return (
                "An assistant message with 'tool_calls' must be followed by tool messages responding "
                "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
                + ", ".join(open_calls)
            )
        if role == "assistant" and m.get("tool_calls"):
            if thinking_on and "reasoning_content" not in m:
                return (
                    "The `reasoning_content` in the thinking mode must be passed back to the API."
                )
            for k, call in enumerate(m["tool_calls"]):
                try:
                    ok = isinstance(json.loads(call["function"]["arguments"]), dict)
                except (ValueError, TypeError, KeyError):
                    ok = False
                if not ok:
                    return f"messages.{i}.tool_calls.{k}.function.arguments: arguments must be a valid JSON object string"
            open_calls = [c["id"] for c in m["tool_calls"]]
    return None


# ---------------------------------------------------------------------------------------------
# what the model says


@dataclass
class _Call:
    name: str
    arguments: dict[str, Any]


def respond(request: dict[str, Any], fault: str | None = None) -> dict[str, Any]:
    messages = request.get("messages", [])
    question = _last_user_text(messages)
    say = PHRASES["zh" if _CJK.search(question) else "en"]
    offered = request.get("tools")
    tools = [
        t["function"]
        for t in (offered if isinstance(offered, list) else [])
        if isinstance(t, dict)
        and t.get("type") == "function"
        and isinstance(t.get("function"), dict)
    ]
    choice = _choose_tool(tools, request.get("tool_choice"))

    # With a fault, the errors its own mistake drew are not answers: it asks those again.
    slipped = _slipped(messages) if fault is not None else {}
    asked = _asked_arguments(messages, skip=slipped)
    if choice.tool is not None:
        param = _string_param(choice.tool)
        language = _language_asked(choice.tool, param)
        wanted = _wanted_values(question, language)
        pending = (
            [v for v in wanted if v not in [a.get(param) for a in asked]]
            if param
            else ([] if asked else [None])
        )
        if pending:
            if request.get("parallel_tool_calls") is False:
                pending = pending[:1]
            calls = [_Call(choice.tool["name"], _arguments(choice.tool, param, v)) for v in pending]
            first_calls = not any(m.get("tool_calls") for m in messages)
            if fault == "no-call" and first_calls:
                return _made_up_response(request, pending, question, say)
            return _tool_call_response(
                request,
                calls,
                question,
                say,
                param,
                choice,
                language,
                fault=fault if first_calls else None,
                correction=_correction(messages, slipped, choice.tool["name"], say),
            )
    return _answer_response(request, messages, say, why_no_call=choice.basis, skip=slipped)


def _arguments(tool: dict[str, Any], param: str | None, value: Any) -> dict[str, Any]:
    arguments = {param: value} if param else {}
    if tool.get("strict") is True:
        # Strict mode holds a model to the schema: every property present, null where it has
        # no value (the strict form makes the optional ones nullable).
        for name in _required(_parameters(tool)):
            arguments.setdefault(name, None)
    return arguments


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
        content = _text(m.get("content"))
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
        # All the values in one call, as an array where the schema asks for a string.
        values = [json.loads(a).get(param) for _, a in calls]
        return [(name, json.dumps({param: values}, ensure_ascii=False, separators=(",", ":")))]
    if fault == "unknown-tool":
        return [(_not_offered(n, offered), a) for n, a in calls]
    return calls


def _made_up_response(
    request: dict[str, Any], values: list[Any], question: str, say: dict[str, str]
) -> dict[str, Any]:
    """no-call: a weather report from nowhere, and a stop as if it were the answer."""
    places = [v for v in values if isinstance(v, str) and v != question.strip()]
    text = "\n".join(say["made_up"].format(place=p) for p in places) or say["made_up_nowhere"]
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if _thinking_on(request):
        message["reasoning_content"] = say["think_made_up"]
    return _envelope(request, message, "stop")


@dataclass
class _ToolChoice:
    tool: dict[str, Any] | None
    basis: str
    """Why this tool, or why none: description | name | forced | none_fits | forbidden | no_tools."""


_WEATHER_WORDS = ("weather", "天气", "气温", "温度", "temperature", "forecast", "空气质量")


def _speaks_of_weather(text: Any) -> bool:
    return isinstance(text, str) and any(w in text.casefold() for w in _WEATHER_WORDS)


def _choose_tool(tools: list[dict[str, Any]], choice: Any) -> _ToolChoice:
    """Pick a tool the way a model does: from what the definitions say, and nothing else.

    The description counts first, then the name; a tool that speaks of neither is not called
    unless tool_choice forces it. So editing a tool's description changes what the demo does.
    """
    if not tools:
        return _ToolChoice(None, "no_tools")
    if choice == "none":
        return _ToolChoice(None, "forbidden")
    if isinstance(choice, dict):
        name = choice.get("function", {}).get("name")
        return _ToolChoice(next((t for t in tools if t.get("name") == name), tools[0]), "forced")
    for basis, key in (("description", "description"), ("name", "name")):
        for tool in tools:
            if _speaks_of_weather(tool.get(key)):
                return _ToolChoice(tool, basis)
    if choice == "required":
        return _ToolChoice(tools[0], "forced")
    return _ToolChoice(None, "none_fits")


def _language_asked(tool: dict[str, Any], param: str | None) -> str | None:
    """ "en" or "zh" when the parameter's description asks for names in that language
    ("城市的英文名，例如：Hangzhou"); None: names as the question writes them."""
    props = _properties(_parameters(tool))
    schema = props.get(param) if param else None
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
    thinking = request.get("thinking")
    return not (isinstance(thinking, dict) and thinking.get("type") == "disabled")


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def _last_user_text(messages: list[dict[str, Any]]) -> str:
    for m in reversed(messages):
        if m.get("role") == "user":
            return _text(m.get("content"))
    return ""


def _string_param(tool: dict[str, Any]) -> str | None:
    """The first required string parameter, else the first string one: where a question goes."""
    params = _parameters(tool)
    strings = [
        name
        for name, schema in _properties(params).items()
        if isinstance(schema, dict) and schema.get("type") == "string"
    ]
    required: list[str] = [name for name in _required(params) if name in strings]
    choices = required or strings
    return choices[0] if choices else None


# A request file may hold any JSON where a schema belongs (`parameters: 5`, `properties: 1`,
# `required: true`): the demo reads what makes sense and ignores the rest, as a model would.


def _parameters(tool: dict[str, Any]) -> dict[str, Any]:
    params = tool.get("parameters")
    return params if isinstance(params, dict) else {}


def _properties(params: dict[str, Any]) -> dict[str, Any]:
    props = params.get("properties")
    return props if isinstance(props, dict) else {}


def _required(params: dict[str, Any]) -> list[str]:
    required = params.get("required")
    return [r for r in required if isinstance(r, str)] if isinstance(required, list) else []


def _wanted_values(question: str, language: str | None) -> list[str]:
    """Known cities in order of appearance (in `language`, else as written); else a place-like
    word; else, as a weak model does, the whole question."""
    found: list[tuple[int, str]] = []
    seen: set[str] = set()
    for city in cities.cities():
        for name, lang in [
            (city["zh"], "zh"),
            *((n, "en") for n in (city["en"], *city.get("aliases", []))),
        ]:
            if lang == "zh":
                pos = question.find(name)
            else:
                m = re.search(rf"\b{re.escape(name)}\b", question, re.IGNORECASE)
                pos = m.start() if m else -1
            if pos >= 0 and city["zh"] not in seen:
                seen.add(city["zh"])
                found.append((pos, city[language or lang]))
    if found:
        return [name for _, name in sorted(found)]
    stripped = question.strip()
    m = _ZH_PLACE.match(stripped) or _EN_PLACE.search(stripped)
    if m:
        return [m.group(1)]
    return [stripped]


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
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


CHARS_PER_TOKEN = 2


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
    if isinstance(max_tokens, int) and _cut_to(message, max_tokens * CHARS_PER_TOKEN):
        finish_reason = "length"
    reasoning = message.get("reasoning_content") or ""
    # What the model wrote, counted as _cut_to counts it, so a cut answer stays in its budget.
    arguments = "".join(c["function"]["arguments"] for c in message.get("tool_calls", []))
    written = reasoning + (message.get("content") or "") + arguments
    prompt = json.dumps(request.get("messages", []), ensure_ascii=False) + json.dumps(
        request.get("tools", []), ensure_ascii=False
    )
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
            "prompt_tokens": len(prompt) // 2 + 1,
            "completion_tokens": completion_tokens,
            "total_tokens": len(prompt) // 2 + 1 + completion_tokens,
            "completion_tokens_details": {"reasoning_tokens": reasoning_tokens},
        },
        "system_fingerprint": "fc-demo",
    }


def _tool_call_response(
    request: dict[str, Any],
    calls: list[_Call],
    question: str,
    say: dict[str, str],
    param: str | None,
    choice: _ToolChoice,
    language: str | None,
    *,
    fault: str | None = None,
    correction: str | None = None,
) -> dict[str, Any]:
    h = _digest(request)
    values = [str(c.arguments.get(param, "")) for c in calls] if param else []
    written = [
        (c.name, json.dumps(c.arguments, ensure_ascii=False, separators=(",", ":"))) for c in calls
    ]
    if fault is not None:
        offered = [t["function"]["name"] for t in request.get("tools", [])]
        written = _faulty(fault, written, param, offered)
    tool = written[0][0]
    # The reasoning says what in the definitions the choice rests on: the lesson of editing them.
    basis = say.get(f"think_basis_{choice.basis}", "").format(tool=tool)
    if any(cities.lookup(v) is not None for v in values):
        what = say["list_sep"].join(values)
        reasoning = basis + say["think_known"].format(what=what, tool=tool)
        reasoning += say["think_parallel"] if len(calls) > 1 else say["think_single"]
        if language is not None:
            reasoning += say[f"think_language_{language}"].format(param=param, what=what)
        text = say["say_known"].format(what=what)
    elif values and values[0] != question.strip():
        place = values[0]
        reasoning = basis + say["think_place"].format(place=place, tool=tool, param=param)
        text = say["say_place"].format(place=place)
    else:
        reasoning = basis + say["think_nothing"].format(param=param or say["the_arguments"])
        text = say["say_nothing"]
    if correction is not None:
        reasoning = correction + reasoning
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if _thinking_on(request):
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


def _answer_response(
    request: dict[str, Any],
    messages: list[dict[str, Any]],
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
            results[m["tool_call_id"]] = _text(m.get("content"))

    lines: list[str] = []
    pairing: list[str] = []
    failed = False
    for call_id in order:
        if call_id not in results or (skip and call_id in skip):
            continue
        name, args = calls[call_id]
        subject = next((str(v) for v in args.values() if isinstance(v, str)), name)
        pairing.append(f"{call_id} → {subject}")
        line, ok = _describe_result(subject, name, results[call_id], say)
        failed = failed or not ok
        lines.append(line)

    if not lines:
        why = why_no_call if f"no_call_{why_no_call}" in say else "no_tools"
        names = say["list_sep"].join(t["function"]["name"] for t in request.get("tools", []))
        text = say[f"no_call_{why}"]
        reasoning = say[f"think_no_call_{why}"].format(tools=names) + say["no_tool_think"]
    else:
        reasoning = say["think_pairing"].format(pairs=say["pair_sep"].join(pairing))
        text = "\n".join([*lines, say["footer_failed"] if failed else say["footer_ok"]])

    message: dict[str, Any] = {"role": "assistant", "content": text}
    if _thinking_on(request):
        message["reasoning_content"] = reasoning
    return _envelope(request, message, "stop")


def _describe_result(
    subject: str, tool: str, content: str, say: dict[str, str]
) -> tuple[str, bool]:
    if content.startswith(ERROR_MARKER):
        short = _first_sentence(content[len(ERROR_MARKER) :])
        return say["result_error"].format(subject=subject, error=short), False
    try:
        data = json.loads(content)
    except ValueError:
        data = None
    if not (isinstance(data, dict) and {"temp_c", "condition", "aqi"} <= data.keys()):
        return say["result_opaque"].format(subject=subject, tool=tool, content=content), True
    city = data["city"] if isinstance(data.get("city"), str) else subject
    temp, condition, aqi = data["temp_c"], str(data["condition"]), data["aqi"]
    verdict = _verdict(temp, condition, aqi, say)
    line = say["result_weather"].format(
        city=city, temp=temp, condition=condition, aqi=aqi, verdict=verdict
    )
    return line, True


def _first_sentence(error: str) -> str:
    """The first sentence of an error says what went wrong; the rest (say, the list of known
    cities) is for the model to retry with, not for the person reading the answer."""
    short = error.split(". ")[0]
    return short if len(short) <= 160 else short[:160] + "…"


_WET = ("雨", "雪", "雷", "rain", "snow", "storm", "shower", "thunder")


def _verdict(temp: Any, condition: str, aqi: Any, say: dict[str, str]) -> str:
    """Running weather by simple rules: rain or snow, AQI above 150, 33 °C and up, or -10 °C and
    below rule it out; AQI above 100, 28 °C and up, or 0 °C and below call for care."""
    bad: list[str] = []
    caution: list[str] = []
    if any(w in condition.lower() for w in _WET):
        bad.append(say["wet"])
    if isinstance(aqi, (int, float)):
        if aqi > 150:
            bad.append(say["polluted"])
        elif aqi > 100:
            caution.append(say["so_so_air"])
    if isinstance(temp, (int, float)):
        if temp >= 33:
            bad.append(say["too_hot"])
        elif temp <= -10:
            bad.append(say["too_cold"])
        elif temp >= 28:
            caution.append(say["warm"])
        elif temp <= 0:
            caution.append(say["cold"])
    if bad:
        return say["verdict_bad"].format(reasons=say["reason_sep"].join(bad))
    if caution:
        return say["verdict_caution"].format(reasons=say["reason_sep"].join(caution))
    return say["verdict_good"]
