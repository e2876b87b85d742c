"""Loopback harness for the end-to-end proxy tests: real servers on 127.0.0.1 only.

- ``ServerThread(app)``: uvicorn serving an ASGI app on an ephemeral loopback port, in a
  background thread with its own event loop; ``stop()`` ends it.
- ``scripted_upstream(scripts)``: a tiny raw-text chat server (starlette). The request's
  ``model`` picks a ``Script``: model text streamed as OpenAI chunks (3 characters each,
  ``delta.content`` only, like llama.cpp without ``--jinja``), and a fault mode:
  ``"500"`` answers an error; ``"die"`` kills the connection after ``die_after`` chunks;
  ``"malformed"`` sends one chunk that is not JSON halfway through; ``"json"`` ignores
  ``"stream": true`` and answers one chat completion; ``"json-bad"`` answers a stream
  request with JSON that is not one; ``"cut"`` ends the stream cleanly with neither a
  finish chunk nor ``[DONE]``. ``Script.usage`` replaces the usage object sent (by
  default only the three totals). ``rules`` makes the server refuse tools the way a real
  one does: ``"llamacpp"`` (llama.cpp's server without ``--jinja``) and ``"vllm"`` (vLLM
  without ``--enable-auto-tool-choice``/``--tool-call-parser``); see ``tool_refusal``. A
  ``GATE`` in the
  text makes the stream wait for ``script.gate`` (a ``threading.Event``) there, so a test
  can see what reached the client before the rest was even sent.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

GATE = "\x00GATE\x00"


class ServerThread:
    """uvicorn on 127.0.0.1:<free port> in a daemon thread."""

    def __init__(self, app: Any) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port: int = self.sock.getsockname()[1]
        config = uvicorn.Config(app, log_level="warning", lifespan="auto")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=lambda: asyncio.run(self.server.serve(sockets=[self.sock])), daemon=True
        )

    def start(self, timeout: float = 10.0) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("server did not start")
            time.sleep(0.01)
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self, timeout: float = 10.0) -> None:
        self.server.should_exit = True
        self.thread.join(timeout)
        self.sock.close()


@dataclass
class Script:
    text: str
    fault: str | None = None
    die_after: int = 10
    reasoning: str = ""  # sent as structured delta.reasoning_content first
    usage: dict[str, Any] | None = None  # the usage object to send, instead of the totals
    gate: threading.Event = field(default_factory=threading.Event)
    requests: list[dict[str, Any]] = field(default_factory=list)


def _chunk(model: str, delta: dict[str, Any], finish: str | None = None) -> bytes:
    data = {
        "id": "chatcmpl-upstream",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(data).encode() + b"\n\n"


def tool_refusal(rules: str | None, body: dict[str, Any]) -> JSONResponse | None:
    """The answer a real server gives a request whose tools it cannot take, else None.

    - ``llamacpp``: llama.cpp's server without ``--jinja`` (``oaicompat_chat_params_parse``
      in ``tools/server``): a non-empty ``tools`` list is a ``std::runtime_error("tools
      param requires --jinja flag")``, a non-null ``tool_choice`` one of "Unsupported
      param: tool_choice" (newer builds: "tool_choice param requires --jinja flag"); its
      ``ex_wrapper`` turns a runtime_error into ``ERROR_TYPE_SERVER``: status 500, body
      ``{"error": {"code": 500, "message": ..., "type": "server_error"}}``.
    - ``vllm``: vLLM 0.33 without a tool parser. ``ChatCompletionRequest`` defaults
      ``tool_choice`` to ``"auto"`` when tools are given; the renderer
      (``renderers/online_renderer.py``) then answers ``create_error_response`` (status
      400, ``{"error": {"message", "type": "BadRequestError", "param": null, "code": 400}}``)
      with '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to
      be set', or 'tool_choice="required" requires --tool-call-parser to be set' (a named
      function: 'tool_choice=function "NAME" requires ...'). ``"none"`` is accepted, and the
      template still renders the tools (``exclude_tools_when_tool_choice_none`` is off).
    """
    tools = body.get("tools")
    choice = body.get("tool_choice")
    if rules == "llamacpp":
        message = None
        if isinstance(tools, list) and tools:
            message = "tools param requires --jinja flag"
        elif choice is not None:
            message = "Unsupported param: tool_choice"
        if message is None:
            return None
        error = {"code": 500, "message": message, "type": "server_error"}
        return JSONResponse({"error": error}, status_code=500)
    if rules == "vllm":
        if tools and choice is None:
            choice = "auto"
        if choice in (None, "none"):
            return None
        if choice == "auto":
            message = (
                '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser '
                "to be set"
            )
        else:
            what = (
                f'function "{choice["function"]["name"]}"'
                if isinstance(choice, dict)
                else f'"{choice}"'
            )
            message = f"tool_choice={what} requires --tool-call-parser to be set"
        error = {"message": message, "type": "BadRequestError", "param": None, "code": 400}
        return JSONResponse({"error": error}, status_code=400)
    return None


def scripted_upstream(scripts: dict[str, Script], rules: str | None = None) -> Starlette:
    async def models(request: Request) -> Response:
        data = [{"id": name, "object": "model", "owned_by": "test"} for name in scripts]
        return JSONResponse({"object": "list", "data": data})

    async def chat(request: Request) -> Response:
        body = json.loads(await request.body())
        model = body.get("model", "")
        script = scripts[model]
        script.requests.append(body)
        refusal = tool_refusal(rules, body)
        if refusal is not None:
            return refusal
        if script.fault == "500":
            return JSONResponse(
                {"error": {"message": "upstream exploded", "type": "server_error", "code": 500}},
                status_code=500,
            )
        text = script.text.replace(GATE, "")
        if script.fault == "json-bad" and body.get("stream"):
            return JSONResponse({"unexpected": "not a chat completion"})
        if script.fault == "json" and body.get("stream"):
            text = script.text  # a server that ignores "stream": true answers as below
        if not body.get("stream") or script.fault == "json":
            message: dict[str, Any] = {"role": "assistant", "content": text}
            if script.reasoning:
                message["reasoning_content"] = script.reasoning
            return JSONResponse(
                {
                    "id": "chatcmpl-upstream",
                    "object": "chat.completion",
                    "created": 1,
                    "model": model,
                    "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                    "usage": script.usage
                    or {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12},
                }
            )
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        return StreamingResponse(
            _stream(script, model, include_usage), media_type="text/event-stream"
        )

    return Starlette(
        routes=[
            Route("/v1/models", models, methods=["GET"]),
            Route("/v1/chat/completions", chat, methods=["POST"]),
        ]
    )


async def _stream(script: Script, model: str, include_usage: bool) -> AsyncIterator[bytes]:
    yield _chunk(model, {"role": "assistant", "content": ""})
    if script.reasoning:
        for i in range(0, len(script.reasoning), 5):
            yield _chunk(model, {"reasoning_content": script.reasoning[i : i + 5]})
    before, gate, after = script.text.partition(GATE)
    pieces = [before[i : i + 3] for i in range(0, len(before), 3)]
    if gate:
        pieces.append(GATE)
        pieces.extend(after[i : i + 3] for i in range(0, len(after), 3))
    for n, piece in enumerate(pieces):
        if piece == GATE:
            deadline = time.monotonic() + 10
            while not script.gate.is_set() and time.monotonic() < deadline:
                await asyncio.sleep(0.005)
            continue
        if script.fault == "die" and n == script.die_after:
            raise RuntimeError("upstream killed mid-stream (test fault)")
        if script.fault == "malformed" and n == len(pieces) // 2:
            yield b'data: {"choices": [{"delta": {"content": "lost?"\n\n'
        yield _chunk(model, {"content": piece})
        await asyncio.sleep(0)
    if script.fault == "cut":
        return
    yield _chunk(model, {}, "stop")
    if include_usage:
        usage = script.usage or {
            "prompt_tokens": 5,
            "completion_tokens": len(pieces),
            "total_tokens": 5 + len(pieces),
        }
        data = {"id": "chatcmpl-upstream", "object": "chat.completion.chunk", "created": 1,
                "model": model, "choices": [], "usage": usage}  # fmt: skip
        yield b"data: " + json.dumps(data).encode() + b"\n\n"
    yield b"data: [DONE]\n\n"
