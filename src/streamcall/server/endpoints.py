"""The proxy's three client APIs as ``Endpoint``s (``server/api.py``): chat completions
(the request as it is, chunks out), the Responses API (``server/responses.py``) and
Anthropic's Messages API (``server/messages.py``, ``toolu_`` ids, its error shape).
``errors_for`` says whose error shape a path takes.
"""

from __future__ import annotations

import secrets
from typing import Any

from streamcall.server.api import Call, Endpoint, Parsed
from streamcall.server.emit import ChatWire, message_json
from streamcall.server.messages import MessagesWire, anthropic_error, message_answer
from streamcall.server.messages import chat_request as messages_request
from streamcall.server.responses import ResponsesWire, response_answer
from streamcall.server.responses import chat_request as responses_request

__all__ = ["CHAT", "MESSAGES", "RESPONSES", "errors_for"]


def _chat_answer(
    call: Call, whole: dict[str, Any], parsed: list[Parsed], rejected: int
) -> dict[str, Any]:
    """The ``chat.completion``: the upstream's, with every choice's message parsed."""
    whole["choices"] = [
        {
            "index": p.choice.get("index", number),
            "message": message_json(p.message),
            "logprobs": p.choice.get("logprobs"),
            "finish_reason": p.message.finish_reason or "stop",
        }
        for number, p in enumerate(parsed)
    ]
    if rejected:
        whole["streamcall"] = {"rejected_chunks": rejected}
    return whole


def _call_prefix() -> str:
    return f"call_{secrets.token_hex(6)}_"


def _same(status: int, body: dict[str, Any]) -> dict[str, Any]:
    return body


#: ``POST /v1/chat/completions``: the request as it is, chunks out
CHAT = Endpoint(
    translate=lambda body: Call(body),  # validated by the shared path
    wire=lambda call, model: ChatWire(f"chatcmpl-{secrets.token_hex(12)}", model),
    answer=_chat_answer,
    error=_same,
    call_prefix=_call_prefix,
)
#: ``POST /v1/responses`` (``server/responses.py``)
RESPONSES = Endpoint(
    translate=responses_request,
    wire=lambda call, model: ResponsesWire(call, model),
    answer=response_answer,
    error=_same,
    call_prefix=_call_prefix,
)
#: ``POST /v1/messages`` (``server/messages.py``): Anthropic's shapes, ``toolu_`` ids
MESSAGES = Endpoint(
    translate=messages_request,
    wire=lambda call, model: MessagesWire(call, model),
    answer=message_answer,
    error=anthropic_error,
    call_prefix=lambda: f"toolu_{secrets.token_hex(6)}_",
)


def errors_for(path: str) -> Endpoint | None:
    """Whose error shape a path's errors take: Anthropic's under ``/v1/messages``."""
    return MESSAGES if path == "/v1/messages" or path.startswith("/v1/messages/") else None
