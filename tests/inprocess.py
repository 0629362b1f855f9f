"""Running `fc` in the test process: `main()` with its arguments, environment, working directory
and standard streams swapped in, the exit code caught. As a user's shell would see it, minus the
subprocess (about 0.3 s each): what only a process shows (signals, broken pipes, start-up
imports) stays in subprocess tests."""

from __future__ import annotations

import io
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import clean_env


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str
    stdout_bytes: bytes


def run_main(
    monkeypatch: pytest.MonkeyPatch,
    cwd: Path,
    *args: str,
    env: dict[str, str] | None = None,
    stdin: bytes = b"",
) -> Ran:
    from fccli.cli.entry import main

    wanted = env if env is not None else clean_env()
    if os.environ.get("FC_DEBUG_TESTS"):
        wanted = {**wanted, "FC_DEBUG": "1"}
    with monkeypatch.context() as m:
        for name in list(os.environ):
            if name not in wanted:
                m.delenv(name)
        for name, value in wanted.items():
            m.setenv(name, value)
        m.chdir(cwd)
        out, err = _Kept(), _Kept()
        m.setattr(sys, "stdout", io.TextIOWrapper(out, encoding="utf-8", write_through=True))
        m.setattr(sys, "stderr", io.TextIOWrapper(err, encoding="utf-8", write_through=True))
        m.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
        m.setattr(sys, "argv", ["fc", *args])
        code = 0
        try:
            main()
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        sys.stdout.flush()
        sys.stderr.flush()
    raw = out.getvalue()
    return Ran(code, raw.decode("utf-8", "replace"), err.getvalue().decode("utf-8", "replace"), raw)


class _Kept(io.BytesIO):
    """A BytesIO that outlives its TextIOWrapper (which closes what it wraps when collected)."""

    def close(self) -> None:
        pass


QUESTION = "杭州今天适合跑步吗？"


def deepseek_run(url: str, *extra: str, question: str = QUESTION) -> list[str]:
    """`fc run QUESTION -p deepseek --base-url URL -o t EXTRA...`: a run against the fake
    provider (with DEEPSEEK_API_KEY set, see `deepseek_env`)."""
    return ["run", question, "-p", "deepseek", "--base-url", url, "-o", "t", *extra]


def deepseek_env() -> dict[str, str]:
    from tests.fake_provider import DEFAULT_KEY

    return clean_env(DEEPSEEK_API_KEY=DEFAULT_KEY)
