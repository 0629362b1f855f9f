"""A learner finds the two newer formats (responses, gemini) in the help of every command that
takes a format: the help texts once named only the first four."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fccli.providers.registry import KNOWN
from fccli.wire.registry import FORMATS
from tests.conftest import clean_env

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.mark.parametrize(
    ("command", "option"), [("check", "--format"), ("convert", "--to"), ("send", "--provider")]
)
def test_the_help_of_a_format_option_names_every_format(fc: Any, command: str, option: str) -> None:
    result = fc(command, "--help", env={"COLUMNS": "400", "NO_COLOR": "1"})
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())
    start = text.index(option) + len(option)
    end = text.find(" -", start)  # the next option
    said = text[start:end]
    for name in FORMATS:
        assert name in said, (name, said)


def test_the_help_of_provider_names_every_provider(fc: Any) -> None:
    # `-p gemini` was missing from `fc run --help` and from the options table (docs/reference/run.md).
    result = fc("run", "--help", env={"COLUMNS": "400", "NO_COLOR": "1"})
    assert result.returncode == 0, result.stderr
    said = " ".join(result.stdout.split()).split("--provider", 1)[1].split(" -m,", 1)[0]
    for name in KNOWN:
        assert name in said, (name, said)
    row = next(
        line
        for line in (ROOT / "docs" / "reference" / "run.md").read_text().splitlines()
        if "`-p, --provider`" in line
    )
    for name in KNOWN:
        assert f"`{name}`" in row, (name, row)


def test_the_fake_providers_banner_exports_what_every_format_needs(fc: Any, tmp_path: Path) -> None:
    # README: `python -m tests.support.fake_provider`, paste its export line, then -p gemini or
    # -p openai --api responses runs without a real key (the banner named DeepSeek's key only).
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.fake_provider"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env=clean_env(),
    )
    try:
        assert process.stdout is not None
        process.stdout.readline()
        export = process.stdout.readline().split()
        assert export[0] == "export"
        env = clean_env(**dict(pair.split("=", 1) for pair in export[1:]))
        for flags in (["-p", "gemini"], ["-p", "openai", "--api", "responses"]):
            out = f"t-{flags[1]}"
            result = fc("run", "杭州？", *flags, "-o", out, env=env)
            assert result.returncode == 0, result.stderr
            assert (tmp_path / out / "2-request.json").exists()
    finally:
        process.terminate()
        process.wait(timeout=10)
