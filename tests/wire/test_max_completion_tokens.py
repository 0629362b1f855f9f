"""OpenAI's reasoning models (o-series, GPT-5) refuse `max_tokens`: fc sends the field each model
family takes (issue #13, item 21), and reads either back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fccli.core.models import Message, Request, TextBlock
from fccli.wire.chat import codec as chat
from tests.conftest import clean_env
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider


@pytest.mark.parametrize(
    ("model", "field"),
    [
        ("o3-mini", "max_completion_tokens"),
        ("o4-mini", "max_completion_tokens"),
        ("gpt-5-mini", "max_completion_tokens"),
        ("gpt-4.1-mini", "max_tokens"),
        ("gpt-4o", "max_tokens"),
    ],
)
def test_the_length_cap_goes_in_the_field_the_model_takes(model: str, field: str) -> None:
    request = Request(
        model=model, messages=[Message(role="user", content=[TextBlock(text="hi")])], max_tokens=99
    )
    body = chat.to_wire_request(request, chat.OPENAI)
    assert body[field] == 99
    assert {"max_tokens", "max_completion_tokens"} & set(body) == {field}
    assert chat.from_wire_request(body, chat.OPENAI).max_tokens == 99


def test_deepseek_keeps_max_tokens() -> None:
    from fccli.wire.chat.dialects import DEEPSEEK as DEEPSEEK_DIALECT

    request = Request(
        model="o1-like",
        messages=[Message(role="user", content=[TextBlock(text="hi")])],
        max_tokens=9,
    )
    assert "max_tokens" in chat.to_wire_request(request, DEEPSEEK_DIALECT)


def test_an_openai_reasoning_model_with_max_tokens_runs(
    fc, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    result = fc(
        "run",
        "杭州今天适合跑步吗？",
        "-p",
        "openai",
        "-m",
        "o4-mini",
        "--max-tokens",
        "800",
        "--base-url",
        fake_provider.url,
        "-o",
        "t",
        env=clean_env(OPENAI_API_KEY=DEFAULT_KEY),
    )
    assert result.returncode == 0, result.stderr
    sent = json.loads((tmp_path / "t" / "1-request.openai.json").read_text(encoding="utf-8"))
    assert sent["max_completion_tokens"] == 800 and "max_tokens" not in sent
