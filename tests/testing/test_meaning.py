"""What the pytest plugin compares (fccli/testing/meaning.py): two senders of one conversation
mean the same; what the model reads, and fields only the wire has, count; what the test edited
or named does not. And the hosts its guard refuses (fccli/testing/network.py)."""

from __future__ import annotations

import json
import socket
from typing import Any

import pytest

from fccli.testing.meaning import Edits, meaning
from fccli.testing.network import Guard, provider_hosts


def chat(call_id: str = "call_a", result: str = '{"temp_c": 12}', **extra: Any) -> dict[str, Any]:
    return {
        "model": "gpt-4.1-mini",
        "messages": [
            {"role": "user", "content": "Beijing?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Beijing"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": call_id, "content": result},
        ],
        "tools": [
            {
                "type": "function",
                "function": {"name": "get_weather", "parameters": {"type": "object"}},
            }
        ],
        **extra,
    }


def same(a: dict[str, Any], b: dict[str, Any], fmt: str = "openai", edits: Edits | None = None):
    edits = edits or Edits()
    return meaning(fmt, a, edits) == meaning(fmt, b, edits)


def test_ids_key_order_spacing_and_stream_do_not_count() -> None:
    other = chat("call_zz9")
    other["messages"][1]["tool_calls"][0]["function"]["arguments"] = '{"city":"Beijing"}'
    reordered = json.loads(json.dumps(dict(reversed(list(other.items())))))
    assert same(chat(), {**reordered, "stream": False})


def test_a_result_counts_unless_its_tool_was_edited() -> None:
    hotter = chat(result='{"temp_c": 31}')
    assert not same(chat(), hotter)
    assert same(chat(), hotter, edits=Edits(tools={"get_weather"}))
    assert same(chat(), hotter, edits=Edits(tools={"*"}))
    assert not same(chat(), hotter, edits=Edits(tools={"pack_for"}))


def test_fields_only_the_wire_has_count_unless_ignored() -> None:
    tagged = chat(metadata={"run": "7f3a"}, temperature=0.5)
    sent = meaning("openai", tagged, Edits())
    assert sent["wire_only"] == {"metadata": {"run": "7f3a"}, "temperature": 0.5}
    assert not same(chat(temperature=0.5), tagged)
    assert same(chat(temperature=0.5), tagged, edits=Edits(ignored={"metadata"}))
    assert same(chat(), chat(user="u1", max_tokens=9), edits=Edits(ignored={"user", "max_tokens"}))
    assert not same(chat(), chat(temperature=0.5))


def test_anthropic_text_as_a_string_or_a_block_means_the_same() -> None:
    a = {
        "model": "claude-haiku-4-5",
        "max_tokens": 99,
        "messages": [{"role": "user", "content": "hi"}],
    }
    b = {**a, "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}
    assert same(a, b, "anthropic")
    assert not same(a, {**a, "max_tokens": 100}, "anthropic")


def test_the_guard_refuses_the_providers_hosts_and_only_while_on() -> None:
    hosts = provider_hosts()
    for host in ("api.openai.com", "api.anthropic.com", "api.deepseek.com"):
        assert host in hosts
    guard = Guard(hosts)
    assert guard.blocks("generativelanguage.googleapis.com")
    assert guard.blocks("bedrock-runtime.eu-west-1.amazonaws.com")
    assert not guard.blocks("localhost") and not guard.blocks("example.org")
    original = socket.getaddrinfo
    with guard, pytest.raises(socket.gaierror):
        socket.getaddrinfo("API.OpenAI.com.", 443)
    assert socket.getaddrinfo is original
    assert guard.hits == ["API.OpenAI.com."]
    assert not Guard(hosts, allowed=["api.openai.com"]).blocks("api.openai.com")
