"""Anthropic's Messages API request (``POST /v1/messages``) as the chat-completions request
the proxy's upstream path takes (every ``--upstream-tools`` mode, ``render`` included).
Sans-IO: ``chat_request`` is the whole of it; the answer is ``messages.py``'s.

The request (each member honoured, ignored on purpose (``IGNORED``, with the reason),
or refused with a 400 that names it; a member of the wrong JSON type is a 400 too):

- ``model``, ``max_tokens`` (-> ``max_tokens``) and ``messages`` are required, as in
  Anthropic's API; ``system`` (a string or text blocks) -> a first ``system`` message;
- ``messages``: ``text`` and ``image`` blocks (base64 or URL sources, as ``image_url``
  parts); an assistant's ``tool_use`` blocks -> its ``tool_calls`` (``input`` as JSON
  text), its ``thinking`` blocks -> ``reasoning_content`` (``redacted_thinking`` is
  dropped: the upstream could not read it); a user's ``tool_result`` blocks -> ``tool``
  messages (before the user's text, in order; ``is_error`` noted in the content); an entry
  with role ``system`` (the SDK's ``MessageParam`` allows it, and Claude Code sends one)
  -> a ``system`` message where it stands; ``cache_control`` anywhere is ignored (the
  upstream's prefix cache works on its own);
- ``tools`` (``server/tools.py``): client tools (``name``, ``description``,
  ``input_schema`` -> ``parameters``), ``bash_*`` and ``text_editor_*`` with the schemas
  Anthropic documents; server tools (``web_search_*``, ``web_fetch_*``,
  ``code_execution_*``, ``computer_*``, ``memory_*``, MCP, tool search) are not offered
  (``Call.hosted``: the proxy drops them with a word, or refuses them);
  ``tool_choice``: ``auto`` -> ``auto``, ``any`` -> ``required``, ``tool`` -> the named
  function, ``none`` -> ``none``; ``disable_parallel_tool_use`` ->
  ``parallel_tool_calls: false``;
- ``thinking``: ``enabled`` (any ``budget_tokens``) and ``disabled`` -> the thinking switch
  ``chat_template_kwargs.enable_thinking`` (the client's own ``chat_template_kwargs``
  win), as the chat path reads it; ``adaptive`` leaves the model's default;
  ``output_config``: ``effort`` -> ``reasoning_effort``, ``format`` (a JSON schema) ->
  ``response_format``;
- ``stop_sequences`` -> ``stop`` (and ``Call.stop``: the answer's ``stop_reason`` is
  ``stop_sequence``, with the one that matched, when the upstream says which: vLLM's
  ``stop_reason``, SGLang's ``matched_stop``); ``temperature``, ``top_p``, ``top_k`` pass
  as they are; ``container`` and ``mcp_servers`` are refused (they need Anthropic's
  servers).
"""

from __future__ import annotations

import json
from typing import Any

from streamcall.server.api import BadRequest, Call
from streamcall.server.fields import check_types
from streamcall.server.tools import ToolSet, messages_tools

__all__ = ["HONOURED", "IGNORED", "REFUSED", "chat_request"]

_SHARED = ("temperature", "top_p", "top_k")


#: members read and honoured (the module docstring says how), with their JSON kinds
HONOURED = {
    "model": "string",
    "max_tokens": "integer",
    "messages": "list",
    "system": "",
    "stop_sequences": "list",
    "stream": "boolean",
    "temperature": "number",
    "top_p": "number",
    "top_k": "integer",
    "tools": "list",
    "tool_choice": "object",
    "thinking": "object",
    "output_config": "object",
    "chat_template_kwargs": "object",  # streamcall's: the chat template's switches
}
#: members accepted and ignored on purpose, with the reason (README, "Agent APIs")
IGNORED = {
    "metadata": "a user id for Anthropic's abuse tracking; nothing here tracks users",
    "service_tier": "one upstream, one tier",
    "cache_control": "the upstream's prefix cache works on its own (so does cache_control "
    "on blocks, tools and system parts)",
    "inference_geo": "one upstream, in one place",
    "speed": "one upstream, one speed",
    "diagnostics": "nothing is collected",
    "user_profile_id": "one upstream, no profiles",
    "workspace_id": "one upstream, no workspaces",
    "context_management": "the proxy stores no context: the client sends the whole "
    "conversation, as it edits it, each time",
    # beta members (client.beta.messages)
    "betas": "the proxy has no beta features to switch",
    "billing_policy": "one upstream, no billing",
    "fallback_credit_token": "one upstream, no refusal credits",
    "fallbacks": "one upstream, one model",
}
#: members the proxy cannot honour: a 400 when they are set
REFUSED = {
    "container": "a code-execution container runs on Anthropic's servers",
    "mcp_servers": "the proxy runs no MCP client: give the MCP tools as client tools",
    "compaction": "a compaction request's answer is a summary in Anthropic's own shape",
    "thread": "the proxy stores no conversation: send the whole conversation in messages",
}


def chat_request(body: Any) -> Call:
    """A Messages request as the chat request sent upstream (module docstring)."""
    if not isinstance(body, dict):
        raise BadRequest("the request body must be a JSON object")
    _members(body)
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise BadRequest("model: field required (a string)", "model")
    max_tokens = body.get("max_tokens")
    if max_tokens is None:
        raise BadRequest("max_tokens: field required", "max_tokens")
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        raise BadRequest("max_tokens: must be a positive integer", "max_tokens")
    given = body.get("messages")
    if not isinstance(given, list) or not given:
        raise BadRequest("messages: field required (a non-empty list)", "messages")
    messages: list[dict[str, Any]] = []
    system = body.get("system")
    if system is not None:
        messages.append({"role": "system", "content": _system(system, "system")})
    for number, message in enumerate(given):
        _message(message, number, messages)
    if not any(m["role"] != "system" for m in messages):
        raise BadRequest("messages: holds no user or assistant message", "messages")
    chat: dict[str, Any] = {"model": model, "messages": messages, "max_tokens": max_tokens}
    for key in _SHARED:
        if body.get(key) is not None:
            chat[key] = body[key]
    stops = body.get("stop_sequences")
    if stops is not None:
        if not isinstance(stops, list) or not all(isinstance(s, str) for s in stops):
            raise BadRequest("stop_sequences: must be a list of strings", "stop_sequences")
        if stops:
            chat["stop"] = stops
    found = messages_tools(body["tools"]) if body.get("tools") is not None else None
    if found is not None and found.tools:
        chat["tools"] = found.tools
    if body.get("tool_choice") is not None:
        _tool_choice(body["tool_choice"], chat, found)
    _thinking(body.get("thinking"), body.get("chat_template_kwargs"), chat)
    _output_config(body.get("output_config"), chat)
    stream = body.get("stream")
    if stream:
        chat["stream"] = True
        chat["stream_options"] = {"include_usage": True}
    return Call(
        chat,
        {"model": model},
        hosted=found.hosted if found is not None else [],
        stop=list(stops or []),
    )


def _members(body: dict[str, Any]) -> None:
    """Every member is honoured, ignored on purpose or refused with its reason; each
    honoured one is of its JSON kind."""
    if body.get("thread") is not None:
        # the SDK's own signal for a server that cannot thread: its tool runner then sends
        # every later turn whole, without the field (anthropic.lib.threads)
        raise BadRequest(
            f"thread: not supported here: {REFUSED['thread']}",
            "thread",
            details={"error_code": "thread_unsupported_request", "unsupported": ["thread"]},
        )
    for key, value in body.items():
        if key in HONOURED or key in IGNORED:
            continue
        if key in REFUSED:
            if value is not None:
                raise BadRequest(f"{key}: not supported here: {REFUSED[key]}", key)
            continue
        raise BadRequest(
            f"{key}: unknown member of a Messages request (streamcall serve reads "
            f"{', '.join(sorted(HONOURED))}; it ignores {', '.join(sorted(IGNORED))})",
            key,
        )
    check_types(body, {k: v for k, v in HONOURED.items() if v}, lambda key: f"{key}:")


def _output_config(config: Any, chat: dict[str, Any]) -> None:
    if config is None:
        return
    effort = config.get("effort")
    if effort is not None:
        if not isinstance(effort, str):
            raise BadRequest("output_config.effort: must be a string", "output_config")
        chat["reasoning_effort"] = effort
    fmt = config.get("format")
    if fmt is None:
        return
    if not isinstance(fmt, dict) or fmt.get("type") != "json_schema":
        raise BadRequest("output_config.format.type: must be json_schema", "output_config")
    schema = fmt.get("schema")
    if not isinstance(schema, dict):
        raise BadRequest(
            "output_config.format.schema: must be a JSON schema object", "output_config"
        )
    chat["response_format"] = {
        "type": "json_schema",
        "json_schema": {"name": "output", "schema": schema},
    }


def _system(system: Any, where: str) -> str:
    if isinstance(system, str):
        return system
    if isinstance(system, list):
        texts = [b.get("text") for b in system if isinstance(b, dict) and b.get("type") == "text"]
        if len(texts) == len(system) and all(isinstance(t, str) for t in texts):
            return "\n\n".join(str(t) for t in texts)
    raise BadRequest(f"{where}: must be a string or a list of text blocks", where)


def _image(block: dict[str, Any], where: str) -> dict[str, Any]:
    source = block.get("source")
    if isinstance(source, dict) and source.get("type") == "base64":
        media, data = source.get("media_type"), source.get("data")
        if isinstance(media, str) and isinstance(data, str):
            return {"type": "image_url", "image_url": {"url": f"data:{media};base64,{data}"}}
    if (
        isinstance(source, dict)
        and source.get("type") == "url"
        and isinstance(source.get("url"), str)
    ):
        return {"type": "image_url", "image_url": {"url": source["url"]}}
    raise BadRequest(f"{where}.source: a base64 or url image source is required", where)


def _content(parts: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    if all(p["type"] == "text" for p in parts):
        return "".join(p["text"] for p in parts)
    return parts


def _tool_result(block: dict[str, Any], where: str) -> dict[str, Any]:
    ident = block.get("tool_use_id")
    if not isinstance(ident, str):
        raise BadRequest(f"{where}.tool_use_id: field required", where)
    content = block.get("content", "")
    if isinstance(content, list):
        texts = []
        for number, part in enumerate(content):
            if (
                not isinstance(part, dict)
                or part.get("type") != "text"
                or not isinstance(part.get("text"), str)
            ):
                raise BadRequest(
                    f"{where}.content[{number}]: only text blocks are supported in a tool_result",
                    where,
                )
            texts.append(part["text"])
        content = "\n".join(texts)
    elif not isinstance(content, str):
        raise BadRequest(f"{where}.content: must be a string or a list of text blocks", where)
    if block.get("is_error"):
        content = f"Error: {content}"
    return {"role": "tool", "tool_call_id": ident, "content": content}


def _message(message: Any, number: int, messages: list[dict[str, Any]]) -> None:
    where = f"messages.{number}"
    if not isinstance(message, dict):
        raise BadRequest(f"{where}: must be an object", where)
    role = message.get("role")
    if role == "system":
        # not in Anthropic's API, but in its SDK's MessageParam, and sent (Claude Code):
        # a system message where it stands
        messages.append({"role": "system", "content": _system(message.get("content"), where)})
        return
    if role not in ("user", "assistant"):
        raise BadRequest(f"{where}.role: must be user or assistant, not {role!r}", where)
    content = message.get("content")
    if isinstance(content, str):
        messages.append({"role": role, "content": content})
        return
    if not isinstance(content, list):
        raise BadRequest(f"{where}.content: must be a string or a list of content blocks", where)
    parts: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    thinking: list[str] = []
    for index, block in enumerate(content):
        at = f"{where}.content.{index}"
        kind = block.get("type") if isinstance(block, dict) else None
        if not isinstance(block, dict):
            raise BadRequest(f"{at}: must be an object", at)
        if kind == "text":
            if not isinstance(block.get("text"), str):
                raise BadRequest(f"{at}.text: must be a string", at)
            parts.append({"type": "text", "text": block["text"]})
        elif kind == "image" and role == "user":
            parts.append(_image(block, at))
        elif kind == "tool_result" and role == "user":
            results.append(_tool_result(block, at))
        elif kind == "tool_use" and role == "assistant":
            ident, name, given = block.get("id"), block.get("name"), block.get("input", {})
            if not isinstance(ident, str) or not isinstance(name, str):
                raise BadRequest(f"{at}: a tool_use block needs 'id' and 'name'", at)
            if not isinstance(given, dict):
                raise BadRequest(f"{at}.input: must be an object", at)
            arguments = json.dumps(given, ensure_ascii=False)
            calls.append(
                {
                    "id": ident,
                    "type": "function",
                    "function": {"name": name, "arguments": arguments},
                }
            )
        elif kind == "thinking" and role == "assistant":
            if not isinstance(block.get("thinking"), str):
                raise BadRequest(f"{at}.thinking: must be a string", at)
            thinking.append(block["thinking"])
        elif kind == "redacted_thinking" and role == "assistant":
            continue
        else:
            raise BadRequest(
                f"{at}.type: {kind!r} is not supported in a {role} message (text, image and "
                "tool_result for the user; text, thinking and tool_use for the assistant)",
                at,
            )
    messages.extend(results)
    if role == "user":
        if parts or not results:
            messages.append({"role": "user", "content": _content(parts)})
        return
    out: dict[str, Any] = {"role": "assistant", "content": _content(parts) if parts else None}
    if thinking:
        out["reasoning_content"] = "".join(thinking)
    if calls:
        out["tool_calls"] = calls
    messages.append(out)


def _tool_choice(choice: Any, chat: dict[str, Any], found: ToolSet | None) -> None:
    kind = choice.get("type") if isinstance(choice, dict) else None
    if kind == "tool" and isinstance(choice.get("name"), str):
        name = choice["name"]
        if found is None or name not in found.names:
            raise BadRequest(
                f"tool_choice.name: {name!r} is not a client tool of this request (server "
                "tools are not offered to the model)",
                "tool_choice",
            )
    if kind == "auto":
        chat["tool_choice"] = "auto"
    elif kind == "any":
        chat["tool_choice"] = "required"
    elif kind == "none":
        chat["tool_choice"] = "none"
    elif kind == "tool" and isinstance(choice.get("name"), str):
        chat["tool_choice"] = {"type": "function", "function": {"name": choice["name"]}}
    else:
        raise BadRequest(
            "tool_choice: must be {type: auto}, {type: any}, {type: none} or "
            "{type: tool, name: ...}",
            "tool_choice",
        )
    if isinstance(choice, dict) and choice.get("disable_parallel_tool_use"):
        chat["parallel_tool_calls"] = False


def _thinking(thinking: Any, kwargs: Any, chat: dict[str, Any]) -> None:
    if kwargs is not None and not isinstance(kwargs, dict):
        raise BadRequest("chat_template_kwargs: must be an object", "chat_template_kwargs")
    merged: dict[str, Any] = {}
    if thinking is not None:
        kind = thinking.get("type") if isinstance(thinking, dict) else None
        if kind == "enabled":
            merged["enable_thinking"] = True
        elif kind == "disabled":
            merged["enable_thinking"] = False
        elif kind != "adaptive":
            raise BadRequest("thinking.type: must be enabled, disabled or adaptive", "thinking")
    merged.update(kwargs or {})
    if merged:
        chat["chat_template_kwargs"] = merged
