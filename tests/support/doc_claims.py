"""Commands in a Markdown page, and the claims written under them, checked by running them.

A page pairs each ```bash block with the claim comment right under it:

    ```bash
    fc run "杭州今天适合跑步吗？" -o t
    fc check t
    ```
    <!-- check
    exit 0 0
    t/1-response.json $.content[2].input.city == "杭州"
    stdout ~ no problems found
    -->

Each line of the block is one command, `fc ...` or `echo TEXT | fc ...`, run in a fresh
directory by the fc under test; it may start with environment assignments (`FC_LANG=zh fc ...`)
and end with a `# comment`. Each line of the comment is one claim:

| claim | holds when |
| --- | --- |
| `exit N M ...` | the commands exit with these codes, in order (default: all 0) |
| `file PATH` | the file exists |
| `PATH JSONPATH == JSON` | the value at JSONPATH in the JSON file PATH equals the JSON value |
| `PATH JSONPATH ~ TEXT` / `!~ TEXT` | that value (JSON text if not a string) contains / lacks TEXT |
| `same PATH JSONPATH PATH2 JSONPATH2` | the two values are equal |
| `differs PATH JSONPATH PATH2 JSONPATH2` | the two values differ (the answer changed) |
| `stdout ~ TEXT` / `stdout !~ TEXT` / `stderr ~ TEXT` | the commands' output contains / lacks TEXT |

JSONPATH is `$` followed by `.key` and `[index]` steps. A block without a claim comment, or a
comment with no claim beyond `exit`, is itself a failure: a command must say what it shows.

A block that only a process, a server or another program can run says which test runs it, in
a comment under it instead: `<!-- run by tests/serve/test_serve.py -->` (that test reads the
page). A file the page asks the reader to save is the code block right above
`<!-- save as my_tools.py -->`: it is written into the directory before the next command runs.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.inprocess import run_in_process

_BLOCK = re.compile(
    r"```bash\n(.*?)```\n(?:\s*\n)*(?:(<!-- check\n(.*?)-->)|<!-- run by ([^>]*?) -->)?", re.S
)
_SAVED = re.compile(r"```\w*\n(.*?)```\n<!-- save as (\S+) -->", re.S)
_STEP = re.compile(r"\.([^.\[]+)|\[(\d+)\]")
_ASSIGNMENT = re.compile(r"[A-Z_][A-Z0-9_]*=")


@dataclass
class Example:
    line: int
    """Where the block starts in the page (1-based), for the failure message."""
    commands: list[str]
    claims: list[str]
    heading: str = ""
    run_by: list[str] = field(default_factory=list)
    """The tests that run this block instead (`<!-- run by A, B -->`), if any."""
    saved: dict[str, str] = field(default_factory=dict)
    """The files the page asks to save since the block before: name -> text."""


@dataclass
class Outcome:
    codes: list[int] = field(default_factory=list)
    stdout: str = ""
    stderr: str = ""


def examples(page: str) -> list[Example]:
    found = []
    since = 0
    for m in _BLOCK.finditer(page):
        before = page[: m.start()]
        heading = next((line for line in reversed(before.splitlines()) if line.startswith("#")), "")
        commands = [
            c for c in m.group(1).splitlines() if c.strip() and not c.lstrip().startswith("#")
        ]
        claims = [c.strip() for c in (m.group(3) or "").splitlines() if c.strip()]
        run_by = [name.strip() for name in (m.group(4) or "").split(",") if name.strip()]
        saved = {s.group(2): s.group(1) for s in _SAVED.finditer(page, since, m.start())}
        since = m.end()
        example = Example(before.count("\n") + 1, commands, claims, heading.lstrip("# "))
        example.run_by, example.saved = run_by, saved
        found.append(example)
    return found


def run(example: Example, cwd: Path, env: dict[str, str]) -> Outcome:
    """Run each command as `fc` would run it, in-process (fast: no interpreter per command),
    in `cwd` with exactly the environment `env`. A command is `fc ARGS...`, or
    `echo TEXT | fc ARGS...` (TEXT is what is typed at the terminal), either one after
    `NAME=VALUE` assignments that add to `env` for that command."""
    outcome = Outcome()
    for name, text in example.saved.items():
        (cwd / name).write_text(text, "utf-8")
    for command in example.commands:
        code, out, err = _run_fc(command, cwd, env)
        outcome.codes.append(code)
        outcome.stdout += out
        outcome.stderr += err
    return outcome


def walk(page: str, blocks: list[Example], cwd: Path, env: dict[str, str]) -> list[str]:
    """Run `blocks` of `page` in order in `cwd`, as a reader goes down it; what each block did
    not show, in words, with its output ([] when every claim holds)."""
    wrong = []
    for example in blocks:
        outcome = run(example, cwd, env)
        wrong += [
            f"{page} line {example.line} ({example.heading}): {problem}"
            + f"\n--- stdout\n{outcome.stdout[-1500:]}\n--- stderr\n{outcome.stderr[-1500:]}"
            for problem in failures(example, outcome, cwd)
        ]
    return wrong


def assert_shows(page: str, example: Example, cwd: Path, env: dict[str, str]) -> None:
    """Run `example` of `page` in `cwd` and fail with what it did not show, and its output."""
    outcome = run(example, cwd, env)
    wrong = failures(example, outcome, cwd)
    assert not wrong, (
        f"{page} line {example.line} ({example.heading}):\n  "
        + "\n  ".join(wrong)
        + f"\n--- stdout\n{outcome.stdout[-2000:]}\n--- stderr\n{outcome.stderr[-2000:]}"
    )


def _run_fc(command: str, cwd: Path, env: dict[str, str]) -> tuple[int, str, str]:
    typed = None
    if "|" in command:
        left, command = command.split("|", 1)
        echoed = shlex.split(left)
        if echoed[:1] != ["echo"]:
            raise ValueError(f"{left!r}: only `echo TEXT | fc ...` is understood")
        typed = " ".join(echoed[1:]) + "\n"
    args = shlex.split(command, comments=True)
    env = dict(env)
    while args and _ASSIGNMENT.match(args[0]):
        name, _, val = args.pop(0).partition("=")
        env[name] = val
    if args[:1] != ["fc"]:
        raise ValueError(f"{command!r}: the page's commands are fc commands")
    ran = run_in_process(args[1:], cwd=cwd, env=env, input=typed)
    return ran.returncode, ran.stdout, ran.stderr


def assert_holds(page: str, example: Example, cwd: Path, env: dict[str, str]) -> None:
    """Run the example's commands in `cwd` and fail, saying which, unless every claim holds."""
    outcome = run(example, cwd, env)
    wrong = failures(example, outcome, cwd)
    assert not wrong, (
        f"{page} line {example.line} ({example.heading}):\n  "
        + "\n  ".join(wrong)
        + f"\n--- stdout\n{outcome.stdout[-2000:]}\n--- stderr\n{outcome.stderr[-2000:]}"
    )


def failures(example: Example, outcome: Outcome, cwd: Path) -> list[str]:
    """Every claim that does not hold, in words; [] when all hold."""
    if not example.claims:
        return ["no <!-- check --> comment under the block: say what the command shows"]
    if all(c.split()[0] == "exit" for c in example.claims):
        return ["the claims say nothing but exit codes: say what the command shows"]
    wrong = []
    codes = [0] * len(example.commands)
    for claim in example.claims:
        if claim.split()[0] == "exit":
            codes = [int(n) for n in claim.split()[1:]]
            continue
        try:
            problem = _check(claim, outcome, cwd)
        except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
            problem = f"cannot be checked: {type(e).__name__}: {e}"
        if problem is not None:
            wrong.append(f"{claim!r}: {problem}")
    if outcome.codes != codes:
        wrong.insert(0, f"exit codes {outcome.codes}, the claim says {codes}")
    return wrong


def _check(claim: str, outcome: Outcome, cwd: Path) -> str | None:
    head, _, rest = claim.partition(" ")
    if head in ("stdout", "stderr"):
        op, _, text = rest.partition(" ")
        return _contains(getattr(outcome, head), op, text)
    if head == "file":
        return None if (cwd / rest).exists() else "no such file"
    if head in ("same", "differs"):
        a_file, a_path, b_file, b_path = rest.split()
        a, b = value(cwd / a_file, a_path), value(cwd / b_file, b_path)
        if (a == b) == (head == "same"):
            return None
        return f"{json.dumps(a, ensure_ascii=False)} vs {json.dumps(b, ensure_ascii=False)}"
    m = re.match(r"(\S+) (\$\S*) (==|~|!~) (.*)", claim)
    if m is None:
        raise ValueError("not a claim this page knows")
    file, path, op, expected = m.groups()
    got = value(cwd / file, path)
    if op == "==":
        want = json.loads(expected)
        return None if got == want else f"found {json.dumps(got, ensure_ascii=False)}"
    shown = got if isinstance(got, str) else json.dumps(got, ensure_ascii=False)
    return _contains(shown, op, expected)


def _contains(text: str, op: str, expected: str) -> str | None:
    if op not in ("~", "!~"):
        raise ValueError(f"unknown operator {op!r}")
    if (expected in text) == (op == "~"):
        return None
    return f"{'not found' if op == '~' else 'found'} in: {text[:300]!r}"


def value(file: Path, path: str) -> Any:
    doc = json.loads(file.read_text("utf-8"))
    if not path.startswith("$"):
        raise ValueError(f"{path}: a JSON path starts with $")
    rest = path[1:]
    for m in _STEP.finditer(rest):
        doc = doc[m.group(1)] if m.group(1) is not None else doc[int(m.group(2))]
    if "".join(m.group(0) for m in _STEP.finditer(rest)) != rest:
        raise ValueError(f"{path}: steps are .key and [index]")
    return doc
