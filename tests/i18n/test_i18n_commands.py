"""fc's Chinese, command by command (`fc run`, `tools`, `providers`, `replay`, `convert`,
`send`, `curl`, `show`, `check`, `proxy` under `--lang zh`): each message says the exact Chinese,
and the English is unchanged."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fccli import i18n
from fccli.trace.words import translated
from tests.conftest import clean_env
from tests.support import local_http
from tests.support.fake_provider import FakeProvider
from tests.support.proxy_harness import proxy

REFUND_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "refund_order",
            "description": "为订单办理退款。用户要求退款时使用。",
            "parameters": {
                "type": "object",
                "properties": {
                    "order_id": {"type": "string", "description": "订单号"},
                    "amount": {"type": "number", "description": "退款金额（元）"},
                },
                "required": ["order_id", "amount"],
            },
        },
        "results": [{"arguments": {"order_id": "ORD-2024-000123"}, "result": {"ok": True}}],
    }
]
REFUND_QUESTION = "帮我把订单 ORD-2024-000123 退款 4999 元"


def run(fc, lang: str, *args: str, **options: Any):
    return fc("--lang", lang, *args, env=clean_env(COLUMNS="10000"), **options)


def tool_results(trace: Path) -> list[str]:
    request = json.loads((trace / "2-request.json").read_text(encoding="utf-8"))
    return [
        block["content"]
        for message in request["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]


# --- the schema problems of a JSON-defined tool (the issue's own example) -------------------


def test_schema_problems_handed_to_the_model_are_chinese(fc, tmp_path: Path) -> None:
    (tmp_path / "refund.json").write_text(json.dumps(REFUND_TOOLS), encoding="utf-8")
    args = ("run", REFUND_QUESTION, "--tools", "refund.json", "--demo-fault", "missing-arg")
    zh = run(fc, "zh", *args, "-o", "zh")
    assert zh.returncode == 0, zh.stderr
    said = (
        "refund_order 的参数校验不通过：$：缺少必需的属性 'order_id'；$：缺少必需的属性 'amount'。"
    )
    assert said in zh.stdout
    assert tool_results(tmp_path / "zh")[0].startswith(said)
    assert "is missing" not in zh.stdout
    en = run(fc, "en", *args, "-o", "en")
    assert en.returncode == 0, en.stderr
    assert tool_results(tmp_path / "en")[0].startswith(
        "invalid arguments for refund_order: $: the required property 'order_id' is missing; "
        "$: the required property 'amount' is missing. Call it again"
    )


def test_no_validation_note_says_the_problems_in_chinese(fc, tmp_path: Path) -> None:
    (tmp_path / "refund.json").write_text(json.dumps(REFUND_TOOLS), encoding="utf-8")
    args = (
        "run",
        REFUND_QUESTION,
        "--tools",
        "refund.json",
        "--demo-fault",
        "missing-arg",
        "--harness-bug",
        "no-validation",
    )
    zh = run(fc, "zh", *args, "-o", "zh")
    assert (
        "harness 缺陷 no-validation：用不符合 schema 的参数执行了：call_" in zh.stdout
        and "：$：缺少必需的属性 'order_id'；$：缺少必需的属性 'amount'" in zh.stdout
    ), zh.stdout
    en = run(fc, "en", *args, "-o", "en")
    assert (
        ": $: the required property 'order_id' is missing; $: the required property 'amount' "
        "is missing" in en.stdout
    )
    # the trace keeps the English either way
    for lang in ("zh", "en"):
        manifest = (tmp_path / lang / "manifest.json").read_text(encoding="utf-8")
        assert "the required property 'amount' is missing" in manifest
        assert "缺少" not in manifest


def test_no_validation_note_says_pydantic_problems_in_chinese(fc) -> None:
    args = ("run", "北京和上海", "--harness-bug", "no-validation", "--demo-fault", "wrong-type")
    zh = run(fc, "zh", *args, "-o", "zh")
    assert "用不符合 schema 的参数执行了：call_" in zh.stdout
    assert "：city：应当是字符串" in zh.stdout
    en = run(fc, "en", *args, "-o", "en")
    assert ": city: Input should be a valid string" in en.stdout


# --- fc providers ----------------------------------------------------------------------------


def test_providers_effort_and_parallel_rows_in_chinese(fc) -> None:
    zh = run(fc, "zh", "providers")
    assert (
        "reasoning_effort（推理模型）（--api chat）、reasoning.effort（--api responses）：low、high"
        in (zh.stdout)
    )
    assert (
        "reasoning_effort（服务器可能忽略它）（--api chat）、think（--api native）：low、high"
        in (zh.stdout)
    )
    assert "parallel_tool_calls: false（服务器可能忽略它）" in zh.stdout
    assert "may ignore" not in zh.stdout
    en = run(fc, "en", "providers")
    assert (
        "reasoning_effort (reasoning models) (--api chat), reasoning.effort (--api responses): "
        "low, high" in en.stdout
    )
    assert (
        "reasoning_effort (the server may ignore it) (--api chat), think (--api native): "
        "low, high" in en.stdout
    )
    assert "parallel_tool_calls: false (the server may ignore it)" in en.stdout
    assert (
        run(fc, "zh", "providers", "--json").stdout == run(fc, "en", "providers", "--json").stdout
    )


# --- fc replay -------------------------------------------------------------------------------


def test_replay_step_origin_uses_full_width_parentheses(fc) -> None:
    assert run(fc, "zh", "run", "杭州今天适合跑步吗？", "-o", "t").returncode == 0
    zh = run(fc, "zh", "replay", "t", "--once", "-o", "r-zh")
    assert zh.returncode == 0, zh.stderr
    assert "第 1 步（重放 t 的第 2 步）" in zh.stdout
    en = run(fc, "en", "replay", "t", "--once", "-o", "r-en")
    assert "step 1 (replays step 2 of t)" in en.stdout


def test_replay_without_an_answer_says_so_in_full_width_parentheses(fc) -> None:
    ran = run(fc, "zh", "run", "北京和上海", "--harness-bug", "drop-reasoning", "-o", "t")
    assert ran.returncode != 0
    zh = run(fc, "zh", "replay", "t", "--once", "-o", "r-zh")
    assert "  （没有：那次运行以状态 error 结束）" in zh.stdout, zh.stdout
    en = run(fc, "en", "replay", "t", "--once", "-o", "r-en")
    assert "  (none: that run ended with status error)" in en.stdout, en.stdout


def test_drop_results_note_lists_the_ids_with_a_chinese_comma(fc, tmp_path: Path) -> None:
    args = ("run", "北京和上海", "--harness-bug", "drop-results")
    zh = run(fc, "zh", *args, "-o", "zh")
    assert "harness 缺陷 drop-results：call_" in zh.stdout
    assert "、call_" in zh.stdout and "的结果没有回填" in zh.stdout
    en = run(fc, "en", *args, "-o", "en")
    assert ", call_" in en.stdout and "were not handed back" in en.stdout
    manifests = [(tmp_path / d / "manifest.json").read_text(encoding="utf-8") for d in ("zh", "en")]
    assert all("drop-results: the results of call_" in m for m in manifests)


def test_unknown_city_lists_the_known_ones_with_full_width_parentheses(fc) -> None:
    zh = run(fc, "zh", "run", "巴黎今天天气如何", "-o", "zh")
    assert "已知城市：北京（Beijing）、上海（Shanghai）、" in zh.stdout
    en = run(fc, "en", "run", "巴黎今天天气如何", "-o", "en")
    assert "Known cities: 北京 (Beijing)、上海 (Shanghai)、" in en.stdout


# --- a provider's HTTP error -----------------------------------------------------------------


@pytest.mark.server
def test_an_http_error_quotes_the_provider_after_a_chinese_colon(fc, fake_provider) -> None:
    from tests.providers.test_providers_http import env_for, run_fc

    sentence = "The `reasoning_content` in the thinking mode must be passed back to the API."
    fake_provider.script = [{"status": 400, "message": sentence}]
    zh = run_fc(
        fc, fake_provider, "deepseek", "--lang", "zh", env=env_for("deepseek", COLUMNS="10000")
    )
    assert f"fc: 错误：第 1 步：deepseek 回答 HTTP 400：{sentence}" in zh.stderr, zh.stderr
    fake_provider.script = [{"status": 400, "message": sentence}]
    en = run_fc(
        fc,
        fake_provider,
        "deepseek",
        "--lang",
        "en",
        "--force",
        env=env_for("deepseek", COLUMNS="10000"),
    )
    assert f"fc: error: step 1: deepseek answered HTTP 400: {sentence}" in en.stderr, en.stderr


# --- fc convert ------------------------------------------------------------------------------


def test_convert_says_the_dropped_thinking_switch_in_chinese(fc, tmp_path: Path) -> None:
    request = {
        "model": "m",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
        "thinking": True,
    }
    (tmp_path / "r.json").write_text(json.dumps(request), encoding="utf-8")
    zh = run(fc, "zh", "convert", "r.json", "--from", "internal", "--to", "openai")
    assert "$.thinking：丢弃了开启思考模式的设置：openai chat 没有思考开关" in zh.stderr, zh.stderr
    en = run(fc, "en", "convert", "r.json", "--from", "internal", "--to", "openai")
    assert "$.thinking: thinking on dropped: openai chat has no thinking switch" in en.stderr
    assert zh.stdout == en.stdout


def test_convert_quotes_the_providers_400_after_a_chinese_colon(fc, tmp_path: Path) -> None:
    assert run(fc, "zh", "run", "杭州今天适合跑步吗？", "-o", "t").returncode == 0
    args = ("convert", "t/2-request.deepseek.json", "--to", "anthropic")
    zh = run(fc, "zh", *args)
    assert (
        "思考内容块没有签名，Anthropic 会拒绝（HTTP 400：messages.1.content.0.thinking.signature: "
        "Field required）" in zh.stderr
    ), zh.stderr
    en = run(fc, "en", *args)
    assert "which Anthropic refuses (HTTP 400: messages.1.content.0.thinking.signature" in en.stderr
    assert zh.stdout == en.stdout


def test_a_value_outside_a_literal_is_said_in_chinese(fc, tmp_path: Path) -> None:
    (tmp_path / "typed.py").write_text(
        "from typing import Literal\n\n\n"
        "def get_weather(city: Literal['北京', '上海']) -> dict:\n"
        '    """查天气"""\n'
        "    return {'city': city}\n",
        encoding="utf-8",
    )
    args = ("run", "杭州", "--tools", "typed.py")
    zh = run(fc, "zh", *args, "-o", "zh")
    said = "get_weather 的参数校验不通过：city：应当是 '北京'、'上海' 之一（收到的是 \"杭州\"）。"
    assert said in zh.stdout, zh.stdout
    assert tool_results(tmp_path / "zh")[0].startswith(said)
    assert run(fc, "en", *args, "-o", "en").returncode == 0
    assert tool_results(tmp_path / "en")[0].startswith(
        "invalid arguments for get_weather: city: Input should be '北京' or '上海' (got \"杭州\")."
    )


REPO = Path(__file__).resolve().parent.parent.parent
CORPUS = REPO / "tests" / "corpus" / "check"
BEARER = {"Authorization": "Bearer sk-test"}


@pytest.fixture
def zh() -> Iterator[None]:
    i18n.set_language("zh")
    yield
    i18n.set_language("en")


def _env(lang: str) -> dict[str, str]:
    return clean_env(FC_LANG=lang, COLUMNS="200", NO_COLOR="1")


def test_tidy_takes_out_a_space_between_chinese_words_only(zh) -> None:
    assert i18n.tidy("兼容 OpenAI 的服务器 会返回 400：") == "兼容 OpenAI 的服务器会返回 400："
    assert i18n.tidy("OpenAI 会返回 400：") == "OpenAI 会返回 400："
    i18n.set_language("en")
    assert i18n.tidy("a b 的 会") == "a b 的 会"


def test_check_says_who_answers_400_without_a_stray_space(fc) -> None:
    case = str(CORPUS / "openai" / "FC109-arguments-not-an-object.json")
    zh = fc("check", case, env=_env("zh"))
    assert "    兼容 OpenAI 的服务器会返回 400：messages.1.tool_calls.0" in zh.stdout
    assert "服务器 会" not in zh.stdout
    en = fc("check", case, env=_env("en"))
    assert "    OpenAI-compatible servers would answer 400: messages.1.tool_calls.0" in en.stdout


@pytest.fixture(scope="module")
def drop_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.support.inprocess import run_in_process

    out = tmp_path_factory.mktemp("hunt") / "t"
    args = ["run", "-p", "demo", "--harness-bug", "drop-results", "--out", str(out)]
    run_in_process([*args, "北京和杭州今天适合跑步吗？"], cwd=out.parent, env=_env("en"))
    assert (out / "manifest.json").is_file()
    return out


def _page(fc, trace: Path, lang: str) -> str:
    page = fc("show", str(trace), "--check", "--html", "-", env=_env(lang)).stdout
    return re.sub(r"&#x27;", "'", page)


def test_the_html_pages_findings_name_the_provider_and_say_the_meaning(fc, drop_results) -> None:
    zh = _page(fc, drop_results, "zh")
    assert '<p class="dim">OpenAI 和 DeepSeek 会这样回答：An assistant message with' in zh
    assert "<p class=\"dim\">（意思是：带 'tool_calls' 的助手消息后面必须跟着回应每个" in zh
    assert "OpenAI and DeepSeek" not in zh
    en = _page(fc, drop_results, "en")
    assert '<p class="dim">OpenAI and DeepSeek would answer: An assistant message with' in en
    assert "it means" not in en  # the provider's sentence is English already


def test_a_stop_at_the_demo_models_400_is_all_chinese_in_show(fc, tmp_path: Path) -> None:
    out = tmp_path / "t"
    args = ["run", "-p", "demo", "--harness-bug", "drop-reasoning", "--out", str(out)]
    fc(*args, "北京和杭州今天适合跑步吗？", env=_env("en"))
    zh = fc("show", str(out), env=_env("zh")).stdout
    assert "✗ 在这里停止：ProviderError: 演示模型回答了 HTTP 400（错误正文见上方）" in zh
    assert "the demo model" not in zh
    en = fc("show", str(out), env=_env("en")).stdout
    assert (
        "✗ stopped here: ProviderError: the demo model answered HTTP 400 (its error body is above)"
        in en
    )


def test_a_cut_streams_call_is_said_in_chinese_when_read_back(zh) -> None:
    kept = "call call_3a59e4a9768d1b816e073447 (get_weather) has incomplete arguments: '{\"cit'"
    assert translated(kept) == (
        "调用 call_3a59e4a9768d1b816e073447（get_weather）的参数不完整：'{\"cit'"
    )
    # A short message opening with a word vouches for no frame around it.
    assert translated("step 2: Rate limit reached") == "step 2: Rate limit reached"
    i18n.set_language("en")
    assert translated(kept) == kept


@pytest.mark.server
@pytest.mark.parametrize(
    ("lang", "said"),
    [
        (
            "zh",
            "POST /v1/chat/completions：已转发，未记录（请求体不是 JSON："
            "不是有效的 JSON：第 1 行第 2 列，这里应当有用双引号括起的属性名）",
        ),
        (
            "en",
            "POST /v1/chat/completions: forwarded, not recorded (its body is not JSON: "
            "not valid JSON: Expecting property name enclosed in double quotes at line 1, "
            "column 2)",
        ),
    ],
)
def test_the_proxy_says_a_body_that_is_not_json_in_fc_s_words(
    lang: str, said: str, tmp_path: Path
) -> None:
    i18n.set_language(lang)
    with FakeProvider() as server, proxy(tmp_path / "px", server.url) as px:
        local_http.post(px.url + "/v1/chat/completions", content=b"{not json", headers=BEARER)
    assert said in px.printed
    assert lang == "en" or "Expecting" not in px.printed


def test_show_of_one_file_gives_its_reason_in_full_width_brackets(fc) -> None:
    file = str(REPO / "traces" / "examples" / "hangzhou" / "1-response.deepseek.json")
    zh = fc("show", file, env=_env("zh")).stdout
    assert "1-response.deepseek.json：deepseek 响应（它有 `choices`）\n" in zh
    en = fc("show", file, env=_env("en")).stdout
    assert "1-response.deepseek.json: a deepseek response (it has `choices`)\n" in en


def test_diff_by_meaning_puts_a_full_width_colon_after_its_chinese_place(fc) -> None:
    examples = REPO / "traces" / "examples"
    a = str(examples / "hangzhou" / "2-request.deepseek.json")
    b = str(examples / "hangzhou-gemini" / "2-request.gemini.json")
    zh = fc("diff", a, b, env=_env("zh")).stdout
    assert '（消息 1（assistant） › text 块 › type）："text" → "provider_block"\n' in zh
    assert "（消息 1（assistant） › thinking 块 › thinking）：\n" in zh
    assert '~ A $.model: "fc-demo" → ""\n' in zh  # no place said: as in English
    en = fc("diff", a, b, env=_env("en")).stdout
    assert '  (message 1 (assistant) › text block › type): "text" → "provider_block"\n' in en


def test_the_systems_reason_a_file_cannot_be_written_is_said_in_chinese(fc, tmp_path: Path) -> None:
    trace = str(REPO / "traces" / "examples" / "hangzhou")
    page = fc("show", trace, "--html", str(tmp_path), env=_env("zh"))
    assert page.stderr == f"fc: 错误：无法写入 {tmp_path}：是一个目录\n"
    page = fc("show", trace, "--html", str(tmp_path), env=_env("en"))
    assert page.stderr == f"fc: error: cannot write {tmp_path}: Is a directory\n"
    spans = fc("export", "otel", trace, "-o", str(tmp_path), env=_env("zh"))
    assert spans.stderr == f"fc: 错误：无法写入 {tmp_path}：是一个目录\n"


def test_check_strict_note_follows_the_counts_without_a_space_in_chinese(fc) -> None:
    case = str(CORPUS / "openai" / "FC118-more-than-15-tools.json")
    zh = fc("check", "--strict", case, env=_env("zh"))
    assert "0 个错误，1 个警告（--strict：警告也算失败）\n" in zh.stdout
    en = fc("check", "--strict", case, env=_env("en"))
    assert "0 errors, 1 warning (--strict: warnings fail too)\n" in en.stdout


def test_a_tool_without_a_name_is_not_called_none(fc) -> None:
    case = str(CORPUS / "openai" / "FC109-arguments-not-an-object.json")
    en = fc("check", "-f", "anthropic", case, env=_env("en")).stdout
    assert "although ? was offered" in en and "None" not in en


def test_a_manifest_without_a_status_says_no_python_none(fc, tmp_path: Path) -> None:
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "manifest.json").write_text("{}", encoding="utf-8")
    zh = fc("show", str(tmp_path / "t"), env=_env("zh")).stdout
    assert "未完成：状态 ?：fc 没来得及关闭轨迹就被停止了，或者仍在运行" in zh
    en = fc("show", str(tmp_path / "t"), env=_env("en")).stdout
    assert "status ?: fc was stopped without closing the trace, or is still running" in en
    assert "None" not in zh + en


@pytest.mark.server
def test_the_proxys_check_note_names_who_answers_400_without_a_stray_space(
    zh, tmp_path: Path
) -> None:
    body = (CORPUS / "openai" / "FC109-arguments-not-an-object.json").read_bytes()
    with FakeProvider() as server, proxy(tmp_path / "px", server.url) as px:
        local_http.post(px.url + "/v1/chat/completions", content=body, headers=BEARER)
    assert "（兼容 OpenAI 的服务器会返回 HTTP 400：messages.1.tool_calls.0" in px.printed
    assert "服务器 会" not in px.printed


def test_the_html_replay_banner_gives_the_tool_in_full_width_brackets(fc, tmp_path: Path) -> None:
    out = tmp_path / "rp"
    call = "call_3a59e4a9768d1b816e073447"
    hangzhou = str(REPO / "traces" / "examples" / "hangzhou")
    ran = fc("replay", hangzhou, "--set", f"{call}=sunny", "--out", str(out), env=_env("en"))
    assert ran.returncode == 0, ran.stderr
    zh = fc("show", str(out), "--html", "-", env=_env("zh")).stdout
    assert f"<code>{call}</code> 的结果（get_weather）（通过 set）" in zh
    en = fc("show", str(out), "--html", "-", env=_env("en")).stdout
    assert f"<code>{call}</code> (get_weather) by set" in en


def test_the_html_page_of_a_manifest_without_a_status_says_no_none(fc, tmp_path: Path) -> None:
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "manifest.json").write_text("{}", encoding="utf-8")
    zh = fc("show", str(tmp_path / "t"), "--html", "-", env=_env("zh")).stdout
    assert "状态 ?：fc 没来得及关闭轨迹就被停止了，或者仍在运行" in zh
