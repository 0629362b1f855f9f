"""`fc run` in Chinese (issue 18): the run view narrates the round trip in the course's words,
the error texts fc hands the model are Chinese too, and nothing else a trace keeps changes.

- the run view's lines, its notes and its errors under `--lang zh` (and the locale);
- the same command under English is unchanged;
- a trace made under zh is byte for byte the one made under en, apart from times and the error
  texts fc hands the model in a tool result (and what the model answers after reading them);
- `--json` is identical in both;
- the run view wraps and aligns at 60, 80 and 120 columns in both languages (golden files,
  tests/golden/zh/ for Chinese);
- `fc providers` and `fc tools` in Chinese.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from fccli import i18n
from fccli.cost.record import record_cost
from fccli.cost.trace import price_trace
from fccli.render.console import make_console
from fccli.render.run_view import RunView
from fccli.run.events import Event, ResponseReceived, ToolsExecuted
from fccli.run.prepare import RunSettings, prepare_run
from tests.conftest import clean_env
from tests.render.test_narrow import WIDTHS, _plain, assert_wrapped_from
from tests.support import golden

QUESTION = "杭州今天适合跑步吗？"
CJK = re.compile(r"[\u4e00-\u9fff]")


def zh(fc, *args: str, **options: Any):
    return fc("--lang", "zh", *args, **options)


# ---------------------------------------------------------------------------------------------
# the run view


RUN_LINES_ZH = (
    "第 1 步",
    "→ 请求（发往 demo，deepseek 格式）：1 条消息，用户的提问；提供的工具：get_weather",
    "← 响应：停止原因 stop_reason tool_use（厂商格式里：finish_reason tool_calls）",
    '▶ 调用意图 get_weather 参数 {"city": "杭州"} id call_',
    "模型只是提出了调用意图；由 fc 校验参数并执行：",
    "✓ 结果（call_",
    "结果按 id 与调用配对后回填给模型：内部格式里全部放在同一条 user 消息中，deepseek 格式里则是",
    "第 2 步",
    "→ 请求（发往 demo，deepseek 格式）：3 条消息，回填了 1 个工具结果；提供的工具：get_weather",
    "← 响应：停止原因 stop_reason end_turn（厂商格式里：finish_reason stop）",
    "  回答：杭州现在 21°C",
    "轨迹：t（9 个文件）",
    "并排打开对照：1-request.json ↔ 1-request.deepseek.json，再看 2-request.json ↔ 2-request.deepseek.json",
)

RUN_LINES_EN = (
    "step 1",
    "→ request to demo (deepseek format): 1 message(s), the question; tools offered: get_weather",
    "← response: stop_reason tool_use (on the wire: finish_reason tool_calls)",
    "the model only asked; fc validated the arguments and executed:",
    "✓ result for call_",
    "the results go back paired with their calls by id: internally in ONE user message, in the "
    "deepseek format as",
    "→ request to demo (deepseek format): 3 message(s), 1 tool result(s) handed back",
    "  answer: 杭州现在 21°C",
    "trace: t (9 files)",
    "open side by side: 1-request.json ↔ 1-request.deepseek.json, then 2-request.json ↔ "
    "2-request.deepseek.json",
)


@pytest.mark.parametrize(
    "how",
    [
        pytest.param({"args": ("--lang", "zh")}, id="--lang"),
        pytest.param({"env": {"FC_LANG": "zh"}}, id="FC_LANG"),
        pytest.param({"env": {"LANG": "zh_CN.UTF-8"}}, id="locale"),
    ],
)
def test_the_run_view_narrates_the_round_trip_in_chinese(fc, how: dict[str, Any]) -> None:
    ran = fc(
        *how.get("args", ()),
        "run",
        QUESTION,
        "-o",
        "t",
        env=clean_env(COLUMNS="10000", **how.get("env", {})),
    )
    assert ran.returncode == 0, ran.stderr
    for line in RUN_LINES_ZH:
        assert line in ran.stdout, line
    for english in ("step ", "→ request", "← response", "the model only asked", "trace:", "note"):
        assert english not in ran.stdout, english


def test_the_run_view_in_english_is_unchanged(fc) -> None:
    ran = fc("run", QUESTION, "-o", "t", env=clean_env(COLUMNS="10000"))
    assert ran.returncode == 0, ran.stderr
    for line in RUN_LINES_EN:
        assert line in ran.stdout, line
    # The only Chinese is the question's and the demo model's own (it answers in the question's
    # language): nothing fc says itself.
    own = [
        line
        for line in ran.stdout.splitlines()
        if CJK.search(line)
        and not line.lstrip().startswith(("thinking:", "text:", "answer:", "▶ tool call", "✓"))
        and not line.startswith("        ")  # the answer's own lines
    ]
    assert own == []


FAULTS_ZH = {
    "missing-arg": (
        "注意：--demo-fault missing-arg：演示模型故意犯这个错",
        "模型只是提出了调用意图；fc 校验了参数，什么也没有执行：",
        "✗ 错误结果（call_",
        "get_weather 的参数校验不通过：city：缺少必填字段。请用符合其 schema 的参数重新调用：",
    ),
    "wrong-type": ('get_weather 的参数校验不通过：city：应当是字符串（收到的是 ["杭州"]）。',),
    "bad-json": (
        '▶ 调用意图 get_weather 参数（不是 JSON 对象）\'{"city":"杭\'',
        '参数不是 JSON 对象（\'{"city":"杭\'），因此按 {} 读取。get_weather 的参数校验不通过',
    ),
    "unknown-tool": ("没有名为 'get_current_weather' 的工具；提供的工具有：get_weather",),
    "no-call": ("注意：--demo-fault no-call：演示模型故意犯这个错", "轨迹：t（5 个文件）"),
}


@pytest.mark.parametrize("fault", sorted(FAULTS_ZH))
def test_each_demo_fault_is_narrated_in_chinese(fc, fault: str) -> None:
    ran = zh(fc, "run", "--demo-fault", fault, QUESTION, "-o", "t", env=clean_env(COLUMNS="10000"))
    assert ran.returncode == 0, ran.stderr
    for said in FAULTS_ZH[fault]:
        assert said in ran.stdout, said
    assert "note:" not in ran.stdout


def test_a_cut_stream_is_an_error_said_in_chinese(fc) -> None:
    ran = zh(fc, "run", "--stream", "--demo-fault", "cut-stream", QUESTION, "-o", "t")
    assert ran.returncode == 3
    first, hint = ran.stderr.strip().splitlines()
    assert first.startswith("fc: 错误：第 1 步：")
    assert first.endswith("；其中的内容都没有执行")
    assert hint.strip() == "已到达的字节在 1-response.deepseek.sse 里；轨迹保存了已有的内容：t"


def test_an_answer_cut_at_max_tokens_is_a_note_in_chinese(fc) -> None:
    ran = zh(fc, "run", "--max-tokens", "20", QUESTION, "-o", "t", env=clean_env(COLUMNS="10000"))
    assert ran.returncode == 0, ran.stderr
    assert (
        "← 响应：停止原因 stop_reason max_tokens（厂商格式里：finish_reason length）" in ran.stdout
    )
    assert "注意：第 1 步：回答在 max_tokens 处被截断" in ran.stdout


def test_a_harness_bug_is_said_in_chinese(fc) -> None:
    ran = zh(
        fc,
        "run",
        "--harness-bug",
        "pair-by-order",
        "北京和上海今天适合跑步吗？",
        "-o",
        "t",
        env=clean_env(COLUMNS="10000"),
    )
    assert ran.returncode == 0, ran.stderr
    assert "注意：--harness-bug pair-by-order：fc 的 harness（执行框架）故意犯这个错" in ran.stdout
    assert "注意：harness 缺陷 pair-by-order：call_" in ran.stdout
    assert "拿到了 call_" in ran.stdout


def test_usage_errors_of_fc_run_are_said_in_chinese(fc) -> None:
    ran = zh(fc, "run", "--demo-fault", "nonsense", QUESTION)
    assert ran.returncode == 2
    assert ran.stderr.startswith("fc: 错误：未知的 --demo-fault 'nonsense'")
    assert "可选：bad-json, missing-arg" in ran.stderr
    ran = zh(fc, "run", "--tools", "nope", QUESTION)
    assert ran.stderr.startswith("fc: 错误：未知的工具集 'nope'")
    ran = zh(fc, "run", " ")
    assert ran.stderr.strip() == "fc: 错误：问题是空的"


def test_unknown_stop_reason_is_an_error_said_in_chinese() -> None:
    from fccli.core.errors import ProtocolError
    from fccli.i18n import Msg

    error = ProtocolError(
        Msg("unknown stop reason {reason!r}; fc stops rather than guess", reason="pause"), step=2
    )
    assert str(error) == "step 2: unknown stop reason 'pause'; fc stops rather than guess"
    i18n.set_language("zh")
    assert error.localized() == "第 2 步：未知的停止原因 'pause'；fc 宁可停下也不猜"


def test_ask_prompts_in_chinese(fc, tmp_path: Path) -> None:
    tools = tmp_path / "orders.json"
    tools.write_text(
        json.dumps([{"name": "get_order", "input_schema": {"type": "object", "properties": {}}}])
    )
    ran = zh(fc, "run", "--tools", str(tools), "--ask", "查一下订单", "-o", "t", input="")
    assert ran.returncode == 0, ran.stderr
    assert "你就是工具：get_order {}（id call_" in ran.stderr
    assert "输入结果（一行；以 'error:' 开头表示错误结果）：" in ran.stderr
    handed = json.loads((tmp_path / "t" / "manifest.json").read_text("utf-8"))
    assert handed["steps"][0]["tool_runs"][0]["error"] == "没有人回答（输入已结束）"


# ---------------------------------------------------------------------------------------------
# the trace and --json: the same bytes in both languages


TIME_KEYS = {"started_at", "finished_at", "duration_ms", "first_byte_ms", "waited_s"}


def _without_times(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: "#" if k in TIME_KEYS else _without_times(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_times(v) for v in value]
    return value


def _two_traces(fc, tmp_path: Path, *args: str) -> tuple[Path, Path]:
    traces = []
    for lang in ("en", "zh"):
        cwd = tmp_path / lang
        cwd.mkdir()
        ran = fc("--lang", lang, "run", *args, "-o", "t", cwd=cwd)
        assert ran.returncode in (0, 3), ran.stderr
        traces.append(cwd / "t")
    return traces[0], traces[1]


def _files(trace: Path) -> list[str]:
    return sorted(p.name for p in trace.iterdir())


def _same_but_times(en: Path, zh: Path, name: str) -> None:
    if name == "manifest.json":
        assert _without_times(json.loads(en.read_bytes())) == _without_times(
            json.loads(zh.read_bytes())
        )
    else:
        assert en.read_bytes() == zh.read_bytes(), name


NO_TOOL_ERROR = {
    "plain": (QUESTION,),
    "three cities": ("北京、上海、深圳今天适合跑步吗？",),
    "no-call": ("--demo-fault", "no-call", QUESTION),
    "cut-stream": ("--stream", "--demo-fault", "cut-stream", QUESTION),
    "stream": ("--stream", QUESTION),
    "max-tokens": ("--max-tokens", "20", QUESTION),
    "pair-by-order": ("--harness-bug", "pair-by-order", "北京和上海今天适合跑步吗？"),
    "ignore-stop-reason": ("--harness-bug", "ignore-stop-reason", QUESTION),
    "drop-results": ("--harness-bug", "drop-results", QUESTION),
    "strict": ("--strict", QUESTION),
}


@pytest.mark.parametrize("args", NO_TOOL_ERROR.values(), ids=NO_TOOL_ERROR.keys())
def test_a_trace_made_under_zh_is_the_one_made_under_en(
    fc, tmp_path: Path, args: tuple[str, ...]
) -> None:
    en, zh = _two_traces(fc, tmp_path, *args)
    assert _files(en) == _files(zh)
    for name in _files(en):
        _same_but_times(en / name, zh / name, name)


ERRORS_HANDED = {
    "missing-arg": (
        "invalid arguments for get_weather: city: Field required. Call it again",
        "get_weather 的参数校验不通过：city：缺少必填字段。请用符合其 schema 的参数重新调用",
    ),
    "wrong-type": (
        'invalid arguments for get_weather: city: Input should be a valid string (got ["杭州"])',
        'get_weather 的参数校验不通过：city：应当是字符串（收到的是 ["杭州"]）。',
    ),
    "bad-json": (
        'the arguments were not a JSON object (\'{"city":"杭\'), so they were read as {}. ',
        '参数不是 JSON 对象（\'{"city":"杭\'），因此按 {} 读取。',
    ),
    "unknown-tool": (
        "unknown tool 'get_current_weather'; the tools offered are: get_weather",
        "没有名为 'get_current_weather' 的工具；提供的工具有：get_weather",
    ),
}


@pytest.mark.parametrize("fault", sorted(ERRORS_HANDED))
def test_only_the_error_handed_to_the_model_differs(fc, tmp_path: Path, fault: str) -> None:
    """The model is handed the error in the chosen language; everything before it is the same
    bytes, the request that hands it back differs by that text alone, and what the model does
    next (it reads another text: other ids, other token counts) keeps the trace's shape."""
    en, zh = _two_traces(fc, tmp_path, "--demo-fault", fault, QUESTION)
    assert _files(en) == _files(zh)
    for name in _files(en):
        if name.startswith("1-"):
            _same_but_times(en / name, zh / name, name)
    en_said, zh_said = ERRORS_HANDED[fault]
    manifests = [json.loads((t / "manifest.json").read_bytes()) for t in (en, zh)]
    errors = [m["steps"][0]["tool_runs"][0]["error"] for m in manifests]
    assert en_said in errors[0] and zh_said in errors[1]
    # The request handing it back: the same bytes once the one text is put back in English.
    for name in ("2-request.json", "2-request.deepseek.json"):
        body = (zh / name).read_text("utf-8")
        wanted = (en / name).read_text("utf-8")
        escaped = [json.dumps(e, ensure_ascii=False)[1:-1] for e in errors]
        assert escaped[1] in body
        assert body.replace(escaped[1], escaped[0]) == wanted, name
    # Everything else of the manifest is the same, steps included, but for what the model
    # wrote after reading the error.
    shapes = []
    for m in manifests:
        m = _without_times(m)
        for step in m["steps"]:
            step.pop("usage")
            step.pop("cost")  # priced from the usage
            for run in step["tool_runs"]:
                run.pop("error")
                if step["step"] > 1:
                    run.pop("id")
        m.pop("final_answer")
        m.pop("cost")
        shapes.append(m)
    assert shapes[0] == shapes[1]


@pytest.mark.parametrize(
    "args",
    [(QUESTION,), ("--demo-fault", "cut-stream", "--stream", QUESTION)],
    ids=["ok", "error"],
)
def test_json_output_is_the_same_in_both_languages(
    fc, tmp_path: Path, args: tuple[str, ...]
) -> None:
    said = []
    for lang in ("en", "zh"):
        cwd = tmp_path / lang
        cwd.mkdir()
        ran = fc("--lang", lang, "run", "--json", *args, "-o", "t", cwd=cwd)
        said.append(_without_times(json.loads(ran.stdout)))
    assert said[0] == said[1]


# ---------------------------------------------------------------------------------------------
# widths, and the golden transcripts


def _events(tmp_path: Path, question: str, lang: str, **settings: Any):
    """A run's events made under `lang` (the errors handed to the model are said in it), with
    every duration made the same, and every step priced at the same hour (DeepSeek's prices
    change with the time of day), so that a transcript is the same at every run."""
    i18n.set_language(lang)
    prepared = prepare_run(RunSettings(question=question, out=Path("t"), **settings))
    events: list[Event] = []
    result = prepared.execute(events.append)
    manifest = prepared.trace.manifest
    for record in manifest.steps:
        record.started_at = "2026-12-01T12:00:00.000+00:00"
        record_cost(manifest, record)
    for event in events:
        if isinstance(event, ResponseReceived):
            event.duration_ms = 12.0
            event.cost = price_trace(manifest).steps.get(event.step)
        elif isinstance(event, ToolsExecuted):
            for run in event.runs:
                run.duration_ms = 0.5
    return events, prepared, result


def _transcript(events, prepared, result, *, width: int, terminal: bool) -> str:
    buffer = io.StringIO()
    console = make_console(file=buffer, width=width, color_system=None)
    console.soft_wrap = not terminal
    view = RunView(
        console,
        prepared.provider_name,
        prepared.wire.name,
        prepared.wire.results_layout,
        prepared.wire.stop_field,
    )
    view.notes(prepared.notes)
    for event in events:
        view(event)
    view.finished(result, prepared.trace.path, price_trace(prepared.trace.manifest))
    return buffer.getvalue()


GOLDEN_RUNS = {
    "three-cities": ("北京、上海、深圳今天适合跑步吗？", {}),
    "missing-arg": (QUESTION, {"demo_fault": "missing-arg"}),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("run", sorted(GOLDEN_RUNS))
def test_the_run_view_wraps_at_every_width_in_both_languages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: str, lang: str
) -> None:
    monkeypatch.chdir(tmp_path)
    question, settings = GOLDEN_RUNS[run]
    events, prepared, result = _events(tmp_path, question, lang, **settings)
    whole = _transcript(events, prepared, result, width=10_000, terminal=False)
    for width in WIDTHS:
        wrapped = _transcript(events, prepared, result, width=width, terminal=True)
        assert_wrapped_from(wrapped, whole, width)
        folder = "zh/" if lang == "zh" else ""
        golden.check(f"{folder}run-{run}-{width}.txt", wrapped)
    if lang == "zh":
        assert "模型只是提出了调用意图" in " ".join(whole.split())


# ---------------------------------------------------------------------------------------------
# fc providers, fc tools


def test_fc_providers_in_chinese(fc) -> None:
    shown = zh(fc, "providers", env=clean_env(COLUMNS="200"))
    assert shown.returncode == 0, shown.stderr
    head = shown.stdout.splitlines()[0].split()
    assert head == ["厂商", "格式", "默认模型", "base", "URL", "密钥"]
    assert "离线（内置）" in shown.stdout and "$DEEPSEEK_API_KEY（未设置）" in shown.stdout
    assert "* 当前默认：$FC_PROVIDER；否则设置了密钥时用 deepseek；再否则用 demo" in shown.stdout
    assert "  思考内容     同 DeepSeek：默认开启，--no-thinking 关闭" in shown.stdout
    # --json is the same in both languages
    assert zh(fc, "providers", "--json").stdout == fc("providers", "--json").stdout


@pytest.mark.parametrize("width", WIDTHS)
def test_fc_providers_in_chinese_fits_every_width(fc, width: int) -> None:
    from rich.cells import cell_len

    shown = zh(fc, "providers", env=clean_env(COLUMNS=str(width)), terminal=True)
    assert shown.returncode == 0, shown.stderr
    lines = _plain(shown.stdout).splitlines()
    assert all(cell_len(line) <= width for line in lines)
    for url in ("https://api.deepseek.com", "https://generativelanguage.googleapis.com"):
        assert re.search(rf"(^|\s){re.escape(url)}(\s|$)", "\n".join(lines), re.M), url


def test_fc_tools_strict_problems_in_chinese(fc, tmp_path: Path) -> None:
    tools = tmp_path / "t.py"
    tools.write_text(
        "from typing import Annotated\n"
        "from pydantic import Field\n"
        "def f(q: Annotated[str, Field(min_length=2)]) -> str:\n"
        '    """Find."""\n'
        "    return q\n"
    )
    ran = zh(fc, "tools", "--tools", str(tools), "--strict")
    assert ran.returncode == 1
    assert "还不能用于 strict 模式：f：strict 模式拒绝 `minLength`（位置 " in ran.stderr
    en = fc("tools", "--tools", str(tools), "--strict")
    assert en.stdout == ran.stdout  # the definitions themselves are never translated
