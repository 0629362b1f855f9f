"""`fc serve`'s matching, pure: which recorded step a request is, and what differs when none is."""

from __future__ import annotations

import json
from typing import Any

from fccli.serve.match import RECORDED_SHOWN, Matcher, Miss, normalised, shown
from fccli.serve.recordings import Recorded

RESULT = '{"city": "杭州", "temp_c": 21}'


def chat_request(result: str = RESULT, **extra: Any) -> dict[str, Any]:
    return {
        "model": "gpt-4.1-mini",
        "messages": [
            {"role": "user", "content": "杭州今天适合跑步吗？"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city":"杭州"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": result},
        ],
        "tools": [{"type": "function", "function": {"name": "get_weather"}}],
        **extra,
    }


def first_request(**extra: Any) -> dict[str, Any]:
    body = chat_request(**extra)
    body["messages"] = body["messages"][:1]
    return body


def recorded(label: str, request: dict[str, Any], stream: bool = False, fmt: str = "openai"):
    return Recorded(
        label, fmt, request, f"{label} answer".encode(), b"data: x\n\n" if stream else None
    )


def test_volatile_fields_do_not_count() -> None:
    sent = chat_request(stream=True, stream_options={"include_usage": True})
    # Another client: keys in another order, no `content: null`, the text as one block, the
    # arguments re-serialised with spaces, and ids of its own making.
    other = json.loads(json.dumps(chat_request()).replace("call_1", "call_mine"))
    other["messages"][0]["content"] = [{"type": "text", "text": "杭州今天适合跑步吗？"}]
    del other["messages"][1]["content"]
    other["messages"][1]["tool_calls"][0]["function"]["arguments"] = '{"city": "杭州"}'
    other = dict(reversed(list(other.items())))
    assert normalised(sent) == normalised(other)
    # Numbers by value, not spelling.
    assert Matcher([recorded("s", chat_request(temperature=1))]).find(
        ["openai"], chat_request(temperature=1.0), stream=False
    ) == recorded("s", chat_request(temperature=1))
    assert normalised(chat_request(temperature=0.5)) != normalised(chat_request(temperature=1))


def test_what_the_model_reads_counts() -> None:
    assert normalised(chat_request()) != normalised(chat_request(result="{}"))
    assert normalised(chat_request()) != normalised(chat_request(temperature=0))
    # A result naming another call than the one it answers is not the same history.
    crossed = chat_request()
    crossed["messages"][2]["tool_call_id"] = "call_2"
    assert normalised(chat_request()) != normalised(crossed)


def test_an_id_inside_a_calls_arguments_is_the_tools_data_and_counts() -> None:
    def call(order: str) -> dict[str, Any]:
        block = {"type": "tool_use", "id": "toolu_1", "name": "refund", "input": {"id": order}}
        return {"model": "m", "messages": [{"role": "assistant", "content": [block]}]}

    assert normalised(call("ORD-1")) != normalised(call("ORD-2"))
    renamed = call("ORD-1")
    renamed["messages"][0]["content"][0]["id"] = "toolu_mine"
    assert normalised(renamed) == normalised(call("ORD-1"))


def test_a_request_gets_the_step_it_equals() -> None:
    one, two = recorded("step 1", first_request()), recorded("step 2", chat_request())
    matcher = Matcher([one, two])
    assert matcher.find(["openai"], chat_request(stream=True), stream=False) is two
    assert matcher.find(["openai"], first_request(), stream=False) is one
    # Only the formats answering at the request's path are looked at.
    assert isinstance(matcher.find(["anthropic"], first_request(), stream=False), Miss)


def test_a_request_recorded_twice_is_answered_by_each_recording_in_turn() -> None:
    a, b = recorded("step 1 of a", first_request()), recorded("step 1 of b", first_request())
    matcher = Matcher([a, b])
    got = [matcher.find(["openai"], first_request(), stream=False) for _ in range(3)]
    assert got == [a, b, a]


def test_a_streaming_request_prefers_the_recording_with_the_stream() -> None:
    plain = recorded("step 1 of a", first_request())
    streamed = recorded("step 1 of b", first_request(stream=True), stream=True)
    matcher = Matcher([plain, streamed])
    assert matcher.find(["openai"], first_request(stream=True), stream=True) is streamed
    assert matcher.find(["openai"], first_request(), stream=False) is plain


def test_a_changed_result_names_the_step_the_path_and_the_start_of_both_values() -> None:
    matcher = Matcher([recorded("step 1", first_request()), recorded("step 2", chat_request())])
    miss = matcher.find(["openai"], chat_request(result='{"city": "杭州", "temp_c": 35}'), False)
    assert isinstance(miss, Miss)
    assert miss.closest is not None and miss.closest.label == "step 2"
    assert miss.message == (
        "no recorded step matches this request; step 2 came closest: messages[2].content "
        """differs: recorded '{"city": "杭州", "temp_c"…', got '{"city": "杭州", "temp_c": 35}'"""
    )


def test_an_id_that_differs_is_shown_as_sent() -> None:
    crossed = chat_request()
    crossed["messages"][2]["tool_call_id"] = "call_other"
    miss = Matcher([recorded("step 2", chat_request())]).find(["openai"], crossed, False)
    assert isinstance(miss, Miss)
    assert miss.differences == [
        "messages[2].tool_call_id differs: recorded 'call_1', got 'call_other'"
    ]


def test_closest_is_the_longest_shared_history_before_the_fewest_differences() -> None:
    # Step 1 differs from the request in one field only, but step 2 shares more of its history.
    same_start = chat_request(result="another result")
    same_start["model"] = "another-model"
    one = recorded("step 1", first_request())
    two = recorded("step 2", same_start)
    miss = Matcher([one, two]).find(["openai"], chat_request(), False)
    assert isinstance(miss, Miss) and miss.closest is two
    assert miss.message.endswith("(and 1 more difference)")
    assert "model differs: recorded 'another-model', got 'gpt-4.1-mini'" in miss.differences


def test_missing_and_extra_messages_are_said() -> None:
    matcher = Matcher([recorded("step 2", chat_request())])
    short = chat_request()
    short["messages"] = short["messages"][:2]
    miss = matcher.find(["openai"], short, False)
    assert isinstance(miss, Miss)
    assert miss.differences[0].startswith("messages[2] is missing: recorded '") or (
        miss.differences[0].startswith("messages[2] is missing: recorded {")
    )
    longer = chat_request()
    longer["messages"].append({"role": "user", "content": "再问一次"})
    miss = matcher.find(["openai"], longer, False)
    assert isinstance(miss, Miss)
    assert miss.differences == [
        'messages[3] was not recorded: got {"role": "user", "content": "再问一次"}'
    ]


def test_no_step_in_the_requests_format_says_what_the_traces_hold() -> None:
    miss = Matcher([recorded("step 1", first_request())]).find(["anthropic"], {}, False)
    assert isinstance(miss, Miss) and miss.closest is None
    assert miss.message == (
        "no step of the served traces is in the anthropic format (they hold openai steps)"
    )


def test_values_are_shortened_and_their_control_characters_escaped() -> None:
    assert shown("a\x1b[2Jb\nc") == "'a\\x1b[2Jb\\nc'"
    assert shown("x" * 100) == "'" + "x" * 59 + "…'"
    assert shown({"a": 1}) == '{"a": 1}'
    # The request's long string is shown from a little before where it parts from the recorded
    # one; of the recorded one only its start: a client cannot read a trace out through misses.
    matcher = Matcher([recorded("step 2", chat_request(result="word " * 40 + "end"))])
    miss = matcher.find(["openai"], chat_request(result="word " * 40 + "END"), False)
    assert isinstance(miss, Miss)
    assert "recorded 'word word word word wor…', got '…word word word word END'" in miss.message


def test_misses_never_read_a_recorded_text_out_beyond_its_start() -> None:
    """A client that sends what it learnt of a recorded text, again and again, learns nothing
    past its first characters."""
    secret = "Is it good to run today? my password is hunter2-correct-horse-battery"
    matcher = Matcher([recorded("step 2", chat_request(result=secret))])
    learnt = ""
    for _ in range(10):
        miss = matcher.find(["openai"], chat_request(result=learnt + "?"), False)
        assert isinstance(miss, Miss)
        said = miss.message.split("recorded '", 1)[1].split("'", 1)[0].rstrip("…")
        learnt = max(learnt, said, key=len)
    assert len(learnt) <= RECORDED_SHOWN and "hunter2" not in learnt
