"""Anthropic's Messages API (``POST /v1/messages``) over a chat-completions upstream.

Sans-IO: ``chat_request`` (``messages_request.py``, re-exported here) turns a Messages
request into the chat-completions request the proxy's upstream path takes, and
``MessagesWire`` turns the streamcall events parsed from the upstream's answer into
Anthropic's event stream, or (``message_answer``) into the ``message`` object.

The request: ``messages_request.py``.

The stream: ``message_start`` (usage ``input_tokens: 0``: the upstream reports usage
only at the end), ``ping``, then content blocks indexed from 0 in the order they come:
``content_block_start`` (``text``, ``thinking`` with an empty ``signature``, ``tool_use``
with the parser's ``toolu_`` id (an upstream's own id, in ``pass`` mode, gets the prefix)
and ``input: {}``), ``content_block_delta``
(``text_delta``, ``thinking_delta``, ``input_json_delta`` with the arguments as they
stream; a thinking block ends with a ``signature_delta`` of ``""``: streamcall signs
nothing, and ignores signatures sent back), ``content_block_stop``; then
``message_delta`` (``stop_reason``: ``tool_use`` once a call the model finished was made,
``max_tokens`` at the token limit, ``stop_sequence`` (with ``stop_sequence``), else
``end_turn``; the usage: ``input_tokens``, ``output_tokens``, and
``cache_read_input_tokens`` when the upstream reported cached tokens, which
``input_tokens`` then leaves out, as Anthropic counts them; ``streamcall:
{"rejected_chunks": N}`` when upstream chunks were rejected) and ``message_stop``. A stream
that breaks ends with ``event: error`` (``api_error``, what happened). A call the model did
not finish streams its ``input_json_delta`` as the model wrote it, with no closing (the
proxy's ``WrittenCalls``); the whole message leaves it out of ``content`` and lists it in
``streamcall.incomplete_calls`` (its name, id and arguments as written): not a call to run.

State: the message id, the open block, the blocks so far, the finish reason, the usage.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from streamcall.events import (
    Event,
    Finish,
    Reasoning,
    Text,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)
from streamcall.server.api import (
    Call,
    Parsed,
    answer_events,
    error_message,
    matched_stop,
    new_id,
)
from streamcall.server.messages_request import IGNORED, chat_request
from streamcall.sse import SSEEncoder

__all__ = ["IGNORED", "MessagesWire", "anthropic_error", "chat_request", "message_answer"]

_ENCODER = SSEEncoder()
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    405: "invalid_request_error",
    413: "request_too_large",
    429: "rate_limit_error",
}
_STOP_REASONS = {
    "tool_calls": "tool_use",
    "length": "max_tokens",
    "stop": "end_turn",
    "content_filter": "refusal",
}


def anthropic_error(status: int, body: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI-shaped error body in Anthropic's shape, its type from the status."""
    kind = _ERROR_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")
    error: dict[str, Any] = {"type": kind, "message": error_message(body)}
    inner = body.get("error")
    if isinstance(inner, Mapping) and isinstance(inner.get("details"), Mapping):
        error["details"] = dict(inner["details"])
    return {"type": "error", "error": error}


# -- the answer -----------------------------------------------------------------------------


def usage_json(ev: UsageEvent | None) -> dict[str, Any]:
    """A usage event as Anthropic's ``usage``."""
    if ev is None:
        return {"input_tokens": 0, "output_tokens": 0}
    out: dict[str, Any] = {
        "input_tokens": max(ev.prompt_tokens - ev.cached_tokens, 0),
        "output_tokens": ev.completion_tokens,
    }
    if ev.cached_tokens:
        out["cache_read_input_tokens"] = ev.cached_tokens
    return out


class MessagesWire:
    """One message: streamcall events in, Anthropic's stream events (SSE bytes) out."""

    def __init__(self, call: Call, model: str, *, message_id: str | None = None) -> None:
        self.model = model
        self.id = message_id or new_id("msg_")
        self.blocks: list[dict[str, Any]] = []  # by index, as they stand
        self.open: int | None = None  # the open text or thinking block
        self.calls: dict[int, int] = {}  # event call index -> block index
        self.args: dict[int, list[str]] = {}  # block index -> argument pieces
        self.made_calls = False  # a call the model finished was made
        self.cut: list[int] = []  # blocks of calls that ended incomplete
        self.reason: str | None = None
        self.matched: str | None = None  # the client's stop sequence that ended the answer
        self.usage: UsageEvent | None = None
        self._out: list[dict[str, Any]] = []

    # -- the Wire protocol ------------------------------------------------------------------

    def start(self) -> bytes:
        message = self.message()
        message["content"] = []
        message["stop_reason"] = None
        self._emit({"type": "message_start", "message": message})
        self._emit({"type": "ping"})
        return self._take()

    def feed(self, events: list[Event], rejected: int = 0) -> bytes:
        self.apply(events)
        return self._take()

    def end(self, reason: str | None, rejected: int = 0, stop: str | None = None) -> bytes:
        self.close(reason)
        self.matched = stop
        delta: dict[str, Any] = {
            "type": "message_delta",
            "delta": {"stop_reason": self.stop_reason(), "stop_sequence": self.stop_sequence()},
            "usage": usage_json(self.usage),
        }
        if rejected:
            delta["streamcall"] = {"rejected_chunks": rejected}
        self._emit(delta)
        self._emit({"type": "message_stop"})
        return self._take()

    def fail(self, error: Mapping[str, Any]) -> bytes:
        self.close(None)
        self._emit(
            {"type": "error", "error": {"type": "api_error", "message": error_message(error)}}
        )
        return self._take()

    # -- events -----------------------------------------------------------------------------

    def apply(self, events: list[Event]) -> None:
        for ev in events:
            if isinstance(ev, Text | Reasoning):
                if not ev.text:
                    continue
                kind = "text" if isinstance(ev, Text) else "thinking"
                index = self.open
                if index is None or self.blocks[index]["type"] != kind:
                    index = self._start(
                        {"type": "text", "text": ""}
                        if kind == "text"
                        else {"type": "thinking", "thinking": "", "signature": ""}
                    )
                    self.open = index
                block = self.blocks[index]
                block[kind] += ev.text
                delta = (
                    {"type": "text_delta", "text": ev.text}
                    if kind == "text"
                    else {
                        "type": "thinking_delta",
                        "thinking": ev.text,
                    }
                )
                self._emit({"type": "content_block_delta", "index": index, "delta": delta})
            elif isinstance(ev, ToolCallStart):
                # Anthropic's ids start with toolu_ (an upstream's own, in pass mode, may not)
                ident = ev.id if ev.id.startswith("toolu_") else f"toolu_{ev.id}"
                index = self._start({"type": "tool_use", "id": ident, "name": ev.name, "input": {}})
                self.calls[ev.index] = index
                self.args[index] = []
            elif isinstance(ev, ToolCallArgs):
                found = self.calls.get(ev.index)
                if found is not None and ev.delta:
                    self.args[found].append(ev.delta)
                    delta = {"type": "input_json_delta", "partial_json": ev.delta}
                    self._emit({"type": "content_block_delta", "index": found, "delta": delta})
            elif isinstance(ev, ToolCallEnd):
                found = self.calls.pop(ev.index, None)
                if found is not None:
                    if ev.incomplete:
                        self.cut.append(found)
                    else:
                        self.made_calls = True
                    self._stop_call(found, ev.arguments, ev.incomplete)
            elif isinstance(ev, Finish):
                if ev.choice == 0:
                    self.reason = ev.reason
            elif isinstance(ev, UsageEvent):
                self.usage = ev
            # StreamError: reported by the server, out of band

    def close(self, reason: str | None) -> None:
        """Stops every open block."""
        if reason is not None:
            self.reason = reason
        self._stop_open()
        for index in list(self.calls.values()):
            self.cut.append(index)
            self._stop_call(index, "".join(self.args.get(index, [])), True)
        self.calls.clear()

    def stop_reason(self) -> str:
        if self.reason == "length":
            return "max_tokens"
        if self.made_calls:
            return "tool_use"
        if self.stop_sequence() is not None:
            return "stop_sequence"
        return _STOP_REASONS.get(self.reason or "stop", "end_turn")

    def stop_sequence(self) -> str | None:
        """The client's stop sequence that ended the answer, when the upstream said which
        (``stop_reason`` in vLLM's choices, ``matched_stop`` in SGLang's)."""
        if self.matched is not None and self.reason in (None, "stop") and not self.made_calls:
            return self.matched
        return None

    def message(self) -> dict[str, Any]:
        """The ``message`` object as it stands."""
        return {
            "id": self.id,
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": [dict(block) for block in self.blocks],
            "stop_reason": self.stop_reason(),
            "stop_sequence": self.stop_sequence(),
            "usage": usage_json(self.usage),
        }

    # -- blocks -----------------------------------------------------------------------------

    def _start(self, block: dict[str, Any]) -> int:
        self._stop_open()
        index = len(self.blocks)
        self.blocks.append(block)
        self._emit({"type": "content_block_start", "index": index, "content_block": dict(block)})
        return index

    def _stop_open(self) -> None:
        index = self.open
        if index is None:
            return
        self.open = None
        if self.blocks[index]["type"] == "thinking":
            delta = {"type": "signature_delta", "signature": ""}
            self._emit({"type": "content_block_delta", "index": index, "delta": delta})
        self._emit({"type": "content_block_stop", "index": index})

    def _stop_call(self, index: int, arguments: str, incomplete: bool = False) -> None:
        try:
            value = json.loads(arguments) if arguments.strip() and not incomplete else {}
        except ValueError:
            value = {}
        self.blocks[index]["input"] = value if isinstance(value, dict) else {}
        if incomplete:
            self.blocks[index]["arguments"] = arguments  # what the model wrote
        self._emit({"type": "content_block_stop", "index": index})

    # -- output -----------------------------------------------------------------------------

    def _emit(self, event: dict[str, Any]) -> None:
        self._out.append(event)

    def _take(self) -> bytes:
        out = b"".join(_ENCODER.encode_json(ev, event=ev["type"]) for ev in self._out)
        self._out.clear()
        return out


def message_answer(
    call: Call, answer: dict[str, Any], parsed: list[Parsed], rejected: int
) -> dict[str, Any]:
    """The whole ``message`` object: the first choice's events run through the wire."""
    wire = MessagesWire(call, str(call.context.get("model") or ""))
    events, reason = answer_events(answer, parsed)
    wire.apply(events)
    wire.close(reason)
    wire.matched = matched_stop(parsed[0].choice if parsed else None, call.stop)
    out = wire.message()
    extra: dict[str, Any] = {}
    if wire.cut:
        # a call the model did not finish is not one to run: not a tool_use block
        cut = [out["content"][index] for index in wire.cut]
        out["content"] = [b for i, b in enumerate(out["content"]) if i not in set(wire.cut)]
        extra["incomplete_calls"] = [
            {"id": b["id"], "name": b["name"], "arguments": b["arguments"]} for b in cut
        ]
    for block in out["content"]:
        block.pop("arguments", None)
    if rejected:
        extra["rejected_chunks"] = rejected
    if extra:
        out["streamcall"] = extra
    return out
