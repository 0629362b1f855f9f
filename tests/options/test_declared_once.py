"""An option declared once (fccli/options/declared.py) is on the command line, in the settings,
in the manifest and in a replay, with no other file changed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fccli.commands import watch as watch_module
from fccli.core.manifest import Options, read_manifest
from fccli.options import declared
from fccli.options.declared import CARRIED, REPLAY, RUN, Keep, Option, RunSettings
from fccli.options.manifest import as_typed

QUESTION = "杭州今天适合跑步吗？"
TOY = Option(
    "toy_level",
    ("--toy-level",),
    int,
    None,
    "How loud the toy squeaks.",
    commands=(RUN, REPLAY),
    min=1,
    max=9,
    kept=Keep("toy_level"),
    replay=CARRIED,
)


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The settings each round trip ran with, as `fc run` and `fc replay` hand them over."""
    runs: list[Any] = []
    watch = watch_module.watch

    def watching(prepared: Any, **kwargs: Any) -> Any:
        runs.append(prepared.settings)
        return watch(prepared, **kwargs)

    monkeypatch.setattr(watch_module, "watch", watching)
    return runs


def test_a_toy_option_declared_once_is_on_the_command_line_in_the_manifest_and_replayed(
    fc, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seen: list[Any]
) -> None:
    monkeypatch.setattr(declared, "OPTIONS", (*declared.OPTIONS, TOY))

    page = fc("run", "--help")
    assert page.returncode == 0, page.stderr
    assert "--toy-level" in page.stdout and "How loud the toy squeaks." in page.stdout
    assert "--toy-level" in fc("replay", "--help").stdout
    refused = fc("run", QUESTION, "--toy-level", "12")
    assert refused.returncode == 2 and "--toy-level" in refused.stderr  # its range, from typer

    ran = fc("run", QUESTION, "--toy-level", "7", "-o", "t")
    assert ran.returncode == 0, ran.stderr
    assert load(tmp_path / "t" / "manifest.json")["options"]["toy_level"] == 7
    assert read_manifest(load(tmp_path / "t" / "manifest.json")).options.toy_level == 7  # type: ignore[union-attr]

    assert "--toy-level 7" in fc("show", "t").stdout  # among the run's options

    replayed = fc("replay", "t", "-o", "r")
    assert replayed.returncode == 0, replayed.stderr
    assert load(tmp_path / "r" / "manifest.json")["options"]["toy_level"] == 7
    again = fc("replay", "t", "--toy-level", "3", "-o", "r2")
    assert again.returncode == 0, again.stderr
    assert load(tmp_path / "r2" / "manifest.json")["options"]["toy_level"] == 3
    assert [s.toy_level for s in seen] == [7, 7, 3]


def test_without_the_toy_nothing_of_it_is_left(fc) -> None:
    assert "--toy-level" not in fc("run", "--help").stdout
    with pytest.raises(TypeError, match="toy_level"):
        RunSettings(question=QUESTION, toy_level=7)


def test_a_transcript_lists_the_kept_options_that_differ_from_their_defaults() -> None:
    options = Options(
        tools="weather",
        system="be brief",
        stream=True,
        thinking=False,
        parallel_tool_calls=False,
        max_steps=8,
        max_tokens=100,
        retries=5,
        demo_fault="bad-json",
    )
    typed = as_typed(options, lambda text: f"<{text}>")
    assert typed == [
        "--system <be brief>",
        "--stream",
        "--no-thinking",
        "--no-parallel",
        "--max-tokens 100",
    ]


def test_every_kept_option_is_a_field_of_the_typed_manifest() -> None:
    fields = set(Options.model_fields)
    for option in declared.OPTIONS:
        if option.kept is not None:
            assert option.kept.key in fields, option.name
