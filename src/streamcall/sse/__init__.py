"""Byte layer: Server-Sent Events, decoded (client side) and encoded (server side)."""

from __future__ import annotations

from streamcall.sse.decoder import SSEDecoder, SSEEvent
from streamcall.sse.encoder import DONE, SSEEncoder

__all__ = ["DONE", "SSEDecoder", "SSEEncoder", "SSEEvent"]
