"""The OpenAI Responses API (``POST /v1/responses``) over a chat-completions upstream.

Sans-IO: ``chat_request`` turns a Responses request into the chat-completions request the
proxy's upstream path takes (every ``--upstream-tools`` mode, ``render`` included), and
``ResponsesWire`` turns the streamcall events parsed from the upstream's answer into the
Responses event stream, or (``whole``) into the ``response`` object.

The request (each member honoured, ignored on purpose (``IGNORED``, with the reason),
or a 400 that names it; a member of the wrong JSON type is a 400 too):

- ``instructions`` -> a first ``system`` message; ``input`` (a string: one user message;
  or a list of items) -> ``messages``: a ``message`` item (``type`` may be left out; role
  ``user``, ``assistant``, ``system``, ``developer`` (sent as ``system``); content a string
  or ``input_text``/``output_text``/``input_image`` parts), a ``function_call`` or
  ``custom_tool_call`` (joined to the assistant message before it, as one chat message
  with ``tool_calls``; a custom call's ``input`` as ``{"input": ...}``; a namespaced call
  under the name its tool was offered by), a ``function_call_output`` or
  ``custom_tool_call_output`` (a ``tool`` message), a ``reasoning`` item (its text as the
  next assistant message's ``reasoning_content``); any other item is a 400;
- ``tools`` (``server/tools.py``): function tools (-> the chat form), ``namespace`` tools
  (their functions offered, under their own names unless two share one), ``custom``
  (freeform) tools (a function of one string ``input``); hosted tools (web search, file
  search, code interpreter, computer use, image generation, MCP, shell, apply_patch) are
  not offered (``Call.hosted``); ``tool_choice``: ``auto``, ``none``, ``required``, a
  function or custom tool by name, or ``allowed_tools``;
- ``reasoning.effort`` -> ``reasoning_effort`` and the thinking switch
  (``chat_template_kwargs.enable_thinking``: off for ``none``, on otherwise; the client's
  own ``chat_template_kwargs`` win); ``max_output_tokens`` -> ``max_tokens``;
  ``text.format`` (``json_schema``, ``json_object``) -> ``response_format``; sampling
  members pass as they are;
- state: the proxy stores nothing, so ``previous_response_id``, ``conversation``, an
  ``item_reference`` input and ``background`` are refused with a 400 that says so (send
  the whole conversation as ``input``); ``store`` is accepted and the answer says
  ``store: false``.

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
    BadRequest,
    Call,
    Offered,
    Parsed,
    answer_events,
    error_message,
    new_id,
)
from streamcall.server.fields import check_types
from streamcall.server.tools import ToolSet, responses_tools
from streamcall.sse import SSEEncoder

__all__ = ["ResponsesWire", "chat_request", "response_answer"]

_ENCODER = SSEEncoder()

#: request members that mean the same in chat completions, passed on as they are
_SHARED = (
    "temperature",
    "top_p",
    "parallel_tool_calls",
    "user",
    "seed",
    "presence_penalty",
    "frequency_penalty",
    "top_k",
    "min_p",
    "repetition_penalty",
)
#: members that need state the proxy does not keep
_STATEFUL = {
    "previous_response_id": "continues a stored response",
    "conversation": "continues a stored conversation",
    "prompt": "names a stored prompt",
}
_ECHOED = (
    "instructions",
    "max_output_tokens",
    "metadata",
    "parallel_tool_calls",
    "reasoning",
    "temperature",
    "text",
    "tool_choice",
    "tools",
    "top_p",
    "user",
)
#: members read and honoured (the module docstring says how), with their JSON kinds
_HONOURED = {
    "model": "string",
    "input": "",
    "instructions": "string",
    "max_output_tokens": "integer",
    "tools": "list",
    "tool_choice": "",
    "parallel_tool_calls": "boolean",
    "reasoning": "object",
    "text": "object",
    "temperature": "number",
    "top_p": "number",
    "stream": "boolean",
    "stream_options": "object",
    "metadata": "object",
    "user": "string",
    "store": "boolean",
    "background": "boolean",
    # passed on as the chat request's (engine extensions; streamcall's switches)
    "seed": "integer",
    "presence_penalty": "number",
    "frequency_penalty": "number",
    "top_k": "integer",
    "min_p": "number",
    "repetition_penalty": "number",
    "chat_template_kwargs": "object",
    **dict.fromkeys(_STATEFUL, ""),
}
#: members accepted and ignored on purpose, with the reason (README, "Agent APIs")
IGNORED = {
    "include": "the answer carries what it has (reasoning as text, no encrypted content, "
    "no logprobs, no sources)",
    "truncation": "the proxy cuts nothing: the upstream refuses a prompt too long for it",
    "service_tier": "one upstream, one tier",
    "prompt_cache_key": "the upstream's prefix cache works on its own",
    "prompt_cache_retention": "the upstream's prefix cache works on its own",
    "prompt_cache_options": "the upstream's prefix cache works on its own",
    "safety_identifier": "nothing here tracks users",
    "max_tool_calls": "counts hosted tool calls, which are not offered to the model",
    "top_logprobs": "the answer carries no logprobs",
    "context_management": "the proxy stores no context: the client sends the whole "
    "conversation each time",
    "moderation": "no moderation here",
    "access_programs": "no programs here",
    "background_options": "background responses are refused",
    "image": "no image generation here",
    "client_metadata": "the client's own bookkeeping",
}


def _members(body: dict[str, Any]) -> None:
    """Every member is honoured, ignored on purpose, or a 400 that names it."""
    for key in body:
        if key not in _HONOURED and key not in IGNORED:
            raise BadRequest(
                f"'{key}' is not a member of a Responses request that streamcall serve "
                f"knows (it reads {', '.join(sorted(_HONOURED))}; it ignores "
                f"{', '.join(sorted(IGNORED))})",
                key,
            )
    check_types(body, {k: v for k, v in _HONOURED.items() if v})


# -- the request ----------------------------------------------------------------------------


def chat_request(body: Any) -> Call:
    """A Responses request as the chat request sent upstream (module docstring)."""
    if not isinstance(body, dict):
        raise BadRequest("the request body must be a JSON object")
    _members(body)
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise BadRequest("'model' is required (a string)", "model")
    for key, why in _STATEFUL.items():
        if body.get(key) is not None:
            raise BadRequest(
                f"'{key}' {why}, and streamcall serve stores no state: send the whole "
                "conversation as 'input' (earlier output items and function_call_output "
                "items included)",
                key,
            )
    if body.get("background"):
        raise BadRequest(
            "'background' responses need stored state; streamcall serve keeps none", "background"
        )
    found = responses_tools(body["tools"]) if body.get("tools") is not None else ToolSet()
    messages: list[dict[str, Any]] = []
    instructions = body.get("instructions")
    if instructions is not None:
        messages.append({"role": "system", "content": instructions})
    given = body.get("input")
    if isinstance(given, str):
        messages.append({"role": "user", "content": given})
    elif isinstance(given, list):
        for number, item in enumerate(given):
            _input_item(item, number, messages, found)
    elif given is None:
        raise BadRequest("'input' is required (a string or a list of input items)", "input")
    else:
        raise BadRequest("'input' must be a string or a list of input items", "input")
    if not any(m["role"] != "system" for m in messages):
        raise BadRequest("'input' holds no message", "input")
    chat: dict[str, Any] = {"model": model, "messages": messages}
    for key in _SHARED:
        if body.get(key) is not None:
            chat[key] = body[key]
    if body.get("max_output_tokens") is not None:
        chat["max_tokens"] = body["max_output_tokens"]
    if found.tools:
        chat["tools"] = found.tools
    choice = body.get("tool_choice")
    if choice is not None:
        _tool_choice(choice, chat, found)
    _reasoning(body.get("reasoning"), body.get("chat_template_kwargs"), chat)
    _text_format(body.get("text"), chat)
    if body.get("stream"):
        chat["stream"] = True
        chat["stream_options"] = {"include_usage": True}
    context = {key: body[key] for key in _ECHOED if key in body}
    context["model"] = model
    names = {shown: o for shown, o in found.names.items() if o.kind != "function" or o.namespace}
    return Call(chat, context, names=names, hosted=found.hosted)


def _text(content: Any, where: str) -> str | list[dict[str, Any]]:
    """A message's content: a string, or its parts as chat content parts."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise BadRequest(f"{where} must be a string or a list of content parts", where)
    parts: list[dict[str, Any]] = []
    for number, part in enumerate(content):
        at = f"{where}[{number}]"
        kind = part.get("type") if isinstance(part, dict) else None
        if kind in ("input_text", "output_text", "text", "refusal"):
            text = part.get("text", part.get("refusal"))
            if not isinstance(text, str):
                raise BadRequest(f"{at}.text must be a string", at)
            parts.append({"type": "text", "text": text})
        elif kind == "input_image":
            url = part.get("image_url")
            if not isinstance(url, str):
                raise BadRequest(f"{at}: only images given by 'image_url' are supported", at)
            parts.append({"type": "image_url", "image_url": {"url": url}})
        else:
            raise BadRequest(
                f"{at}.type {kind!r} is not supported (input_text, output_text, input_image)", at
            )
    if all(p["type"] == "text" for p in parts):
        return "".join(p["text"] for p in parts)
    return parts


def _assistant(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The assistant message the next output item joins: the last message if it is an
    assistant's that can take it, else a new one."""
    last = messages[-1] if messages else None
    if last is not None and last["role"] == "assistant":
        return last
    new: dict[str, Any] = {"role": "assistant", "content": None}
    messages.append(new)
    return new


def _input_item(item: Any, number: int, messages: list[dict[str, Any]], found: ToolSet) -> None:
    where = f"input[{number}]"
    if not isinstance(item, dict):
        raise BadRequest(f"{where} must be an object", where)
    kind = item.get("type", "message")
    if kind == "message":
        role = item.get("role")
        if role not in ("user", "assistant", "system", "developer"):
            raise BadRequest(
                f"{where}.role must be user, assistant, system or developer: {role!r}", where
            )
        content = _text(item.get("content"), f"{where}.content")
        if role == "assistant":
            last = messages[-1] if messages else None
            # after a reasoning item only: a message after calls starts a new turn
            if (
                last is not None
                and last["role"] == "assistant"
                and not last.get("tool_calls")
                and last["content"] is None
            ):
                last["content"] = content
                return
            messages.append({"role": "assistant", "content": content})
            return
        messages.append({"role": "system" if role == "developer" else role, "content": content})
    elif kind in ("function_call", "custom_tool_call"):
        call_id, name = item.get("call_id"), item.get("name")
        if not isinstance(call_id, str) or not isinstance(name, str):
            raise BadRequest(f"{where}: a {kind} needs 'call_id' and 'name'", where)
        if kind == "function_call":
            arguments = item.get("arguments")
            if not isinstance(arguments, str):
                raise BadRequest(f"{where}.arguments must be a string (JSON text)", where)
        else:
            given = item.get("input")
            if not isinstance(given, str):
                raise BadRequest(f"{where}.input must be a string", where)
            arguments = json.dumps({"input": given}, ensure_ascii=False)
        space = item.get("namespace")
        if space is not None and not isinstance(space, str):
            raise BadRequest(f"{where}.namespace must be a string", where)
        name = found.offered_name(name, space) or name
        target = _assistant(messages)
        target.setdefault("tool_calls", []).append(
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
        )
    elif kind in ("function_call_output", "custom_tool_call_output"):
        call_id, output = item.get("call_id"), item.get("output")
        if not isinstance(call_id, str):
            raise BadRequest(f"{where}: a {kind} needs 'call_id'", where)
        text = _text(output, f"{where}.output")
        if not isinstance(text, str):
            raise BadRequest(f"{where}.output: only text outputs are supported", where)
        messages.append({"role": "tool", "tool_call_id": call_id, "content": text})
    elif kind == "reasoning":
        # its reasoning text, else its summary
        text = _parts_text(item.get("content")) or _parts_text(item.get("summary"))
        if text:
            messages.append({"role": "assistant", "content": None, "reasoning_content": text})
    elif kind == "item_reference":
        raise BadRequest(
            f"{where}: an item_reference names a stored item, and streamcall serve stores "
            "none: send the item itself",
            where,
        )
    else:
        raise BadRequest(
            f"{where}.type {kind!r} is not supported (message, function_call, "
            "function_call_output, custom_tool_call, custom_tool_call_output, reasoning)",
            where,
        )


def _parts_text(parts: Any) -> str:
    if not isinstance(parts, list):
        return ""
    return "".join(
        p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)
    )


def _tool_choice(choice: Any, chat: dict[str, Any], found: ToolSet) -> None:
    """``auto``, ``none``, ``required``; a function or custom tool by name (in its
    namespace); ``allowed_tools`` (only those offered, ``auto`` or ``required``). A hosted
    tool cannot be chosen: it is not offered."""
    if choice in ("auto", "none", "required"):
        chat["tool_choice"] = choice
        return
    kind = choice.get("type") if isinstance(choice, dict) else None
    if kind in ("function", "custom") and isinstance(choice.get("name"), str):
        shown = found.offered_name(choice["name"], choice.get("namespace"))
        if shown is None:
            raise BadRequest(
                f"'tool_choice' names {choice['name']!r}, which is not a {kind} tool of "
                "this request",
                "tool_choice",
            )
        chat["tool_choice"] = {"type": "function", "function": {"name": shown}}
        return
    if kind == "allowed_tools" and isinstance(choice.get("tools"), list):
        mode = choice.get("mode", "auto")
        if mode not in ("auto", "required"):
            raise BadRequest("'tool_choice.mode' must be auto or required", "tool_choice")
        allowed: set[str] = set()
        for number, tool in enumerate(choice["tools"]):
            name = tool.get("name") if isinstance(tool, dict) else None
            shown = found.offered_name(name, tool.get("namespace")) if name else None
            if shown is None:
                raise BadRequest(
                    f"'tool_choice.tools[{number}]' is not a function or custom tool of "
                    "this request",
                    "tool_choice",
                )
            allowed.add(shown)
        chat["tools"] = [t for t in chat.get("tools", []) if t["function"]["name"] in allowed]
        chat["tool_choice"] = mode
        return
    raise BadRequest(
        '\'tool_choice\' must be auto, none, required, {"type": "function", "name": ...}, '
        '{"type": "custom", "name": ...} or {"type": "allowed_tools", ...} '
        "(hosted tools are not offered, so cannot be chosen)",
        "tool_choice",
    )


def _reasoning(reasoning: Any, kwargs: Any, chat: dict[str, Any]) -> None:
    if kwargs is not None and not isinstance(kwargs, dict):
        raise BadRequest("'chat_template_kwargs' must be an object", "chat_template_kwargs")
    merged: dict[str, Any] = {}
    if reasoning is not None:
        if not isinstance(reasoning, dict):
            raise BadRequest("'reasoning' must be an object", "reasoning")
        effort = reasoning.get("effort")
        if effort is not None:
            if not isinstance(effort, str):
                raise BadRequest("'reasoning.effort' must be a string", "reasoning")
            chat["reasoning_effort"] = effort
            merged["enable_thinking"] = effort != "none"
    merged.update(kwargs or {})
    if merged:
        chat["chat_template_kwargs"] = merged


def _text_format(text: Any, chat: dict[str, Any]) -> None:
    if text is None:
        return
    fmt = text.get("format") if isinstance(text, dict) else None
    if fmt is None:
        return
    kind = fmt.get("type") if isinstance(fmt, dict) else None
    if kind == "text":
        return
    if kind == "json_object":
        chat["response_format"] = {"type": "json_object"}
    elif kind == "json_schema" and isinstance(fmt, dict):
        schema = {k: fmt[k] for k in ("name", "schema", "strict", "description") if k in fmt}
        chat["response_format"] = {"type": "json_schema", "json_schema": schema}
    else:
        raise BadRequest("'text.format.type' must be text, json_object or json_schema", "text")


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
