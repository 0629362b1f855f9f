"""Finding a provider by name, and the default when none is named (CLI.md, `--provider`).

Keys come from the environment only, and are checked here, before a trace is opened: a missing
key is a usage error naming the variable (exit 2), never a request sent without one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import NamedTuple

from fccli.core.errors import UsageError
from fccli.core.secrets import url_secrets
from fccli.i18n import Joined, Msg
from fccli.providers.aws import AUTH as AWS
from fccli.providers.aws import Signer, region, with_region
from fccli.providers.base import Provider
from fccli.providers.demo.model import INFO, DemoProvider
from fccli.providers.profiles import PROFILES, apis_of, profile_for
from fccli.providers.urls import http_url, shown_url

_LISTED = ("demo", "deepseek", "openai", "anthropic", "ollama", "gemini", "bedrock")


class _Known:
    """The providers' names, read from the profiles each time: a profile added to PROFILES is
    a provider (tests/wire/test_toy_format.py adds one)."""

    def __iter__(self) -> Iterator[str]:
        yield from _LISTED
        yield from (name for name in PROFILES if name not in _LISTED)

    def __contains__(self, name: object) -> bool:
        return name == "demo" or name in PROFILES


KNOWN = _Known()


# A NamedTuple, not a dataclass: start-up.
class Connection(NamedTuple):
    """How to reach a real provider, from the command line and the environment."""

    base_url: str | None = None
    """--base-url; else $FC_BASE_URL; else the provider's own."""
    strict: bool = False
    retries: int = 3
    timeout: float = 600.0
    """How long one answer may take in all, in seconds (--timeout)."""
    max_response_bytes: int = 64 * 1024 * 1024
    """The most bytes of one answer fc reads (--max-response-mb)."""
    api: str | None = None
    """--api: the format to speak (DeepSeek: chat or anthropic); None: the provider's own."""
    model: str | None = None
    """The model, for a provider that names it in the URL (Gemini); None: its default."""
    region: str | None = None
    """--region: where an AWS provider is reached (Bedrock); None: $AWS_REGION, else us-east-1."""


def default_provider_name() -> str:
    """Return `$FC_PROVIDER`; else `deepseek` when `DEEPSEEK_API_KEY` is set; else the offline
    `demo`."""
    named = os.environ.get("FC_PROVIDER")
    if named:
        return named
    if os.environ.get("DEEPSEEK_API_KEY"):
        return "deepseek"
    return "demo"


def wire_format_of(name: str) -> str:
    """Return the wire format a provider speaks (the demo model speaks DeepSeek's)."""
    if name == "demo":
        return INFO.wire_format
    return PROFILES[name].wire_format


def resolve_base_url(
    name: str,
    explicit: str | None,
    *,
    strict: bool = False,
    api: str | None = None,
    region: str | None = None,
) -> str:
    profile = profile_for(name, api)
    if explicit is not None and not explicit.strip():
        raise UsageError(
            Msg("--base-url is empty"), hint=Msg("e.g. --base-url http://127.0.0.1:8000")
        )
    chosen = explicit or os.environ.get("FC_BASE_URL")
    if chosen:
        _check_url(chosen, name)
        return chosen
    if strict and profile.strict_base_url:
        return profile.strict_base_url
    return with_region(profile.base_url, region)


def _check_url(url: str, name: str) -> None:
    parts = http_url(url, "base URL", "--base-url")
    if parts.password is not None and PROFILES[name].key_env is not None:
        # httpx would turn user:password into Basic auth, replacing the key's header.
        raise UsageError(
            Msg(
                "the base URL carries a user and password, but {name} sends its key from "
                "${key_env}",
                name=name,
                key_env=PROFILES[name].key_env,
            ),
            hint=Msg("remove user:password@ from the URL"),
        )


def read_key(name: str) -> str | None:
    env = PROFILES[name].key_env
    if env is None:
        return None
    key = os.environ.get(env, "").strip()
    if not key and PROFILES[name].auth == AWS:
        return None  # the request is signed with AWS credentials instead (providers/aws.py)
    if not key:
        raise UsageError(
            Msg("{name} needs a key in ${env}, which is empty", name=name, env=env)
            if env in os.environ
            else Msg("{name} needs a key in ${env}, which is not set", name=name, env=env),
            hint=Msg(
                "export {env}=... (fc reads keys from the environment only), "
                "or run offline with -p demo",
                env=env,
            ),
        )
    if not (key.isascii() and key.isprintable()):
        # A header cannot carry it, and an HTTP library's error would quote it: said here,
        # without the value.
        raise UsageError(
            Msg(
                "${env} holds characters a key cannot have (a line break, curly quotes, ...)",
                env=env,
            ),
            hint=Msg("set {env} again, copying the key alone", env=env),
        )
    return key


def get_provider(
    name: str,
    *,
    connection: Connection | None = None,
    demo_fault: str | None = None,
    demo_skill: str = "strong",
) -> Provider:
    if name == "demo":
        return DemoProvider(fault=demo_fault, skill=demo_skill)
    if name not in PROFILES:
        raise UsageError(
            Msg("unknown provider {provider!r}", provider=name),
            hint=Msg("known providers: {providers}", providers=", ".join(KNOWN)),
        )
    connection = connection or Connection()
    profile = profile_for(name, connection.api)
    key = read_key(name)
    base_url = resolve_base_url(
        name,
        connection.base_url,
        strict=connection.strict,
        api=connection.api,
        region=connection.region,
    )
    # httpx is imported only here: `fc --help` and the offline demo never pay for it.
    from fccli.providers.http import HttpProvider
    from fccli.providers.transport import Transport, TransportSettings, needs_tls

    where = connection.region or region()
    signer = Signer(profile.signing_name, where) if profile.auth == AWS and not key else None

    # A password in the URL (http://user:secret@host, also as the Basic auth it becomes) and a
    # key in its query string are secrets too: masked like a key.
    transport = Transport(
        TransportSettings(
            retries=connection.retries,
            read_timeout=connection.timeout,
            max_response_bytes=connection.max_response_bytes,
            tls=needs_tls(base_url),
        ),
        secrets=[
            s for s in (key, *url_secrets(base_url), *(signer.secrets() if signer else ())) if s
        ],
    )
    return HttpProvider(
        profile,
        base_url,
        transport,
        strict=connection.strict,
        key=key,
        model=connection.model,
        signer=signer,
    )


def describe_providers() -> list[dict[str, str | bool | list[str] | None]]:
    """Return every provider as a row for `fc providers`: where it is, its key (set or not, never
    its value) and what it supports. Reads the environment; sends nothing."""

    default = default_provider_name()
    rows: list[dict[str, str | bool | list[str] | None]] = [
        {
            "name": "demo",
            "default": default == "demo",
            "wire_format": INFO.wire_format,
            "default_model": INFO.default_model,
            "base_url": Msg("offline (built in)"),
            "key_env": None,
            "key_set": None,
            "thinking": Msg("as DeepSeek: on by default, --no-thinking turns it off"),
            "tool_choice": Msg("auto, none, required, NAME (thinking mode: auto, none only)"),
            "strict": Msg(
                "sent in the wire files; the demo model writes null for optional values, "
                "as strict mode asks"
            ),
            "parallel_control": "parallel_tool_calls: false",
            "streaming": Msg("SSE as DeepSeek sends it, arguments in 5-character fragments"),
            "other_models": [],
            "effort": Msg(
                "as DeepSeek: reasoning_effort low, high, max "
                "(the demo writes it, and answers alike)"
            ),
            "apis": ["chat"],
        }
    ]
    for profile in PROFILES.values():
        env_url = os.environ.get("FC_BASE_URL")
        rows.append(
            {
                "name": profile.name,
                "default": default == profile.name,
                "wire_format": profile.wire_format,
                "default_model": profile.default_model,
                "base_url": Msg("{url} (from $FC_BASE_URL)", url=shown_url(env_url))
                if env_url
                else with_region(profile.base_url),
                "key_env": profile.key_env,
                "key_set": bool(os.environ.get(profile.key_env, "").strip())
                if profile.key_env
                else None,
                "thinking": profile.thinking or Msg("no switch"),
                "tool_choice": _listed(profile.tool_choices),
                "strict": profile.strict,
                "parallel_control": profile.parallel_control,
                "streaming": profile.streaming,
                "other_models": list(profile.other_models),
                "effort": _effort_text(profile.name),
                "apis": [_api_text(profile.name, api) for api in apis_of(profile.name)],
            }
        )
    return rows


def _api_text(name: str, api: str) -> str:
    """Return `responses (https://api.openai.com/v1, model gpt-5-mini)`: where an --api goes, and
    its default model when it is not the provider's own."""
    spoken = profile_for(name, api)
    model = spoken.default_model
    own = PROFILES[name].default_model
    if model == own:
        return Msg("{api} ({url})", api=api, url=with_region(spoken.base_url))
    return Msg(
        "{api} ({url}, model {model})", api=api, url=with_region(spoken.base_url), model=model
    )


def _effort_text(name: str) -> str:
    """Return where --effort goes, per --api, and its levels: `reasoning_effort: low, high, max`."""

    spoken = [profile_for(name, api) for api in apis_of(name)]
    if not spoken[0].efforts:
        return Msg("none")
    if len(spoken) == 1:
        field = spoken[0].effort_field
    else:
        field = Joined(
            [Msg("{field} (--api {api})", field=p.effort_field, api=p.api) for p in spoken], ", "
        )
    return Msg("{field}: {levels}", field=field, levels=Joined(spoken[0].efforts, ", "))


def _listed(items: tuple[str, ...]) -> str:
    """Return `a, b, c`, each item said in the chosen language where printed (a Msg among them)."""
    joined = items[0]
    for item in items[1:]:
        # i18n: the items of a list, one after the other
        joined = Msg("{first}, {then}", first=joined, then=item)
    return joined
