"""Which trace a request continues (fccli/proxy/conversations.py), without a server."""

from __future__ import annotations

import asyncio

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
    async def go() -> None:
        conversations = Conversations()
        c = _first_step(conversations)
        found = await conversations.continued("openai", keys_of([QUESTION, ANSWER, RESULTS]))
        assert found is c and c.steps == 2 and c.in_flight is not None

    asyncio.run(go())


def test_the_reasoning_dropped_still_continues_but_another_format_or_a_retry_does_not() -> None:
    async def go() -> None:
        conversations = Conversations()
        c = _first_step(conversations)
        plain = Message(role="assistant", content=[CALL])
        assert (
            await conversations.continued("deepseek", keys_of([QUESTION, plain, RESULTS])) is None
        )
        assert await conversations.continued("openai", keys_of([QUESTION])) is None  # a retry
        assert await conversations.continued("openai", keys_of([QUESTION, plain])) is None
        assert await conversations.continued("openai", keys_of([QUESTION, plain, RESULTS])) is c

    asyncio.run(go())


def test_a_request_waits_for_the_step_it_may_continue() -> None:
    async def go() -> None:
        conversations = Conversations()
        c = Conversation("openai")
        conversations.start(c, keys_of([QUESTION]))  # its answer is still streaming in
        asyncio.get_running_loop().call_later(0.05, conversations.settle, c, ANSWER, False)
        found = await conversations.continued("openai", keys_of([QUESTION, ANSWER, RESULTS]))
        assert found is c and c.steps == 2

    asyncio.run(go())


def test_an_ended_conversation_is_not_continued() -> None:
    async def go() -> None:
        conversations = Conversations()
        c = Conversation("openai")
        conversations.start(c, keys_of([QUESTION]))
        conversations.settle(c, ANSWER, closed=True)
        assert c.closed and c not in conversations.open
        assert await conversations.continued("openai", keys_of([QUESTION, ANSWER, RESULTS])) is None

    asyncio.run(go())
