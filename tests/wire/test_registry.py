"""Finding a provider: keys from the environment, base URLs, headers, `fc providers`, `fc tools`.

CLI.md is the contract: keys come from the environment only; base URLs from `--base-url`, else
`$FC_BASE_URL`, else the provider's own; a missing key is exit 2 naming the variable; a key's
value is never shown.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from fccli.core.errors import UsageError
from fccli.providers.http import HttpProvider
from fccli.providers.profiles import PROFILES
from fccli.providers.registry import (
    KNOWN,
    Connection,
    describe_providers,
    get_provider,
    read_key,
    resolve_base_url,
)
from tests.conftest import clean_env

KEY_ENV = {
    "deepseek": "DEEPSEEK_API_KEY",
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
}
SECRETS = {
    "DEEPSEEK_API_KEY": "sk-ds-SECRET-0001",
    "OPENAI_API_KEY": "sk-oa-SECRET-0002",
    "ANTHROPIC_API_KEY": "sk-ant-SECRET-0003",
}


@pytest.fixture
def all_keys(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    for env, value in SECRETS.items():
        monkeypatch.setenv(env, value)
    return SECRETS


@pytest.fixture
def opened() -> Iterator[list[HttpProvider]]:
    """Providers made in a test, closed after it (each holds an httpx client)."""
    made: list[HttpProvider] = []
    yield made
    for provider in made:
        provider.close()


def provider(made: list[HttpProvider], name: str, **connection: object) -> HttpProvider:
    p = get_provider(name, connection=Connection(**connection))  # type: ignore[arg-type]
    assert isinstance(p, HttpProvider)
    made.append(p)
    return p


# ---------------------------------------------------------------------------------------------
# keys


@pytest.mark.parametrize("name", sorted(KEY_ENV))
def test_a_missing_key_is_a_usage_error_naming_the_variable(name: str) -> None:
    with pytest.raises(UsageError) as caught:
        read_key(name)
    assert caught.value.exit_code == 2
    assert f"${KEY_ENV[name]}" in caught.value.message
    assert caught.value.hint is not None
    assert KEY_ENV[name] in caught.value.hint


@pytest.mark.parametrize("blank", ["", "   ", "\t\n"])
def test_a_blank_key_counts_as_missing(monkeypatch: pytest.MonkeyPatch, blank: str) -> None:
    monkeypatch.setenv("DEEPSEEK_API_KEY", blank)
    with pytest.raises(UsageError) as caught:
        read_key("deepseek")
    assert "DEEPSEEK_API_KEY" in caught.value.message


def test_a_key_is_read_with_surrounding_whitespace_removed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "  sk-ant-abc\n")
    assert read_key("anthropic") == "sk-ant-abc"


def test_ollama_needs_no_key() -> None:
    assert read_key("ollama") is None


def test_get_provider_checks_the_key_before_anything_else(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(UsageError) as caught:
        get_provider("deepseek", connection=Connection(base_url="not a url"))
    assert "DEEPSEEK_API_KEY" in caught.value.message


def test_an_unknown_provider_is_a_usage_error_listing_the_known_ones() -> None:
    with pytest.raises(UsageError) as caught:
        get_provider("cohere")
    assert caught.value.exit_code == 2
    assert "cohere" in caught.value.message
    assert caught.value.hint is not None
    for name in KNOWN:
        assert name in caught.value.hint


def test_the_demo_provider_needs_no_key_and_no_network() -> None:
    demo = get_provider("demo")
    assert demo.info.name == "demo"
    assert demo.info.key_env is None


# ---------------------------------------------------------------------------------------------
# base URLs


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_with_nothing_given_the_base_url_is_the_profiles(name: str) -> None:
    # Bedrock's names its region: `{region}` filled in from $AWS_REGION (providers/aws.py).
    expected = PROFILES[name].base_url.replace("{region}", "us-east-1")
    assert resolve_base_url(name, None) == expected


def test_fc_base_url_overrides_the_profile(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FC_BASE_URL", "http://127.0.0.1:8000")
    assert resolve_base_url("openai", None) == "http://127.0.0.1:8000"


def test_base_url_option_overrides_fc_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FC_BASE_URL", "http://127.0.0.1:8000")
    assert resolve_base_url("openai", "https://example.test/v1") == "https://example.test/v1"


def test_strict_on_deepseek_switches_to_the_beta_url() -> None:
    assert resolve_base_url("deepseek", None, strict=True) == "https://api.deepseek.com/beta"
    assert resolve_base_url("deepseek", None, strict=False) == "https://api.deepseek.com"


def test_strict_keeps_a_base_url_the_user_gave(monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_base_url("deepseek", "http://127.0.0.1:9", strict=True) == "http://127.0.0.1:9"
    monkeypatch.setenv("FC_BASE_URL", "http://127.0.0.1:8")
    assert resolve_base_url("deepseek", None, strict=True) == "http://127.0.0.1:8"


@pytest.mark.parametrize("name", ["openai", "anthropic", "ollama"])
def test_strict_elsewhere_keeps_the_profiles_base_url(name: str) -> None:
    assert resolve_base_url(name, None, strict=True) == PROFILES[name].base_url


@pytest.mark.parametrize(
    "url", ["127.0.0.1:8000", "localhost:11434/v1", "ftp://example.test", "api.deepseek.com"]
)
def test_a_base_url_option_that_is_not_http_is_refused(url: str) -> None:
    with pytest.raises(UsageError) as caught:
        resolve_base_url("openai", url)
    assert caught.value.exit_code == 2
    assert url in caught.value.message


def test_an_fc_base_url_that_is_not_http_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FC_BASE_URL", "localhost:8000")
    with pytest.raises(UsageError) as caught:
        resolve_base_url("deepseek", None)
    assert "localhost:8000" in caught.value.message


# ---------------------------------------------------------------------------------------------
# the HTTP provider: url and headers


def test_the_url_is_the_base_url_and_the_profiles_path(
    all_keys: dict[str, str], opened: list[HttpProvider]
) -> None:
    assert provider(opened, "deepseek").url == "https://api.deepseek.com/chat/completions"
    assert provider(opened, "anthropic").url == "https://api.anthropic.com/v1/messages"
    assert provider(opened, "ollama").url == "http://localhost:11434/v1/chat/completions"
    strict = provider(opened, "deepseek", strict=True)
    assert strict.url == "https://api.deepseek.com/beta/chat/completions"
    slash = provider(opened, "openai", base_url="http://127.0.0.1:8000/v1/")
    assert slash.url == "http://127.0.0.1:8000/v1/chat/completions"


@pytest.mark.parametrize("name", ["deepseek", "openai"])
def test_chat_providers_send_the_key_as_a_bearer_token(
    name: str, all_keys: dict[str, str], opened: list[HttpProvider]
) -> None:
    headers = provider(opened, name).headers()
    assert headers["authorization"] == f"Bearer {all_keys[KEY_ENV[name]]}"
    assert "x-api-key" not in headers
    assert "anthropic-version" not in headers
    assert headers["content-type"] == "application/json"


def test_anthropic_sends_x_api_key_and_the_api_version(
    all_keys: dict[str, str], opened: list[HttpProvider]
) -> None:
    headers = provider(opened, "anthropic").headers()
    assert headers["x-api-key"] == all_keys["ANTHROPIC_API_KEY"]
    assert headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in headers
    assert "anthropic-beta" not in headers


def test_anthropic_in_strict_mode_adds_the_structured_outputs_beta_header(
    all_keys: dict[str, str], opened: list[HttpProvider]
) -> None:
    headers = provider(opened, "anthropic", strict=True).headers()
    assert headers["anthropic-beta"] == "structured-outputs-2025-11-13"
    assert headers["x-api-key"] == all_keys["ANTHROPIC_API_KEY"]


def test_deepseek_strict_mode_is_a_url_not_a_header(
    all_keys: dict[str, str], opened: list[HttpProvider]
) -> None:
    plain = provider(opened, "deepseek").headers()
    assert provider(opened, "deepseek", strict=True).headers() == plain


def test_ollama_sends_no_auth_header(opened: list[HttpProvider]) -> None:
    headers = provider(opened, "ollama").headers()
    assert "authorization" not in headers
    assert "x-api-key" not in headers


@pytest.mark.parametrize("name", ["deepseek", "openai", "anthropic"])
def test_the_key_is_not_in_the_providers_repr(
    name: str, all_keys: dict[str, str], opened: list[HttpProvider]
) -> None:
    p = provider(opened, name)
    assert p.key == all_keys[KEY_ENV[name]]
    assert all_keys[KEY_ENV[name]] not in repr(p)
    assert all_keys[KEY_ENV[name]] not in repr(p.info)
    assert p.info.key_env == KEY_ENV[name]


# ---------------------------------------------------------------------------------------------
# describe_providers (the data of `fc providers`)


def test_every_known_provider_has_a_row_the_offline_demo_first() -> None:
    names = [row["name"] for row in describe_providers()]
    assert names[0] == "demo"
    assert sorted(names) == sorted(KNOWN)


def test_no_row_holds_a_keys_value(all_keys: dict[str, str]) -> None:
    text = json.dumps(describe_providers())
    for value in all_keys.values():
        assert value not in text


def test_key_set_says_whether_each_key_is_set_never_what_it_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-oa-xyz")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "   ")
    rows = {row["name"]: row for row in describe_providers()}
    assert rows["openai"]["key_set"] is True
    assert rows["anthropic"]["key_set"] is False  # blank, as read_key sees it
    assert rows["deepseek"]["key_set"] is False
    assert rows["ollama"]["key_set"] is None
    assert rows["demo"]["key_set"] is None
    assert rows["openai"]["key_env"] == "OPENAI_API_KEY"


@pytest.mark.parametrize(
    ("env", "default"),
    [
        ({}, "demo"),
        ({"DEEPSEEK_API_KEY": "k"}, "deepseek"),
        ({"DEEPSEEK_API_KEY": "k", "FC_PROVIDER": "anthropic"}, "anthropic"),
    ],
)
def test_exactly_the_default_provider_is_marked(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], default: str
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert [row["name"] for row in describe_providers() if row["default"]] == [default]


def test_fc_base_url_shows_in_the_rows_of_real_providers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FC_BASE_URL", "http://127.0.0.1:8000")
    rows = {row["name"]: row for row in describe_providers()}
    assert rows["openai"]["base_url"] == "http://127.0.0.1:8000 (from $FC_BASE_URL)"
    assert rows["demo"]["base_url"] == "offline (built in)"


# ---------------------------------------------------------------------------------------------
# through the command line


def test_fc_providers_lists_every_provider_and_never_a_key(fc) -> None:
    result = fc("providers", env=clean_env(**SECRETS))
    assert result.returncode == 0, result.stderr
    for name in KNOWN:
        assert name in result.stdout
    assert "$ANTHROPIC_API_KEY (set)" in result.stdout
    assert "no key needed" in result.stdout
    for value in SECRETS.values():
        assert value not in result.stdout
        assert value not in result.stderr


def test_fc_providers_json_is_the_rows_and_never_a_key(fc) -> None:
    result = fc(
        "providers", "--json", env=clean_env(ANTHROPIC_API_KEY=SECRETS["ANTHROPIC_API_KEY"])
    )
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert sorted(row["name"] for row in rows) == sorted(KNOWN)
    by_name = {row["name"]: row for row in rows}
    assert by_name["anthropic"]["key_set"] is True
    assert by_name["deepseek"]["key_set"] is False
    assert by_name["demo"]["default"] is True
    assert by_name["deepseek"]["base_url"] == "https://api.deepseek.com"
    assert SECRETS["ANTHROPIC_API_KEY"] not in result.stdout


def test_fc_tools_prints_the_chat_tool_definitions(fc) -> None:
    result = fc("tools")
    assert result.returncode == 0, result.stderr
    (tool,) = json.loads(result.stdout)
    assert tool["type"] == "function"
    assert tool["function"]["name"] == "get_weather"
    assert tool["function"]["parameters"]["required"] == ["city"]
    assert "strict" not in tool["function"]


def test_fc_tools_strict_shows_the_strict_form(fc) -> None:
    result = fc("tools", "--strict")
    assert result.returncode == 0, result.stderr
    (tool,) = json.loads(result.stdout)
    assert tool["function"]["strict"] is True
    assert tool["function"]["parameters"]["additionalProperties"] is False


def test_fc_tools_anthropic_prints_input_schema_tools(fc) -> None:
    result = fc("tools", "-f", "anthropic")
    assert result.returncode == 0, result.stderr
    (tool,) = json.loads(result.stdout)
    assert set(tool) == {"name", "description", "input_schema"}
    assert tool["name"] == "get_weather"
    assert tool["input_schema"]["properties"]["city"]["type"] == "string"


TOOLS_WITH_MAX_LENGTH = '''
from typing import Annotated

from pydantic import Field


def lookup(code: Annotated[str, Field(max_length=8)], limit: int = 5) -> str:
    """Look a product code up."""
    return code
'''


def test_fc_tools_strict_on_a_schema_with_max_length_exits_1_naming_it(fc, tmp_path: Path) -> None:
    (tmp_path / "mytools.py").write_text(TOOLS_WITH_MAX_LENGTH, encoding="utf-8")
    result = fc("tools", "--tools", "mytools.py", "--strict", "-f", "anthropic")
    assert result.returncode == 1
    assert "maxLength" in result.stderr
    assert "lookup" in result.stderr
    assert "$.properties.code.maxLength" in result.stderr
    assert "Traceback" not in result.stderr
    # the definitions are still printed, in strict form, so the user sees what was refused
    (tool,) = json.loads(result.stdout)
    assert tool["strict"] is True
    assert tool["input_schema"]["properties"]["code"]["maxLength"] == 8
    assert tool["input_schema"]["properties"]["limit"]["type"] == ["integer", "null"]
