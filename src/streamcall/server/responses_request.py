"""The OpenAI Responses API's request (``POST /v1/responses``) as the chat-completions
request the proxy's upstream path takes (every ``--upstream-tools`` mode, ``render``
included). Sans-IO: ``chat_request`` is the whole of it; the answer is ``responses.py``'s.

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
"""

from __future__ import annotations

import json
from typing import Any

from streamcall.server.api import BadRequest, Call
from streamcall.server.fields import check_types
from streamcall.server.tools import ToolSet, responses_tools

__all__ = ["HONOURED", "IGNORED", "chat_request"]

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
HONOURED = {
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
        if key not in HONOURED and key not in IGNORED:
            raise BadRequest(
                f"'{key}' is not a member of a Responses request that streamcall serve "
                f"knows (it reads {', '.join(sorted(HONOURED))}; it ignores "
                f"{', '.join(sorted(IGNORED))})",
                key,
            )
    check_types(body, {k: v for k, v in HONOURED.items() if v})


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
