"""JSON mode in the demo model: the answer as a JSON object, fitting a schema when one is given.

`response_format` governs `content`, the answer, and only a turn that answers: a turn that
calls tools is unchanged (the course's second text: two output channels). The object is made
from what the model has: the fields of the tool results, the question, and its answer in words.
"""

from __future__ import annotations

import json
from typing import Any

from fccli.providers.demo.fill import Filling, fill_object
from fccli.providers.demo.reading import WET, Question

_ANSWER_NAMES = (
    "answer",
    "summary",
    "reply",
    "advice",
    "text",
    "message",
    "result",
    "conclusion",
    "response",
    "explanation",
    "回答",
    "建议",
)


def json_answer(
    response_format: dict[str, Any], q: Question, found: dict[str, Any], text: str
) -> tuple[str, str]:
    """(the JSON text of the answer, the phrase key the reasoning adds)."""
    schema = _schema_of(response_format)
    if schema is None:
        obj = {**found, "answer": text}
        return _dump(obj), "think_json"
    known = dict(found)
    for name in _ANSWER_NAMES:
        known.setdefault(name, text)
    filling = Filling(q, "strong", strict=True, known=known, verdicts=_verdicts(found))
    return _dump(fill_object(schema, filling)), "think_json_schema"


def _verdicts(found: dict[str, Any]) -> dict[str, bool]:
    """Yes or no, from weather results: an umbrella when wet; a run when neither wet, nor
    polluted, nor too hot or cold (the demo's rules for the answer in words, in short)."""
    condition, temp, aqi = found.get("condition"), found.get("temp_c"), found.get("aqi")
    if not isinstance(condition, str):
        return {}
    wet = any(w in condition.lower() for w in WET)
    run = not wet
    if isinstance(temp, (int, float)):
        run = run and -10 < temp < 33
    if isinstance(aqi, (int, float)):
        run = run and aqi <= 150
    return {"umbrella": wet, "run": run}


def _schema_of(response_format: dict[str, Any]) -> dict[str, Any] | None:
    if response_format.get("type") != "json_schema":
        return None
    inner = response_format.get("json_schema")
    schema = inner.get("schema") if isinstance(inner, dict) else None
    return schema if isinstance(schema, dict) else {"type": "object", "properties": {}}


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
