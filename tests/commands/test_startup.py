"""The start-up paths stay light: no heavy module is imported to print help or the version.

Time itself is measured by benchmarks/startup.py, not here (these machines are noisy); this
test guards the cause of slowness that a change can bring back without anyone noticing.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from fccli.commands.app import COMMANDS

HEAVY = ("pydantic", "httpx", "rich.console", "fccli.core.models", "fccli.run.engine")
# Every command's module: `fc --help` lists them by name and short help (fccli/commands/app.py),
# and a command builds only itself.
COMMAND_MODULES = tuple(module for module, _attribute, _help in COMMANDS.values())

PROBE = """
import sys
sys.argv = ["fc", *{args!r}]
from fccli.commands.entry import main
try:
    main()
except SystemExit:
    pass
i18n = sys.modules.get("fccli.i18n")
print("CATALOG:" + str(i18n is not None and i18n._catalog is not None))
print("LOADED:" + ",".join(m for m in {heavy!r} if m in sys.modules))
"""


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["--version"],
        ["run", "--help"],
        # Chinese help: the catalog and the translating formatter, nothing more
        ["--lang", "zh", "--help"],
        ["run", "--help", "--lang", "zh"],
        ["export", "otel", "--help", "--lang", "zh"],
        ["--lang", "zh", "run"],  # a usage error of click, said in Chinese
    ],
)
def test_help_and_version_import_nothing_heavy(args: list[str]) -> None:
    heavy = HEAVY if args[-1] != "--help" or len(args) > 1 else HEAVY + COMMAND_MODULES
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(args=args, heavy=heavy)],
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    loaded = out.rsplit("LOADED:", 1)[1].strip()
    assert loaded == "", f"fc {' '.join(args)} imported {loaded}"


@pytest.mark.parametrize(
    ("args", "env", "catalog"),
    [
        (["--help"], {}, False),  # English: the msgid is the text, nothing to read
        (["run", "--help"], {"LANG": "en_US.UTF-8"}, False),
        (["--help"], {"FC_LANG": "zh"}, True),
        (["show", "--help"], {"LANG": "zh_CN.UTF-8"}, True),
        (["--version"], {"FC_LANG": "zh"}, False),  # answered before any language
    ],
)
def test_the_catalog_is_read_only_for_chinese_words(
    args: list[str], env: dict[str, str], catalog: bool, tmp_path: Path
) -> None:
    from tests.conftest import clean_env

    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(args=args, heavy=HEAVY)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env=clean_env(**env),
    ).stdout
    assert f"CATALOG:{catalog}" in out, out[-300:]


@pytest.mark.parametrize(
    "args",
    [["providers"], ["tools"], ["run", "杭州今天适合跑步吗？", "-o", "t"]],
    ids=["providers", "tools", "offline-run"],
)
def test_offline_commands_never_import_the_http_client(args: list[str], tmp_path) -> None:
    loaded = _loaded(args, ("httpx", "fccli.providers.transport"), tmp_path)
    assert loaded == "", f"fc {' '.join(args)} imported {loaded}"


def _loaded(args: list[str], modules: tuple[str, ...], cwd: Path) -> str:
    """Which of `modules` `fc ARGS` imported, comma-separated, in a fresh process."""
    from tests.conftest import clean_env

    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(args=args, heavy=modules)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        env=clean_env(),
    ).stdout
    return out.rsplit("LOADED:", 1)[1].strip()


EXAMPLE = sorted(
    p for p in (Path(__file__).parent.parent.parent / "traces" / "examples").iterdir() if p.is_dir()
)[0]


@pytest.mark.parametrize(
    ("args", "unused"),
    [
        # asyncio only runs async tools (~17 ms of every run otherwise)
        # importlib.metadata: pydantic's plugin loader looks for plugins with it (entry.py)
        # a spinner (rich.status) only on a terminal; emoji names only where a code can stand;
        # fc's own check of each request needs the linter, not the trace checker
        (
            ["run", "杭州今天适合跑步吗？", "-o", "t"],
            (
                "asyncio",
                "httpx",
                "importlib.metadata",
                "rich.status",
                "rich._emoji_codes",
                "fccli.check.traces",
            ),
        ),
        # a transcript needs neither the linter nor the network nor asyncio
        (
            ["show", str(EXAMPLE)],
            (
                "asyncio",
                "httpx",
                "fccli.check",
                "fccli.run.engine",
                "importlib.metadata",
                *(m for m in COMMAND_MODULES if m != "fccli.commands.show"),
                # the example is a DeepSeek trace: the other formats' packages stay unread
                "fccli.wire.anthropic.format",
                "fccli.wire.gemini.format",
                "fccli.wire.responses.format",
            ),
        ),
    ],
    ids=["offline-run", "show"],
)
def test_run_and_show_import_only_what_they_use(
    args: list[str], unused: tuple[str, ...], tmp_path: Path
) -> None:
    loaded = _loaded(args, unused, tmp_path)
    assert loaded == "", f"fc {args[0]} imported {loaded}"


def test_the_fc_command_ends_without_collecting_its_heap(monkeypatch: pytest.MonkeyPatch) -> None:
    """`fc` (and `python -m fccli`) is console(): main(), then the heap frozen, so the
    collection Python runs at exit has nothing to walk (fccli/commands/entry.py)."""
    import gc

    from fccli.commands import entry

    pyproject = (Path(__file__).parent.parent.parent / "pyproject.toml").read_text(encoding="utf-8")
    assert '\nfc = "fccli.commands.entry:console"\n' in pyproject
    ran: list[bool] = []
    thresholds = gc.get_threshold()
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
        gc.set_threshold(*thresholds)
