"""No English left in fc's Chinese of `fc run`, `fc tools`,
`fc providers`, `fc replay`, `fc convert`, `fc send` and `fc curl` under `--lang zh`: each case
says the exact Chinese, and the English is unchanged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import clean_env

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
    assert "reasoning_effort（服务器可能忽略它）：low、high" in zh.stdout
    assert "parallel_tool_calls: false（服务器可能忽略它）" in zh.stdout
    assert "may ignore" not in zh.stdout
    en = run(fc, "en", "providers")
    assert (
        "reasoning_effort (reasoning models) (--api chat), reasoning.effort (--api responses): "
        "low, high" in en.stdout
    )
    assert "reasoning_effort (the server may ignore it): low, high" in en.stdout
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
