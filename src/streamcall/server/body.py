"""A request's body, read with a limit (a 413 before it is all held) and drained when
refused, so that a client still sending gets the answer rather than a reset."""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.types import Receive

from streamcall.server.api import BadRequest

__all__ = ["TooLarge", "drain", "read_body"]


class TooLarge(Exception):
    """The body is larger than the proxy accepts (``--max-body``): a 413."""


_DRAIN_SECONDS = 2.0  # how long the rest of a refused body is read and thrown away
_DRAIN_BYTES = 64 << 20  # and how much of it, at most


async def drain(receive: Receive) -> None:
    """Read and drop the rest of a refused body, for at most ``_DRAIN_SECONDS`` and
    ``_DRAIN_BYTES`` (a lingering close, as nginx does for its 413): a server that closes
    while the client is still sending makes the client's kernel discard the answer."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + _DRAIN_SECONDS
    drained = 0
    while drained < _DRAIN_BYTES:
        left = deadline - loop.time()
        if left <= 0:
            return
        try:
            message = await asyncio.wait_for(receive(), left)
        except TimeoutError:
            return
        if message["type"] != "http.request":
            return
        drained += len(message.get("body", b""))
        if not message.get("more_body", False):
            return


async def read_body(request: Request, limit: int) -> bytes:
    """The body, refused (``TooLarge``) once it is known to exceed ``limit``: from
    ``Content-Length`` before anything is read, else as soon as the bytes read pass
    the limit. Nothing past the limit is kept; what the client still sends is read
    and thrown away, for a moment (``drain``), so that it gets the 413 rather than a
    connection reset."""
    length = request.headers.get("content-length")
    if length is not None:
        try:
            declared = int(length)
        except ValueError:
            raise BadRequest("the Content-Length header is not a number") from None
        if declared > limit:
            # a client that waits for "100 Continue" has sent nothing: nothing to drain
            if request.headers.get("expect", "").lower() != "100-continue":
                await drain(request.receive)
            raise TooLarge
    parts: list[bytes] = []
    size = 0
    while True:
        message = await request.receive()
        if message["type"] != "http.request":
            raise BadRequest("the client went away before the body was sent")
        part = message.get("body", b"")
        size += len(part)
        if size > limit:
            if message.get("more_body", False):
                await drain(request.receive)
            raise TooLarge
        parts.append(part)
        if not message.get("more_body", False):
            return b"".join(parts)
