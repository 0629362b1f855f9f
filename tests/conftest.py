"""Shared fixtures: running the real `fc` entry point in a clean environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.inprocess import run_in_process

REPO = Path(__file__).resolve().parent.parent

# Variables that would change fc's choices; a developer's shell may have them set.
_FC_VARS = (
    "FC_PROVIDER",
    "FC_BASE_URL",
    "FC_DEBUG",
    "DEEPSEEK_API_KEY",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
)


# Variables that choose fc's language: the tests speak English unless they ask for Chinese.
_LANGUAGE_VARS = ("FC_LANG", "LC_ALL", "LC_MESSAGES", "LANGUAGE")


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _FC_VARS + _LANGUAGE_VARS}
    env["LANG"] = "C.UTF-8"
    env["NO_COLOR"] = "1"
    env["COLUMNS"] = "100"
    env.update(extra)
    return env


@pytest.fixture(autouse=True)
def _no_provider_env(monkeypatch: pytest.MonkeyPatch):
    for name in _FC_VARS + _LANGUAGE_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    yield
    from fccli import i18n

    i18n.set_language("en")  # an in-process `fc --lang zh ...` leaves it chosen


@pytest.fixture
def fc(tmp_path: Path):
    """Run `fc ARGS...` as a user would, in a temporary working directory.

    In-process by default (tests/support/inprocess.py: the same `main()`, its own argv, environment,
    cwd and streams); `process=True` starts a real `python -m fccli` for what only a process
    shows: start-up imports, signals, broken pipes, the exit status as the shell sees it.
    `terminal=True`: stdout is a terminal to Rich (in-process only), COLUMNS its width.
    """

    def run(
        *args: str,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        input: str | None = None,
        process: bool = False,
        terminal: bool = False,
    ):
        if not process:
            return run_in_process(
                list(args),
                cwd=cwd or tmp_path,
                env=env or clean_env(),
                input=input,
                terminal=terminal,
            )
        return subprocess.run(
            [sys.executable, "-m", "fccli", *args],
            cwd=cwd or tmp_path,
            env=env or clean_env(),
            capture_output=True,
            text=True,
            input=input,
            timeout=60,
        )

    return run


@pytest.fixture
def fake_provider():
    """A started fake LLM provider (tests/support/fake_provider.py) on 127.0.0.1, stopped afterwards."""
    from tests.support.fake_provider import FakeProvider

    with FakeProvider() as server:
        yield server
