"""The edits of `fc replay` on a step's tool results: --set, --error, --ok, and --edit.

Applied in that order, on top of whatever was edited by hand in the trace's files, so the editor
shows (and has the last word on) the results as they would go out. Every id is checked before
anything changes: an unknown one is exit 2 with the ids the step has. An id may be shortened to
any prefix that names one result only, as git does with commit hashes.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fccli.core.errors import FcError, InputFileError, UsageError
from fccli.core.jsonio import dumps, parse_json, read_bytes
from fccli.core.models import Request, ToolResultBlock, ToolUseBlock
from fccli.i18n import Msg, _


@dataclass
class EditsAsked:
    """The edits as given on the command line."""

    sets: list[str] = field(default_factory=list)
    """`ID=TEXT` or `ID=@FILE` (`@-`: standard input)."""
    errors: list[str] = field(default_factory=list)
    oks: list[str] = field(default_factory=list)
    editor: bool = False

    def any(self) -> bool:
        return bool(self.sets or self.errors or self.oks or self.editor)


@dataclass
class Applied:
    request: Request
    records: list[dict[str, Any]]
    """One per edit, for the new trace's manifest."""
    notes: list[str] = field(default_factory=list)


class StepResults:
    """The tool results a step's request hands back, by id, with the calls they answer."""

    def __init__(self, request: Request, step: int) -> None:
        self.step = step
        self.blocks: dict[str, list[ToolResultBlock]] = {}
        self.calls: dict[str, ToolUseBlock] = {}
        for message in request.messages:
            for call in message.tool_uses():
                self.calls[call.id] = call
            for block in message.tool_results():
                self.blocks.setdefault(block.tool_use_id, []).append(block)

    @property
    def ids(self) -> list[str]:
        return list(self.blocks)

    def describe(self, call_id: str) -> str:
        call = self.calls.get(call_id)
        if call is None:
            return call_id
        return f"{call_id} ({call.name} {json.dumps(call.input, ensure_ascii=False)})"

    def resolve(self, given: str, flag: str) -> str:
        """Resolve `given` to a full id: itself, or the one id it is a prefix of."""
        if given in self.blocks:
            return given
        matches = [i for i in self.blocks if given and i.startswith(given)]
        if len(matches) == 1:
            return matches[0]
        known = "; ".join(self.describe(i) for i in self.ids)
        hint = Msg("ids of step {step}'s results: {ids}", step=self.step, ids=known)
        if matches:
            raise UsageError(
                Msg(
                    "{flag} {id}: the start of {n} ids; give more of it",
                    flag=flag,
                    id=given,
                    n=len(matches),
                ),
                hint=hint,
            )
        raise UsageError(
            Msg(
                "{flag} {id}: no tool result with this id in step {step}",
                flag=flag,
                id=given,
                step=self.step,
            ),
            hint=hint,
        )

    def get(self, call_id: str) -> ToolResultBlock:
        return self.blocks[call_id][-1]

    def update(
        self, call_id: str, *, content: str | None = None, error: bool | None = None
    ) -> None:
        for block in self.blocks[call_id]:
            if content is not None:
                block.content = content
            if error is not None:
                block.is_error = error


Editor = Callable[[str], str]
"""Given the document's text, the text the person saved."""


def apply_edits(request: Request, step: int, asked: EditsAsked, editor: Editor) -> Applied:
    request = request.model_copy(deep=True)
    results = StepResults(request, step)
    stdin = [v for v in asked.sets if v.partition("=")[2] in ("@", "@-")]
    if len(stdin) > 1:
        raise UsageError(
            Msg(
                "--set reads standard input {n} times ({values}); it can be read once",
                n=len(stdin),
                values=", ".join(stdin),
            ),
            hint=Msg("give the other results as ID=@FILE or ID=TEXT"),
        )
    sets = [_parse_set(value, results) for value in asked.sets]
    errors = [results.resolve(i, "--error") for i in asked.errors]
    oks = [results.resolve(i, "--ok") for i in asked.oks]
    _refuse_conflicts([i for i, _, _ in sets], errors, oks)
    out = Applied(request, [])
    for call_id, text, source in sets:
        results.update(call_id, content=text)
        record: dict[str, Any] = {"kind": "set", "id": call_id, "text": text}
        if source is not None:
            record["file"] = source
        out.records.append(record)
    for kind, ids in (("error", errors), ("ok", oks)):
        for call_id in ids:
            if results.get(call_id).is_error == (kind == "error"):
                out.notes.append(
                    Msg("--error {id}: the result already was an error", id=call_id)
                    if kind == "error"
                    else Msg("--ok {id}: the result already was not an error", id=call_id)
                )
            results.update(call_id, error=kind == "error")
            out.records.append({"kind": kind, "id": call_id})
    if asked.editor:
        out.records += _edit_in_editor(results, editor, out.notes)
    return out


def _parse_set(value: str, results: StepResults) -> tuple[str, str, str | None]:
    given, sep, text = value.partition("=")
    if not sep or not given:
        example = f"--set {results.ids[0]}='{{\"temp_c\": 39}}'" if results.ids else ""
        raise UsageError(
            Msg("--set {value}: expected ID=TEXT (or ID=@FILE)", value=repr(value)),
            hint=Msg("e.g. {example}", example=example) if example else None,
        )
    call_id = results.resolve(given, "--set")
    if not text.startswith("@"):
        return call_id, text, None
    source = text[1:]
    # A file's last line break is the editor's, not part of the result (as `$(cat FILE)`).
    return call_id, _read_text(source).removesuffix("\n"), source or "-"


def _read_text(source: str) -> str:
    if source in ("", "-"):
        return sys.stdin.read()
    path = Path(source)

    try:
        return read_bytes(path).decode("utf-8")
    except FileNotFoundError:
        raise InputFileError(source, Msg("no such file (read for --set ID=@FILE)")) from None
    except UnicodeDecodeError:
        raise InputFileError(source, Msg("not UTF-8 text")) from None
    except OSError as e:
        raise InputFileError(
            source, Msg("cannot be read ({reason})", reason=str(e.strerror))
        ) from None


def _refuse_conflicts(sets: list[str], errors: list[str], oks: list[str]) -> None:
    for flag, ids in (("--set", sets), ("--error", errors), ("--ok", oks)):
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise UsageError(
                Msg(
                    "{flag} names {ids} more than once; say it once",
                    flag=flag,
                    ids=", ".join(twice),
                )
            )
    both = sorted(set(errors) & set(oks))
    if both:
        raise UsageError(Msg("--error and --ok both name {ids}; choose one", ids=", ".join(both)))


# ---------------------------------------------------------------------------------------------
# --edit: the step's results as a small JSON document in $EDITOR


def about(step: int) -> str:
    """Write the document's first field: what to do with it, in the chosen language."""

    return _(
        "fc replay: the tool results of step {step}, as they will be sent. Change a result's "
        "content (a JSON object or array is written back as JSON text, a string as it is) or its "
        "is_error, save and close. id, tool and input are for reading: the model asked for those. "
        "Save it unchanged to send the results as they are; empty the file to cancel the replay.",
        step=step,
    )


def editor_document(results: StepResults) -> str:
    entries = []
    for call_id in results.ids:
        block = results.get(call_id)
        call = results.calls.get(call_id)
        entry: dict[str, Any] = {"id": call_id}
        if call is not None:
            entry["tool"] = call.name
            entry["input"] = call.input
        entry["is_error"] = block.is_error
        entry["content"] = _shown(block.content)
        entries.append(entry)
    return dumps({"about": about(results.step), "results": entries})


def _shown(content: str) -> Any:
    """Show a result that is a JSON object or array as JSON, to edit without escapes."""
    try:
        value = json.loads(content)
    except ValueError:
        return content
    return value if isinstance(value, (dict, list)) else content


def _edit_in_editor(results: StepResults, editor: Editor, notes: list[str]) -> list[dict[str, Any]]:
    text = editor(editor_document(results))
    if not text.strip():
        raise UsageError(Msg("the edited document is empty: nothing was replayed"))
    document = Msg("the edited document")
    data = parse_json(text, document)
    entries = data.get("results") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise InputFileError(document, Msg("expected an object with `results`, a list"))
    records = []
    for n, entry in enumerate(entries):
        where = f"$.results[{n}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            raise InputFileError(document, Msg("expected an object with an id"), json_path=where)
        call_id = results.resolve(entry["id"], Msg("--edit: the result"))
        block = results.get(call_id)
        call = results.calls.get(call_id)
        if call is not None and (
            entry.get("tool", call.name) != call.name
            or entry.get("input", call.input) != call.input
        ):
            notes.append(
                Msg(
                    "--edit: the tool and input of {id} are the model's; left as they were",
                    id=call_id,
                )
            )
        error = entry.get("is_error", block.is_error)
        if not isinstance(error, bool):
            raise InputFileError(
                document, Msg("is_error is true or false"), json_path=f"{where}.is_error"
            )
        content = _written(entry.get("content", _shown(block.content)), block.content)
        if content == block.content and error == block.is_error:
            continue
        results.update(call_id, content=content, error=error)
        records.append({"kind": "editor", "id": call_id, "text": content, "is_error": error})
    return records


def _written(value: Any, before: str) -> str:
    if isinstance(value, str):
        return value
    if value == _shown(before):
        return before  # unchanged: the text exactly as it was, spacing included
    return json.dumps(value, ensure_ascii=False)


def run_editor(text: str) -> str:
    """Open `text` in $VISUAL or $EDITOR (else vi) and return what was saved."""
    command = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    argv = shlex.split(command)
    if not argv:
        raise UsageError(
            Msg("$EDITOR is empty"), hint=Msg("export EDITOR=nano (or vim, code --wait, ...)")
        )
    fd, name = tempfile.mkstemp(prefix="fc-replay-", suffix=".json")
    path = Path(name)
    keep = False
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        try:
            done = subprocess.run([*argv, str(path)], check=False)
        except OSError as e:
            raise UsageError(
                Msg(
                    "cannot start the editor {command}: {reason}",
                    command=repr(command),
                    reason=str(e.strerror),
                ),
                hint=Msg(
                    "set $EDITOR (or $VISUAL) to an editor that waits, e.g. nano, vim, code --wait"
                ),
            ) from None
        if done.returncode != 0:
            raise UsageError(
                Msg(
                    "the editor {command} exited with status {status}: nothing was replayed",
                    command=repr(command),
                    status=done.returncode,
                )
            )
        saved = path.read_text(encoding="utf-8")
        if not saved.strip():
            return saved  # emptied: the replay is cancelled, with the document's own words
        try:
            parse_json(saved, str(path))
        except FcError as e:
            keep = saved.strip() != ""
            if keep:  # the person's work is not thrown away with the error
                raise e.at(hint=Msg("your edit is kept in {path}", path=str(path))) from e
            raise
        return saved
    finally:
        if not keep:
            path.unlink(missing_ok=True)
