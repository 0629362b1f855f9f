"""Shared fixtures: running the real `fc` entry point in a clean environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# Variables that would change fc's choices; a developer's shell may have them set.
_FC_VARS = (
    "FC_PROVIDER",
    "FC_BASE_URL",
    "FC_DEBUG",
    "DEEPSEEK_API_KEY",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
)


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _FC_VARS}
    env["NO_COLOR"] = "1"
    env["COLUMNS"] = "100"
    env.update(extra)
    return env


@pytest.fixture(autouse=True)
def _no_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _FC_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def fc(tmp_path: Path):
    """Run `fc ARGS...` as a user would: a subprocess, in a temporary working directory."""

    def run(
        *args: str,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        input: str | None = None,
    ):
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
    """A started fake LLM provider (tests/fake_provider.py) on 127.0.0.1, stopped afterwards."""
    from tests.fake_provider import FakeProvider

    with FakeProvider() as server:
        yield server


@pytest.fixture
def fc_in(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """`fc_in("run", "question", ...)`: fc in this process (tests/inprocess.py), in tmp_path."""
    from tests.inprocess import run_main

    def run(
        *args: str, env: dict[str, str] | None = None, cwd: Path | None = None, stdin: bytes = b""
    ):
        return run_main(monkeypatch, cwd or tmp_path, *args, env=env, stdin=stdin)

    return run
