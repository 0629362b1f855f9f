"""`fc check` in Chinese (issue 18): every rule's title and every finding said in Chinese under
zh, the providers' own 400 sentences quoted unchanged, and `--json` the same bytes in both.

Findings are `Msg`s (fccli/i18n): English as they are kept (--json, a trace's checks), said in
the chosen language only where `fc check` prints them (fccli/render/check_view.py).
"""

from __future__ import annotations

import io
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from rich.console import Console

from fccli import i18n
from fccli.check import RULES, check_request
from fccli.check.findings import Finding, Quoted
from fccli.check.report import check_path
from fccli.core.errors import FcError
from fccli.core.jsonio import dumps
from fccli.i18n import Joined
from fccli.render.check_view import _finding
from fccli.wire.registry import format_names, refusals
from tests.conftest import clean_env
from tests.support.inprocess import run_in_process

REPO = Path(__file__).resolve().parent.parent.parent
CORPUS = REPO / "tests" / "corpus" / "check"
BROKEN = sorted(c for c in CORPUS.glob("*/*.json") if not c.name.endswith(".ok.json"))
ALL_CASES = sorted(CORPUS.glob("*/*.json"))
EXAMPLES = sorted(p for p in (REPO / "traces" / "examples").iterdir() if p.is_dir())
CJK = re.compile(r"[\u4e00-\u9fff]")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture
def zh() -> Iterator[None]:
    i18n.set_language("zh")
    yield
    i18n.set_language("en")


def _lang(lang: str) -> None:
    i18n.set_language(lang)


# --- traces with the trace-only rules (FC120, FC122, FC130) and FC100's skipped format ---------


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Traces made as a learner would make them: the demo with a harness bug, and an example
    edited by hand."""
    root = tmp_path_factory.mktemp("traces")
    made: dict[str, Path] = {}
    runs = [
        *((bug, "杭州和北京天气？") for bug in ("ignore-stop-reason", "drop-reasoning")),
        *((bug, "杭州和北京天气？") for bug in ("split-results", "pair-by-order")),
        ("report-success", "巴黎天气？"),  # the weather tool fails for 巴黎
    ]
    for bug, question in runs:
        out = root / bug
        ran = run_in_process(
            [
                "run",
                "-p",
                "demo",
                "--harness-bug",
                bug,
                "-o",
                str(out),
                "--json",
                question,
            ],
            cwd=root,
            env=clean_env(),
        )
        assert out.is_dir(), ran.stderr
        made[bug] = out
    edited = root / "edited"
    shutil.copytree(REPO / "traces" / "examples" / "hangzhou", edited)
    request = edited / "2-request.deepseek.json"
    doc = json.loads(request.read_text("utf-8"))
    doc["messages"][0]["content"] = "edited by hand"
    request.write_text(json.dumps(doc, ensure_ascii=False, indent=2), "utf-8")
    shutil.copy(edited / "1-request.deepseek.json", edited / "1-request.cohere.json")
    made["edited"] = edited
    made["mcp"] = _mcp_mistakes(root / "mcp")
    return made


def _mcp_mistakes(trace: Path) -> Path:
    """An example whose call an MCP server answered with isError, handed back as a success
    (FC135), the server never having listed the tool (FC136): its log written by hand."""
    shutil.copytree(REPO / "traces" / "examples" / "hangzhou", trace)
    response = json.loads((trace / "1-response.json").read_text("utf-8"))
    call = next(b for b in response["content"] if b["type"] == "tool_use")
    lines = [
        {"n": 1, "dir": "sent", "id": 1, "message": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}},
        {"n": 2, "dir": "received", "id": 1, "message": {"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "get_forecast", "inputSchema": {"type": "object"}}]}}},
        {"n": 3, "dir": "sent", "step": 1, "call": call["id"], "id": 2, "message": {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": call["name"], "arguments": call["input"]}}},
        {"n": 4, "dir": "received", "step": 1, "call": call["id"], "id": 2, "message": {"jsonrpc": "2.0", "id": 2, "result": {"content": [], "isError": True}}},
    ]  # fmt: skip
    (trace / "mcp-weather.jsonl").write_text("".join(json.dumps(e) + "\n" for e in lines), "utf-8")
    return trace


def _every_finding(traces: dict[str, Path]) -> list[Finding]:
    found = [
        f
        for case in BROKEN
        for f in check_request(json.loads(case.read_text("utf-8")), case.parent.name)
    ]
    for trace in traces.values():
        found += check_path(trace).findings
    return found


# --- what a finding says -----------------------------------------------------------------------


def _printed(f: Finding, lang: str) -> str:
    _lang(lang)
    try:
        console = Console(width=400, record=True, no_color=True, file=io.StringIO())
        _finding(console, f)
        return console.export_text()
    finally:
        _lang("en")


def _plain_values(value: Any) -> Iterator[str]:
    """The parts of a message that are data, not words: its non-Msg parameters (ids, names,
    paths, values, and other areas' texts passed in), which stay as they are."""
    if isinstance(value, Joined):
        for part in value.parts:
            yield from _plain_values(part)
    elif isinstance(value, i18n.Msg):
        for param in value.params.values():
            yield from _plain_values(param)
    elif value is not None:
        yield str(value)


ENGLISH_RUN = re.compile(r"[A-Za-z]{2,}(?:[ ,'-]+[A-Za-z]{2,}){3,}")
"""Four English words in a row: a sentence left untranslated."""


def _english_left(said: str, f: Finding) -> list[str]:
    text = said
    if f.provider_message:
        text = text.replace(f.provider_message, " ")
    values = set(_plain_values(f.message))
    if isinstance(f.provider_message, Quoted):
        values |= {str(v) for v in f.provider_message.values.values() if v is not None}
    for value in sorted(values, key=len, reverse=True):
        if value:
            text = text.replace(value, " ")
            text = text.replace(repr(value), " ")
    text = re.sub(r"`[^`]*`", " ", text)
    return ENGLISH_RUN.findall(text)


def test_every_rule_title_is_chinese(zh) -> None:
    for rule in RULES.values():
        said = i18n.localized(rule.title)
        assert said != rule.title and CJK.search(said), rule.id
        assert rule.title == str(rule.title)  # the English stays the value


def test_every_finding_of_every_rule_is_said_in_chinese(traces) -> None:
    findings = _every_finding(traces)
    assert {f.rule for f in findings} == set(RULES), "a rule no case here trips"
    for f in findings:
        en, zh_said = _printed(f, "en"), _printed(f, "zh")
        assert en != zh_said
        assert CJK.search(_localized(f.message)), f.message
        assert f.rule in zh_said and f.path in zh_said
        if f.provider_message:
            assert f.provider_message in zh_said  # quoted verbatim, never translated
            assert "会返回 400：" in zh_said
            assert "（意思是：" in zh_said and "（意思是：" not in en  # and what it means
        assert _english_left(zh_said, f) == [], (f.rule, zh_said)
        assert f.message == str(f.message)  # the finding itself is still English


def test_every_provider_sentence_is_quoted_as_it_is_and_said_what_it_means(zh) -> None:
    """fc check quotes the providers' 400 sentences verbatim and adds their meaning in Chinese:
    each sentence a wire format declares has its translation in the catalog."""
    declared = {said for name in format_names() for _, said in refusals(name).values()}
    for sentence in sorted(declared):
        quoted = Quoted(
            sentence,
            n=1,
            k=0,
            j=0,
            value="call_1",
            ids="call_1",
            first=0,
            found="map",
            field="id",
            name="get_weather",
            detail="x",
            reasoning="rs_1",
            position=2,
        )
        assert quoted == sentence.format(**quoted.values)  # English, as the provider says it
        meaning = quoted.meaning()
        assert meaning is not None and CJK.search(meaning), sentence


def test_openais_schema_sentence_is_said_whole_in_chinese(fc) -> None:
    case = CORPUS / "openai" / "FC115-strict-schema-not-in-strict-form.json"
    ran = fc("--lang", "zh", "check", str(case))
    assert (
        "OpenAI 会返回 400：Invalid schema for function 'get_weather': In context=()" in ran.stdout
    )
    assert (
        "（意思是：函数 'get_weather' 的 schema 无效：在 context=() 中，'additionalProperties' "
        "必须给出，并且必须为 false。）"
    ) in ran.stdout


def _localized(text: Any) -> str:
    _lang("zh")
    try:
        return str(i18n.localized(text))
    finally:
        _lang("en")


def test_a_finding_keeps_english_where_it_is_kept(zh) -> None:
    """Under zh a finding is English text all the same: --json, a trace's checks, a FindingsError."""
    case = CORPUS / "deepseek" / "FC101-call-without-result.json"
    (f,) = check_request(json.loads(case.read_text("utf-8")), "deepseek")
    assert f.message.startswith("call call_1 (get_weather) has no result: every call needs")
    assert f.to_json_dict()["message"] == str(f.message)
    assert isinstance(f.to_json_dict()["message"], i18n.Msg)  # a copy that still localizes
    assert i18n.localized(f.message).startswith("调用 call_1 (get_weather) 没有结果：")


# --- the command ---------------------------------------------------------------------------------

FC101 = str(CORPUS / "deepseek" / "FC101-call-without-result.json")
FC101_EN = (
    f'fc check {FC101}: a deepseek request (its tools are `{{"type": "function", ...}}`)\n'
    "  ✗ error FC101 at $.messages[1]\n"
    "    call call_1 (get_weather) has no result: every call needs its result, with the same "
    'id, in a role:"tool" message right after this message\n'
)


def test_fc_check_speaks_chinese(fc) -> None:
    ran = fc("--lang", "zh", "check", FC101)
    assert ran.returncode == 1
    out = ran.stdout
    assert f"fc check {FC101}：一个 deepseek 请求" in out
    assert "  ✗ 错误 FC101 位于 $.messages[1]\n" in out
    assert (
        "    调用 call_1 (get_weather) 没有结果：每个调用都需要自己的结果，id 相同，"
        '放在紧随这条消息之后的 role:"tool" 消息里\n'
    ) in out
    assert (
        "    OpenAI 和 DeepSeek 会返回 400：An assistant message with 'tool_calls' must be "
        "followed by tool messages responding to each 'tool_call_id'. The following "
        "tool_call_ids did not have response messages: call_1\n"
    ) in out
    assert out.endswith("\n1 个错误，0 个警告\n")
    assert f"fc check：{FC101} 中有 1 个错误" in ran.stderr


def test_fc_check_in_english_is_unchanged(fc) -> None:
    ran = fc("check", FC101)
    assert ran.returncode == 1
    assert ran.stdout.startswith(FC101_EN)
    assert "    OpenAI and DeepSeek would answer 400: An assistant message" in ran.stdout
    assert ran.stdout.endswith("\n1 error, 0 warnings\n")
    assert ran.stderr.endswith(f"fc check: 1 error(s) in {FC101}\n")


def test_a_trace_summary_and_strict_in_chinese(fc, traces) -> None:
    ran = fc("check", "--lang", "zh", "--strict", str(traces["edited"]))
    assert ran.returncode == 1
    out = ran.stdout
    assert "：一个轨迹，读取了 7 个文件" in out
    assert "  ! 警告 FC100 位于 $\n    fc 还不能检查 cohere 格式；已跳过这个文件" in out
    assert "这不是 2-request.json 翻译出来的内容（第一处不同在这里）：两者之一被修改过" in out
    assert "  i 提示 FC122 位于 $.messages[0].content" in out
    assert "0 个错误，2 个警告，1 个提示（--strict：警告也算失败）" in out
    assert "中有 2 个警告（--strict）" in ran.stderr
    clean = fc("check", "--lang", "zh", str(EXAMPLES[0]))
    assert clean.returncode == 0 and clean.stdout.endswith("\n没有发现问题\n")


def test_harness_bugs_are_found_in_chinese(fc, traces) -> None:
    ran = fc("--lang", "zh", "check", str(traces["ignore-stop-reason"]))
    assert "✗ 错误 FC130 位于 $.stop_reason" in ran.stdout
    assert (
        "但它的停止原因是 tool_use" in ran.stdout
        and "harness（执行框架）必须先读停止原因" in ran.stdout
    )
    ran = fc("--lang", "zh", "check", str(traces["drop-reasoning"]))
    assert "--harness-bug drop-reasoning 故意这样写（清单里有记录）" in ran.stdout
    ran = fc("--lang", "zh", "check", str(traces["pair-by-order"]))
    assert "的结果说的是 '北京'，那是" in ran.stdout


def test_errors_of_fc_check_in_chinese(fc, traces, zh) -> None:
    ran = fc("--lang", "zh", "check", "--format", "deepseek", str(traces["edited"]))
    assert ran.returncode == 2 and "--format 只用于单个文件" in ran.stderr
    ran = fc("--lang", "zh", "check", "--format", "nope", FC101)
    assert ran.returncode == 2 and "未知的 --format 'nope'" in ran.stderr
    assert "可用的格式：internal, deepseek" in ran.stderr
    i18n.set_language("zh")  # the in-process run set it back
    for path, said in (
        (traces["edited"] / "1-response.deepseek.json", "这是一个响应（deepseek 格式），不是请求"),
        (REPO / "fccli", "没有请求文件（1-request.json, ...）：不是 fc 的轨迹"),
    ):
        with pytest.raises(FcError) as raised:
            check_path(path)
        assert i18n.localized(raised.value.problem).startswith(said)  # type: ignore[attr-defined]


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_findings_wrap_within_the_width(fc, traces, columns: int) -> None:
    """Chinese is two columns wide: Rich wraps each line within the terminal, losing nothing."""
    trace = str(traces["drop-reasoning"])
    wide = fc("--lang", "zh", "check", trace, env=clean_env(COLUMNS="400"), terminal=True)
    ran = fc("--lang", "zh", "check", trace, env=clean_env(COLUMNS=str(columns)), terminal=True)
    shown, whole = ANSI.sub("", ran.stdout), ANSI.sub("", wide.stdout)
    assert "思考模式已开启" in shown
    assert max(cell_len(line) for line in shown.splitlines()) <= columns
    assert re.sub(r"\s", "", shown) == re.sub(r"\s", "", whole)


# --- --json: the same bytes in both languages --------------------------------------------------


def _json(path: Path, lang: str, fmt: str | None = None) -> str:
    _lang(lang)
    try:
        return dumps(check_path(path, fmt).to_json_dict())
    finally:
        _lang("en")


def test_json_is_the_same_in_both_languages_over_the_whole_corpus(traces) -> None:
    for case in ALL_CASES:
        assert _json(case, "zh") == _json(case, "en"), case
    for trace in [*EXAMPLES, *traces.values()]:
        assert _json(trace, "zh") == _json(trace, "en"), trace


def test_fc_check_json_is_the_same_under_zh(fc, traces) -> None:
    for target in (FC101, str(traces["edited"]), str(traces["drop-reasoning"])):
        en = fc("check", "--json", target)
        zh_ran = fc("check", "--json", target, env=clean_env(FC_LANG="zh"))
        assert zh_ran.stdout == en.stdout and zh_ran.returncode == en.returncode
        assert not CJK.search(json.dumps(json.loads(en.stdout)["findings"], ensure_ascii=False))
