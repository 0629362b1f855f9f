"""A streamed chat-completions answer (OpenAI, DeepSeek, Ollama, vLLM, ...), assembled.

`ChatStreamFolder` takes the body's bytes as they arrive and gives back, once the stream has
ended, exactly the JSON a non-streamed call returns (PROTOCOL.md, "Streaming"): `data: {chunk}`
events whose `choices[0].delta` carries pieces of `content`, of the dialect's reasoning field and
of `tool_calls`, `finish_reason` on the last choice chunk, maybe a usage-only chunk
(`stream_options.include_usage`), then `data: [DONE]`.

How tool-call fragments are routed, and why:

- by `id` first, then by `index`: a provider was seen reusing index 0 for the head of a second
  call (agno-agi/agno PR 8880, DeepSeek), so a head with a new id starts a new call even when its
  index is taken, and later id-less fragments with that index go to the newest call there;
- DeepSeek also sends such heads on index 0 and their argument pieces on an index of their own,
  where no head came: a piece there joins the call its id names, else the first call (in the
  order the heads came) whose head came on a reused index and has no index of its own yet; that
  call then gives its head's index back to the call before it there, with the id-less pieces it
  took through that index (the live deltas of those pieces named the wrong call);
- a known id or name is never overwritten by an empty or missing one: some servers repeat
  `"id": "", "type": ""` on every continuation delta, others repeat the full id (the same call);
- the answer's calls are in the order of their `index`, as in a non-streamed answer, whatever
  order their heads arrived in (calls sharing an index keep their arrival order); positions in
  StreamDelta are the arrival order;
- a call whose `arguments` came as `null` (and never as text) keeps `null` in the assembled
  answer; the chat reader takes it as `{}`.

The stream has ended early, and StreamCut is raised, when the connection was cut (`finish(cut)`),
its last line stopped mid-way, no `finish_reason` came and no `data: [DONE]` either, or no
`[DONE]` came and some call's arguments do not parse. Ollama and older vLLM end with
finish_reason and no `[DONE]`; Kimi K2 through OpenRouter ends with `[DONE]` and never sends a
finish_reason: with every call's arguments whole, both pass, with a note (the missing
finish_reason taken as `tool_calls` when there are calls, else `stop`). A complete stream whose arguments are
not JSON is returned as is: that is the model's mistake, handled as in a non-streamed answer.
"""

from __future__ import annotations

from typing import Any

from fccli.core.errors import StreamCut
from fccli.core.stream import OnDelta, StreamDelta
from fccli.i18n import N_, Msg
from fccli.wire.base import StreamAssembler
from fccli.wire.chat.dialects import OPENAI, ChatDialect
from fccli.wire.shape import parse_arguments
from fccli.wire.sse import (
    ListenerFailed,
    call_label,
    ended_early,
    joined,
    with_incomplete,
)

DONE = "[DONE]"
NO_DONE = Msg("no `data: [DONE]`")

# Keys of a chunk that are not the response's own: `obfuscation` is random padding OpenAI adds
# to stream chunks against side-channel attacks (API reference, stream_options.include_obfuscation).
_NOT_META = frozenset({"choices", "usage", "object", "obfuscation", "error"})
# Reasoning keys seen in the wild besides a dialect's own: DeepSeek's `reasoning_content`,
# `reasoning` (OpenRouter, Ollama's OpenAI-compatible API, newer vLLM).
_REASONING_KEYS = ("reasoning_content", "reasoning")


class _Call:
    __slots__ = (
        "add",
        "args",
        "borrowed",
        "id",
        "index",
        "name",
        "null",
        "own",
        "position",
        "type",
    )

    def __init__(self, position: int, index: Any, call_id: str | None, own: bool) -> None:
        self.position = position
        self.index = index
        """The index its head came on."""
        self.own = index if own else None
        """The index its id-less pieces come on; None while its head's index is another's too."""
        self.borrowed: list[int] = []
        """Where in `args` the id-less pieces taken through a shared head index are."""
        self.id = call_id
        self.name: str | None = None
        self.type: str | None = None
        self.args: list[str] = []
        self.add = self.args.append
        self.null = False
        """The arguments came as `null` (kept so when no text follows)."""

    def arguments(self) -> str:
        """Return the fragments joined (once: the list then holds the whole text)."""
        args = self.args
        if len(args) != 1 or not isinstance(args[0], str):
            args[:] = [joined(args)] if args else []
        return args[0] if args else ""

    def nulled(self) -> bool:
        """Return whether the arguments came as `null` and never as text."""
        return self.null and not self.args

    def order(self) -> tuple[float, int]:
        index = self.index if self.own is None else self.own
        known = isinstance(index, int) and not isinstance(index, bool)
        return (index if known else float("inf"), self.position)

    def label(self) -> str:
        return call_label(self.id if self.id else f"#{self.position + 1}", self.name)


def _position(objs: list[Any], obj: Any) -> int:
    """Return where `obj` is in `objs` (by identity), for an error message or a count."""
    return next(i for i, o in enumerate(objs) if o is obj)


class ChatStreamFolder(StreamAssembler):
    """Feed it the raw bytes of a chat-completions stream; `finish()` gives the answer."""

    after_end_note = N_("{count} event(s) after `data: [DONE]` ignored")

    def __init__(self, dialect: ChatDialect = OPENAI, on_delta: OnDelta | None = None) -> None:
        super().__init__(on_delta, literals=frozenset({DONE}))
        self.dialect = dialect
        self._meta: dict[str, Any] | None = None
        self._meta_final = False
        self._usage: Any = None
        self._role: str | None = None
        self._texts: list[str] = []
        self._reasoning: list[str] = []
        self._refusal: list[str] | None = None
        self._finish: str | None = None
        self._logprobs_key = False
        self._logprobs: dict[str, Any] | None = None
        self._calls: list[_Call] = []
        self._by_id: dict[str, _Call] = {}
        self._by_index: dict[Any, _Call] = {}
        self._heads: dict[Any, list[_Call]] = {}
        """The calls whose head came on each index, in the order they came."""
        self._done = False

    @property
    def ended(self) -> bool:
        return self._done

    # -- folding parsed chunks

    def _fold(self, objs: list[Any]) -> None:
        emit = self._on_delta
        texts_append = self._texts.append
        rfield = self.dialect.reasoning_field
        reasoning_append = self._reasoning.append
        by_id = self._by_id
        by_index = self._by_index
        head = self._head
        finish = self._finish
        usage = self._usage
        meta_final = self._meta_final
        logprobs_key = self._logprobs_key
        obj: Any = None
        try:
            for obj in objs:
                try:
                    choices = obj["choices"]
                except (KeyError, TypeError):
                    if obj == DONE:
                        self._done = True
                        self._after_end += len(objs) - _position(objs, obj) - 1
                        break
                    self._odd(obj)
                    u = obj.get("usage")
                    if u is not None:
                        usage = u
                    continue
                # `in` first: cheaper than .get for a key almost never there.
                if "error" in obj and obj["error"]:  # noqa: RUF019
                    self._raise_error(obj)
                if not meta_final:
                    meta_final = self._take_meta(obj)
                u = obj.get("usage")
                if u is not None:
                    usage = u
                for choice in choices:
                    if choice.get("index"):
                        self._other_choice(choice)
                        continue
                    fr = choice.get("finish_reason")
                    if fr is not None:
                        finish = fr
                    if not logprobs_key:
                        logprobs_key = "logprobs" in choice
                    lp = choice.get("logprobs")
                    if lp is not None:
                        self._merge_logprobs(lp)
                    delta = choice.get("delta")
                    if not delta:
                        continue
                    known = 0
                    tcs = delta.get("tool_calls")
                    if tcs is not None:
                        for tc in tcs:
                            tid = tc.get("id")
                            if tid:
                                call = by_id.get(tid)
                                if call is None:
                                    call = head(tc, tid)
                                elif call.own is None and tc.get("index") not in by_index:
                                    self._bind(call, tc.get("index"))
                            else:
                                call = by_index.get(tc.get("index"))
                                if call is None:
                                    call = self._unheaded(tc)
                            fn = tc.get("function")
                            if fn:
                                if call.name is None and fn.get("name"):
                                    self._late_name(call, fn["name"])
                                args = fn.get("arguments")
                                if args is None and "arguments" in fn:
                                    call.null = True
                                elif args:
                                    if call.own is None and not tid:
                                        call.borrowed.append(len(call.args))
                                    call.add(args)
                                    if emit is not None:
                                        emit(
                                            StreamDelta(
                                                "call", args, call.position, call.id, call.name
                                            )
                                        )
                        if len(delta) == 1:
                            continue
                        known = 1
                    c = delta.get("content")
                    if c is not None:
                        known += 1
                        texts_append(c)
                        if c and emit is not None:
                            emit(StreamDelta("text", c))
                    elif "content" in delta:
                        known += 1
                    if rfield is not None:
                        r = delta.get(rfield)
                        if r is not None:
                            known += 1
                            reasoning_append(r)
                            if r and emit is not None:
                                emit(StreamDelta("thinking", r))
                        elif rfield in delta:
                            known += 1
                    if len(delta) > known:
                        self._other_keys(delta)
        except ListenerFailed as e:
            raise e.error from None
        except (TypeError, AttributeError, KeyError) as e:
            raise self._bad_shape(objs, _position(objs, obj), e) from None
        finally:
            self._finish = finish
            self._usage = usage
            self._meta_final = meta_final
            self._logprobs_key = logprobs_key

    def _head(self, tc: dict[str, Any], tid: str | None) -> _Call:
        """Return the call a fragment with an unknown id, or an id-less one at a free index, opens."""
        index = tc.get("index")
        call = self._by_index.get(index)
        if tid and call is not None and call.id is None and not call.args:
            # The id came after a head without one: still that call.
            call.id = tid
            self._by_id[tid] = call
        else:
            call = _Call(len(self._calls), index, tid or None, own=call is None)
            self._calls.append(call)
            self._by_index[index] = call
            self._heads.setdefault(index, []).append(call)
            if tid:
                self._by_id[tid] = call
        kind = tc.get("type")
        if kind and call.type is None:
            call.type = kind
        fn = tc.get("function")
        name = fn.get("name") if isinstance(fn, dict) else None
        if name and call.name is None:
            call.name = name
        if self._on_delta is not None:
            self._on_delta(StreamDelta("call", "", call.position, call.id, call.name))
        return call

    def _unheaded(self, tc: dict[str, Any]) -> _Call:
        """Return the call an id-less fragment on an index no head came on belongs to."""
        fn = tc.get("function")
        if not (isinstance(fn, dict) and fn.get("name")):
            call = next((c for c in self._calls if c.own is None), None)
            if call is not None:
                self._bind(call, tc.get("index"))
                return call
        return self._head(tc, None)

    def _bind(self, call: _Call, index: Any) -> None:
        """Give `call` the index its pieces come on, and its head's index back to the call
        before it there, with the id-less pieces it took through that index."""
        call.own = index
        self._by_index[index] = call
        if self._by_index.get(call.index) is not call:
            return
        heads = self._heads[call.index]
        earlier = [c for c in heads[: heads.index(call)] if c.own in (None, call.index)]
        if not earlier:
            return
        previous = earlier[-1]
        self._by_index[call.index] = previous
        if call.borrowed:
            taken = set(call.borrowed)
            previous.args.extend(call.args[i] for i in call.borrowed)
            call.args[:] = [a for i, a in enumerate(call.args) if i not in taken]
            call.borrowed.clear()

    def _late_name(self, call: _Call, name: Any) -> None:
        call.name = str(name)
        if self._on_delta is not None:
            self._on_delta(StreamDelta("call", "", call.position, call.id, call.name))

    def _odd(self, obj: dict[str, Any]) -> None:
        """Return a chunk without `choices`: an error (raised), or a usage-only chunk."""
        if obj.get("error"):
            self._raise_error(obj)
        if obj.get("object") == "error":
            # vLLM and FastChat's OpenAI servers put the error at the top level:
            # {"object": "error", "message": ..., "type": ..., "code": ...}.
            self._raise_error({"error": obj})
        if self._meta is None:
            self._take_meta(obj)

    def _take_meta(self, obj: dict[str, Any]) -> bool:
        """Keep the response's own keys (id, created, model, system_fingerprint, ...).

        True once a chunk with an id was read, or one without the key (no better will come):
        Azure OpenAI's first chunk has empty ones (`"id": ""`, `choices: []`,
        `prompt_filter_results`), so a later chunk's win."""
        self._meta = {k: v for k, v in obj.items() if k not in _NOT_META}
        return bool(obj.get("id")) or "id" not in obj

    def _other_choice(self, choice: dict[str, Any]) -> None:
        index = choice.get("index")
        self._note(
            f"choice {index}",
            Msg(
                "the stream carries choice {index}; fc assembles the first choice only", index=index
            ),
        )

    def _merge_logprobs(self, logprobs: Any) -> None:
        # Non-streamed, `logprobs.content` lists every token; streamed, each chunk lists its own.
        if not isinstance(logprobs, dict):
            return
        merged = self._logprobs if self._logprobs is not None else {}
        for key, value in logprobs.items():
            if isinstance(value, list):
                merged.setdefault(key, [])
                if isinstance(merged[key], list):
                    merged[key].extend(value)
            elif key not in merged or merged[key] is None:
                merged[key] = value
        self._logprobs = merged

    def _other_keys(self, delta: dict[str, Any]) -> None:
        role = delta.get("role")
        if role and self._role is None:
            self._role = role
        if "refusal" in delta:
            if self._refusal is None:
                self._refusal = []
            refusal = delta["refusal"]
            if isinstance(refusal, str):
                self._refusal.append(refusal)
                if refusal and self._on_delta is not None:
                    self._on_delta(StreamDelta("text", refusal))
        for key in _REASONING_KEYS:
            value = delta.get(key)
            if key != self.dialect.reasoning_field and isinstance(value, str) and value:
                self._note(
                    key,
                    Msg(
                        "`{key}` deltas arrived, but the {format} format has no reasoning field: "
                        "not kept",
                        key=key,
                        format=self.dialect.name,
                    ),
                )
        if delta.get("function_call"):
            self._note(
                "function_call",
                Msg("`function_call` deltas (the pre-2023 single-function API) arrived: not kept"),
            )

    def _in_index_order(self) -> list[_Call]:
        ordered = sorted(self._calls, key=_Call.order)
        if ordered != self._calls:
            self._note("order", Msg("call heads arrived out of index order; assembled by index"))
        return ordered

    # -- the end

    def finish(self, cut: str | None = None) -> dict[str, Any]:
        """Return the assembled answer, as a non-streamed call returns it; StreamCut if it ended
        early."""
        reasons = self._closing(cut)
        bad = [
            call
            for call in self._calls
            if not call.nulled() and parse_arguments(call.arguments())[1] is not None
        ]
        if not self._done:
            reasons.append(NO_DONE)
        if self._finish is None and self._done and not bad and not reasons:
            self._finish = "tool_calls" if self._calls else "stop"
            self.notes.append(
                Msg(
                    "no finish_reason came before `data: [DONE]`; taken as {finish}",
                    finish=self._finish,
                )
            )
        elif self._finish is None:
            reasons.append(Msg("no finish_reason"))
        body = self._body()
        if reasons and (reasons != [NO_DONE] or bad):
            message = with_incomplete(
                ended_early(self.bytes_received, reasons),
                [(call.label(), call.arguments()) for call in bad],
            )
            raise StreamCut(message, bytes_received=self.bytes_received, partial=body)
        if not self._done:
            self.notes.append(Msg("no `data: [DONE]` line; the stream ended after finish_reason"))
        self._note_after_end()
        return body

    def _whole_last_line(self, line: str) -> bool:
        if line.strip() in ("data: [DONE]", "data:[DONE]") and not self._done:
            self._done = True
            self.notes.append(Msg("the `data: [DONE]` line had no line end"))
            return True
        return False

    def _body(self) -> dict[str, Any]:
        meta = self._meta or {}
        message: dict[str, Any] = {
            "role": self._role or "assistant",
            "content": joined(self._texts) if self._texts else None,
        }
        rfield = self.dialect.reasoning_field
        if rfield is not None and self._reasoning:
            message[rfield] = joined(self._reasoning)
        if self._refusal is not None:
            message["refusal"] = joined(self._refusal) if self._refusal else None
        if self._calls:
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": call.type or "function",
                    "function": {
                        "name": call.name,
                        "arguments": None if call.nulled() else call.arguments(),
                    },
                }
                for call in self._in_index_order()
            ]
        choice: dict[str, Any] = {"index": 0, "message": message}
        if self._logprobs_key or self._logprobs is not None:
            choice["logprobs"] = self._logprobs
        choice["finish_reason"] = self._finish
        body: dict[str, Any] = {}
        for key in ("id", "object", "created", "model"):
            if key == "object":
                body["object"] = "chat.completion"
            elif key in meta:
                body[key] = meta[key]
        body["choices"] = [choice]
        if self._usage is not None:
            body["usage"] = self._usage
        for key, value in meta.items():
            if key not in body:
                body[key] = value
        return body
