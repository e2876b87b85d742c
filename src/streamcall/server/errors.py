"""Errors, in the shape of the API that is answered, with no key in them.

- ``error_body``: OpenAI's ``{"error": {"message", "type", "param", "code"}}``;
  ``error_response`` makes the response, in an endpoint's own shape when one is given
  (Anthropic's ``{"type": "error", "error": {...}}`` on ``/v1/messages``).
- ``relay_error_body``: an upstream's error passed on: its own ``{"error": {...}}`` body
  when it has one, else one wrapping its text; ``tools_hint`` adds which
  ``--upstream-tools`` fixes it when the request's tools caused it.
- ``scrubber``: every key the proxy knows (and userinfo in the upstream URL, which
  ``public_url`` hides) replaced with ``***`` in whatever is logged or sent back.
- ``describe``: an exception in one line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from starlette.responses import JSONResponse

if TYPE_CHECKING:
    from streamcall.server.api import Endpoint

__all__ = [
    "describe",
    "error_body",
    "error_response",
    "public_url",
    "relay_error_body",
    "scrubber",
    "tools_hint",
]


def error_body(
    message: str, type_: str, code: int | str | None = None, param: str | None = None
) -> dict[str, Any]:
    """An OpenAI-style error body."""
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


def error_response(
    status: int,
    message: str,
    type_: str,
    param: str | None = None,
    headers: dict[str, str] | None = None,
    endpoint: Endpoint | None = None,
    details: Mapping[str, Any] | None = None,
) -> JSONResponse:
    """An error response, in ``endpoint``'s API's shape (OpenAI's by default)."""
    body = error_body(message, type_, status, param)
    if details:
        body["error"]["details"] = dict(details)
    if endpoint is not None:
        body = endpoint.error(status, body)
    return JSONResponse(body, status, headers=headers)


# What servers say when they refuse a request because of its tools: llama.cpp without
# --jinja ("tools param requires --jinja flag", "Unsupported param: tool_choice", "tool_choice
# param requires --jinja flag"), vLLM and SGLang without a tool parser ('"auto" tool choice
# requires --enable-auto-tool-choice and --tool-call-parser to be set', 'tool_choice=...
# requires --tool-call-parser to be set'), Ollama ("... does not support tools").
_REFUSES_ALL_TOOLS = ("--jinja", "unsupported param: tool_choice", "does not support tools")
_REFUSES_TOOL_CHOICE = (
    "tool choice requires",
    "--tool-call-parser",
    "--enable-auto-tool-choice",
    "tool_choice=",
)


def tools_hint(mode: str, sent: dict[str, Any], text: str) -> str | None:
    """Which ``--upstream-tools`` fixes an upstream error, when the request's tools caused it."""
    if not sent.get("tools") and sent.get("tool_choice") is None:
        return None
    lowered = text.lower()
    refuses_all = any(m in lowered for m in _REFUSES_ALL_TOOLS)
    if not refuses_all and not any(m in lowered for m in _REFUSES_TOOL_CHOICE):
        return None
    if refuses_all or mode == "none":
        return (
            "the upstream refuses requests that carry tools; start streamcall serve with "
            "--upstream-tools render (streamcall writes the tools into the prompt with the "
            "model's chat template, sends it to the upstream's /v1/completions and parses "
            "the calls the model writes; give --model-dir for the checkpoint's own template)"
        )
    return (
        "the upstream refuses this tool_choice (it has no tool parser); start streamcall "
        'serve with --upstream-tools none (tools are forwarded with tool_choice "none", '
        "so the chat template still shows them and streamcall parses the calls), or "
        "--upstream-tools render to have streamcall write the prompt itself"
    )


def public_url(url: str | None) -> str | None:
    """``url`` without the userinfo (``user:password@``) it may carry."""
    if not url:
        return url
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit((parts.scheme, f"***@{host}", parts.path, parts.query, parts.fragment))


def scrubber(keys: Iterable[str | None]) -> Callable[[str], str]:
    """A function that replaces each key, where it stands as a whole token, with ``***``.

    A token boundary (not a letter, digit, ``_`` or ``-`` on either side) keeps a short
    key from mangling words it happens to be part of.
    """
    found = sorted({k for k in keys if k}, key=len, reverse=True)
    if not found:
        return lambda text: text
    pattern = re.compile(
        r"(?<![A-Za-z0-9_\-])(?:" + "|".join(re.escape(k) for k in found) + r")(?![A-Za-z0-9_\-])"
    )
    return lambda text: pattern.sub("***", text)


def relay_error_body(status: int, text: str, hint: str | None = None) -> dict[str, Any]:
    """The upstream's error, OpenAI-shaped: its own ``{"error": {...}}`` body if it has one
    (vLLM's, llama.cpp's), else one wrapping its message or text; ``hint`` is appended to
    the message."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        value = None
    note = f" [streamcall: {hint}]" if hint else ""
    if isinstance(value, dict) and isinstance(value.get("error"), dict):
        if note:
            err = value["error"]
            err["message"] = f"{err.get('message') or ''}{note}"
        return value
    if isinstance(value, dict) and "error" in value and not note:
        return value
    if isinstance(value, dict) and isinstance(value.get("message"), str):
        message = value["message"]  # {"object": "error", "message": ...} (older vLLM)
    elif isinstance(value, dict) and isinstance(value.get("error"), str):
        message = value["error"]
    else:
        message = text.strip()[:2000] or f"HTTP {status}"
    return error_body(f"upstream error {status}: {message}{note}", "upstream_error", status)


def describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
