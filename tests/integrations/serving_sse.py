"""The SSE lines a serving generator yields (vLLM's ``create_chat_completion``, SGLang's
``handle_request`` body), read back as the JSON chunks they carry: shared by both harnesses."""

from __future__ import annotations

import json
from collections.abc import AsyncIterable
from typing import Any


async def sse_chunks(lines: AsyncIterable[str | bytes]) -> list[dict[str, Any]]:
    """The JSON chunks of the lines, one ``data: ...`` event a line, ``[DONE]`` left out."""
    chunks: list[dict[str, Any]] = []
    async for line in lines:
        line = line.decode() if isinstance(line, bytes) else line
        assert line.startswith("data: ") and line.endswith("\n\n"), line
        payload = line[len("data: ") : -2]
        if payload != "[DONE]":
            chunks.append(json.loads(payload))
    return chunks
