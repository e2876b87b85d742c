"""Who may call the proxy: ``ClientAuth``, the ASGI middleware that checks client keys.

With keys set (``--client-key``), every route but ``/health`` needs ``Authorization:
Bearer KEY`` or ``x-api-key: KEY`` (what Anthropic's clients send); a refusal is a 401 in
the route's error shape that never repeats what was sent. The client's header is never
forwarded: the upstream sees only the proxy's own key (``server/upstream.py``).
"""

from __future__ import annotations

import hashlib
import secrets

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from streamcall.server.config import Counters
from streamcall.server.endpoints import errors_for
from streamcall.server.errors import error_response

__all__ = ["ClientAuth", "client_key"]


def _bearer(value: str | None) -> str | None:
    if not value:
        return None
    scheme, _, token = value.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def client_key(headers: Headers) -> str | None:
    """The key a client sent: ``Authorization: Bearer KEY``, else ``x-api-key: KEY`` (what
    Anthropic's clients send)."""
    token = _bearer(headers.get("authorization"))
    if token is None:
        token = (headers.get("x-api-key") or "").strip() or None
    return token


class ClientAuth:
    """ASGI middleware: every route but ``/health`` needs one of the client keys.

    The key comes as ``Authorization: Bearer`` or ``x-api-key``. Keys are compared as
    SHA-256 digests in constant time; a refusal is a 401 (Anthropic-shaped on
    ``/v1/messages``, else OpenAI-shaped) that never repeats what was sent.
    """

    def __init__(self, app: ASGIApp, keys: list[str], counters: Counters) -> None:
        self.app = app
        self.digests = [hashlib.sha256(k.encode()).digest() for k in keys]
        self.counters = counters

    def allowed(self, headers: Headers) -> bool:
        token = client_key(headers)
        if token is None:
            return False
        digest = hashlib.sha256(token.encode()).digest()
        ok = False
        for known in self.digests:
            ok |= secrets.compare_digest(digest, known)
        return ok

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope.get("method") == "OPTIONS"
            or scope["path"] == "/health"
            or self.allowed(Headers(scope=scope))
        ):
            await self.app(scope, receive, send)
            return
        self.counters.unauthorized += 1
        response = error_response(
            401,
            "missing or invalid API key: send the key this proxy was started with "
            "(--client-key) as 'Authorization: Bearer <key>' or 'x-api-key: <key>'",
            "invalid_request_error",
            headers={"www-authenticate": "Bearer"},
            endpoint=errors_for(scope["path"]),
        )
        await response(scope, receive, send)
