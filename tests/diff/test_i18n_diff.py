"""`fc diff`, `fc convert`, `fc replay`, `fc send` and `fc curl` in Chinese (issue 18).

What a person reads is Chinese under `--lang zh`; what is kept or piped is the same bytes in both
languages: `fc diff --json`, `fc convert`'s output, `fc curl`'s command, and the replay's new
trace (apart from its times). The zh golden files are the Chinese twins of tests/golden/diff-*.
"""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from fccli import i18n
from fccli.diff.compare import diff_documents
from fccli.render.diff_view import render_diff
from fccli.trace.reader import read_document
from tests.conftest import clean_env
from tests.support import golden
from tests.support.inprocess import run_in_process

REPO = Path(__file__).resolve().parent.parent.parent
EXAMPLES = REPO / "traces" / "examples"
QUESTION = "杭州今天适合跑步吗？"
CJK = re.compile(r"[\u4e00-\u9fff]")


def rendered(a: str, b: str, lang: str) -> str:
    i18n.set_language(lang)
    try:
        console = golden.string_console()
        render_diff(console, diff_documents(read_document(a), read_document(b)))
        return golden.output(console)
    finally:
        i18n.set_language("en")


# ---------------------------------------------------------------------------------------------
# fc diff


@pytest.mark.parametrize(
    ("trace", "a", "b"),
    [
        ("hangzhou", "1-request.json", "1-request.deepseek.json"),
        ("hangzhou", "2-request.json", "2-request.deepseek.json"),
        ("unknown-city", "2-request.json", "2-request.deepseek.json"),
        ("three-cities", "2-request.json", "2-request.deepseek.json"),
        ("three-cities", "1-response.json", "1-response.deepseek.json"),
    ],
)
def test_mappings_match_their_chinese_golden_files(
    trace: str, a: str, b: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(EXAMPLES / trace)
    name = f"diff-{trace}-{a.removesuffix('.json')}.txt"
    zh = rendered(a, b, "zh")
    golden.check(f"zh/{name}", zh)
    # The English is its own golden file, untouched by the Chinese.
    golden.check(name, rendered(a, b, "en"))


def test_the_mapping_says_each_change_of_form_in_chinese(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(EXAMPLES / "hangzhou")
    out = rendered("2-request.json", "2-request.deepseek.json", "zh")
    for line in (
        "逐字段、逐条消息：内部格式（2-request.json）→ deepseek（2-request.deepseek.json）",
        "文本块 → `content` 字符串",
        "思考内容块 → `reasoning_content`",
        "`input` 对象 → `arguments` JSON 字符串",
        "1 条 user 消息 → 1 条 `tool` 消息",
        "false：不写出（没有就是 false）",
        '包在 {"type": "function", "function": {…}} 里',
        "改了名字；同一个 JSON Schema",
        "$.messages[1]  assistant：思考内容、文本、1 个调用",
        "含义相同：1 个调用（id、名称、参数），1 个结果（id、内容、错误标志），2 段文本，"
        "1 个思考内容块，提供了 1 个工具（名称、描述、schema）；从 2-request.deepseek.json 读回来，"
        "全都一致",
    ):
        assert line in out, line
    # Field names, paths and values stay as they are.
    assert "$.messages[2]  tool" in out and "`tool_use_id` → `tool_call_id`" in out


def test_a_response_lists_what_only_the_wire_has_in_chinese(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(EXAMPLES / "three-cities")
    out = rendered("1-response.json", "1-response.deepseek.json", "zh")
    assert "只在 deepseek 里有（内部格式不保留这些）：" in out
    assert '$.choices[0].finish_reason  "tool_use" → "tool_calls"' in out
    assert "含义相同：3 个调用（id、名称、参数），1 段文本，1 个思考内容块；" in out


def test_two_formats_two_steps_and_two_traces_are_said_in_chinese(fc, tmp_path: Path) -> None:
    hangzhou, three = EXAMPLES / "hangzhou", EXAMPLES / "three-cities"
    converted = fc("convert", str(hangzhou / "2-request.json"), "--to", "anthropic")
    (tmp_path / "b.anthropic.json").write_text(converted.stdout, encoding="utf-8")
    # Two formats: compared by meaning.
    formats = fc(
        "--lang", "zh", "diff", str(hangzhou / "2-request.deepseek.json"), "b.anthropic.json"
    )
    assert formats.returncode == 0, formats.stderr
    assert "deepseek 和 anthropic 形式不同，所以按含义比较" in formats.stdout
    assert "两者都先读成内部格式；路径是内部格式里的路径" in formats.stdout
    assert "+ B $.max_tokens: 4096\n1 处不同" in formats.stdout
    assert "anthropic 请求（" in formats.stdout
    # Two steps: internal and wire of different steps.
    steps = fc(
        "--lang",
        "zh",
        "diff",
        str(hangzhou / "1-request.json"),
        str(hangzhou / "2-request.deepseek.json"),
    )
    assert "这看起来是不同的步（1 条消息对 3 条消息），所以按含义比较，不逐字段对应" in steps.stdout
    assert "  （消息 2（user））：" in steps.stdout
    # Two traces: the same step of two runs, one format: by path.
    traces = fc(
        "--lang",
        "zh",
        "diff",
        str(hangzhou / "2-request.deepseek.json"),
        str(three / "2-request.deepseek.json"),
    )
    assert re.search(r"\n\d+ 处不同\n$", traces.stdout), traces.stdout
    same = fc(
        "--lang", "zh", "diff", str(hangzhou / "2-request.json"), str(hangzhou / "2-request.json")
    )
    assert same.stdout.endswith("\n没有不同\n")
    # The English is unchanged.
    en = fc("diff", str(hangzhou / "1-request.json"), str(hangzhou / "2-request.deepseek.json"))
    assert "these look like different steps (1 vs 3 messages)" in en.stdout
    assert en.stdout.endswith("\n2 differences\n") and "处不同" not in en.stdout
    assert "  (message 2 (user)): " in en.stdout


def test_structural_diff_has_its_chinese_golden_file(fc, tmp_path: Path) -> None:
    source = EXAMPLES / "hangzhou" / "2-request.deepseek.json"
    data = json.loads(source.read_text("utf-8"))
    shutil.copy(source, tmp_path / "a.deepseek.json")
    data["messages"][2]["content"] = data["messages"][2]["content"].replace("21", "39")
    data["tools"][0]["function"]["strict"] = True
    del data["messages"][1]["reasoning_content"]
    (tmp_path / "b.deepseek.json").write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    zh = fc("--lang", "zh", "diff", "a.deepseek.json", "b.deepseek.json")
    golden.check("zh/diff-structural.txt", zh.stdout)
    assert zh.stdout.endswith("\n3 处不同\n")
    assert "A a.deepseek.json：deepseek 请求（" in zh.stdout


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("hangzhou/2-request.json", "hangzhou/2-request.deepseek.json"),
        ("three-cities/1-response.deepseek.json", "three-cities/1-response.json"),
        ("hangzhou/1-request.json", "hangzhou/2-request.deepseek.json"),
        ("hangzhou/2-request.deepseek.json", "three-cities/2-request.deepseek.json"),
        ("hangzhou-gemini/2-request.gemini.json", "hangzhou/2-request.deepseek.json"),
        ("hangzhou-responses/2-request.responses.json", "hangzhou-responses/2-request.json"),
    ],
)
def test_diff_json_is_the_same_in_both_languages(fc, a: str, b: str) -> None:
    en = fc("diff", "--json", str(EXAMPLES / a), str(EXAMPLES / b))
    zh = fc("--lang", "zh", "diff", "--json", str(EXAMPLES / a), str(EXAMPLES / b))
    assert en.returncode == zh.returncode == 0, zh.stderr
    assert zh.stdout == en.stdout


def test_diff_errors_are_chinese(fc) -> None:
    hangzhou = EXAMPLES / "hangzhou"
    ran = fc(
        "--lang",
        "zh",
        "diff",
        str(hangzhou / "2-request.json"),
        str(hangzhou / "2-response.deepseek.json"),
    )
    assert ran.returncode == 2
    assert "2-request.json 是请求，" in ran.stderr
    assert "格式也不同：没有可以对应的" in ran.stderr
    assert "请拿一步的请求和请求比，响应和响应比" in ran.stderr


@pytest.mark.parametrize("width", [60, 80, 120])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_diff_lines_hold_at_each_width(fc, width: int, lang: str) -> None:
    hangzhou = EXAMPLES / "hangzhou"
    ran = fc(
        "--lang",
        lang,
        "diff",
        str(hangzhou / "2-request.json"),
        str(hangzhou / "2-request.deepseek.json"),
        env=clean_env(COLUMNS=str(width)),
        terminal=True,
    )
    assert ran.returncode == 0, ran.stderr
    from rich.cells import cell_len

    plain = re.sub(r"\x1b\[[0-9;]*m", "", ran.stdout)
    assert max(cell_len(line) for line in plain.splitlines()) <= width


# ---------------------------------------------------------------------------------------------
# fc convert


def test_convert_output_is_the_same_and_its_lines_are_chinese(fc, tmp_path: Path) -> None:
    source = str(EXAMPLES / "three-cities" / "2-request.json")
    en = fc("convert", source, "--to", "openai")
    zh = fc("--lang", "zh", "convert", source, "--to", "openai")
    assert en.stdout == zh.stdout and en.returncode == zh.returncode == 0
    assert en.stderr == (
        "fc: lost: $.messages[1].content[0]: a thinking block dropped: "
        "openai chat has no reasoning field\n"
    )
    assert zh.stderr.startswith("fc: 丢失：$.messages[1].content[0]：丢弃了一个思考内容块：")
    fc("convert", source, "--to", "anthropic", "-o", "en.json")
    written = fc("--lang", "zh", "convert", source, "--to", "anthropic", "-o", "zh.json")
    assert (tmp_path / "en.json").read_bytes() == (tmp_path / "zh.json").read_bytes()
    assert "已写入 zh.json（anthropic 请求）" in written.stderr
    response = str(EXAMPLES / "three-cities" / "1-response.deepseek.json")
    lost = fc("--lang", "zh", "convert", response, "--to", "anthropic").stderr
    assert (
        "fc: 丢失：$.created：丢弃了 1767225600：内部格式里没有 deepseek 的 `created` 的位置"
        in lost
    )
    assert "fc: 丢失：$.usage.reasoning_tokens：丢弃了 reasoning_tokens（34）：" in lost
    assert "fc: lost:" not in lost


def test_convert_notes_and_errors_are_chinese(fc, tmp_path: Path) -> None:
    messages = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "hi"},
    ]
    (tmp_path / "m.json").write_text(json.dumps(messages), "utf-8")
    ran = fc("--lang", "zh", "convert", "m.json", "--to", "anthropic", "--from", "deepseek")
    assert ran.returncode == 0, ran.stderr
    assert 'fc: 丢失：$[0]：系统消息（"be brief"）在 anthropic 的消息数组里没有位置' in ran.stderr
    bad = fc("--lang", "zh", "convert", "m.json", "--to", "klingon")
    assert bad.returncode == 2 and "未知的目标格式 'klingon'" in bad.stderr
    assert "已知的格式：" in bad.stderr
    same = fc("--lang", "zh", "convert", "m.json", "--to", "openai", "-o", "m.json")
    assert "-o m.json 就是正在转换的文件；请写到别处" in same.stderr


def test_convert_lines_are_msgs_that_stay_english() -> None:
    from fccli.convert.translate import convert
    from fccli.trace.reader import read_document

    doc = read_document(str(EXAMPLES / "three-cities" / "1-response.deepseek.json"), internal=True)
    converted = convert(doc, "anthropic")
    (first, *_rest) = converted.losses
    assert first.startswith("$.created: 1767225600 dropped")
    i18n.set_language("zh")
    try:
        assert i18n.localized(first).startswith("$.created：丢弃了 1767225600")
    finally:
        i18n.set_language("en")


# ---------------------------------------------------------------------------------------------
# fc replay


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("made")
    done = run_in_process(["run", QUESTION, "-o", "t"], cwd=root, env=clean_env())
    assert done.returncode == 0, done.stderr
    return root / "t"


def call_id(trace: Path) -> str:
    response = json.loads((trace / "1-response.json").read_text("utf-8"))
    return next(b["id"] for b in response["content"] if b["type"] == "tool_use")


TIMES = re.compile(r'"(started_at|finished_at|duration_ms|elapsed_ms)": ("[^"]*"|[0-9.]+)')


def without_times(text: str) -> str:
    return TIMES.sub(r'"\1": "#"', text)


def test_replay_plan_and_answers_are_chinese_and_the_new_trace_is_the_same(
    made: Path, tmp_path: Path
) -> None:
    outputs = {}
    for lang in ("en", "zh"):
        root = tmp_path / lang
        shutil.copytree(made, root / "t")
        cid = call_id(root / "t")
        ran = run_in_process(
            ["--lang", lang, "replay", "t", "--set", f'{cid}={{"temp_c": 39}}', "--error", cid],
            cwd=root,
            env=clean_env(),
        )
        assert ran.returncode == 0, ran.stderr
        outputs[lang] = ran.stdout
    zh, en = outputs["zh"], outputs["en"]
    assert "[bold]" not in zh
    for line in (
        "重放 t 的第 2 步，从 2-request.json 读取，发往 demo（deepseek 格式），模型 fc-demo",
        '的结果（get_weather {"city": "杭州"}），修改方式：--set、--error',
        '      现在：{"temp_c": 39} (is_error)',
        "  新轨迹：t.replay-1（原轨迹不会被改动）",
        "（重放 t 的第 2 步）",
        "回答：重放前与重放后",
        "原来的（t）：",
        "重放的（t.replay-1）：",
        "两个回答不同",
    ):
        assert line in zh, line
    assert "replay of step 2 of t, read from 2-request.json" in en
    assert "by --set, --error" in en and "the answers differ" in en
    en_trace, zh_trace = tmp_path / "en" / "t.replay-1", tmp_path / "zh" / "t.replay-1"
    names = sorted(p.name for p in en_trace.iterdir())
    assert names == sorted(p.name for p in zh_trace.iterdir())
    for name in names:
        a = (en_trace / name).read_text("utf-8")
        b = (zh_trace / name).read_text("utf-8")
        assert without_times(a) == without_times(b), name


def test_replay_json_is_the_same_in_both_languages(made: Path, tmp_path: Path) -> None:
    printed = {}
    for lang in ("en", "zh"):
        root = tmp_path / lang
        shutil.copytree(made, root / "t")
        ran = run_in_process(
            ["--lang", lang, "replay", "t", "--once", "--json"], cwd=root, env=clean_env()
        )
        assert ran.returncode == 0, ran.stderr
        printed[lang] = without_times(ran.stdout)
    assert printed["en"] == printed["zh"]
    manifest = json.loads(printed["zh"])
    assert "no edits: step 2 goes out again as it was" in json.dumps(manifest)


def test_replay_notes_and_errors_are_chinese(made: Path, tmp_path: Path) -> None:
    shutil.copytree(made, tmp_path / "t")
    cid = call_id(tmp_path / "t")
    env = clean_env()
    unknown = run_in_process(
        ["--lang", "zh", "replay", "t", "--set", "zz=1"], cwd=tmp_path, env=env
    )
    assert unknown.returncode == 2
    assert "--set zz：第 2 步没有这个 id 的工具结果" in unknown.stderr
    assert "第 2 步各结果的 id：" in unknown.stderr
    both = run_in_process(
        ["--lang", "zh", "replay", "t", "--error", cid, "--ok", cid], cwd=tmp_path, env=env
    )
    assert f"--error 和 --ok 都提到了 {cid}；请选一个" in both.stderr
    once = run_in_process(
        ["--lang", "zh", "replay", "t", "--once", "--max-steps", "2"], cwd=tmp_path, env=env
    )
    assert "--once 和 --max-steps：请选一个（--once 就是 --max-steps 1）" in once.stderr
    inside = run_in_process(["--lang", "zh", "replay", "t", "--out", "t/x"], cwd=tmp_path, env=env)
    assert "--out t/x 在原轨迹 t 里面；重放写入新的轨迹，绝不写进旧轨迹" in inside.stderr
    step = run_in_process(["--lang", "zh", "replay", "t", "--step", "1"], cwd=tmp_path, env=env)
    assert "t 的第 1 步没有回填工具结果：没有可修改的" in step.stderr
    assert "有回填的步：2" in step.stderr


def test_replay_notes_are_english_msgs_said_in_chinese(made: Path, tmp_path: Path) -> None:
    from fccli.replay.edits import EditsAsked, StepResults, apply_edits, editor_document
    from fccli.trace.reader import read_trace

    trace = read_trace(made)
    request = trace.step(2).request
    assert request is not None
    cid = call_id(made)
    applied = apply_edits(request, 2, EditsAsked(oks=[cid]), lambda text: text)
    (note,) = applied.notes
    assert note == f"--ok {cid}: the result already was not an error"
    i18n.set_language("zh")
    try:
        assert i18n.localized(note) == f"--ok {cid}：这个结果本来就不是错误结果"
        about = json.loads(editor_document(StepResults(request, 2)))["about"]
        assert about.startswith("fc replay：第 2 步的工具结果，就是将要发出去的样子。")
    finally:
        i18n.set_language("en")
    about = json.loads(editor_document(StepResults(request, 2)))["about"]
    assert about.startswith("fc replay: the tool results of step 2, as they will be sent.")


# ---------------------------------------------------------------------------------------------
# fc send and fc curl


def test_curl_prints_the_same_command_and_chinese_notes(made: Path, fc) -> None:
    wire = str(made / "2-request.deepseek.json")
    en = fc("curl", wire)
    zh = fc("--lang", "zh", "curl", wire)
    assert en.returncode == zh.returncode == 0
    assert zh.stdout == en.stdout
    assert (
        "fc: 注意：" in zh.stderr
        and "写的是演示模型 fc-demo；发往 deepseek 时换成它的模型" in zh.stderr
    )
    assert "fc: 注意：这个 shell 里没有设置 $DEEPSEEK_API_KEY：运行前请先 export 它" in zh.stderr
    assert "fc: note: " in en.stderr and not CJK.search(en.stderr)
    demo = fc("--lang", "zh", "curl", wire, "-p", "demo")
    assert demo.returncode == 2
    assert "演示模型内置在 fc 里：没有可以让 curl 发送的地址" in demo.stderr
    assert "-p demo 可以离线发送它" in demo.stderr


def test_send_messages_and_errors_are_chinese(made: Path, fc, tmp_path: Path) -> None:
    wire = str(made / "2-request.deepseek.json")
    sent = fc("--lang", "zh", "send", wire, "-p", "demo", "-o", "out.json")
    assert sent.returncode == 0, sent.stderr
    assert re.search(r"fc: 已把响应（\d+ 字节）写入 out\.json", sent.stderr)
    same = fc("send", wire, "-p", "demo")
    assert same.returncode == 0 and (tmp_path / "out.json").read_text("utf-8") == same.stdout
    other = fc("--lang", "zh", "send", wire, "-p", "anthropic")
    assert other.returncode == 2
    assert "是 deepseek 请求，而 anthropic 接受的是 anthropic 格式" in other.stderr
    assert "--to anthropic -o body.json，再发送 body.json" in other.stderr
    nowhere = fc("--lang", "zh", "send", wire, "-p", "demo", "-o", "no/such/dir/x.json")
    assert "无法写入 no/such/dir/x.json：没有目录 no/such/dir" in nowhere.stderr
    assert "请先创建这个目录，或换一个 -o" in nowhere.stderr


def test_send_file_problems_are_msgs_said_in_chinese(made: Path) -> None:
    from fccli.core.errors import InputFileError
    from fccli.send.post import read_request_file

    said: dict[str, Any] = {}
    for name in ("2-request.json", "manifest.json", "2-response.deepseek.json"):
        with pytest.raises(InputFileError) as caught:
            read_request_file(str(made / name))
        said[name] = caught.value
    i18n.set_language("zh")
    try:
        assert (
            i18n.localized(said["2-request.json"].problem)
            == "是 fc 的内部格式，没有厂商接受这种格式"
        )
        assert i18n.localized(said["2-request.json"].hint).startswith("先 fc convert ")
        assert i18n.localized(said["manifest.json"].problem).startswith("是轨迹的清单；")
        assert (
            i18n.localized(said["2-response.deepseek.json"].problem)
            == "是 deepseek 响应，不是请求体"
        )
    finally:
        i18n.set_language("en")
    assert said["2-response.deepseek.json"].problem == "is a deepseek response, not a request body"


def test_a_hand_edit_is_said_in_chinese_and_recorded_in_english(made: Path, tmp_path: Path) -> None:
    import os

    from fccli.replay.source import read_step_request
    from fccli.wire.registry import get_format

    trace = Path(shutil.copytree(made, tmp_path / "t"))
    wire = trace / "2-request.deepseek.json"
    wire.write_text(
        wire.read_text("utf-8").replace('\\"temp_c\\": 21', '\\"temp_c\\": 30'), "utf-8"
    )
    later = (trace / "2-request.json").stat().st_mtime + 30
    os.utime(wire, (later, later))
    source = read_step_request(trace, 2, get_format("deepseek"))
    assert source.note is not None and source.hand_edit is not None
    assert source.note.endswith(
        "one was edited by hand. Replaying 2-request.deepseek.json: it was changed after "
        "2-request.json (fc writes the wire file first)"
    )
    assert source.hand_edit["why"] == (
        "it was changed after 2-request.json (fc writes the wire file first)"
    )
    i18n.set_language("zh")
    try:
        assert i18n.localized(source.note) == (
            "2-request.json 和 2-request.deepseek.json 不一致（第一处在厂商格式文件的 "
            "$.messages[2].content）：其中一个被手动修改过。重放 2-request.deepseek.json："
            "它在 2-request.json 之后被修改（fc 先写厂商格式文件）"
        )
    finally:
        i18n.set_language("en")


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("width", [60, 80])
@pytest.mark.parametrize(
    "pair",
    [
        ("2-request.json", "2-request.deepseek.json"),
        ("1-response.json", "1-response.deepseek.json"),
    ],
)
def test_wrapped_notes_keep_their_hanging_indent(
    lang: str, width: int, pair: tuple[str, str]
) -> None:
    # On a terminal a note (and a header, a row's wire side) that wraps goes on under its own
    # beginning: only the start of a row, a header or a heading stands at the margin.
    from fccli.render.console import make_console

    i18n.set_language(lang)
    try:
        file = io.StringIO()
        console = make_console(file=file, width=width, force_terminal=True, color_system=None)
        a, b = (EXAMPLES / "three-cities" / name for name in pair)
        render_diff(console, diff_documents(read_document(str(a)), read_document(str(b))))
    finally:
        i18n.set_language("en")
    lines = file.getvalue().splitlines()
    starts = (
        "A ",
        "B ",
        "$",
        "internal ",
        "内部格式 ",
        "field by field",
        "逐字段",
        "only in",
        "只在",
    )
    starts += ("the same meaning", "含义相同")
    at_margin = [line for line in lines if line and not line.startswith(" ")]
    assert all(line.startswith(starts) for line in at_margin), at_margin
    assert any(line.startswith(" " * 20) for line in lines)  # a note under its row, wrapped
