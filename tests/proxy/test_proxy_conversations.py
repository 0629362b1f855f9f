"""Which trace a request continues (fccli/proxy/conversations.py), without a server."""

from __future__ import annotations

from fccli.core.models import Message, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock
from fccli.proxy.conversations import Conversation, Conversations, keys_of

QUESTION = Message(role="user", content=[TextBlock(text="北京呢？")])
CALL = ToolUseBlock(id="c1", name="get_weather", input={"city": "北京"})
ANSWER = Message(role="assistant", content=[ThinkingBlock(thinking="查一下"), CALL])
RESULTS = Message(role="user", content=[ToolResultBlock(tool_use_id="c1", content="晴")])


def _first_step(conversations: Conversations) -> Conversation:
    c = Conversation("openai")
    conversations.start(c, keys_of([QUESTION]))
    conversations.settle(c, ANSWER, closed=False)
    return c


def test_a_request_going_on_from_an_answer_is_the_next_step() -> None:
    conversations = Conversations()
    c = _first_step(conversations)
    keys = keys_of([QUESTION, ANSWER, RESULTS])
    assert conversations.blocker("openai", keys) is None
    found = conversations.continued("openai", keys)
    assert found is c and c.steps == 2 and c.in_flight


def test_the_reasoning_dropped_still_continues_but_another_format_or_a_retry_does_not() -> None:
    conversations = Conversations()
    c = _first_step(conversations)
    plain = Message(role="assistant", content=[CALL])
    assert conversations.continued("deepseek", keys_of([QUESTION, plain, RESULTS])) is None
    assert conversations.continued("openai", keys_of([QUESTION])) is None  # a retry
    assert conversations.continued("openai", keys_of([QUESTION, plain])) is None
    assert conversations.continued("openai", keys_of([QUESTION, plain, RESULTS])) is c


def test_a_request_waits_for_the_step_it_may_continue() -> None:
    conversations = Conversations()
    c = Conversation("openai")
    conversations.start(c, keys_of([QUESTION]))  # its answer is still streaming in
    keys = keys_of([QUESTION, ANSWER, RESULTS])
    assert conversations.blocker("openai", keys) is c
    assert conversations.blocker("openai", keys_of([QUESTION, ANSWER])) is None  # a retry
    assert conversations.blocker("deepseek", keys) is None
    conversations.settle(c, ANSWER, False)
    assert conversations.blocker("openai", keys) is None
    found = conversations.continued("openai", keys)
    assert found is c and c.steps == 2


def test_an_ended_conversation_is_not_continued() -> None:
    conversations = Conversations()
    c = Conversation("openai")
    conversations.start(c, keys_of([QUESTION]))
    conversations.settle(c, ANSWER, closed=True)
    assert c.closed and c not in conversations.open
    assert conversations.continued("openai", keys_of([QUESTION, ANSWER, RESULTS])) is None


def test_two_agents_asking_the_same_each_continue_their_own_trace() -> None:
    conversations = Conversations()
    first, second = _first_step(conversations), _first_step(conversations)  # the same digests
    keys = keys_of([QUESTION, ANSWER, RESULTS])
    taken = [conversations.continued("openai", keys) for _ in range(3)]
    assert taken[:2] == [first, second] and taken[2] is None  # each once, then a new one
    conversations.settle(first, None, closed=False)  # no answer: it ends
    assert first.closed and conversations.continued("openai", keys) is None
    conversations.settle(second, ANSWER, closed=False)
    further = keys_of([QUESTION, ANSWER, RESULTS, ANSWER, RESULTS])
    assert conversations.continued("openai", further) is second and second.steps == 3
    third = _first_step(conversations)
    assert conversations.idle(-1) == [third] and conversations.continued("openai", keys) is None
