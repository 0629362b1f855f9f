"""The English left in fc's Chinese (issue 18), found by playing a learner under `--lang zh`
with `fc show`, `fc check` and `fc proxy`, each fixed at its source: the exact Chinese under
zh, the English unchanged."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from fccli import i18n
from fccli.trace.words import translated
from tests.conftest import clean_env
from tests.support.fake_provider import FakeProvider
from tests.support.proxy_harness import proxy

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


def test_the_proxy_says_a_body_that_is_not_json_in_fc_s_words(zh, tmp_path: Path) -> None:
    with FakeProvider() as server, proxy(tmp_path / "px", server.url) as px:
        httpx.post(px.url + "/v1/chat/completions", content=b"{not json", headers=BEARER)
    assert (
        "POST /v1/chat/completions：已转发，未记录（请求体不是 JSON："
        "不是有效的 JSON：第 1 行第 2 列，这里应当有用双引号括起的属性名）"
    ) in px.printed
    assert "Expecting" not in px.printed


def test_the_proxy_in_english_names_the_json_problem(tmp_path: Path) -> None:
    with FakeProvider() as server, proxy(tmp_path / "px", server.url) as px:
        httpx.post(px.url + "/v1/chat/completions", content=b"{not json", headers=BEARER)
    assert (
        "POST /v1/chat/completions: forwarded, not recorded (its body is not JSON: "
        "not valid JSON: Expecting property name enclosed in double quotes at line 1, column 2)"
    ) in px.printed


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


def test_the_proxys_check_note_names_who_answers_400_without_a_stray_space(
    zh, tmp_path: Path
) -> None:
    body = (CORPUS / "openai" / "FC109-arguments-not-an-object.json").read_bytes()
    with FakeProvider() as server, proxy(tmp_path / "px", server.url) as px:
        httpx.post(px.url + "/v1/chat/completions", content=body, headers=BEARER)
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
