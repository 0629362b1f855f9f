"""fc's pytest plugin end to end: a sample agent project (tests/testing/sample_agent: the openai
SDK, two tools, three steps) recorded once with `--fc-record` from the fake provider, then
tested offline; a change to the agent's code fails its test with a readable report. The
project's files and commands are docs/testing.md's, and its report is the page's. Agents
written with the anthropic and google-genai SDKs, and the Responses API, the same way. Each
inner pytest session runs in this process (pytester)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.support.doc_claims import examples
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.server

SAMPLE = Path(__file__).parent / "sample_agent"
PAGE = (REPO / "docs" / "testing.md").read_text("utf-8")
BLOCK = r"```\w*\n((?:(?!```).)*)```\n<!-- save as (\S+) -->"
SAVED = {name: text for text, name in re.findall(BLOCK, PAGE, re.S)}
REPORT = re.search(r"```text\n(.*?)```", PAGE, re.S)[1]  # type: ignore[index]
KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY")
BASE_URLS = ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "GOOGLE_GEMINI_BASE_URL")


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """The sample project in a fresh directory, no provider key or base URL in the environment.
    What the inner sessions import is imported here first: each inner session forgets the
    modules it imported itself, and would import the SDKs and fc's server again."""
    import openai  # noqa: F401

    import fccli.proxy.start
    import fccli.serve.app
    import fccli.testing.session  # noqa: F401

    for name in ("agent.py", "test_agent.py", "pytest.ini"):
        shutil.copy(SAMPLE / name, pytester.path / name)
    for name in (*KEYS, *BASE_URLS, "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return pytester


def edit(path: Path, text: str) -> None:
    """Write a file of the sample project, and drop its compiled modules: an edit that keeps the
    size within the same second of the last one would otherwise be run from the stale `.pyc`."""
    path.write_text(text, "utf-8")
    shutil.rmtree(path.parent / "__pycache__", ignore_errors=True)


def record(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, *args: str) -> None:
    """Run the project's tests with --fc-record against a fake provider, stopped afterwards."""
    with FakeProvider() as fake:
        for name in KEYS:
            monkeypatch.setenv(name, DEFAULT_KEY)
        ran = project.runpytest_inprocess("--fc-record", f"--fc-base-url={fake.url}", *args)
        for name in KEYS:
            monkeypatch.delenv(name)
    assert ran.ret == 0, ran.stdout.str()


def test_the_page_shows_the_sample_projects_files_and_the_commands_run_here() -> None:
    for name in ("test_agent.py", "pytest.ini"):
        assert SAVED[name] == (SAMPLE / name).read_text("utf-8"), name
    commands = [c for example in examples(PAGE) for c in example.commands]
    assert commands == ["OPENAI_API_KEY=sk-... pytest --fc-record", "pytest"]


def test_recorded_once_then_played_offline_and_what_the_agent_changes_fails_with_a_report(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    record(project, monkeypatch)  # docs/testing.md: `pytest --fc-record`, the fake's URL given
    traces = project.path / "traces" / "test_agent" / "test_the_agent_looks_up_both_cities"
    [trace] = list(traces.iterdir())
    assert len(list(trace.glob("*-request.openai.json"))) == 3
    manifest = json.loads((trace / "manifest.json").read_text("utf-8"))
    assert manifest["recorded_by"] == "fc proxy"

    # offline: no provider runs, no key is set (the page's `pytest`)
    project.runpytest_inprocess().assert_outcomes(passed=1)

    # recorded again: the new trace takes the old one's place
    (trace / "old").write_text("", "utf-8")
    record(project, monkeypatch)
    [again] = list(traces.iterdir())
    assert not (again / "old").exists()

    # the agent's code changes what it sends back: Beijing's weather
    agent = project.path / "agent.py"
    original = agent.read_text("utf-8")
    edit(agent, original.replace('"temp_c": 12', '"temp_c": 31'))
    ran = project.runpytest_inprocess()
    ran.assert_outcomes(failed=1)
    out = ran.stdout.str()
    assert (
        "request 2 of the agent (POST /v1/chat/completions, openai) matches no recorded step" in out
    )
    assert (
        "step 2 came closest; the first field that differs: messages[2].content[0].content" in out
    )
    assert "(message 2 (user) › result for #1 › content)" in out
    assert '{\\"temp_c\\": 12' in out and '{\\"temp_c\\": 31' in out
    assert "direct cause" not in out  # the report, not the SDK's traceback
    for line in REPORT.splitlines():
        assert line in out, line

    # the test says the result was changed on purpose: it passes again, and fc expect's rules
    # hold for what the agent did
    rules = project.path / "rules.toml"
    rules.write_text(RULES, "utf-8")
    test = project.path / "test_agent.py"
    edit(
        test,
        "import pytest\n\npytestmark = pytest.mark.fc_traces(edited=['get_weather'], "
        "expect='rules.toml')\n" + test.read_text("utf-8"),
    )
    project.runpytest_inprocess().assert_outcomes(passed=1)
    rules.write_text(RULES.replace("max_steps = 3", "max_steps = 2"), "utf-8")
    ran = project.runpytest_inprocess()
    ran.assert_outcomes(failed=1)
    ran.stdout.fnmatch_lines(
        [
            "*fc expect: 1 of 4 rule(s) broken in rules.toml",
            "✗ max_steps at step 3: 3 steps, at most 2*",
        ]
    )

    # an agent that stops early; one that sends another setting
    edit(agent, original.replace("max_steps: int = 5", "max_steps: int = 2"))
    monkeypatch.setenv("FC_LANG", "zh")  # said in the language fc is asked to speak
    ran = project.runpytest_inprocess()
    monkeypatch.delenv("FC_LANG")
    ran.assert_outcomes(failed=1)
    assert "fc：agent 没有请求轨迹里的第 3 步" in ran.stdout.str()
    edit(agent, original.replace("parallel_tool_calls=False", "temperature=0.5"))
    ran = project.runpytest_inprocess()
    ran.assert_outcomes(failed=1)
    ran.stdout.fnmatch_lines(
        [
            "*request 1 of the agent*matches no recorded step",
            "- $.parallel_tool_calls: false",
            '+ $.wire_only: {"temperature": 0.5}',
        ]
    )


RULES = SAVED["rules.toml"]

GUARDED = """
import socket

import httpx
import pytest


@pytest.mark.fc_offline
def test_reaches_a_provider():
    try:
        httpx.get("https://api.openai.com/v1/models")
    except httpx.ConnectError:
        pass  # an agent that swallows the error still fails


@pytest.mark.fc_traces(provider="nowhere")
def test_no_such_provider(fc_traces):
    pass


@pytest.mark.fc_offline
@pytest.mark.fc_allow_providers
def test_allowed():
    assert socket.getaddrinfo.__module__ == "socket"
"""


def test_the_guard_and_record_mode_without_a_key_fail_in_one_line(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(test_guarded=GUARDED)
    ran = project.runpytest_inprocess("--fc-record")
    ran.assert_outcomes(passed=1, failed=1, errors=2)  # the fixture cannot start: an error
    ran.stdout.fnmatch_lines_random(
        [
            "*fc: --fc-record records from openai, which needs OPENAI_API_KEY; it is not set",
            "*fc: the test reached for a real provider (api.openai.com)*",
            "*fc: --fc-record needs the provider to record from: *(one of deepseek, openai, *",
        ]
    )
    assert "During handling" not in ran.stdout.str()
    assert not list(project.path.glob("traces/*/*/*"))


SDK_AGENTS = """
import json

import pytest

QUESTION = "Is it warm enough to run in Beijing and Shanghai today?"
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
TODAY = {"Beijing": 12, "Shanghai": 17}


def weather(city):
    return json.dumps({"temp_c": TODAY[city]})


@pytest.mark.fc_traces(provider="anthropic")
def test_anthropic(fc_traces):
    import anthropic

    client = anthropic.Anthropic()
    tools = [{"name": "get_weather", "description": "Today's weather in a city", "input_schema": SCHEMA}]
    messages = [{"role": "user", "content": QUESTION}]
    while True:
        answer = client.messages.create(
            model="claude-haiku-4-5", max_tokens=1024, messages=messages, tools=tools
        )
        messages.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in answer.content]})
        calls = [b for b in answer.content if b.type == "tool_use"]
        if not calls:
            break
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": c.id, "content": weather(c.input["city"])} for c in calls
        ]})
    assert "Shanghai" in answer.content[0].text
    assert len(fc_traces.requests) == 2


@pytest.mark.fc_traces(provider="gemini")
def test_gemini(fc_traces):
    from google import genai
    from google.genai import types

    client = genai.Client(http_options=types.HttpOptions(api_version="v1beta"))
    declaration = types.FunctionDeclaration(
        name="get_weather", description="Today's weather in a city", parameters_json_schema=SCHEMA
    )
    config = types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=[declaration])],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    contents = [types.Content(role="user", parts=[types.Part(text=QUESTION)])]
    while True:
        answer = client.models.generate_content(model="gemini-2.5-flash", contents=contents, config=config)
        contents.append(answer.candidates[0].content)
        if not answer.function_calls:
            break
        contents.append(types.Content(role="user", parts=[
            types.Part.from_function_response(name=c.name, response={"result": weather(c.args["city"])})
            for c in answer.function_calls
        ]))
    assert "Shanghai" in answer.text
    assert len(fc_traces.requests) == 2


@pytest.mark.fc_traces(provider="openai")
def test_responses(fc_traces):
    import openai

    client = openai.OpenAI()
    tools = [{"type": "function", "name": "get_weather", "description": "Today's weather in a city", "parameters": SCHEMA}]
    items = [{"role": "user", "content": QUESTION}]
    while True:
        answer = client.responses.create(model="gpt-5-mini", input=items, tools=tools)
        output = [item.model_dump(exclude_none=True) for item in answer.output]
        items += output
        calls = [item for item in output if item["type"] == "function_call"]
        if not calls:
            break
        items += [{"type": "function_call_output", "call_id": c["call_id"],
                   "output": weather(json.loads(c["arguments"])["city"])} for c in calls]
    assert "Shanghai" in answer.output_text
    assert len(fc_traces.requests) == 2

@pytest.mark.fc_traces(provider="openai")
def test_chat_stream(fc_traces):
    import openai

    client = openai.OpenAI()
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": SCHEMA}}]
    messages = [{"role": "user", "content": QUESTION}]
    while True:
        text, calls = "", {}
        for chunk in client.chat.completions.create(
            model="gpt-5-mini", messages=messages, tools=tools, stream=True
        ):
            if not chunk.choices:
                continue
            delta = chunk.choices[0].delta
            text += delta.content or ""
            for part in delta.tool_calls or []:
                call = calls.setdefault(part.index, {"id": "", "name": "", "arguments": ""})
                call["id"] += part.id or ""
                call["name"] += (part.function and part.function.name) or ""
                call["arguments"] += (part.function and part.function.arguments) or ""
        if not calls:
            break
        messages.append({"role": "assistant", "content": text or None, "tool_calls": [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
            for c in calls.values()
        ]})
        messages += [{"role": "tool", "tool_call_id": c["id"],
                      "content": weather(json.loads(c["arguments"])["city"])} for c in calls.values()]
    assert "Shanghai" in text
    assert len(fc_traces.requests) == 2
"""


def test_agents_of_the_anthropic_and_google_genai_sdks_the_responses_api_and_a_stream(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    import anthropic  # noqa: F401
    import google.genai  # noqa: F401

    (project.path / "test_agent.py").unlink()
    project.makepyfile(test_sdks=SDK_AGENTS)
    record(project, monkeypatch)
    traces = project.path / "traces" / "test_sdks"
    formats = {
        name: {p.name.split(".")[-2] for p in (traces / name).glob("*/*-request.*.json")}
        for name in ("test_anthropic", "test_gemini", "test_responses", "test_chat_stream")
    }
    assert formats == {
        "test_anthropic": {"anthropic"},
        "test_gemini": {"gemini"},
        "test_responses": {"responses"},
        "test_chat_stream": {"openai"},
    }
    assert list((traces / "test_chat_stream").glob("*/1-response.openai.sse"))
    project.runpytest_inprocess().assert_outcomes(passed=4)
