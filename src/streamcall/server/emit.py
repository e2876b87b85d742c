"""Events to OpenAI ``chat.completion.chunk`` dicts, and a parsed message to a response.

Sans-IO and free of any server dependency: ``ChunkEmitter.chunks(events)`` turns one batch
of ``streamcall`` events into the chunk dicts a client of the OpenAI API expects:

- ``Text`` -> ``delta.content``; ``Reasoning`` -> ``delta.reasoning_content``;
  adjacent deltas of the same kind in one batch are joined into one chunk.
- ``ToolCallStart`` -> a ``tool_calls`` fragment with ``index``, ``id``, ``type`` and
  ``function.name`` (and ``arguments: ""``); ``ToolCallArgs`` -> a fragment with only
  ``index`` and ``function.arguments``, sent as it arrives, before the call ends.
- ``Finish`` -> an empty delta with ``finish_reason`` (``tool_calls`` once a call the
  model finished was made; a call that ended incomplete leaves the upstream's reason).
- ``UsageEvent`` -> a usage chunk (``choices: []``), as OpenAI sends it, with the whole
  usage object the upstream sent (details and provider members included).
- ``StreamError`` -> no chunk: kept in ``errors`` for the server to report out of band.

State: the envelope (id, created, model), whether the role and the finish were sent, how
many calls were made, and the errors seen. Nothing else is held.

``ChatWire`` is the emitter as the proxy's ``Wire`` for chat completions (``server/api.py``):
the chunks as SSE bytes, the count of rejected upstream chunks in the finish chunk's
``streamcall`` member, a finish chunk of its own when the upstream sent none, an error
event when the stream broke, and ``data: [DONE]`` last.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from streamcall.chunks import Message
from streamcall.events import (
    Event,
    Finish,
    Reasoning,
    StreamError,
    Text,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)
from streamcall.sse import SSEEncoder

__all__ = ["ChatWire", "ChunkEmitter", "message_json"]

_ENCODER = SSEEncoder()


class ChunkEmitter:
    """One response's chunks: events in, ``chat.completion.chunk`` dicts out."""

    __slots__ = ("calls", "created", "cut", "errors", "finished", "id", "model", "role_sent")

    def __init__(self, completion_id: str, model: str, created: int | None = None) -> None:
        self.id = completion_id
        self.model = model
        self.created = int(time.time()) if created is None else created
        self.role_sent = False
        self.finished = False
        self.calls = 0
        self.cut = 0  # calls that ended incomplete
        self.errors: list[StreamError] = []

    def _chunk(self, delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }

    def start(self) -> dict[str, Any]:
        """The first chunk: the assistant role, no content yet."""
        self.role_sent = True
        return self._chunk({"role": "assistant", "content": ""})

    def chunks(self, events: list[Event]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        delta: dict[str, Any] | None = None  # the open chunk's delta, while it can grow
        kind = ""
        for ev in events:
            if isinstance(ev, Text | Reasoning):
                key = "content" if isinstance(ev, Text) else "reasoning_content"
                if delta is not None and kind == key:
                    delta[key] += ev.text
                else:
                    delta = {key: ev.text}
                    kind = key
                    out.append(self._chunk(delta))
            elif isinstance(ev, ToolCallStart):
                self.calls += 1
                fragment = {
                    "index": ev.index,
                    "id": ev.id,
                    "type": "function",
                    "function": {"name": ev.name, "arguments": ""},
                }
                delta = {"tool_calls": [fragment]}
                kind = f"call{ev.index}"
                out.append(self._chunk(delta))
            elif isinstance(ev, ToolCallArgs):
                if delta is not None and kind == f"call{ev.index}":
                    delta["tool_calls"][0]["function"]["arguments"] += ev.delta
                else:
                    fragment = {"index": ev.index, "function": {"arguments": ev.delta}}
                    delta = {"tool_calls": [fragment]}
                    kind = f"call{ev.index}"
                    out.append(self._chunk(delta))
            elif isinstance(ev, Finish):
                if ev.choice != 0 or self.finished:
                    continue
                out.append(self._chunk({}, self.finish_reason(ev.reason)))
                self.finished = True
                delta, kind = None, ""
            elif isinstance(ev, UsageEvent):
                out.append(
                    {
                        "id": self.id,
                        "object": "chat.completion.chunk",
                        "created": self.created,
                        "model": self.model,
                        "choices": [],
                        "usage": ev.to_dict(),
                    }
                )
                delta, kind = None, ""
            elif isinstance(ev, StreamError):
                self.errors.append(ev)
            elif isinstance(ev, ToolCallEnd) and ev.incomplete:
                # no chunk (the arguments were all sent as they arrived): counted
                self.cut += 1
        return out

    def finish_reason(self, reason: str | None) -> str:
        """``tool_calls`` once a call the model finished was made, else the upstream's."""
        if self.calls > self.cut and reason in (None, "stop"):
            return "tool_calls"
        return reason or "stop"

    def final(self, reason: str | None = None) -> dict[str, Any]:
        """A finish chunk, for a stream whose upstream never sent a finish reason."""
        self.finished = True
        return self._chunk({}, self.finish_reason(reason))


class ChatWire:
    """One chat-completions stream: ``ChunkEmitter``'s chunks as SSE bytes."""

    __slots__ = ("emitter",)

    def __init__(self, completion_id: str, model: str) -> None:
        self.emitter = ChunkEmitter(completion_id, model)

    def start(self) -> bytes:
        return _ENCODER.encode_json(self.emitter.start())

    def feed(self, events: list[Event], rejected: int) -> bytes:
        chunks = self.emitter.chunks(events)
        self.emitter.errors.clear()  # the server reports them, as SSE comments
        parts: list[bytes] = []
        for chunk in chunks:
            if rejected:
                choices = chunk.get("choices")
                if choices and choices[0].get("finish_reason"):
                    chunk["streamcall"] = {"rejected_chunks": rejected}
            parts.append(_ENCODER.encode_json(chunk))
        return b"".join(parts)

    def end(self, reason: str | None, rejected: int, stop: str | None = None) -> bytes:
        out = b""
        if not self.emitter.finished:
            final = self.emitter.final(reason)
            if rejected:
                final["streamcall"] = {"rejected_chunks": rejected}
            out = _ENCODER.encode_json(final)
        return out + _ENCODER.done()

    def fail(self, error: Mapping[str, Any]) -> bytes:
        return _ENCODER.encode_json(dict(error)) + _ENCODER.done()


def message_json(message: Message) -> dict[str, Any]:
    """A parsed ``Message`` as the ``message`` of a ``chat.completion`` choice."""
    out: dict[str, Any] = {"role": "assistant", "content": message.content or None}
    if message.reasoning:
        out["reasoning_content"] = message.reasoning
    if message.tool_calls:
        out["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for call in message.tool_calls
        ]
    return out
