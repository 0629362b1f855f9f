"""What `fc check` reports: findings, and the catalogue of rules they come from.

A finding names its rule (`FC101`...), says what is wrong in one plain sentence, points at the
place (a JSON path into the file as written, so a person can open it there) and, for an error a
provider refuses, the message that provider answers with HTTP 400.

The provider messages are declared by each wire format (its `refusals`, PROTOCOL.md's table "What
providers answer when the history is wrong"); a message with `{n}` (message index), `{k}` (block
or call index) or `{ids}` in it is filled in with the place of the finding, as the provider would.
"""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

from fccli.i18n import N_, Msg, gettext, language
from fccli.wire.registry import format_names, layout, refusals

Severity = Literal["error", "warning", "note"]
"""A note is neither: something worth knowing that breaks no rule (exit 0, even --strict)."""
Applies = Literal["all", "quoted", "trace", "json_mode", "strings"]


# A NamedTuple, not a dataclass: start-up.
class Rule(NamedTuple):
    id: str
    severity: Severity
    applies: Applies
    """Which formats the rule reads, as they declare themselves: all (but those with no place
    for what it is about), only those whose providers refuse the mistake (`quoted`), those with
    a JSON mode that wants the word "json" in the prompt (`json_mode`), those whose calls carry
    their arguments as a JSON string (`strings`), or none (a trace-only rule)."""
    title: str
    """The mistake, in a few words (the rule table of `fc check --help` and the README)."""

    @property
    def formats(self) -> tuple[str, ...]:
        """The formats the rule applies to, from the registry."""
        if self.applies == "trace":
            return ()
        return tuple(
            name
            for name in format_names()
            if (self.applies == "all" and self.id not in layout(name).rules_without_place)
            or (self.applies == "quoted" and self.id in refusals(name))
            or (self.applies == "json_mode" and bool(layout(name).json_word_modes))
            or (self.applies == "strings" and layout(name).arguments_as_text)
        )


RULES: dict[str, Rule] = {
    r.id: r
    for r in (
        Rule(
            "FC100",
            "warning",
            "all",
            Msg("a part fc's reader for the format refuses (the rules read around it)"),
        ),
        Rule("FC101", "error", "all", Msg("a call with no result")),
        Rule("FC102", "error", "all", Msg("a result with no call")),
        Rule(
            "FC103",
            "error",
            "quoted",
            Msg("results of one turn split across several user messages"),
        ),
        Rule("FC104", "error", "quoted", Msg("result blocks not leading their user message")),
        Rule(
            "FC105",
            "error",
            "quoted",
            Msg("tool messages not directly after their assistant message"),
        ),
        Rule("FC106", "error", "all", Msg("the same id on two calls, or two results for one call")),
        Rule(
            "FC107",
            "error",
            "quoted",
            Msg(
                "a tool id its provider refuses (Anthropic: ^[a-zA-Z0-9_-]+$; Bedrock: also . "
                "and :, at most 64; Mistral: 9 letters or digits)"
            ),
        ),
        Rule("FC108", "error", "strings", Msg("arguments that are not valid JSON")),
        Rule("FC109", "error", "all", Msg("arguments that are valid JSON but not an object")),
        Rule(
            "FC110",
            "error",
            "all",
            Msg("arguments that fail the tool's schema, answered as if they were fine"),
        ),
        Rule(
            "FC111", "error", "all", Msg("a call to a tool not offered, answered as if it had run")
        ),
        Rule(
            "FC112",
            "error",
            "quoted",
            Msg("thinking mode: a tool-calling assistant turn without reasoning_content"),
        ),
        Rule("FC113", "error", "quoted", Msg("tool message content that is not a string")),
        Rule("FC114", "error", "quoted", Msg("a tool_choice that thinking mode refuses")),
        Rule("FC115", "error", "all", Msg("strict: true on a schema that is not in strict form")),
        Rule("FC116", "warning", "all", Msg("results out of call order")),
        Rule(
            "FC117",
            "warning",
            "all",
            Msg("the same tool name offered twice (an error on Anthropic)"),
        ),
        Rule("FC118", "warning", "all", Msg("more than 15 tools offered")),
        Rule(
            "FC119",
            "warning",
            "all",
            Msg("an answer with no call although tools were offered: it may be made up"),
        ),
        Rule(
            "FC120",
            "warning",
            "trace",
            Msg("a trace step whose internal and wire requests disagree"),
        ),
        Rule("FC121", "error", "quoted", Msg("a thinking block sent back without its signature")),
        Rule(
            "FC123",
            "error",
            "quoted",
            Msg("a reasoning model's function_call sent back without the reasoning item before it"),
        ),
        Rule(
            "FC124", "error", "quoted", Msg("a reasoning item sent back without the item it led to")
        ),
        Rule("FC125", "error", "quoted", Msg("a result's json block that is not a JSON object")),
        Rule(
            "FC126",
            "error",
            "quoted",
            Msg("more function response parts than the turn has calls (Gemini)"),
        ),
        Rule(
            "FC122",
            "note",
            "trace",
            Msg(
                "a trace step whose history stops matching the earlier step's: the prompt cache breaks there"
            ),
        ),
        # FC130-FC134: the harness's own mistakes (--harness-bug), and JSON mode.
        Rule(
            "FC130",
            "error",
            "trace",
            Msg(
                "a trace that ends on a tool request taken as the answer: the stop reason was not read"
            ),
        ),
        Rule(
            "FC131",
            "warning",
            "all",
            Msg("a result that speaks of another call's argument: paired by position, not by id?"),
        ),
        Rule(
            "FC132", "warning", "json_mode", Msg('JSON mode without the word "json" in the prompt')
        ),
        Rule(
            "FC133",
            "error",
            "trace",
            Msg("a failed tool call handed back to the model as a success"),
        ),
        Rule(
            "FC134",
            "warning",
            "all",
            Msg("an identity (user_id...) offered as an argument the model fills"),
        ),
        # FC135-FC136: a harness that runs its tools on MCP servers (fccli/check/rules/mcp.py).
        Rule(
            "FC135",
            "error",
            "trace",
            Msg("an MCP server's error (isError) handed back to the model as a success"),
        ),
        Rule("FC136", "error", "trace", Msg("a tools/call of a tool its MCP server never listed")),
    )
}


class Finding(NamedTuple):
    rule: str
    """The rule's id, FC1xx."""
    severity: Severity
    message: str
    """What is wrong, in plain words."""
    path: str
    """Where, as a JSON path into the file as written (`$.messages[2].content[0]`)."""
    provider: str | None = None
    """Who answers the mistake with HTTP 400 (for the internal format: Anthropic, whose layout it
    shares, or OpenAI for a tool schema)."""
    provider_message: str | None = None
    """What they answer (PROTOCOL.md's table), with this finding's indices filled in."""
    file: str | None = None
    """The file, when several were checked (a trace)."""

    def to_json_dict(self) -> dict[str, Any]:
        return self._asdict()

    def in_file(self, name: str) -> Finding:
        return self._replace(file=name)


def finding(
    rule: str,
    fmt: str,
    path: str,
    message: str,
    *,
    severity: Severity | None = None,
    quote: bool = True,
    **values: Any,
) -> Finding:
    """Return a finding of `rule` in a document of format `fmt`; `values` fill in the provider's
    message.

    `quote=False` where this case of the rule has no provider message on record.
    """
    spec = RULES[rule]
    quoted = refusals(fmt).get(rule) if quote else None
    provider, sentence = quoted if quoted is not None else (None, None)
    return Finding(
        rule,
        severity or spec.severity,
        message,
        path,
        provider,
        Quoted(sentence, **values) if sentence is not None else None,
    )


class Quoted(str):
    """A provider's own 400 sentence, its place filled in: quoted as it is, in every language
    (it is what the provider says). `meaning()` is what it says in the chosen language, for a
    reader who does not read English (None in English, or for a sentence with no translation)."""

    template: str
    values: dict[str, Any]

    def __new__(cls, template: str, /, **values: Any) -> Quoted:
        self = super().__new__(cls, template.format(**values))
        self.template = template
        self.values = values
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_quoted, (self.template, self.values))

    def meaning(self) -> str | None:
        if language() == "en":
            return None
        translated = gettext(self.template)
        if translated == self.template:
            return None
        values = {
            name: (value.meaning() or value) if isinstance(value, Quoted) else value
            for name, value in self.values.items()
        }
        return translated.format(**values)


def _quoted(template: str, values: dict[str, Any]) -> Quoted:
    return Quoted(template, **values)


def count(findings: list[Finding], severity: Severity) -> int:
    return sum(1 for f in findings if f.severity == severity)


OPENAI_REQUIRED = N_(
    "In context={context}, 'required' is required to be supplied and to be an array including "
    "every key in properties. Missing '{missing}'."
)
OPENAI_ADDITIONAL = N_(
    "In context={context}, 'additionalProperties' is required to be supplied and to be false."
)
"""The rest of OpenAI's "Invalid schema" sentence (FC115), where its wording is on record."""
