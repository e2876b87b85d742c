"""The OpenAI Responses API (``POST /v1/responses``) over a chat-completions upstream.

Sans-IO: ``chat_request`` (``responses_request.py``, re-exported here) turns a Responses
request into the chat-completions request the proxy's upstream path takes, and
``ResponsesWire`` turns the streamcall events parsed from the upstream's answer into the
Responses event stream, or (``whole``) into the ``response`` object.

The request: ``responses_request.py``.

The stream, in the order the official SDK's ``ResponseStream`` accumulates it:
``response.created``, ``response.in_progress``; per output item ``output_item.added``,
then (message) ``content_part.added``, ``output_text.delta``..., ``output_text.done``,
``content_part.done``; (reasoning, as vLLM emits it: ``content`` of type
``reasoning_text``, no summary) ``content_part.added``, ``reasoning_text.delta``...,
``reasoning_text.done``, ``content_part.done``; (call) ``function_call_arguments.delta``
..., ``function_call_arguments.done``; then ``output_item.done``; last
``response.completed`` (``response.incomplete`` when the upstream stopped at its token
limit) with the whole response and its usage (and ``streamcall: {"rejected_chunks": N}``
when upstream chunks were rejected, each also reported as an SSE comment in its place).
``sequence_number`` counts every event from 0; ``output_index`` counts items from 0;
each item has an id (``msg_``, ``rs_``, ``fc_``, ``ctc_``) and each call the parser's
``call_`` id as its ``call_id``. A call to a namespaced function is a ``function_call``
with the bare ``name`` and its ``namespace``; a call to a custom tool is a
``custom_tool_call`` whose ``input`` is sent whole when the call ends
(``custom_tool_call_input.delta``/``.done``). A call the model did not finish ends
``incomplete``, its arguments as the model wrote them (no closing added). Text, reasoning and calls
open items in the order they come; a switch closes the open text or reasoning item.
A stream that breaks ends with ``response.failed`` (status ``failed``, ``error``
``server_error`` with what happened, the output so far).

State: the ids, the sequence counter, the output items (open ones with their text
pieces), the finish reason and the usage.
"""

from __future__ import annotations

import json
import time
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
    Offered,
    Parsed,
    answer_events,
    error_message,
    new_id,
)
from streamcall.server.responses_request import IGNORED, chat_request
from streamcall.sse import SSEEncoder

__all__ = ["IGNORED", "ResponsesWire", "chat_request", "response_answer"]

_ENCODER = SSEEncoder()

# -- the answer -----------------------------------------------------------------------------


def usage_json(ev: UsageEvent) -> dict[str, Any]:
    """A usage event as the Responses API's ``usage`` (``cache_write_tokens`` is the
    upstream's when its details have it, else 0: chat servers report no cache writes)."""
    written = (ev.prompt_tokens_details or {}).get("cache_write_tokens")
    return {
        "input_tokens": ev.prompt_tokens,
        "input_tokens_details": {
            "cached_tokens": ev.cached_tokens,
            "cache_write_tokens": written if isinstance(written, int) else 0,
        },
        "output_tokens": ev.completion_tokens,
        "output_tokens_details": {"reasoning_tokens": ev.reasoning_tokens},
        "total_tokens": ev.total_tokens,
    }


class _Item:
    """An open text or reasoning item."""

    __slots__ = ("id", "index", "kind", "pieces")

    def __init__(self, kind: str, ident: str, index: int) -> None:
        self.kind = kind  # "message" or "reasoning"
        self.id = ident
        self.index = index
        self.pieces: list[str] = []


class _CallItem:
    __slots__ = ("call_id", "id", "index", "kind", "name", "namespace", "pieces")

    def __init__(
        self, ident: str, index: int, call_id: str, name: str, offered: Offered | None
    ) -> None:
        self.id = ident
        self.index = index
        self.call_id = call_id
        # as the client named the tool (a namespace's member, a custom tool), else as called
        self.kind = offered.kind if offered is not None else "function"
        self.name = offered.name if offered is not None else name
        self.namespace = offered.namespace if offered is not None else None
        self.pieces: list[str] = []

    def input(self) -> str:
        """A custom tool call's input: the ``input`` string the model was asked for."""
        text = "".join(self.pieces)
        try:
            value = json.loads(text)
        except ValueError:
            return text
        if isinstance(value, dict) and isinstance(value.get("input"), str):
            return str(value["input"])
        return text


class ResponsesWire:
    """One response: streamcall events in, Responses API events (SSE bytes) out."""

    def __init__(
        self,
        call: Call,
        model: str,
        *,
        response_id: str | None = None,
        created_at: int | None = None,
    ) -> None:
        self.context = call.context
        self.names = call.names
        self.model = model
        self.id = response_id or new_id("resp_")
        self.created_at = int(time.time()) if created_at is None else created_at
        self.sequence = 0
        self.items: list[dict[str, Any] | None] = []  # by output_index; None while open
        self.open: _Item | None = None
        self.calls: dict[int, _CallItem] = {}
        self.reason: str | None = None
        self.usage: dict[str, Any] | None = None
        self._out: list[dict[str, Any]] = []

    # -- the Wire protocol ------------------------------------------------------------------

    def start(self) -> bytes:
        response = self.response("in_progress")
        self._emit("response.created", response=response)
        self._emit("response.in_progress", response=response)
        return self._take()

    def feed(self, events: list[Event], rejected: int = 0) -> bytes:
        self.apply(events)
        return self._take()

    def end(self, reason: str | None, rejected: int = 0, stop: str | None = None) -> bytes:
        status = self.close(reason)
        kind = "response.completed" if status == "completed" else "response.incomplete"
        response = self.response(status)
        if rejected:
            response["streamcall"] = {"rejected_chunks": rejected}
        self._emit(kind, response=response)
        return self._take()

    def fail(self, error: Mapping[str, Any]) -> bytes:
        self.close_items("incomplete")
        failure = {"code": "server_error", "message": error_message(error)}
        self._emit("response.failed", response=self.response("failed", failure))
        return self._take()

    # -- events -----------------------------------------------------------------------------

    def apply(self, events: list[Event]) -> None:
        for ev in events:
            if isinstance(ev, Text | Reasoning):
                kind = "message" if isinstance(ev, Text) else "reasoning"
                if not ev.text:
                    continue
                item = self.open
                if item is None or item.kind != kind:
                    item = self._open_item(kind)
                item.pieces.append(ev.text)
                delta = (
                    "response.output_text.delta"
                    if kind == "message"
                    else "response.reasoning_text.delta"
                )
                extra: dict[str, Any] = {"logprobs": []} if kind == "message" else {}
                self._emit(
                    delta,
                    item_id=item.id,
                    output_index=item.index,
                    content_index=0,
                    delta=ev.text,
                    **extra,
                )
            elif isinstance(ev, ToolCallStart):
                self._close_open()
                offered = self.names.get(ev.name)
                prefix = "ctc_" if offered is not None and offered.kind == "custom" else "fc_"
                call = _CallItem(new_id(prefix), len(self.items), ev.id, ev.name, offered)
                self.items.append(None)
                self.calls[ev.index] = call
                self._emit(
                    "response.output_item.added",
                    output_index=call.index,
                    item=self._call_json(call, "in_progress"),
                )
            elif isinstance(ev, ToolCallArgs):
                found = self.calls.get(ev.index)
                if found is not None and ev.delta:
                    found.pieces.append(ev.delta)
                    if found.kind == "custom":
                        continue  # its input is sent whole, decoded, when the call ends
                    self._emit(
                        "response.function_call_arguments.delta",
                        item_id=found.id,
                        output_index=found.index,
                        delta=ev.delta,
                    )
            elif isinstance(ev, ToolCallEnd):
                found = self.calls.pop(ev.index, None)
                if found is not None:
                    self._close_call(found, "incomplete" if ev.incomplete else "completed")
            elif isinstance(ev, Finish):
                if ev.choice == 0:
                    self.reason = ev.reason
            elif isinstance(ev, UsageEvent):
                self.usage = usage_json(ev)
            # StreamError: reported by the server, out of band

    def close(self, reason: str | None) -> str:
        """Closes every open item; the response's status."""
        if reason is not None:
            self.reason = reason
        status = "incomplete" if self.reason == "length" else "completed"
        self.close_items(status)
        return status

    def close_items(self, status: str) -> None:
        self._close_open(status)
        for index in list(self.calls):
            self._close_call(self.calls.pop(index), "incomplete")

    def response(self, status: str, error: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The ``response`` object as it stands."""
        ctx = self.context
        done = status in ("completed", "incomplete", "failed")
        return {
            "id": self.id,
            "object": "response",
            "created_at": self.created_at,
            "status": status,
            "background": False,
            "error": dict(error) if error is not None else None,
            "incomplete_details": {"reason": "max_output_tokens"}
            if status == "incomplete"
            else None,
            "instructions": ctx.get("instructions"),
            "max_output_tokens": ctx.get("max_output_tokens"),
            "metadata": ctx.get("metadata") or {},
            "model": self.model,
            "output": [item for item in self.items if item is not None] if done else [],
            "parallel_tool_calls": ctx.get("parallel_tool_calls", True),
            "previous_response_id": None,
            "reasoning": ctx.get("reasoning") or {"effort": None, "summary": None},
            "store": False,
            "temperature": ctx.get("temperature"),
            "text": ctx.get("text") or {"format": {"type": "text"}},
            "tool_choice": ctx.get("tool_choice", "auto"),
            "tools": ctx.get("tools") or [],
            "top_p": ctx.get("top_p"),
            "truncation": "disabled",
            "usage": self.usage if done else None,
            "user": ctx.get("user"),
        }

    # -- items ------------------------------------------------------------------------------

    def _open_item(self, kind: str) -> _Item:
        self._close_open()
        prefix = "msg_" if kind == "message" else "rs_"
        item = self.open = _Item(kind, new_id(prefix), len(self.items))
        self.items.append(None)
        if kind == "message":
            added: dict[str, Any] = {
                "id": item.id,
                "type": "message",
                "role": "assistant",
                "status": "in_progress",
                "content": [],
            }
            part: dict[str, Any] = {
                "type": "output_text",
                "text": "",
                "annotations": [],
                "logprobs": [],
            }
        else:
            added = {"id": item.id, "type": "reasoning", "summary": [], "status": "in_progress"}
            part = {"type": "reasoning_text", "text": ""}
        self._emit("response.output_item.added", output_index=item.index, item=added)
        self._emit(
            "response.content_part.added",
            item_id=item.id,
            output_index=item.index,
            content_index=0,
            part=part,
        )
        return item

    def _close_open(self, status: str = "completed") -> None:
        item = self.open
        if item is None:
            return
        self.open = None
        text = "".join(item.pieces)
        where = {"item_id": item.id, "output_index": item.index, "content_index": 0}
        if item.kind == "message":
            part: dict[str, Any] = {
                "type": "output_text",
                "text": text,
                "annotations": [],
                "logprobs": [],
            }
            self._emit("response.output_text.done", text=text, logprobs=[], **where)
            done: dict[str, Any] = {
                "id": item.id,
                "type": "message",
                "role": "assistant",
                "status": status,
                "content": [part],
            }
        else:
            part = {"type": "reasoning_text", "text": text}
            self._emit("response.reasoning_text.done", text=text, **where)
            done = {
                "id": item.id,
                "type": "reasoning",
                "summary": [],
                "content": [part],
                "status": status,
            }
        self._emit("response.content_part.done", part=part, **where)
        self.items[item.index] = done
        self._emit("response.output_item.done", output_index=item.index, item=done)

    def _call_json(self, call: _CallItem, status: str) -> dict[str, Any]:
        if call.kind == "custom":
            out: dict[str, Any] = {
                "id": call.id,
                "type": "custom_tool_call",
                "call_id": call.call_id,
                "name": call.name,
                "input": call.input() if status != "in_progress" else "",
            }
        else:
            out = {
                "id": call.id,
                "type": "function_call",
                "call_id": call.call_id,
                "name": call.name,
                "arguments": "".join(call.pieces),
                "status": status,
            }
        if call.namespace is not None:
            out["namespace"] = call.namespace
        return out

    def _close_call(self, call: _CallItem, status: str) -> None:
        item = self._call_json(call, status)
        where = {"item_id": call.id, "output_index": call.index}
        if call.kind == "custom":
            if item["input"]:
                self._emit("response.custom_tool_call_input.delta", delta=item["input"], **where)
            self._emit("response.custom_tool_call_input.done", input=item["input"], **where)
        else:
            self._emit(
                "response.function_call_arguments.done",
                name=call.name,
                arguments=item["arguments"],
                **where,
            )
        self.items[call.index] = item
        self._emit("response.output_item.done", output_index=call.index, item=item)

    # -- output -----------------------------------------------------------------------------

    def _emit(self, kind: str, **fields: Any) -> None:
        self._out.append({"type": kind, "sequence_number": self.sequence, **fields})
        self.sequence += 1

    def _take(self) -> bytes:
        out = b"".join(_ENCODER.encode_json(ev, event=ev["type"]) for ev in self._out)
        self._out.clear()
        return out

    def take_events(self) -> list[dict[str, Any]]:
        """The events made since the last call, as dicts (not encoded)."""
        out = self._out
        self._out = []
        return out


def response_answer(
    call: Call, answer: dict[str, Any], parsed: list[Parsed], rejected: int
) -> dict[str, Any]:
    """The whole ``response`` object: the first choice's events run through the wire."""
    wire = ResponsesWire(call, str(call.context.get("model") or ""))
    events, reason = answer_events(answer, parsed)
    wire.apply(events)
    status = wire.close(reason)
    out = wire.response(status)
    if rejected:
        out["streamcall"] = {"rejected_chunks": rejected}
    return out
