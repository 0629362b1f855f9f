"""The rules of `fc expect`, each checked against what an agent did (facts.py).

Each rule gives at most one Broken: the first place it fails, and how many more there are.
Words are Msgs: English as kept (`--json`), said in the chosen language where printed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from fccli.core.jsonpath import path_tail
from fccli.expect.facts import Call, Facts
from fccli.expect.paths import MISSING, lookup
from fccli.i18n import Joined, Msg, _, localized

SHOWN = 60
"""The most characters of a value from the trace a line shows (then `…`)."""


@dataclass
class Broken:
    """A rule the trace breaks: where (a step, a file, a JSON path into it) and why."""

    rule: str
    """The rule's name: its key in the rules file (`max_steps`), or the `name` given."""
    step: int | None
    """The step it breaks at; None for the trace as a whole (or a single file)."""
    place: str | None
    """A JSON path into `file` (fc's internal form): `$.content[1].input.city`."""
    message: str
    """What is wrong (a Msg)."""
    file: str | None = None
    """The file `place` is in: `2-response.json`, `2-request.json`, `manifest.json`."""

    def where(self) -> str:
        """Say where the rule breaks, in the chosen language: ` at step 2, 2-response.json
        $.content[1]`, or nothing for the trace as a whole."""
        place = f"{self.file} {self.place}" if self.file and self.place else self.file or self.place
        if self.step is not None and place:
            return _(" at step {step}, {place}", step=self.step, place=place)
        if self.step is not None:
            return _(" at step {step}", step=self.step)
        return _(" at {place}", place=place) if place else ""

    def said(self) -> str:
        """Say the broken rule on one line, in the chosen language, as `fc expect` prints it
        (after its `✗ `): the rule, where, and what is wrong."""
        return self.rule + self.where() + _(": ") + str(localized(self.message))

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "step": self.step,
            "file": self.file,
            "place": self.place,
            "message": str(self.message),
        }


def shown(value: Any) -> str:
    """Show a value from the trace in a line: JSON, shortened."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


def named(text: str) -> str:
    """Show a name from the trace (a tool's, a call's id), shortened."""
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


def _pattern(pattern: re.Pattern[str]) -> str:
    """Show a rule's regular expression as written (in single quotes, as TOML's literal
    strings), shortened."""
    text = pattern.pattern
    return "'" + (text if len(text) <= SHOWN else text[: SHOWN - 1] + "…") + "'"


def _at(rule: str, call: Call, message: str, tail: str = "") -> Broken:
    return Broken(rule, call.step, call.place + tail, message, call.file)


def _more(message: str, more: int) -> str:
    if more == 1:
        return Msg("{message} (and 1 more)", message=message)
    return Msg("{message} (and {n} more)", message=message, n=more) if more else message


def _same(a: Any, b: Any) -> bool:
    """Tell whether two JSON values are equal as JSON: `true` is not `1`, `1.0` is `1`."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b) and (isinstance(a, str) == isinstance(b, str))


class Rule:
    name: str

    def check(self, facts: Facts) -> Broken | None:
        raise NotImplementedError


@dataclass
class ToolUsed(Rule):
    name: str
    tool: str

    def check(self, facts: Facts) -> Broken | None:
        if any(c.name == self.tool for c in facts.calls):
            return None
        called = sorted({c.name for c in facts.calls})
        if not called:
            return Broken(
                self.name, None, None, Msg("{tool} is never called (nothing is)", tool=self.tool)
            )
        return Broken(
            self.name,
            None,
            None,
            Msg(
                "{tool} is never called (the calls: {tools})",
                tool=self.tool,
                tools=", ".join(named(t) for t in called[:10])
                + (", …" if len(called) > 10 else ""),
            ),
        )


@dataclass
class ToolNotUsed(Rule):
    name: str
    tool: str

    def check(self, facts: Facts) -> Broken | None:
        calls = [c for c in facts.calls if c.name == self.tool]
        if not calls:
            return None
        if len(calls) == 1:
            return _at(self.name, calls[0], Msg("{tool} is called", tool=self.tool))
        return _at(
            self.name, calls[0], Msg("{tool} is called {n} times", tool=self.tool, n=len(calls))
        )


@dataclass
class CallPattern:
    """A call an order names: a tool, and arguments it must have (those given, equal)."""

    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)

    def fits(self, call: Call) -> bool:
        return call.name == self.tool and all(
            k in call.arguments and _same(call.arguments[k], v) for k, v in self.arguments.items()
        )

    def said(self) -> str:
        return self.tool + (" " + shown(self.arguments) if self.arguments else "")


def _said(call: Call) -> str:
    return named(call.name) + " " + shown(call.arguments)


@dataclass
class Order(Rule):
    name: str
    calls: list[CallPattern]
    exact: bool = False
    """These calls and no others; else these in this order, others between them allowed."""

    def check(self, facts: Facts) -> Broken | None:
        return self._exact(facts) if self.exact else self._in_order(facts)

    def _in_order(self, facts: Facts) -> Broken | None:
        at, last = 0, None
        for pattern in self.calls:
            found = next(
                (i for i in range(at, len(facts.calls)) if pattern.fits(facts.calls[i])), None
            )
            if found is None:
                if last is None:
                    return Broken(
                        self.name, None, None, Msg("{call} is never called", call=pattern.said())
                    )
                return _at(
                    self.name,
                    last,
                    Msg(
                        "{call} is not called after this call ({previous})",
                        call=pattern.said(),
                        previous=_said(last),
                    ),
                )
            last, at = facts.calls[found], found + 1
        return None

    def _exact(self, facts: Facts) -> Broken | None:
        calls = facts.calls
        for i, pattern in enumerate(self.calls):
            if i >= len(calls):
                return Broken(
                    self.name,
                    None,
                    None,
                    Msg(
                        "{found} call(s), {expected} expected: {call} is missing",
                        found=len(calls),
                        expected=len(self.calls),
                        call=pattern.said(),
                    ),
                )
            if not pattern.fits(calls[i]):
                return _at(
                    self.name,
                    calls[i],
                    Msg(
                        "call {n} is {found}, {expected} expected",
                        n=i + 1,
                        found=_said(calls[i]),
                        expected=pattern.said(),
                    ),
                )
        if len(calls) > len(self.calls):
            extra = calls[len(self.calls)]
            return _at(
                self.name,
                extra,
                Msg(
                    "call {n} ({call}) is one more than the {expected} expected",
                    n=len(self.calls) + 1,
                    call=_said(extra),
                    expected=len(self.calls),
                ),
            )
        return None


@dataclass
class Arguments(Rule):
    name: str
    tool: str
    path: tuple[str | int, ...] = ()
    path_text: str = "$"
    equals: Any = MISSING
    matches: re.Pattern[str] | None = None
    schema: Any = None
    every: bool = True
    """Every call of the tool must pass; else one is enough."""

    def check(self, facts: Facts) -> Broken | None:
        calls = [c for c in facts.calls if c.name == self.tool]
        if not calls:
            return Broken(
                self.name,
                None,
                None,
                Msg("{tool} is never called: no arguments to check", tool=self.tool),
            )
        failed = [(c, found) for c in calls if (found := self._problem(c)) is not None]
        if not failed or (not self.every and len(failed) < len(calls)):
            return None
        call, (tail, problem) = failed[0]
        if self.every:
            return _at(self.name, call, _more(problem, len(failed) - 1), tail)
        message = Msg("no call of {tool} passes: {problem}", tool=self.tool, problem=problem)
        return _at(self.name, call, message, tail)

    def _problem(self, call: Call) -> tuple[str, str] | None:
        """Say where in the call and what fails (None when it passes)."""
        tail = ".input" + path_tail(self.path)
        value = lookup(call.arguments, self.path)
        if value is MISSING:
            return tail, Msg("the arguments have no {path}", path=self.path_text)
        if self.equals is not MISSING and not _same(value, self.equals):
            return tail, Msg(
                "{path} is {found}, {expected} expected",
                path=self.path_text,
                found=shown(value),
                expected=shown(self.equals),
            )
        if self.matches is not None:
            text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            if self.matches.search(text) is None:
                return tail, Msg(
                    "{path} is {found}, which does not match {pattern}",
                    path=self.path_text,
                    found=shown(value),
                    pattern=_pattern(self.matches),
                )
        if self.schema is not None:
            from fccli.tools.schema import validate

            errors = validate(value, self.schema).errors
            if errors:
                failing = Msg("fails the schema: {error}", error=errors[0])
                return tail, _more(failing, len(errors) - 1)
        return None


@dataclass
class MaxSteps(Rule):
    name: str
    most: int

    def check(self, facts: Facts) -> Broken | None:
        if facts.steps <= self.most:
            return None
        return Broken(
            self.name,
            self.most + 1,
            None,
            Msg("{n} steps, at most {most} expected", n=facts.steps, most=self.most),
        )


@dataclass
class NoErrorResults(Rule):
    name: str

    def check(self, facts: Facts) -> Broken | None:
        errors = [r for r in facts.results if r.is_error]
        if not errors:
            return None
        first = errors[0]
        tool = facts.tool_name(first.call_id) or "?"
        message = Msg(
            "the result of {tool} ({id}) is an error: {said}",
            tool=named(tool),
            id=named(first.call_id),
            said=shown(first.content),
        )
        return Broken(
            self.name, first.step, first.place, _more(message, len(errors) - 1), first.file
        )


NO_ANSWER = {
    "tool_use": Msg("the run has no final answer: its last step asks for tools"),
    "missing": Msg("the run has no final answer: its last step has no response"),
    "request": Msg("a request has no final answer (it waits for one)"),
}


@dataclass
class Answer(Rule):
    name: str
    contains: list[str] = field(default_factory=list)
    not_contains: list[str] = field(default_factory=list)
    matches: re.Pattern[str] | None = None
    ignore_case: bool = False

    def check(self, facts: Facts) -> Broken | None:
        said = facts.answer
        if said is None:
            reason = NO_ANSWER.get(facts.no_answer or "", NO_ANSWER["missing"])
            if facts.stop is not None:
                return Broken(self.name, facts.stop.step, None, reason, facts.stop.file)
            return Broken(self.name, None, None, reason, facts.file)
        text = said.value.casefold() if self.ignore_case else said.value
        problems = [
            Msg("lacks {text}", text=shown(part))
            for part in self.contains
            if (part.casefold() if self.ignore_case else part) not in text
        ]
        problems += [
            Msg("holds {text}", text=shown(part))
            for part in self.not_contains
            if (part.casefold() if self.ignore_case else part) in text
        ]
        if self.matches is not None and self.matches.search(said.value) is None:
            problems.append(Msg("does not match {pattern}", pattern=_pattern(self.matches)))
        if not problems:
            return None
        message = Msg(
            "the final answer {problems}: {answer}",
            problems=Joined(problems, ", ", zh_sep="，"),
            answer=shown(said.value),
        )
        return Broken(self.name, said.step, said.place, message, said.file)


@dataclass
class StopReason(Rule):
    name: str
    reasons: list[str]

    def check(self, facts: Facts) -> Broken | None:
        stop = facts.stop
        expected = " | ".join(self.reasons)
        if stop is None:
            return Broken(
                self.name,
                None,
                None,
                Msg(
                    "no stop reason: a request waits for its answer ({expected} expected)",
                    expected=expected,
                )
                if facts.no_answer == "request"
                else Msg(
                    "no stop reason: the last step has no response ({expected} expected)",
                    expected=expected,
                ),
                facts.file,
            )
        if stop.value in self.reasons:
            return None
        return Broken(
            self.name,
            stop.step,
            stop.place,
            Msg(
                "the run stops with {found}, {expected} expected",
                found=stop.value,
                expected=expected,
            ),
            stop.file,
        )
