"""The chat-completions request every route sends upstream, checked before it goes.

``validate`` is the shared path's gate: the chat route's body as the client sent it, and
the Responses and Messages routes' bodies as their translators made them. A request that
breaks a rule here is a 400 that names the member at fault (``messages[2].role``,
``tools[0].function.name``, ``temperature``) and says what it must be:

- ``messages``: a non-empty list of objects, each with a ``role`` the chat API knows
  (``system``, ``developer``, ``user``, ``assistant``, ``tool``, ``function``; an unknown
  role would be dropped by a chat template, and the message with it) where the proxy
  renders the prompt, else a non-empty string for the upstream's template; ``content`` a
  string, a list of parts or null, and an assistant's ``tool_calls`` a list of calls, each
  with ``function.name`` (a string) and ``function.arguments`` (JSON text, or an object);
- ``tools``: a list of tools, each ``{"type": "function", "function": {"name": ...,
  "parameters": {...}}}`` (``parameters`` an object when given), or a chat ``custom``
  tool with its ``custom.name``;
- ``tool_choice`` as ``streamcall.toolchoice`` reads it, naming a function in ``tools``;
- the scalar members of the chat API that the proxy or the upstream read, each of its JSON
  type (``_TYPES``); members it does not know pass on to the upstream as they are (engine
  extensions: ``top_k``, ``min_p``, ``chat_template_kwargs``, ...);
- ``n``: 1 only (the proxy parses one choice).
"""

from __future__ import annotations

from typing import Any

from streamcall.server.api import BadRequest
from streamcall.server.fields import check_types, kind_error
from streamcall.toolchoice import chosen_function, tool_choice_error

__all__ = ["ROLES", "tool_names", "validate"]

#: the roles of the chat API
ROLES = ("system", "developer", "user", "assistant", "tool", "function")

#: the chat API's members and engine extensions the proxy checks, with their JSON kinds
_TYPES = {
    "model": "string",
    "stream": "boolean",
    "temperature": "number",
    "top_p": "number",
    "presence_penalty": "number",
    "frequency_penalty": "number",
    "repetition_penalty": "number",
    "min_p": "number",
    "top_k": "integer",
    "max_tokens": "integer",
    "max_completion_tokens": "integer",
    "n": "integer",
    "seed": "integer",
    "top_logprobs": "integer",
    "logprobs": "boolean",
    "parallel_tool_calls": "boolean",
    "store": "boolean",
    "stop": "strings",
    "user": "string",
    "reasoning_effort": "string",
    "service_tier": "string",
    "verbosity": "string",
    "prompt_cache_key": "string",
    "safety_identifier": "string",
    "metadata": "object",
    "logit_bias": "object",
    "response_format": "object",
    "stream_options": "object",
    "chat_template_kwargs": "object",
    "modalities": "list",
}


def tool_names(tools: list[dict[str, Any]]) -> set[str]:
    """The function names a tools list declares."""
    names: set[str] = set()
    for tool in tools:
        fn = tool.get("function")
        if isinstance(fn, dict) and isinstance(fn.get("name"), str):
            names.add(fn["name"])
    return names


def validate(body: Any, renders: bool = False) -> dict[str, Any]:
    """``body`` if it is a chat request the proxy can send on; else ``BadRequest``.
    ``renders``: the proxy writes the prompt itself (``--upstream-tools render``), so a
    role must be one it writes; otherwise a role that is a string passes on, for the
    upstream's template to read (Llama 3's ``ipython``, GLM's ``observation``)."""
    if not isinstance(body, dict):
        raise BadRequest("the request body must be a JSON object")
    messages = body.get("messages")
    if messages is None:
        raise BadRequest("'messages' is required", "messages")
    if not isinstance(messages, list) or not messages:
        raise BadRequest("'messages' must be a non-empty list", "messages")
    for number, message in enumerate(messages):
        _message(message, number, renders)
    check_types(body, _TYPES)
    tools = body.get("tools")
    if tools is not None:
        if not isinstance(tools, list):
            raise BadRequest("'tools' must be a list of objects", "tools")
        for number, tool in enumerate(tools):
            _tool(tool, number)
    choice = body.get("tool_choice")
    why = tool_choice_error(choice)
    if why is not None:
        raise BadRequest(why, "tool_choice")
    named = chosen_function(choice)
    if named is not None and named not in tool_names(tools or []):
        raise BadRequest(f"tool_choice names {named!r}, which is not in 'tools'", "tool_choice")
    n = body.get("n")
    if n is not None and n != 1:
        raise BadRequest("streamcall serve supports n=1 only", "n")
    return body


def _message(message: Any, number: int, renders: bool) -> None:
    where = f"messages[{number}]"
    if not isinstance(message, dict):
        raise BadRequest(f"{where} must be an object", "messages")
    role = message.get("role")
    if role not in ROLES and (renders or not isinstance(role, str) or not role):
        raise BadRequest(
            f"{where}.role must be one of {', '.join(ROLES)}, not {role!r}", f"{where}.role"
        )
    content = message.get("content")
    if content is not None and not isinstance(content, str | list):
        raise BadRequest(
            f"{where}.content must be a string, a list of content parts or null",
            f"{where}.content",
        )
    calls = message.get("tool_calls")
    if calls is None:
        return
    if not isinstance(calls, list):
        raise BadRequest(f"{where}.tool_calls must be a list of calls", f"{where}.tool_calls")
    for index, call in enumerate(calls):
        at = f"{where}.tool_calls[{index}]"
        fn = call.get("function") if isinstance(call, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            raise BadRequest(f"{at}.function.name is required (a string)", at)
        arguments = fn.get("arguments")
        if arguments is not None and not isinstance(arguments, str | dict):
            raise BadRequest(f"{at}.function.arguments must be JSON text (a string)", at)


def _tool(tool: Any, number: int) -> None:
    where = f"tools[{number}]"
    if not isinstance(tool, dict):
        raise BadRequest(f"{where} must be an object", "tools")
    kind = tool.get("type", "function")
    if kind == "custom":
        custom = tool.get("custom")
        if not isinstance(custom, dict) or not isinstance(custom.get("name"), str):
            raise BadRequest(f"{where}.custom.name is required (a string)", where)
        return
    if kind != "function":
        raise BadRequest(f"{where}.type must be function or custom, not {kind!r}", where)
    fn = tool.get("function")
    if not isinstance(fn, dict):
        raise BadRequest(f"{where}.function is required (an object)", where)
    name = fn.get("name")
    if not isinstance(name, str) or not name:
        raise BadRequest(f"{where}.function.name is required (a non-empty string)", where)
    why = kind_error(fn.get("parameters"), "object")
    if why is not None:
        raise BadRequest(f"{where}.function.parameters {why}", where)
    why = kind_error(fn.get("description"), "string")
    if why is not None:
        raise BadRequest(f"{where}.function.description {why}", where)
