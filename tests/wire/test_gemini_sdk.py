"""fc's Gemini files against Google's own SDK types (google-genai's pydantic models, which
forbid unknown fields and take the REST JSON's camelCase names): every response file and every
streamed chunk is a GenerateContentResponse; a request's contents, system instruction, tools,
tool config and generation config are a Content, Tool, ToolConfig and GenerationConfig.

google-genai comes with the dev extra (`fccli[gemini-types]`), which `.ci/run` installs; where it
is absent the test is skipped and says why."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import clean_env
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider


def _sdk() -> Any:
    """google-genai's types, imported by the tests that use them (not at collection: ~1.2 s of
    CPU in every xdist worker, whether or not it runs one of them)."""
    return pytest.importorskip(
        "google.genai.types", reason="google-genai is not installed (pip install -e '.[dev]')"
    )


REQUEST_KEYS = {"contents", "systemInstruction", "tools", "toolConfig", "generationConfig"}


def _valid(model: Any, value: Any) -> None:
    # JSON in, as the API's own client reads it: base64 for bytes (thoughtSignature).
    model.model_validate_json(json.dumps(value, ensure_ascii=False))


def _check_request(body: dict[str, Any]) -> None:
    assert set(body) <= REQUEST_KEYS, set(body) - REQUEST_KEYS
    types = _sdk()
    for content in body["contents"]:
        _valid(types.Content, content)
    if "systemInstruction" in body:
        _valid(types.Content, body["systemInstruction"])
    for tool in body.get("tools", []):
        _valid(types.Tool, tool)
    if "toolConfig" in body:
        _valid(types.ToolConfig, body["toolConfig"])
    if "generationConfig" in body:
        _valid(types.GenerationConfig, body["generationConfig"])


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("model", ["gemini-3-pro-preview", "gemini-2.5-flash"])
def test_fc_s_gemini_files_validate_against_the_sdk_types(
    fc: Any, fake_provider: FakeProvider, tmp_path: Path, stream: bool, model: str
) -> None:
    out = tmp_path / "t"
    ran = fc(
        "run", "北京、上海今天适合跑步吗？", "-p", "gemini", "-m", model, "--thinking",
        "--effort", "high", "--tool-choice", "auto", "--system", "Be brief.",
        "--base-url", fake_provider.url, "-o", str(out), *(["--stream"] if stream else []),
        env=clean_env(GEMINI_API_KEY=DEFAULT_KEY),
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    requests = sorted(out.glob("*-request.gemini.json"))
    responses = sorted(out.glob("*-response.gemini.json"))
    types = _sdk()
    assert len(requests) == len(responses) == 2
    for path in requests:
        _check_request(json.loads(path.read_text("utf-8")))
    for path in responses:
        _valid(types.GenerateContentResponse, json.loads(path.read_text("utf-8")))
    for path in out.glob("*.sse"):
        for line in path.read_text("utf-8").splitlines():
            if line.startswith("data: "):
                _valid(types.GenerateContentResponse, json.loads(line[6:]))


def test_the_sdk_types_catch_a_wrong_field() -> None:
    # The validation above can fail: a snake_case or unknown field is refused.
    types = _sdk()
    with pytest.raises(ValueError):
        _valid(types.Content, {"role": "model", "parts": [{"function_call_x": {}}]})
    with pytest.raises(ValueError):
        _valid(types.Tool, {"functionDeclarations": [{"name": "f", "input_schema": {}}]})
