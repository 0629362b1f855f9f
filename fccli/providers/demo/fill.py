"""How the demo model fills a JSON Schema from a question: tool arguments, and JSON-mode answers.

By type, as a model that read the schema would (the strong skill, the default):

- strings: an enum value the question names (else the closest, else the first); text matching
  the `pattern`, or the shape of an example in the description (`形如 ORD-2024-000123`); known
  places for a place-like parameter; ID-like tokens for an id; quoted text; a reason after 因为;
- numbers and integers: the numbers in the question (`4999 元`, `三个`), matched by unit
  (元 for an amount, 天 for days) before order;
- booleans: true when the question speaks of what the parameter describes, unless it negates it;
- arrays and nested objects: filled item by item, field by field.

A required, non-nullable field is never null: with nothing in the question for it, a string
gets the whole question (as a model with nothing better does), a number its default, minimum
or 0. An optional field with no value is left out, or null when the schema allows null (strict
mode makes every optional field nullable and required).

The weak skill is the course's first demo model: the whole question goes into the first
required string parameter, and nothing else is filled (strict mode, which holds a model to the
schema's shape, fills the rest with empty values of the right type: shape, not content).
"""

from __future__ import annotations

import re
from typing import Any

from fccli.providers.demo.reading import (
    WEATHER_ASPECTS,
    Number,
    Question,
    says,
    topics_of,
    words_of,
)

_PLACE_NAMES = ("city", "location", "place", "region", "area", "town", "destination")
_PLACE_WORDS = ("城市", "地点", "地区", "位置", "城市名", "city", "location", "place")
_ID_WORDS = ("编号", "单号", "订单号", "id", "号码", "code")
_TEXT_NAMES = (
    "query",
    "q",
    "text",
    "question",
    "content",
    "message",
    "keyword",
    "keywords",
    "prompt",
    "input",
    "search",
    "body",
)
_REASON_NAMES = ("reason", "note", "comment", "why", "cause", "原因", "备注")
_MONEY = (
    ("amount", "price", "cost", "money", "total", "fee", "金额", "价格", "钱", "费用"),
    ("元", "块", "¥", "$", "yuan", "rmb", "dollars", "usd", "cny"),
)
_DAYS = (("day", "days", "天数", "几天"), ("天", "日", "day", "days"))
_COUNT = (
    ("count", "quantity", "num", "number", "limit", "top", "数量", "个数"),
    ("个", "件", "本", "张", "条", "份", "位", "items"),
)
_NEGATIONS = ("不", "别", "无需", "不要", "不用", "没", "don't", "do not", "no ", "without", "not ")
# Patterns as text, compiled by `re` on first use (and cached there): most runs use neither.
_EXAMPLE = (
    r"(?:形如|例如|比如|如|e\.g\.|like|such as)[:：]?\s*([A-Za-z0-9][A-Za-z0-9_-]*\d[A-Za-z0-9_-]*)"
)
_REASON = r"(?:因为|由于|原因是|because|since)\s*[:：,，]?\s*([^。！？.!?]+)"


# A plain class, not a dataclass: start-up.
class Filling:
    """Filled values and, per parameter, how: the demo says it in its reasoning."""

    def __init__(
        self,
        question: Question,
        skill: str = "strong",
        strict: bool = False,
        language: str | None = None,
        *,
        known: dict[str, Any] | None = None,
        verdicts: dict[str, bool] | None = None,
    ) -> None:
        self.question = question
        self.skill = skill
        self.strict = strict
        self.language = language
        """The language a place parameter asks names in (英文名): "en", "zh", or as written."""
        self.known: dict[str, Any] = {} if known is None else known
        """Values already known by field name (a JSON-mode answer fills from the tool results)."""
        self.verdicts: dict[str, bool] = {} if verdicts is None else verdicts
        """What the results say to a yes-or-no question, by aspect: umbrella, run (JSON mode)."""
        self.how: list[tuple[str, str, Any]] = []
        """(parameter, source, value): the notes the reasoning is made of."""
        self.used_numbers: set[int] = set()
        self.used_enums: set[Any] = set()
        """Enum values already given to a parameter: a second one (to, after from) takes another."""


MISSING = object()


MAX_DEPTH = 8
"""How deep the demo fills nested objects and follows `$ref`s: a schema may refer to itself."""


def properties_of(schema: dict[str, Any]) -> dict[str, Any]:
    props = schema.get("properties")
    return props if isinstance(props, dict) else {}


def required_of(schema: dict[str, Any]) -> list[str]:
    required = schema.get("required")
    return [r for r in required if isinstance(r, str)] if isinstance(required, list) else []


def resolved(schema: Any, root: dict[str, Any], depth: int = 0) -> tuple[dict[str, Any], bool]:
    """The schema behind a `$ref` or an `anyOf` with null, and whether null is allowed."""
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return {}, False
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        target: Any = root
        for part in ref[2:].split("/"):
            target = target.get(part, {}) if isinstance(target, dict) else {}
        if not isinstance(target, dict):
            target = {}
        merged = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        return resolved(merged, root, depth + 1)
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list):
            real = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")]
            if real:
                inner, nullable = resolved(real[0], root, depth + 1)
                extra = {k: v for k, v in schema.items() if k not in (key,)}
                return {**inner, **extra}, nullable or len(real) < len(branches)
    types = schema.get("type")
    if isinstance(types, list):
        real_types = [t for t in types if t != "null"]
        out = dict(schema)
        out["type"] = real_types[0] if real_types else "null"
        return out, "null" in types
    return schema, False


def first_required_string(parameters: dict[str, Any]) -> str | None:
    """Where a question goes: the first required string parameter, else the first string one."""
    props = properties_of(parameters)
    strings = [n for n, s in props.items() if resolved(s, parameters)[0].get("type") == "string"]
    required = [n for n in required_of(parameters) if n in strings]
    choices = required or strings
    return choices[0] if choices else None


def fill_object(
    schema: dict[str, Any],
    filling: Filling,
    root: dict[str, Any] | None = None,
    *,
    fixed: dict[str, Any] | None = None,
    path: str = "",
) -> dict[str, Any]:
    root = root if root is not None else schema
    if path.count(".") + path.count("[") >= MAX_DEPTH:
        return {}  # a schema that refers to itself: deep enough
    props = properties_of(schema)
    required = set(required_of(schema))
    weak_slot = first_required_string(schema) if filling.skill == "weak" and not path else None
    out: dict[str, Any] = {}
    for name, raw in props.items():
        sub, nullable = resolved(raw, root)
        where = f"{path}{name}"
        if fixed and name in fixed:
            out[name] = fixed[name]
            continue
        if filling.skill == "weak":
            if name == weak_slot:
                out[name] = filling.question.text.strip()
                filling.how.append((where, "weak", out[name]))
            elif filling.strict or (path and name in required):
                out[name] = None if nullable else _empty(sub, root, filling, where)
            continue
        value = _value(name, sub, filling, root, where)
        if value is MISSING:
            if nullable and (filling.strict or name in required):
                out[name] = None
                filling.how.append((where, "null", None))
            elif name in required:
                out[name] = _fallback(sub, filling, root, where)
            else:
                filling.how.append((where, "omitted", None))
            continue
        out[name] = value
    return out


def _value(
    name: str, schema: dict[str, Any], filling: Filling, root: dict[str, Any], where: str
) -> Any:
    if name in filling.known:
        value = _coerced(filling.known[name], schema)
        if value is not MISSING:
            filling.how.append((where, "known", value))
            return value
    kind = schema.get("type")
    if "enum" in schema and isinstance(schema["enum"], list) and schema["enum"]:
        return _enum(name, schema, filling, where)
    if kind == "string":
        values = string_values(name, schema, filling, where)
        return values[0] if values else MISSING
    if kind in ("number", "integer"):
        return _number(name, schema, filling, where)
    if kind == "boolean":
        return _boolean(name, schema, filling, where)
    if kind == "array":
        return _array(name, schema, filling, root, where)
    if kind == "object" or "properties" in schema:
        return fill_object(schema, filling, root, path=where + ".")
    return MISSING


def describes(name: str, schema: dict[str, Any]) -> str:
    return f"{name} {schema.get('description') or ''}"


def is_place(name: str, schema: dict[str, Any]) -> bool:
    text = describes(name, schema)
    return name.casefold() in _PLACE_NAMES or any(says(text, w) for w in _PLACE_WORDS)


def string_values(
    name: str, schema: dict[str, Any], filling: Filling, where: str, *, place: bool = False
) -> list[str]:
    """Every value the question offers this string parameter, best first (several places give
    several calls)."""
    q = filling.question
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        found = _by_pattern(pattern, q.text)
        if found:
            filling.how.append((where, "pattern", found[0]))
            return found
    if place or is_place(name, schema):
        if q.places:
            lang = filling.language
            names = [c[lang] if lang else _as_written(c, q) for c in q.places]
            filling.how.append((where, "place", names[0]))
            return [*names, *q.more_places]
        if q.place_word:
            filling.how.append((where, "place", q.place_word))
            return [q.place_word]
    example = re.search(_EXAMPLE, str(schema.get("description") or ""))
    if example:
        shape = _shape(example.group(1))
        found = [m.group(0) for m in re.finditer(shape, q.text)]
        if found:
            filling.how.append((where, "example", found[0]))
            return found
    text = describes(name, schema).casefold()
    if q.ids and (name.casefold().endswith("id") or any(w in text for w in _ID_WORDS)):
        filling.how.append((where, "id", q.ids[0]))
        return list(q.ids)
    if name.casefold() in _REASON_NAMES or any(w in text for w in ("原因", "reason")):
        m = re.search(_REASON, q.text)
        if m:
            filling.how.append((where, "reason", m.group(1).strip()))
            return [m.group(1).strip()]
        return []
    if q.quoted:
        filling.how.append((where, "quoted", q.quoted[0]))
        return list(q.quoted)
    if name.casefold() in _TEXT_NAMES:
        filling.how.append((where, "question", q.text.strip()))
        return [q.text.strip()]
    return []


def _as_written(city: dict[str, Any], q: Question) -> str:
    return str(city["zh"] if city["zh"] in q.text else city["en"])


def _by_pattern(pattern: str, text: str) -> list[str]:
    body = pattern.removeprefix("^").removesuffix("$")
    try:
        return [m.group(0) for m in re.finditer(body, text)][:5]
    except re.error:
        return []


def _shape(example: str) -> str:
    """ORD-2024-000123 -> [A-Z]+-\\d+-\\d+: the form of an example, not its value."""
    out = []
    for run in re.findall(r"[A-Z]+|[a-z]+|\d+|.", example):
        if run.isdigit():
            out.append(r"\d+")
        elif run.isupper():
            out.append("[A-Z]+")
        elif run.isalpha():
            out.append("[a-z]+")
        else:
            out.append(re.escape(run))
    return r"(?<![A-Za-z0-9])" + "".join(out) + r"(?![A-Za-z0-9])"


# What an enum value means, as a question may say it instead (美元 for USD).
_MEANINGS = {
    "usd": ("美元", "dollar", "dollars", "us$"),
    "cny": ("人民币", "yuan", "rmb"),
    "eur": ("欧元", "euro", "euros"),
    "jpy": ("日元", "yen"),
    "gbp": ("英镑", "pound", "pounds"),
    "hkd": ("港币", "港元"),
}
_TARGET_NAMES = (
    "to",
    "target",
    "dest",
    "destination",
    "into",
    "目标",
    "to_currency",
    "target_currency",
)


def _named_at(text: str, value: Any) -> int | None:
    """Where the question names an enum value (itself, or a word that means it), or None."""
    if not isinstance(value, str) or not value:
        return None
    folded = text.casefold()
    found = [
        m.start()
        for word in (value, *_MEANINGS.get(value.casefold(), ()))
        for m in re.finditer(_word_pattern(word.casefold()), folded)
    ]
    return min(found, default=None)


def _word_pattern(word: str) -> str:
    # A Latin word whole (USD, not the usd of "usda"); a Chinese one anywhere.
    return re.escape(word) if not word.isascii() else rf"(?<![a-z]){re.escape(word)}(?![a-z])"


def _enum(name: str, schema: dict[str, Any], filling: Filling, where: str) -> Any:
    values = schema["enum"]
    q = filling.question
    named = sorted(
        (at, i, v) for i, v in enumerate(values) if (at := _named_at(q.text, v)) is not None
    )
    if named:
        # In the order the question names them: the first for a source (from), the last for a
        # target (to), each value once while another is left (USD to CNY: from USD, to CNY).
        order = [v for _, _, v in named]
        if name.casefold() in _TARGET_NAMES or name.casefold().startswith(("to_", "target")):
            order.reverse()
        fresh = [v for v in order if v not in filling.used_enums] or order
        filling.used_enums.add(fresh[0])
        filling.how.append((where, "enum_named", fresh[0]))
        return fresh[0]
    best, best_score = None, 0
    for v in values:
        text = str(v)
        score = 3 * len(q.topics & topics_of(text.replace("_", " "))) + len(
            words_of(q.text) & words_of(text)
        )
        if score > best_score:
            best, best_score = v, score
    if best is not None:
        filling.how.append((where, "enum_closest", best))
        return best
    filling.how.append((where, "enum_first", values[0]))
    return values[0]


def _number(name: str, schema: dict[str, Any], filling: Filling, where: str) -> Any:
    numbers = [n for n in filling.question.numbers if n.start not in filling.used_numbers]
    text = describes(name, schema).casefold()
    chosen: Number | None = None
    for names, units in (_MONEY, _DAYS, _COUNT):
        if any(w in text for w in names):
            chosen = next((n for n in numbers if n.unit in units), None)
            break
    if chosen is None and numbers:
        chosen = numbers[0]
    if chosen is None:
        return MISSING
    filling.used_numbers.add(chosen.start)
    value = _as_type(chosen.value, schema)
    filling.how.append((where, "number", value))
    return value


def _as_type(value: float | int, schema: dict[str, Any]) -> float | int:
    if schema.get("type") == "integer" or float(value).is_integer():
        return round(value)
    return value


def _boolean(name: str, schema: dict[str, Any], filling: Filling, where: str) -> Any:
    q = filling.question
    for aspect, aspect_words in WEATHER_ASPECTS:
        if aspect in filling.verdicts and any(
            says(describes(name, schema), w) for w in aspect_words
        ):
            filling.how.append((where, "known", filling.verdicts[aspect]))
            return filling.verdicts[aspect]
    words = words_of(describes(name, schema)) - {"是否", "默认", "false", "true", "whether"}
    for word in sorted(words):
        at = q.text.casefold().find(word)
        if at >= 0:
            before = q.text.casefold()[max(0, at - 4) : at]
            value = not any(n in before for n in _NEGATIONS)
            filling.how.append((where, "boolean", value))
            return value
    if isinstance(schema.get("default"), bool):
        filling.how.append((where, "default", schema["default"]))
        return schema["default"]
    return MISSING


def _array(
    name: str, schema: dict[str, Any], filling: Filling, root: dict[str, Any], where: str
) -> Any:
    items, _ = resolved(schema.get("items") or {}, root)
    kind = items.get("type")
    if "enum" in items:
        named = [v for v in items["enum"] if isinstance(v, str) and says(filling.question.text, v)]
        return named or [_enum(name, items, filling, where)]
    if kind == "string":
        values = string_values(name, items, filling, where, place=is_place(name, schema))
        return values or MISSING
    if kind in ("number", "integer"):
        values = []
        while (value := _number(name, items, filling, where)) is not MISSING:
            values.append(value)
        return values or MISSING
    if kind == "object":
        return [fill_object(items, filling, root, path=where + "[0].")]
    return MISSING


def _fallback(schema: dict[str, Any], filling: Filling, root: dict[str, Any], where: str) -> Any:
    """A required value the question does not give: never null."""
    kind = schema.get("type")
    if kind == "string" and "enum" not in schema:
        filling.how.append((where, "fallback_question", filling.question.text.strip()))
        return filling.question.text.strip()
    value = _empty(schema, root, filling, where)
    filling.how.append((where, "fallback", value))
    return value


def _empty(schema: dict[str, Any], root: dict[str, Any], filling: Filling, where: str) -> Any:
    """A value of the right type and nothing in it: what shape alone guarantees."""
    if "default" in schema:
        return schema["default"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind in ("number", "integer"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
        return low if isinstance(low, (int, float)) else 0
    if kind == "boolean":
        return False
    if kind == "array":
        return []
    if kind == "object" or "properties" in schema:
        weak = Filling(filling.question, "weak", filling.strict)
        return fill_object(schema, weak, root, path=where + ".")
    return ""


def _coerced(value: Any, schema: dict[str, Any]) -> Any:
    kind = schema.get("type")
    if kind == "string":
        return value if isinstance(value, str) else MISSING
    if kind in ("number", "integer"):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return _as_type(value, schema) if ok else MISSING
    if kind == "boolean":
        return value if isinstance(value, bool) else MISSING
    if kind == "array":
        return value if isinstance(value, list) else MISSING
    if kind == "object":
        return value if isinstance(value, dict) else MISSING
    return value
