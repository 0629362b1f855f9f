"""Two refusals `fc check` knows from real 400s: Mistral's call ids (9 letters or digits, FC107
in the `mistral` chat dialect, `-p mistral`) and Gemini's count of function response parts
(FC126). Each finding quotes the sentence the provider answers; the fake provider answers the
same file with the same sentence over HTTP."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fccli.check import check_request
from tests.conftest import REPO, clean_env
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider
from tests.support.inprocess import run_in_process

pytestmark = pytest.mark.server

CORPUS = REPO / "tests" / "corpus" / "check"
QUESTION = "北京、上海今天适合跑步吗？"
KEYS = {"MISTRAL_API_KEY": DEFAULT_KEY, "GEMINI_API_KEY": DEFAULT_KEY}


def fc(root: Path, *args: str) -> Any:
    return run_in_process(list(args), cwd=root, env=clean_env(**KEYS), input=None, terminal=False)


@pytest.fixture(scope="module")
def fake() -> Any:
    with FakeProvider() as server:
        yield server


def _quoted(case: Path, fmt: str, rule: str) -> str:
    findings = check_request(json.loads(case.read_text("utf-8")), fmt)
    quoted = {f.provider_message for f in findings if f.rule == rule}
    assert len(quoted) == 1, findings
    return str(quoted.pop())


def test_mistral_runs_with_its_own_ids_and_refuses_another_providers(
    fake: FakeProvider, tmp_path: Path
) -> None:
    ran = fc(tmp_path, "run", QUESTION, "-p", "mistral", "--base-url", fake.url, "-o", "t")
    assert ran.returncode == 0, ran.stderr
    sent = json.loads((tmp_path / "t" / "2-request.mistral.json").read_bytes())
    assert all(len(c["id"]) == 9 for c in sent["messages"][1]["tool_calls"])
    assert fc(tmp_path, "check", "t").returncode == 0
    # the same history with ids another provider made: fc check says what Mistral will say
    case = CORPUS / "mistral" / "FC107-an-id-from-another-provider.json"
    said = _quoted(case, "mistral", "FC107")
    assert said.startswith("Tool call id was call_") and said.endswith("with a length of 9.")
    refused = fc(tmp_path, "send", str(case), "-p", "mistral", "--base-url", fake.url)
    assert refused.returncode == 3
    assert said in refused.stderr


def test_a_conversion_to_mistral_warns_of_ids_it_keeps(tmp_path: Path) -> None:
    source = CORPUS / "openai" / "FC101-call-without-result.ok.json"
    ran = fc(tmp_path, "convert", str(source), "--to", "mistral")
    assert ran.returncode == 0, ran.stderr
    assert "call id call_1 is one Mistral refuses" in ran.stderr
    assert "Tool call id was call_1 but must be a-z, A-Z, 0-9, with a length of 9." in ran.stderr


def test_gemini_counts_the_response_parts(fake: FakeProvider, tmp_path: Path) -> None:
    case = CORPUS / "gemini" / "FC126-more-responses-than-calls.json"
    said = _quoted(case, "gemini", "FC126")
    assert "number of function response parts is equal" in said
    refused = fc(tmp_path, "send", str(case), "-p", "gemini", "--base-url", fake.url)
    assert refused.returncode == 3
    assert said in refused.stderr
    clean = case.with_name(case.name.replace(".json", ".ok.json"))
    assert fc(tmp_path, "send", str(clean), "-p", "gemini", "--base-url", fake.url).returncode == 0
