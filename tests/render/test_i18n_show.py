"""`fc show` in Chinese (issue 18): the transcript, --wire, one file, a folder of traces, the
--html page's words, and every error of reading a trace; `--json` and the page's data the same
bytes in both languages. Golden transcripts in Chinese are under tests/golden/zh/ (width 100,
no colour, as the English ones)."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.cells import cell_len

from fccli import i18n
from fccli.core.errors import InputFileError
from fccli.render.transcript import render_document, render_trace
from fccli.trace.reader import read_document, read_trace
from tests.conftest import REPO, clean_env
from tests.render.test_narrow import _plain, assert_wrapped_from
from tests.support import golden

EXAMPLES = REPO / "traces" / "examples"
NAMES = sorted(p.name for p in EXAMPLES.iterdir() if (p / "manifest.json").is_file())
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def zh() -> Iterator[None]:
    i18n.set_language("zh")
    try:
        yield
    finally:
        i18n.set_language("en")


def transcript(path: Path, **options: object) -> str:
    console = golden.string_console()
    render_trace(console, read_trace(path), **options)  # type: ignore[arg-type]
    return golden.output(console)


def without_times(text: str) -> str:
    return golden.without_times(text)


# ---------------------------------------------------------------------------------------------
# the transcript


@pytest.mark.parametrize("name", NAMES)
def test_example_transcripts_in_chinese_match_their_golden_files(
    name: str, zh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    golden.check(f"zh/show-{name}.txt", transcript(Path("traces/examples") / name))


@pytest.mark.parametrize(
    ("name", "golden_name"),
    [
        ("three-cities/2-request.deepseek.json", "show-file-three-cities-2-request-deepseek.txt"),
        ("unknown-city/1-response.json", "show-file-unknown-city-1-response.txt"),
    ],
)
def test_a_single_file_in_chinese_matches_its_golden_file(
    name: str, golden_name: str, zh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(EXAMPLES)
    console = golden.string_console()
    render_document(console, read_document(name), thinking=False, full=False)
    golden.check(f"zh/{golden_name}", golden.output(console))


def test_the_key_lines_of_a_transcript_are_chinese(fc) -> None:
    ran = fc("show", "--lang", "zh", "traces/examples/unknown-city", cwd=REPO)
    assert ran.returncode == 0, ran.stderr
    out = ran.stdout
    for said in (
        "轨迹 traces/examples/unknown-city",
        "demo（deepseek 格式） · 模型 fc-demo · 状态 正常结束 · 2 步",
        "问题：巴黎今天适合跑步吗？",
        "第 1 步 ─",
        "提供的工具（1 个）：",
        "→ 请求：1 条消息，用户的提问",
        "← 响应  tool_use （厂商格式里：tool_calls）",
        "输入 158 / 输出 38 token（其中思考 26）",
        "  思考内容：",
        "▶ 调用 get_weather（工具 1）  id call_b9a07a70e3fb7c9d9b9e3516",
        "✗ 错误结果，对应 call_b9a07a70e3fb7c9d9b9e3516（tool_error，",
        "提供的工具：与第 1 步相同的 1 个",
        "→ 请求：3 条消息，回填了 1 个工具结果（1 个是错误结果）",
        "  回答：巴黎：",
        "完成：模型在第 2 步作答",
    ):
        assert said in out, said
    # the English words are gone; field names and values stay as they are
    for english in ("tools offered", "→ request", "← response", "done:", "step 1"):
        assert english not in out
    assert "tool_use" in out and "end_turn" in out and "get_weather" in out


def test_the_same_command_under_english_is_unchanged(fc) -> None:
    ran = fc("show", "--lang", "en", "traces/examples/three-cities", cwd=REPO)
    expected = (golden.GOLDEN / "show-three-cities.txt").read_text("utf-8")
    assert without_times(ran.stdout) == expected
    zh = fc("show", "traces/examples/three-cities", cwd=REPO, env=clean_env(FC_LANG="zh"))
    expected_zh = (golden.GOLDEN / "zh" / "show-three-cities.txt").read_text("utf-8")
    assert without_times(zh.stdout) == expected_zh


def test_step_thinking_full_and_a_folded_result(fc, tmp_path: Path) -> None:
    ran = fc("show", "--lang", "zh", "traces/examples/three-cities", "--step", "2", cwd=REPO)
    assert ran.returncode == 0
    assert "第 2 步" in ran.stdout and "第 1 步" not in ran.stdout
    assert "（共 133 个字符；--thinking 显示全部）" in ran.stdout
    assert "完成：" not in ran.stdout  # the footer is the whole trace's
    full = fc("show", "--lang", "zh", "traces/examples/three-cities", "--thinking", cwd=REPO)
    assert "--thinking 显示全部" not in full.stdout

    trace = tmp_path / "long"
    shutil.copytree(EXAMPLES / "hangzhou", trace)
    request = json.loads((trace / "2-request.json").read_text("utf-8"))
    request["messages"][-1]["content"][0]["content"] = "\n".join(["天气晴"] * 40)
    (trace / "2-request.json").write_text(json.dumps(request, ensure_ascii=False), "utf-8")
    folded = fc("show", "--lang", "zh", str(trace))
    assert "[已折叠：共 159 个字符、40 行；--full 显示全部]" in folded.stdout
    unfolded = fc("show", "--lang", "zh", str(trace), "--full")
    assert "已折叠" not in unfolded.stdout


def test_wire_files_a_single_file_stdin_and_a_folder(fc) -> None:
    wire = fc("show", "--lang", "zh", "traces/examples/hangzhou", "--wire", cwd=REPO)
    assert wire.stdout.startswith(
        "轨迹 traces/examples/hangzhou：deepseek 厂商格式文件（按存储的原样）"
    )
    assert "第 1 步 ─" in wire.stdout

    one = fc("show", "--lang", "zh", "traces/examples/hangzhou/1-request.deepseek.json", cwd=REPO)
    assert one.stdout.startswith("traces/examples/hangzhou/1-request.deepseek.json：deepseek 请求")
    assert "提供的工具（1 个）：" in one.stdout

    stored = fc(
        "show", "--lang", "zh", "--wire", "traces/examples/hangzhou/1-response.json", cwd=REPO
    )
    assert "：internal 响应（按存储的原样）" in stored.stdout

    messages = json.loads((EXAMPLES / "unknown-city" / "2-request.deepseek.json").read_bytes())
    piped = fc("show", "--lang", "zh", "-", input=json.dumps(messages["messages"]))
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout.startswith("<stdin>：deepseek 消息数组")
    assert "✗ 错误结果，对应 call_" in piped.stdout

    folder = fc("show", "--lang", "zh", "traces/examples", cwd=REPO)
    assert folder.stdout.startswith(
        f"traces/examples 是一个包含 {len(NAMES)} 条轨迹的文件夹，本身不是轨迹"
    )
    assert "2 步" in folder.stdout


def test_a_stopped_trace_and_its_notes(fc, tmp_path: Path) -> None:
    trace = tmp_path / "cut"
    shutil.copytree(EXAMPLES / "hangzhou", trace)
    (trace / "2-response.json").unlink()
    (trace / "2-response.deepseek.json").unlink()
    (trace / "1-request.json").write_text("{", "utf-8")
    ran = fc("show", "--lang", "zh", str(trace))
    assert ran.returncode == 0, ran.stderr
    assert "2-response.json 缺失（它的厂商格式文件也缺失）" in ran.stdout
    assert "1-request.json 无法读取；改为从 1-request.deepseek.json 读取" in ran.stdout
    assert "← 没有响应" in ran.stdout
    # --json keeps the notes in English
    data = json.loads(fc("show", "--lang", "zh", str(trace), "--json").stdout)
    notes = [n for s in data["steps"] for n in s["notes"]]
    assert "2-response.json is missing (and its wire form too)" in notes


# ---------------------------------------------------------------------------------------------
# --json and the trace: the same bytes in both languages


@pytest.mark.parametrize(
    "args",
    [
        ["traces/examples/three-cities"],
        ["traces/examples/hangzhou-stream", "--wire"],
        ["traces/examples/unknown-city", "--step", "2"],
        ["traces/examples/three-cities/2-request.deepseek.json"],
        ["traces/examples/hangzhou-responses/1-response.responses.json", "--wire"],
        ["traces/examples"],
    ],
)
def test_json_is_the_same_bytes_in_both_languages(fc, args: list[str]) -> None:
    en = fc("show", "--lang", "en", *args, "--json", cwd=REPO)
    zh = fc("show", "--lang", "zh", *args, "--json", cwd=REPO)
    assert en.returncode == zh.returncode == 0, zh.stderr
    assert zh.stdout == en.stdout
    assert not CJK.search(json.dumps(json.loads(en.stdout), ensure_ascii=True))


def test_json_of_a_damaged_trace_is_the_same_in_both_languages(fc, tmp_path: Path) -> None:
    trace = tmp_path / "damaged"
    shutil.copytree(EXAMPLES / "hangzhou", trace)
    (trace / "2-request.json").write_text("", "utf-8")
    (trace / "2-response.json").unlink()
    en = fc("show", "--lang", "en", str(trace), "--json")
    zh = fc("show", "--lang", "zh", str(trace), "--json")
    assert zh.stdout == en.stdout
    assert "empty file" in en.stdout


# ---------------------------------------------------------------------------------------------
# the --html page


def test_the_html_page_speaks_chinese_and_keeps_its_data(fc, tmp_path: Path) -> None:
    pages = {}
    for lang in ("en", "zh"):
        page = tmp_path / f"{lang}.html"
        ran = fc(
            "show", "--lang", lang, "traces/examples/unknown-city", "--html", str(page), cwd=REPO
        )
        assert ran.returncode == 0, ran.stderr
        pages[lang] = page.read_text("utf-8")
    assert ran.stdout.strip() == f"页面已写入 {tmp_path / 'zh.html'}"
    zh, en = pages["zh"], pages["en"]
    assert '<html lang="zh-Hans">' in zh and '<html lang="en">' in en
    for said in ("时间线", "fc 轨迹", "<dt>厂商</dt>", "第 1 步", "▶ 调用", "← 响应", "思考内容（"):
        assert said in zh, said
    for english in (">timeline<", ">fc trace<", "<dt>provider</dt>", "▶ call"):
        assert english not in zh, english

    # the files as stored: the same JSON on both pages
    def stored(page: str) -> list[str]:
        files = re.findall(r'<pre class="json">.*?</pre>', page, re.S)
        return [re.sub(r' (title|data-n)="[^"]*"', "", f) for f in files]  # the words about them

    assert stored(zh) == stored(en)
    assert stored(en)
    assert 'title="内部格式：$.messages[0]"' in zh


def test_the_terminal_transcript_as_html_is_chinese(fc, tmp_path: Path) -> None:
    page = tmp_path / "t.html"
    ran = fc("show", "--lang", "zh", "traces/examples", "--html", str(page), cwd=REPO)
    assert ran.stdout.strip() == f"文字记录已写入 {page}"
    assert "条轨迹的文件夹" in page.read_text("utf-8")


# ---------------------------------------------------------------------------------------------
# errors of reading a trace


def error_of(fc, *args: str, **kwargs: object) -> str:
    ran = fc("show", "--lang", "zh", *args, **kwargs)
    assert ran.returncode == 2, (ran.stdout, ran.stderr)
    assert "Traceback" not in ran.stderr
    return ran.stderr


def test_usage_errors_of_fc_show_are_chinese(fc, tmp_path: Path) -> None:
    said = error_of(fc, "traces/examples/hangzhou", "--html", "x.html", "--json", cwd=REPO)
    assert "--html 和 --json 只能选一个" in said
    said = error_of(fc, "traces/examples/hangzhou", "--check", cwd=REPO)
    assert "--check 是把 fc check 发现的问题加到 --html 页面上" in said
    assert "在终端里查看：fc check TRACE" in said
    said = error_of(fc, "traces/examples/hangzhou", "--step", "9", cwd=REPO)
    assert "traces/examples/hangzhou 没有第 9 步" in said and "它有这些步：1, 2" in said
    said = error_of(fc, "traces/examples", "--wire", cwd=REPO)
    assert "条轨迹的文件夹；--wire 只读其中一条" in said and "例如：fc show traces/" in said
    said = error_of(fc, "traces/examples/hangzhou/1-request.json", "--step", "1", cwd=REPO)
    assert "--step 用于轨迹目录，不用于单个文件" in said
    said = error_of(fc, cwd=tmp_path)
    assert "没有指定轨迹，这里也没有 traces/ 目录" in said
    assert "请给出一个轨迹目录或 JSON 文件：fc show traces/<name>" in said
    (tmp_path / "traces").mkdir()
    said = error_of(fc, cwd=tmp_path)
    assert "traces/ 下没有轨迹" in said and "先运行 fc run QUESTION" in said
    said = error_of(fc, "traces/examples/hangzhou", "--html", "-o", cwd=REPO)
    assert "这里要的是页面的文件名，不是选项（'-o'）" in said


def test_every_error_of_reading_a_trace_is_chinese(fc, tmp_path: Path) -> None:
    assert "没有这个文件或目录" in error_of(fc, str(tmp_path / "missing"))
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    said = error_of(fc, str(empty))
    assert str(empty) in said and said.rstrip().endswith("空文件")
    blanks = tmp_path / "blanks.json"
    blanks.write_bytes(b"  \n")
    assert "空文件（只有空白）" in error_of(fc, str(blanks))
    binary = tmp_path / "binary.json"
    binary.write_bytes(b'{"a": "\xff\xfe"}')
    assert "不是 UTF-8 文本" in error_of(fc, str(binary))
    broken = tmp_path / "broken.json"
    broken.write_bytes(b'{"a": ')
    assert "不是有效的 JSON：第 1 行第 7 列，" in error_of(fc, str(broken))
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 150 + "]" * 150)
    assert "嵌套太深（数组和对象超过 100 层）" in error_of(fc, str(deep))
    huge = tmp_path / "huge.json"
    huge.write_text('{"n": ' + "9" * 5000 + "}")
    assert "位的数字，fc 不读取这样的数字" in error_of(fc, str(huge))
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "fifo"
        os.mkfifo(fifo)
        assert "不是轨迹目录" in error_of(fc, str(fifo))  # not a file, not a directory
    folder = tmp_path / "not-a-trace"
    folder.mkdir()
    assert "不是 fc 轨迹：里面没有 manifest.json" in error_of(fc, str(folder))
    (folder / "manifest.json").write_text("[]")
    assert "不是 fc 轨迹的清单（应当是含有 steps 的对象）" in error_of(fc, str(folder))
    other = tmp_path / "other.json"
    other.write_text('{"hello": "world"}')
    assert "不是 fc 能读取的请求或响应：" in error_of(fc, str(other))
    sse = tmp_path / "s.sse"
    sse.write_text("data: {}\n\n")
    assert "是服务器推送事件（SSE）流，不是 JSON 文档" in error_of(fc, str(sse))


def test_a_reading_error_is_english_under_english(fc, tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    ran = fc("show", "--lang", "en", str(empty))
    assert ran.returncode == 2 and f"{empty}: empty file" in ran.stderr
    assert not CJK.search(ran.stderr)


def test_python_and_pydantic_words_for_a_file_are_chinese_too(zh: None) -> None:
    from fccli.core.jsonio import parse_json, validate
    from fccli.core.models import Request

    with pytest.raises(InputFileError) as caught:
        parse_json('{"a": ', "f.json")
    assert caught.value.problem == "not valid JSON: Expecting value at line 1, column 7"
    assert (
        i18n.localized(caught.value.problem) == "不是有效的 JSON：第 1 行第 7 列，这里应当有一个值"
    )
    with pytest.raises(InputFileError) as caught:
        validate(Request, {"messages": []}, "f.json")
    assert caught.value.problem == "Field required"
    assert i18n.localized(caught.value.problem) == "缺少必填字段"


def test_a_problem_is_a_msg_said_in_chinese(zh: None, tmp_path: Path) -> None:
    """What the reader raises keeps its problem as a Msg: English as text, Chinese when said."""
    empty = tmp_path / "e.json"
    empty.write_bytes(b"")
    with pytest.raises(InputFileError) as caught:
        read_document(str(empty))
    assert caught.value.problem == "empty file"
    assert i18n.localized(caught.value.problem) == "空文件"


# ---------------------------------------------------------------------------------------------
# widths


@pytest.mark.parametrize("width", [60, 80, 120])
@pytest.mark.parametrize("wire", [False, True], ids=["transcript", "wire"])
def test_the_chinese_transcript_holds_at_every_width(
    fc, tmp_path: Path, width: int, wire: bool
) -> None:
    """Chinese is two columns a character: lines wrap by words within the width, at their
    own indentation, and rules span it, as in English (tests/render/test_narrow.py)."""
    shutil.copytree(EXAMPLES / "three-cities", tmp_path / "three-cities")
    args = ["show", "three-cities", *(["--wire"] if wire else [])]
    whole = fc(*args, cwd=tmp_path, env=clean_env(FC_LANG="zh", COLUMNS="10000"))
    wrapped = fc(
        *args, cwd=tmp_path, env=clean_env(FC_LANG="zh", COLUMNS=str(width)), terminal=True
    )
    assert wrapped.returncode == whole.returncode == 0, wrapped.stderr
    assert_wrapped_from(wrapped.stdout, whole.stdout, width)
    lines = re.sub(r"\x1b\[[0-9;]*m", "", wrapped.stdout).splitlines()
    rules = [line for line in lines if line.startswith("第 ") and "─" in line]
    assert len(rules) == 2 and all(cell_len(line) == width for line in rules)
    if not wire:
        # the answer's next lines go on under its text, past the label (回答： is 6 columns)
        assert any(line.startswith("  回答：北京现在") for line in lines)
        assert any(line.startswith(" " * 8 + "上海现在") for line in lines)
        assert "完成：模型在第 2 步作答" in _plain(wrapped.stdout)


# ---------------------------------------------------------------------------------------------
# fc's words read back from a trace


def test_fc_words_kept_in_a_trace_are_said_in_chinese(zh: None) -> None:
    from fccli.trace.words import translated

    assert translated("2-request.json is missing (and its wire form too)") == (
        "2-request.json 缺失（它的厂商格式文件也缺失）"
    )
    assert translated(
        "--max-steps 3 reached before the model answered; "
        "the last tool results were not handed back"
    ) == ("模型作答之前就达到了 --max-steps 3；最后的工具结果没有回填")
    # a frame with few words of its own is taken only around fc's words
    assert translated(
        "step 2: 1-request.json cannot be read; read from 1-request.x.json instead"
    ) == ("第 2 步：1-request.json 无法读取；改为从 1-request.x.json 读取")
    for theirs in ("step 2: Rate limit reached", "Error: the model is overloaded", "晴", ""):
        assert translated(theirs) == theirs
    i18n.set_language("en")
    assert translated("2-request.json is missing (and its wire form too)") == (
        "2-request.json is missing (and its wire form too)"
    )


def test_a_stopped_run_is_said_in_chinese_from_its_manifest(fc, tmp_path: Path) -> None:
    trace = tmp_path / "max"
    shutil.copytree(EXAMPLES / "hangzhou", trace)
    manifest = json.loads((trace / "manifest.json").read_text("utf-8"))
    manifest["status"] = "error"
    manifest["error"] = {
        "kind": "UsageError",
        "step": 2,
        "message": "step 2: 2-request.json is missing (and its wire form too)",
    }
    (trace / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False), "utf-8")
    ran = fc("show", "--lang", "zh", str(trace))
    assert "✗ 在这里停止：UsageError: 2-request.json 缺失（它的厂商格式文件也缺失）" in ran.stdout
    assert "在第 2 步停止（UsageError）：原因见第 2 步" in ran.stdout
    en = fc("show", "--lang", "en", str(trace))
    assert "✗ stopped here: UsageError: 2-request.json is missing (and its wire form too)" in (
        en.stdout
    )
