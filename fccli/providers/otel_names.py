"""OpenTelemetry's names of providers (`gen_ai.provider.name`, the older `gen_ai.system`,
OpenInference's `llm.provider`) as fc's profiles: which provider a span file's calls went to,
and so which wire format `fc import` writes them in."""

from __future__ import annotations

from fccli.providers.profiles import PROFILES, Profile

ALIASES = {
    # the conventions' well-known values that are not fc's names, and older spellings
    "azure.ai.openai": "openai",
    "az.ai.openai": "openai",
    "mistral_ai": "mistral",
    "mistralai": "mistral",
    "gcp.vertex_ai": "gemini",
    "gcp.gen_ai": "gemini",
    "vertex_ai": "gemini",
    "google": "gemini",
    "aws_bedrock": "bedrock",
}
PLAIN_CHAT = "openai"
"""The profile whose format a call is written in when its provider is none fc knows: chat."""

_MODEL_PREFIXES = (("claude", "anthropic"), ("gemini", "gemini"))


def profile_of(name: str | None) -> Profile | None:
    """Return the profile OpenTelemetry's provider name `name` means; None when fc has none."""
    if not name:
        return None
    for profile in PROFILES.values():
        if name in (profile.name, profile.otel_name):
            return profile
    alias = ALIASES.get(name)
    return PROFILES.get(alias) if alias is not None else None


def profile_of_model(model: str) -> Profile | None:
    """Return the profile a model's name says (`claude-...`: Anthropic's), for a log that names
    no provider; None when the name says none."""
    for prefix, name in _MODEL_PREFIXES:
        if model.startswith(prefix) or f"/{prefix}" in model:
            return PROFILES[name]
    return None


def plain_chat() -> Profile:
    return PROFILES[PLAIN_CHAT]
