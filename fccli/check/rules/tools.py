"""The tools offered: in strict form when marked strict, each name once, and not too many.

FC115 `strict: true` on a schema not in strict form (every property required,
`additionalProperties: false`, none of the refused keywords; fccli/tools/strict.py) · FC117 the
same name offered twice (a warning; Anthropic refuses it) · FC118 more than 15 tools (a
warning: models choose worse among many) · FC134 a parameter that names the user (a warning: the
model writes whatever id it likes; identity comes from the session, the course's second text).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from fccli.check.findings import OPENAI_ADDITIONAL, OPENAI_REQUIRED, Finding, Quoted, finding
from fccli.check.history import History
from fccli.i18n import Msg
from fccli.tools.strict import StrictProblem, strict_violations

MANY_TOOLS = 15
IDENTITY = frozenset(
    {"user_id", "userid", "uid", "account_id", "customer_id", "member_id", "tenant_id"}
)
"""Parameter names that say who the user is."""


def strict_form(h: History) -> Iterator[Finding]:
    for tool in h.tools:
        if not tool.strict:
            continue
        name = tool.name if isinstance(tool.name, str) else "?"
        try:
            problems = strict_violations(name, tool.schema)
        except (TypeError, AttributeError) as e:  # `required: null` and the like
            yield finding(
                "FC115",
                h.format,
                tool.schema_path,
                Msg(
                    "tool {name} is sent with strict: true, but its schema is not in strict "
                    "form: part of it is not of the JSON Schema shape ({error})",
                    name=name,
                    error=str(e),
                ),
                quote=False,
            )
            continue
        for problem in problems:
            detail = _openai_detail(problem)
            yield finding(
                "FC115",
                h.format,
                tool.schema_path + problem.path[1:],
                Msg(
                    "tool {name} is sent with strict: true, but its schema is not in strict "
                    "form: {problem} (fc tools --strict shows the strict form)",
                    name=name,
                    problem=problem.problem,
                ),
                quote=detail is not None,
                name=name,
                detail=detail,
            )


def _openai_detail(problem: StrictProblem) -> str | None:
    """Return the rest of OpenAI's "Invalid schema" message, where its wording is on record."""
    parts = [p for p in re.split(r"\.|\[(\d+)\]", problem.path[1:]) if p]
    context = repr(tuple(int(p) if p.isdigit() else p for p in parts[:-1]))
    if parts and parts[-1] == "required" and "missing: " in problem.problem:
        missing = problem.problem.split("missing: ", 1)[1].split(", ")[0]
        return Quoted(OPENAI_REQUIRED, context=context, missing=missing)
    if parts and parts[-1] == "additionalProperties":
        return Quoted(OPENAI_ADDITIONAL, context=context)
    return None


def tool_names(h: History) -> Iterator[Finding]:
    seen: set[str] = set()
    for tool in h.tools:
        if not isinstance(tool.name, str):
            continue
        if tool.name in seen:
            yield finding(
                "FC117",
                h.format,
                tool.path,
                Msg(
                    "the tool name {name!r} is offered twice: the model writes only a name, so "
                    "it cannot say which one it means",
                    name=tool.name,
                ),
                severity="error" if h.refuses("FC117") else None,
            )
        seen.add(tool.name)
    if len(h.tools) > MANY_TOOLS:
        yield finding(
            "FC118",
            h.format,
            h.layout.places.tools,
            Msg(
                "{n} tools are offered: past about {many}, models pick the wrong tool more "
                "often; offer the ones this task needs",
                n=len(h.tools),
                many=MANY_TOOLS,
            ),
        )


def identity_argument(h: History) -> Iterator[Finding]:
    for tool in h.tools:
        properties = tool.schema.get("properties") if isinstance(tool.schema, dict) else None
        if not isinstance(properties, dict):
            continue
        for param in properties:
            if isinstance(param, str) and param.casefold() in IDENTITY:
                yield finding(
                    "FC134",
                    h.format,
                    f"{tool.schema_path}.properties.{param}",
                    Msg(
                        "tool {name} lets the model fill {param}: the model writes whatever id "
                        "it reads or makes up, and the tool acts for that user. Take who the "
                        "user is from the session, and leave it out of the schema",
                        name=tool.name if isinstance(tool.name, str) else "?",
                        param=param,
                    ),
                )


RULES = (strict_form, tool_names, identity_argument)
