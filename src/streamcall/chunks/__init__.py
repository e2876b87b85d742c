"""Chunk layer: decode one ``chat.completion.chunk`` and merge the deltas into a message."""

from __future__ import annotations

from streamcall.chunks.accumulate import ChatAccumulator, Message, MessageToolCall
from streamcall.chunks.decode import ChunkDelta, ChunkError, ToolCallFragment, Usage, decode_chunk

__all__ = [
    "ChatAccumulator",
    "ChunkDelta",
    "ChunkError",
    "Message",
    "MessageToolCall",
    "ToolCallFragment",
    "Usage",
    "decode_chunk",
]
