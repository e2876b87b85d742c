"""The built-in upstream: a raw-text chat server that replays the bundled examples.

It stands in for llama.cpp without ``--jinja`` or vLLM without a tool parser, so that
``streamcall serve`` works with nothing else installed. ``POST /v1/chat/completions``
picks the example whose model is the request's ``model`` (a model it does not have is a
404 that lists the ones it has, as a real server answers; no ``model`` is a 400), and:

- for raw model text, streams it as OpenAI chunks whose ``delta.content`` carries the raw
  tool-call markup, cut every 1-6 characters (deterministically, like tokens), or returns
  it whole when ``stream`` is false;
- for an SSE capture (``*.sse``), sends the recorded bytes event by event, as recorded.

``POST /v1/completions`` answers the same example as a text completion (streamed or
not), for ``streamcall serve --upstream-tools render``, whose prompt it does not read.
``GET /v1/models`` lists the examples' models. ``delay`` is the pause between chunks.
The app holds no per-request state; each response is generated from the files.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from streamcall import bundled
from streamcall.chunks import ChatAccumulator, ChunkError, decode_chunk
from streamcall.sse import SSEDecoder

__all__ = ["replay_app", "token_pieces"]


def token_pieces(text: str, seed: int = 0) -> list[str]:
    """Cut ``text`` into 1-6 character pieces, the way a tokenizer's deltas look."""
    rng = random.Random(seed)
    pieces: list[str] = []
    i = 0
    while i < len(text):
        n = rng.choice((1, 2, 3, 3, 4, 4, 5, 6))
        pieces.append(text[i : i + n])
        i += n
    return pieces


def _error(status: int, message: str, param: str | None = None) -> JSONResponse:
    type_ = "NotFoundError" if status == 404 else "invalid_request_error"
    return JSONResponse(
        {"error": {"message": message, "type": type_, "param": param, "code": status}},
        status_code=status,
    )


def _models_list() -> str:
    return ", ".join(ex.model for ex in bundled.examples())


def _sse_events(data: bytes) -> list[str]:
    """The ``data`` of each event in a capture, ``[DONE]`` included."""
    decoder = SSEDecoder()
    events = [ev.data for ev in decoder.feed(data)]
    events.extend(ev.data for ev in decoder.close())
    return events


def replay_app(delay: float = 0.02) -> Starlette:
    """An ASGI app replaying the bundled examples as an OpenAI-compatible raw-text server."""

    async def models(request: Request) -> Response:
        data = [
            {"id": ex.model, "object": "model", "created": 0, "owned_by": "streamcall-replay"}
            for ex in bundled.examples()
        ]
        return JSONResponse({"object": "list", "data": data})

    async def chat(request: Request) -> Response:
        found = await _example(request)
        if isinstance(found, Response):
            return found
        body, example = found
        model = example.model
        created = int(time.time())
        completion_id = f"chatcmpl-replay-{created}"
        raw = example.read_bytes()
        if example.is_sse:
            events = _sse_events(raw)
            if body.get("stream"):
                return StreamingResponse(_stream_sse(events, delay), media_type="text/event-stream")
            return JSONResponse(_aggregate_sse(events, completion_id, created, model))
        text = raw.decode("utf-8")
        pieces = token_pieces(text, seed=len(text))
        usage = {
            "prompt_tokens": 64,
            "completion_tokens": len(pieces),
            "total_tokens": 64 + len(pieces),
        }
        if body.get("stream"):
            options = body.get("stream_options")
            include_usage = isinstance(options, dict) and bool(options.get("include_usage"))
            return StreamingResponse(
                _stream_text(pieces, completion_id, created, model, usage, include_usage, delay),
                media_type="text/event-stream",
            )
        return JSONResponse(
            {
                "id": completion_id,
                "object": "chat.completion",
                "created": created,
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": "stop",
                    }
                ],
                "usage": usage,
            }
        )

    async def completions(request: Request) -> Response:
        # --upstream-tools render: the proxy renders the prompt; the model's answer is the
        # example's text all the same, as a text completion
        found = await _example(request)
        if isinstance(found, Response):
            return found
        return _completion(*found, delay)

    return Starlette(
        routes=[
            Route("/v1/models", models, methods=["GET"]),
            Route("/v1/chat/completions", chat, methods=["POST"]),
            Route("/v1/completions", completions, methods=["POST"]),
        ]
    )


def _completion(body: dict[str, Any], example: bundled.Example, delay: float) -> Response:
    """The example's text as a text completion, streamed or whole."""
    created = int(time.time())
    completion_id = f"cmpl-replay-{created}"
    raw = example.read_bytes()
    if example.is_sse:
        whole = _aggregate_sse(_sse_events(raw), completion_id, created, example.model)
        text = whole["choices"][0]["message"]["content"] or ""
    else:
        text = raw.decode("utf-8")
    pieces = token_pieces(text, seed=len(text))
    usage = {"prompt_tokens": 64, "completion_tokens": len(pieces)}
    usage["total_tokens"] = 64 + len(pieces)
    if body.get("stream"):
        options = body.get("stream_options")
        include_usage = isinstance(options, dict) and bool(options.get("include_usage"))
        return StreamingResponse(
            _stream_completion(
                pieces, completion_id, created, example.model, usage, include_usage, delay
            ),
            media_type="text/event-stream",
        )
    choice = {"index": 0, "text": text, "finish_reason": "stop", "logprobs": None}
    return JSONResponse(
        {
            "id": completion_id,
            "object": "text_completion",
            "created": created,
            "model": example.model,
            "choices": [choice],
            "usage": usage,
        }
    )


async def _example(request: Request) -> tuple[dict[str, Any], bundled.Example] | Response:
    """The request's body and the example its ``model`` names, or the error answer."""
    try:
        body = json.loads(await request.body())
    except (ValueError, RecursionError):
        return _error(400, "the request body is not JSON this server can read")
    if not isinstance(body, dict):
        return _error(400, "the request body must be a JSON object")
    requested = body.get("model")
    if not isinstance(requested, str) or not requested:
        return _error(
            400, f"'model' is required; this replay upstream has: {_models_list()}", "model"
        )
    example = bundled.find_example(requested)
    if example is None:
        return _error(
            404,
            f"The model '{requested}' does not exist here; this replay upstream has: "
            f"{_models_list()}",
            "model",
        )
    return body, example


async def _stream_completion(
    pieces: list[str],
    completion_id: str,
    created: int,
    model: str,
    usage: dict[str, int],
    include_usage: bool,
    delay: float,
) -> AsyncIterator[bytes]:
    def chunk(text: str, finish: str | None) -> bytes:
        choice = {"index": 0, "text": text, "finish_reason": finish, "logprobs": None}
        data = {
            "id": completion_id,
            "object": "text_completion",
            "created": created,
            "model": model,
            "choices": [choice],
        }
        return b"data: " + json.dumps(data, ensure_ascii=False).encode() + b"\n\n"

    for piece in pieces:
        if delay:
            await asyncio.sleep(delay)
        yield chunk(piece, None)
    yield chunk("", "stop")
    if include_usage:
        data = {"id": completion_id, "object": "text_completion", "choices": [], "usage": usage}
        yield b"data: " + json.dumps(data).encode() + b"\n\n"
    yield b"data: [DONE]\n\n"


def _chunk(
    completion_id: str, created: int, model: str, delta: dict[str, Any], finish: str | None
) -> bytes:
    data = {
        "id": completion_id,
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(data, ensure_ascii=False).encode() + b"\n\n"


async def _stream_text(
    pieces: list[str],
    completion_id: str,
    created: int,
    model: str,
    usage: dict[str, int],
    include_usage: bool,
    delay: float,
) -> AsyncIterator[bytes]:
    yield _chunk(completion_id, created, model, {"role": "assistant", "content": ""}, None)
    for piece in pieces:
        if delay:
            await asyncio.sleep(delay)
        yield _chunk(completion_id, created, model, {"content": piece}, None)
    yield _chunk(completion_id, created, model, {}, "stop")
    if include_usage:
        data = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [],
            "usage": usage,
        }
        yield b"data: " + json.dumps(data).encode() + b"\n\n"
    yield b"data: [DONE]\n\n"


async def _stream_sse(events: list[str], delay: float) -> AsyncIterator[bytes]:
    for data in events:
        if delay:
            await asyncio.sleep(delay)
        yield b"data: " + data.encode() + b"\n\n"


def _aggregate_sse(events: list[str], completion_id: str, created: int, model: str) -> Any:
    acc = ChatAccumulator()
    for data in events:
        if data.strip() == "[DONE]":
            break
        try:
            acc.add(decode_chunk(data))
        except ChunkError:
            continue
    message = acc.message
    usage = message.usage
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": message.content},
                "finish_reason": message.finish_reason or "stop",
            }
        ],
        "usage": None if usage is None else usage.to_dict(),
    }
