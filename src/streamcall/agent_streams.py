"""The streams agents receive: a Responses API or Messages API stream in, events out.

``StreamParser`` reads an OpenAI chat-completions stream; these two read the other APIs
coding agents speak, with the same shape (``feed(bytes) -> events``, ``finish()``,
``message``, ``done``, ``rejected``, ``errors``) and the same events:

- ``ResponsesStreamParser``: the OpenAI Responses API (``POST /v1/responses``,
  ``stream: true``). ``response.output_text.delta`` -> ``Text``;
  ``response.reasoning_text.delta`` and ``response.reasoning_summary_text.delta`` ->
  ``Reasoning``; a ``function_call`` item (``response.output_item.added``) ->
  ``ToolCallStart`` (its ``call_id`` as the id), ``response.function_call_arguments.delta``
  -> ``ToolCallArgs`` (arguments only the ``.done`` item carries are taken from it);
  ``response.completed`` / ``response.incomplete`` -> ``Finish`` (``tool_calls`` once
  calls were made, ``length`` for an incomplete response, else ``stop``) and the usage
  (``input_tokens`` as ``prompt_tokens``, ``output_tokens`` as ``completion_tokens``, the
  details' ``cached_tokens`` and ``reasoning_tokens``); ``response.failed`` and ``error``
  -> a ``StreamError`` with the server's message, and the stream ends.
- ``MessagesStreamParser``: Anthropic's Messages API (``POST /v1/messages``,
  ``stream: true``). ``text_delta`` -> ``Text``; ``thinking_delta`` -> ``Reasoning``; a
  ``tool_use`` block -> ``ToolCallStart`` (its ``id``), ``input_json_delta`` ->
  ``ToolCallArgs`` (an ``input`` already given whole in ``content_block_start`` is the
  arguments); ``message_delta`` -> ``Finish`` (``tool_use`` -> ``tool_calls``,
  ``max_tokens`` -> ``length``, else ``stop``) and the usage (``input_tokens``, with
  ``cache_read_input_tokens`` and ``cache_creation_input_tokens`` added to it and the
  first also as ``cached_tokens``, as ``prompt_tokens``; ``output_tokens`` as
  ``completion_tokens``); ``message_stop`` ends the stream; ``event: error`` -> a
  ``StreamError`` with the server's message, and the stream ends.

Both are the chunk layer's whole-stream machinery fed by another event format: each
event becomes the ``ChunkDelta`` a chat stream would have carried, and ``StreamParser``
does the rest (calls validated as they stream, so the contract holds: their
``ToolCallArgs`` join to the ``ToolCallEnd`` arguments, one JSON object; indices
renumbered 0, 1, ...; ``format``/``reasoning`` parse markup left in the text, as
``StreamParser`` does). An event whose data is not a JSON object is a ``StreamError``,
counted in ``rejected``; events of other types (``ping``, ``content_part.added``, ...)
carry nothing these events hold and are skipped.

What it holds back: what ``StreamParser`` holds (a cut UTF-8 character, an unfinished SSE
event, a partial marker, an argument token that may still grow).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from streamcall.chunks import Message
from streamcall.chunks.decode import ChunkDelta, ToolCallFragment, Usage
from streamcall.events import Event, StreamError
from streamcall.sse import SSEDecoder
from streamcall.stream import StreamParser, not_bytes

__all__ = ["MessagesStreamParser", "ResponsesStreamParser"]


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


class _ApiStreamParser:
    """What both parsers share: SSE in, each event's JSON to ``_apply``, events out."""

    def __init__(
        self,
        format: str | None = None,
        *,
        model: str | None = None,
        tools: list[dict[str, Any]] | None = None,
        reasoning: str | None = None,
        id_prefix: str = "call_",
        request: Mapping[str, Any] | None = None,
        thinking: bool | None = None,
        tool_choice: Any = None,
        unknown_calls: str = "keep",
    ) -> None:
        self._sse = SSEDecoder()
        # The chat stream's machinery, fed deltas directly (it never sees these bytes).
        self._chat = StreamParser(
            format,
            model=model,
            tools=tools,
            reasoning=reasoning,
            id_prefix=id_prefix,
            request=request,
            thinking=thinking,
            tool_choice=tool_choice,
            unknown_calls=unknown_calls,
        )
        self._done = False
        self._finished = False
        self._events_seen = 0
        self._finish_sent = False
        self.rejected = 0
        self.errors: list[StreamError] = []
        self._setup()

    def _setup(self) -> None:
        """The state of one API's events."""

    # -- public -----------------------------------------------------------------------------

    def feed(self, data: bytes) -> list[Event]:
        out: list[Event] = []
        if self._done or self._finished:
            return out
        try:  # (free unless it raises: the type is checked only then)
            events = self._sse.feed(data)
        except TypeError:
            if isinstance(data, str):
                raise not_bytes(data) from None
            raise
        for sse in events:
            self._event(sse.event, sse.data, out)
            if self._done:
                break
        return out

    def finish(self) -> list[Event]:
        out: list[Event] = []
        if self._finished:
            return out
        if not self._done:
            for sse in self._sse.close():
                self._event(sse.event, sse.data, out)
        self._finished = True
        out.extend(self._chat.finish())
        return out

    @property
    def done(self) -> bool:
        """The stream's last event was seen."""
        return self._done

    @property
    def ended_early(self) -> bool:
        """The stream was finished before its last event: it was cut, not ended."""
        return self._finished and not self._done

    @property
    def message(self) -> Message:
        """The message so far: content, reasoning, calls, finish reason, usage."""
        return self._chat.message

    # -- one event --------------------------------------------------------------------------

    def _event(self, name: str, data: str, out: list[Event]) -> None:
        self._events_seen += 1
        if data.strip() == "[DONE]":
            self._end(out)
            return
        try:
            value = json.loads(data)
        except (ValueError, RecursionError) as exc:
            self._reject(out, f"event data is not JSON: {exc}", data)
            return
        if not isinstance(value, dict):
            self._reject(out, "event data is not a JSON object", data)
            return
        kind = value.get("type")
        self._apply(kind if isinstance(kind, str) else name, value, out, data)

    def _apply(self, kind: str, value: dict[str, Any], out: list[Event], data: str) -> None:
        raise NotImplementedError

    def _reject(self, out: list[Event], message: str, data: str) -> None:
        self.rejected += 1
        err = StreamError(message, f"event {self._events_seen}", data)
        self.errors.append(err)
        out.append(err)

    def _delta(self, delta: ChunkDelta, out: list[Event]) -> None:
        out.extend(self._chat.feed_delta(delta))

    def _finish(self, reason: str, out: list[Event]) -> None:
        if not self._finish_sent:
            self._finish_sent = True
            self._delta(ChunkDelta(finish_reason=reason), out)

    def _usage(self, usage: Usage, out: list[Event]) -> None:
        out.extend(self._chat.feed_delta(ChunkDelta(usage=usage)))

    def _fail(self, message: str, out: list[Event], data: str) -> None:
        self._reject(out, f"the server reported an error: {message}", data)
        self._end(out)

    def _end(self, out: list[Event]) -> None:
        self._done = True
        out.extend(self._chat.finish())


class ResponsesStreamParser(_ApiStreamParser):
    """Raw SSE bytes of a Responses API stream in, ``Event``s out (module docstring)."""

    def _setup(self) -> None:
        self._streamed: dict[int, int] = {}  # output_index of a call -> argument chars seen

    def _apply(self, kind: str, value: dict[str, Any], out: list[Event], data: str) -> None:
        if kind == "response.output_text.delta":
            delta = value.get("delta")
            if isinstance(delta, str) and delta:
                self._delta(ChunkDelta(content=delta), out)
        elif kind in ("response.reasoning_text.delta", "response.reasoning_summary_text.delta"):
            delta = value.get("delta")
            if isinstance(delta, str) and delta:
                self._delta(ChunkDelta(reasoning=delta), out)
        elif kind in ("response.output_item.added", "response.output_item.done"):
            item = value.get("item")
            index = value.get("output_index")
            if not isinstance(item, dict) or item.get("type") != "function_call":
                return
            if not isinstance(index, int):
                self._reject(out, "a function_call item without an output_index", data)
                return
            arguments = item.get("arguments")
            arguments = arguments if isinstance(arguments, str) else ""
            seen = self._streamed.get(index)
            if seen is None:
                name, call_id = item.get("name"), item.get("call_id") or item.get("id")
                if not isinstance(name, str) or not name:
                    self._reject(out, "a function_call item without a name", data)
                    return
                self._streamed[index] = len(arguments)
                fragment = ToolCallFragment(
                    index, call_id if isinstance(call_id, str) else None, name, arguments
                )
                self._delta(ChunkDelta(tool_calls=(fragment,)), out)
            elif len(arguments) > seen:  # arguments the deltas did not carry
                self._streamed[index] = len(arguments)
                self._delta(
                    ChunkDelta(tool_calls=(ToolCallFragment(index, arguments=arguments[seen:]),)),
                    out,
                )
        elif kind == "response.function_call_arguments.delta":
            index, delta = value.get("output_index"), value.get("delta")
            if not isinstance(index, int) or index not in self._streamed:
                self._reject(out, "function_call arguments before their item", data)
                return
            if isinstance(delta, str) and delta:
                self._streamed[index] += len(delta)
                fragment = ToolCallFragment(index, arguments=delta)
                self._delta(ChunkDelta(tool_calls=(fragment,)), out)
        elif kind in ("response.completed", "response.incomplete"):
            response = value.get("response")
            response = response if isinstance(response, dict) else {}
            self._finish("length" if kind == "response.incomplete" else "stop", out)
            usage = response.get("usage")
            if isinstance(usage, dict):
                self._usage(_responses_usage(usage), out)
            self._end(out)
        elif kind == "response.failed":
            response = value.get("response")
            error = response.get("error") if isinstance(response, dict) else None
            message = error.get("message") if isinstance(error, dict) else None
            self._fail(str(message or "response.failed"), out, data)
        elif kind == "error":
            message = value.get("message")
            if message is None and isinstance(value.get("error"), dict):
                message = value["error"].get("message")
            self._fail(str(message or "error event"), out, data)


def _responses_usage(usage: dict[str, Any]) -> Usage:
    prompt, completion = _int(usage.get("input_tokens")), _int(usage.get("output_tokens"))
    given_in = usage.get("input_tokens_details")
    given_out = usage.get("output_tokens_details")
    details_in = given_in if isinstance(given_in, dict) else None
    details_out = given_out if isinstance(given_out, dict) else None
    total = usage.get("total_tokens")
    return Usage(
        prompt,
        completion,
        _int(total) if total is not None else prompt + completion,
        _int((details_in or {}).get("cached_tokens")),
        _int((details_out or {}).get("reasoning_tokens")),
        {"cached_tokens": details_in["cached_tokens"]}
        if details_in and "cached_tokens" in details_in
        else None,
        {"reasoning_tokens": details_out["reasoning_tokens"]}
        if details_out and "reasoning_tokens" in details_out
        else None,
    )


class MessagesStreamParser(_ApiStreamParser):
    """Raw SSE bytes of an Anthropic Messages API stream in, ``Event``s out (module
    docstring)."""

    def _setup(self) -> None:
        self._calls: set[int] = set()  # block indices of tool_use blocks
        self._input: dict[str, int] = {}  # message_start's input token counts

    def _apply(self, kind: str, value: dict[str, Any], out: list[Event], data: str) -> None:
        if kind == "content_block_delta":
            delta, index = value.get("delta"), value.get("index")
            if not isinstance(delta, dict):
                return
            dtype = delta.get("type")
            if dtype == "text_delta" and isinstance(delta.get("text"), str):
                if delta["text"]:
                    self._delta(ChunkDelta(content=delta["text"]), out)
            elif dtype == "thinking_delta" and isinstance(delta.get("thinking"), str):
                if delta["thinking"]:
                    self._delta(ChunkDelta(reasoning=delta["thinking"]), out)
            elif dtype == "input_json_delta":
                if not isinstance(index, int) or index not in self._calls:
                    self._reject(out, "input_json_delta outside a tool_use block", data)
                    return
                partial = delta.get("partial_json")
                if isinstance(partial, str) and partial:
                    fragment = ToolCallFragment(index, arguments=partial)
                    self._delta(ChunkDelta(tool_calls=(fragment,)), out)
        elif kind == "content_block_start":
            block, index = value.get("content_block"), value.get("index")
            if not isinstance(block, dict):
                return
            btype = block.get("type")
            if btype == "text" and isinstance(block.get("text"), str) and block["text"]:
                self._delta(ChunkDelta(content=block["text"]), out)
            elif (
                btype == "thinking" and isinstance(block.get("thinking"), str) and block["thinking"]
            ):
                self._delta(ChunkDelta(reasoning=block["thinking"]), out)
            elif btype in ("tool_use", "server_tool_use"):
                name = block.get("name")
                if not isinstance(index, int) or not isinstance(name, str) or not name:
                    self._reject(out, "a tool_use block without an index or a name", data)
                    return
                self._calls.add(index)
                given = block.get("input")
                arguments = json.dumps(given) if isinstance(given, dict) and given else ""
                ident = block.get("id")
                fragment = ToolCallFragment(
                    index, ident if isinstance(ident, str) else None, name, arguments
                )
                self._delta(ChunkDelta(tool_calls=(fragment,)), out)
        elif kind == "message_start":
            message = value.get("message")
            usage = message.get("usage") if isinstance(message, dict) else None
            if isinstance(usage, dict):
                self._input = {k: _int(v) for k, v in usage.items() if k.endswith("input_tokens")}
        elif kind == "message_delta":
            delta = value.get("delta")
            reason = delta.get("stop_reason") if isinstance(delta, dict) else None
            self._finish(_FINISH.get(reason, "stop") if isinstance(reason, str) else "stop", out)
            usage = value.get("usage")
            if isinstance(usage, dict):
                self._usage(self._messages_usage(usage), out)
        elif kind == "message_stop":
            self._end(out)
        elif kind == "error":
            error = value.get("error")
            message = error.get("message") if isinstance(error, dict) else None
            self._fail(str(message or "error event"), out, data)

    def _messages_usage(self, usage: dict[str, Any]) -> Usage:
        counts = dict(self._input)
        counts.update(
            {k: _int(v) for k, v in usage.items() if k.endswith("input_tokens") and v is not None}
        )
        cached = counts.get("cache_read_input_tokens", 0)
        prompt = (
            counts.get("input_tokens", 0) + cached + counts.get("cache_creation_input_tokens", 0)
        )
        completion = _int(usage.get("output_tokens"))
        return Usage(
            prompt,
            completion,
            prompt + completion,
            cached,
            0,
            {"cached_tokens": cached} if cached else None,
        )


_FINISH = {
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "end_turn": "stop",
    "stop_sequence": "stop",
}
