"""Reading OpenAI chat messages as the built-in families write them: a message's text, its
calls, its reasoning beside its answer, and a call in a format's own syntax."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from streamcall.formats.registry import parser_class

__all__ = ["Kwargs", "Messages", "Tools", "content_text", "tool_calls"]

Messages = Sequence[Mapping[str, Any]]
Tools = Sequence[Mapping[str, Any]] | None
Kwargs = Mapping[str, Any]


# -- reading OpenAI messages ------------------------------------------------------------


def content_text(content: Any) -> str:
    """A message's content as text: a string as is, text parts joined, else JSON."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, Mapping))
    return json.dumps(content, ensure_ascii=False)


def tool_calls(message: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """An assistant message's calls as ``(name, arguments)``; arguments given as JSON text
    (as OpenAI clients send them) are decoded, anything that is not an object is ``{}``."""
    out: list[tuple[str, dict[str, Any]]] = []
    for call in message.get("tool_calls") or ():
        if not isinstance(call, Mapping):
            continue
        fn = call.get("function", call)
        if not isinstance(fn, Mapping):
            continue
        args = fn.get("arguments")
        if isinstance(args, str):
            try:
                args = json.loads(args) if args.strip() else {}
            except ValueError:
                args = {}
        out.append((str(fn.get("name") or ""), args if isinstance(args, dict) else {}))
    return out


def _function(tool: Mapping[str, Any]) -> Mapping[str, Any]:
    fn = tool.get("function")
    return fn if isinstance(fn, Mapping) else tool


def _render_calls(fmt: str, calls: list[tuple[str, dict[str, Any]]]) -> str:
    return parser_class(fmt).render(calls)


def _split_reasoning(message: Mapping[str, Any]) -> tuple[str, str]:
    """(reasoning, content) of an assistant message: its ``reasoning_content`` (or
    ``reasoning``), else what its content holds before ``</think>``."""
    content = content_text(message.get("content"))
    reasoning = message.get("reasoning_content", message.get("reasoning"))
    if isinstance(reasoning, str):
        return reasoning, content
    if "</think>" in content:
        # as the Qwen3 template: the last </think> splits, the text after <think> is kept
        parts = content.split("</think>")
        return parts[0].rstrip("\n").split("<think>")[-1].lstrip("\n"), parts[-1].lstrip("\n")
    return "", content
