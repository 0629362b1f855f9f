"""The start-up budget: which modules `fc --help`, `fc show` and `fc run` may import.

One table holds it. Each row runs `fc ARGS` in a fresh interpreter and checks the third-party
packages it imported against an allowance, and the modules it must leave out (heavy ones, the
other commands, the network, the other wire formats). An import inside a function in fccli/ is
there only for a row of this table; the time these rows buy is measured by
benchmarks/startup.py (docs/performance.md), not here: these machines are too noisy for it.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from rich.console import Console

from fccli.commands.app import COMMANDS
from fccli.render.console import make_console
from tests.conftest import REPO, clean_env

TYPER = frozenset({"typer", "shellingham", "annotated_doc"})
"""typer and what it imports: the floor of every command's help."""
FLOOR = TYPER | {
    "rich",
    "pygments",
    "markdown_it",
    "mdurl",
    "pydantic",
    "pydantic_core",
    "annotated_types",
    "typing_extensions",
    "typing_inspection",
}
"""typer, Rich and pydantic (the internal format's models): the floor of a command that works."""
PRICES = frozenset({"genai_prices", "httpx2", "idna"})
"""genai-prices and what its package imports (the HTTP client of its price updater, which fc
never starts; asyncio and importlib.metadata too): `fc run` prices each step as it records it
(fccli/cost); `fc show` reads the prices on record and loads it only to price anew."""
HEAVY = ("pydantic", "httpx", "rich.console", "fccli.core.models", "fccli.run.engine")
COMMAND_MODULES = tuple(module for module, _attribute, _help in COMMANDS.values())
"""Every command's module: `fc --help` lists them by name and short help, and a command builds
only itself."""
NETWORK = ("httpx", "fccli.providers.transport")
SERVERS = ("uvicorn", "starlette", "fccli.proxy.app")
"""The server stack: only `fc proxy` and `fc serve` import it, once they serve (no row here)."""
EXAMPLE = sorted(p for p in (REPO / "traces" / "examples").iterdir() if p.is_dir())[0]


@dataclass(frozen=True)
class Budget:
    """What `fc ARGS` may import: third-party packages within `allowed`, none of `left_out`."""

    args: tuple[str, ...]
    allowed: frozenset[str]
    left_out: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    catalog: bool | None = None
    """Whether the message catalog is read (only for Chinese words); None: not checked."""
    prints: str = ""
    """Words the command's output holds: it did its work within the budget."""


BUDGETS = {
    "version": Budget(("--version",), frozenset(), HEAVY, {"FC_LANG": "zh"}, catalog=False),
    "help": Budget(("--help",), TYPER, HEAVY + COMMAND_MODULES, catalog=False),
    "help-zh": Budget(("--help",), TYPER, HEAVY + COMMAND_MODULES, {"FC_LANG": "zh"}, True),
    "help-lang-zh": Budget(("--lang", "zh", "--help"), TYPER, HEAVY + COMMAND_MODULES),
    "run-help": Budget(("run", "--help"), TYPER, HEAVY, {"LANG": "en_US.UTF-8"}, False),
    "run-help-zh": Budget(("run", "--help", "--lang", "zh"), TYPER, HEAVY),
    "show-help-zh": Budget(("show", "--help"), TYPER, HEAVY, {"LANG": "zh_CN.UTF-8"}, True),
    "show-help": Budget(("show", "--help"), TYPER, HEAVY),
    "diff-help": Budget(("diff", "--help"), TYPER, HEAVY),
    "convert-help": Budget(("convert", "--help"), TYPER, HEAVY),
    "check-help": Budget(("check", "--help"), TYPER, HEAVY),
    "replay-help": Budget(("replay", "--help"), TYPER, HEAVY),
    "curl-help": Budget(("curl", "--help"), TYPER, HEAVY),
    "send-help": Budget(("send", "--help"), TYPER, HEAVY),
    "proxy-help": Budget(("proxy", "--help"), TYPER, HEAVY, prints="--to"),
    "export-help-zh": Budget(("export", "otel", "--help", "--lang", "zh"), TYPER, HEAVY),
    # a usage error of click, said in Chinese: the catalog and the translating formatter only
    "usage-error-zh": Budget(("--lang", "zh", "run"), TYPER, HEAVY),
    "providers": Budget(("providers",), FLOOR, NETWORK),
    "tools": Budget(("tools",), FLOOR, NETWORK),
    # a spinner (rich.status) only on a terminal; emoji names only where a code can stand;
    # fc's own check of each request needs the linter, not the trace checker; the demo's
    # steps are priced from the rows fccli/cost/snapshot.py keeps: the price table, its HTTP
    # client, asyncio and importlib.metadata stay unread
    "offline-run": Budget(
        ("run", "杭州今天适合跑步吗？", "-o", "t"),
        FLOOR,
        (
            *NETWORK,
            *PRICES,
            "asyncio",
            "importlib.metadata",
            "rich.status",
            "rich._emoji_codes",
            "fccli.check.traces",
        ),
    ),
    # a transcript needs neither the linter nor the network nor asyncio, and reads only the
    # trace's own format (the example is DeepSeek's: the other formats' packages stay unread);
    # its steps' prices are on record: the price table stays unread
    "show": Budget(
        ("show", str(EXAMPLE)),
        FLOOR,
        (
            *NETWORK,
            "asyncio",
            "fccli.check",
            "fccli.run.engine",
            "importlib.metadata",
            "genai_prices",
            *(m for m in COMMAND_MODULES if m != "fccli.commands.show"),
            "fccli.wire.anthropic.format",
            "fccli.wire.gemini.format",
            "fccli.wire.responses.format",
        ),
    ),
}

PROBE = """
import json, sys
sys.argv = ["fc", *{args!r}]
from fccli.commands.entry import main
try:
    main()
except SystemExit:
    pass
i18n = sys.modules.get("fccli.i18n")
print("LOADED:" + json.dumps({{
    "modules": sorted(name for name, module in sys.modules.items() if module is not None),
    "catalog": i18n is not None and i18n._catalog is not None,
}}))
"""


@pytest.mark.parametrize("name", BUDGETS)
def test_start_up_stays_within_its_budget(name: str, tmp_path: Path) -> None:
    budget = BUDGETS[name]
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(args=list(budget.args))],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env=clean_env(**budget.env),
    )
    assert "LOADED:" in out.stdout, out.stderr[-2000:]
    loaded = json.loads(out.stdout.rsplit("LOADED:", 1)[1])
    modules = set(loaded["modules"])
    # top-level names only: entry.py places a `pydantic.plugin._loader` of its own
    third_party = {
        m
        for m in modules
        if "." not in m and m not in sys.stdlib_module_names and m != "fccli" and m[0] != "_"
    }
    assert third_party <= budget.allowed, f"fc {name} imported {third_party - budget.allowed}"
    assert modules.isdisjoint(budget.left_out), (
        f"fc {name} imported {modules & set(budget.left_out)}"
    )
    if budget.catalog is not None:
        assert loaded["catalog"] is budget.catalog


@pytest.mark.parametrize(
    "text",
    [
        "go :thumbs_up: [bold]now[/]",
        "time: 12:30, a:b:c, no :such_code:",  # `:b:` is an emoji too
        ":warning-emoji: [red]x[/]:smile:",
        "[dim]plain: text[/] 杭州 : spaced : colons",
    ],
)
def test_emoji_codes_left_out_of_start_up_render_as_rich_renders_them(text: str) -> None:
    # fc's console skips Rich's emoji lookup where no code can stand (the offline-run budget)
    ours, rich = io.StringIO(), io.StringIO()
    make_console(file=ours, width=80, force_terminal=False).print(text)
    Console(file=rich, width=80, force_terminal=False, highlight=False).print(text)
    assert ours.getvalue() == rich.getvalue()


def test_the_fc_command_ends_without_collecting_its_heap(monkeypatch: pytest.MonkeyPatch) -> None:
    """`fc` (and `python -m fccli`) is console(): main(), then the heap frozen, so the
    collection Python runs at exit has nothing to walk (fccli/commands/entry.py)."""
    import gc

    from fccli.commands import entry

    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert '\nfc = "fccli.commands.entry:console"\n' in pyproject
    ran: list[bool] = []
    thresholds = gc.get_threshold()
    frozen = gc.get_freeze_count() > 0  # by tests/conftest.py, once the tests were collected
    gc.unfreeze()  # as a process starts
    gc.set_threshold(700, 10, 10)
    monkeypatch.setattr(
        entry,
        "main",
        lambda: ran.append(gc.get_freeze_count() == 0 and gc.get_threshold()[0] >= 10_000),
    )
    try:
        entry.console()
        # main ran first, with the collector working, its young generation less often
        assert ran == [True]
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        if frozen:
            gc.freeze()
        gc.set_threshold(*thresholds)
