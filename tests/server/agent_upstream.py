"""A raw-text upstream for the agent-API tests (``/v1/responses``, ``/v1/messages``).

It serves both routes a raw-text server can: ``/v1/chat/completions`` (``pass`` mode: it
takes ``tools`` and writes calls as text in ``delta.content``, as vLLM without a tool
parser or llama.cpp with ``--jinja`` and no parser would) and ``/v1/completions`` (the
``render`` mode: it completes the prompt streamcall renders). Its "model", a Qwen3 that
writes its own ``<think>`` block, reads what it was sent as a model would:

- a tool result in the conversation (a ``tool`` message, or ``<tool_response>`` in the
  prompt): it answers with the temperature it holds;
- the tool ``get_weather`` known (in ``tools``, or in the prompt's ``<tools>`` block) and
  the last user turn asking about the weather: ``Checking.`` and a Hermes
  ``<tool_call>`` for Paris; asking for the forecast: the call alone, after the blank
  line Qwen3's template writes after ``</think>``;
- else a greeting.

The model ``CUT_MODEL`` stops at its token limit inside the call's arguments (finish
``length``). Stop strings end the text where they match, reported as vLLM does
(``stop_reason`` in the choice). ``POST /tokenize`` (beside ``/v1``, as vLLM serves it)
counts a prompt or chat messages.

With thinking switched off (``chat_template_kwargs.enable_thinking: false``, or a prompt
that ends with the empty ``<think></think>`` Qwen3's template writes then) it writes no
``<think>`` block. The model ``refuse`` is refused with a 400 (vLLM's error shape), the
model ``broken`` with a 500 whose body is plain text. Streams come in chunks of 3
characters, with the usage last when asked for; usage is the same streamed or not.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

MODEL = "Qwen/Qwen3-8B"
#: the same model, stopped at its token limit inside the call's arguments (``length``)
CUT_MODEL = "Qwen/Qwen3-8B-cut"
THOUGHT = "The user wants the weather; I should call the tool."
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'


def model_output(
    *,
    tools_known: bool,
    asks_weather: bool,
    result: str | None,
    thinking: bool,
    asks_forecast: bool = False,
) -> str:
    think = f"<think>{THOUGHT}</think>" if thinking else ""
    if result is not None:
        try:
            temp = json.loads(result)["temp"]
        except (ValueError, TypeError, KeyError):  # another tool's result (an agent's shell)
            return f"{think}The tool said: {result[:40]}"
        return f"{think}It is {temp} degrees in Paris."
    if tools_known and asks_forecast:
        # no words: the blanks Qwen3's template writes between </think> and the call
        return f"{think}\n\n{CALL}"
    if tools_known and asks_weather:
        return f"{think}Checking.\n{CALL}"
    return f"{think}Hello! How can I help?"


def _chat_output(body: dict[str, Any]) -> str:
    messages = body["messages"]
    kwargs = body.get("chat_template_kwargs") or {}
    names = [t["function"]["name"] for t in body.get("tools") or []]
    users = [m for m in messages if m["role"] == "user"]
    last_user = users[-1]["content"] if users else ""
    result = messages[-1]["content"] if messages[-1]["role"] == "tool" else None
    return model_output(
        tools_known="get_weather" in names,
        asks_weather="weather" in str(last_user),
        result=result,
        thinking=kwargs.get("enable_thinking") is not False,
        asks_forecast="forecast" in str(last_user),
    )


def _prompt_output(prompt: str) -> str:
    tail = prompt.rsplit("<|im_start|>user", 1)[-1]
    result = None
    if "<tool_response>" in tail:
        result = tail.split("<tool_response>\n", 1)[1].split("\n</tool_response>", 1)[0]
    block = re.search(r"<tools>\n(.*?)\n</tools>", prompt, re.S)
    tools = block.group(1) if block is not None else ""
    return model_output(
        tools_known='"name": "get_weather"' in tools,
        asks_weather="weather" in tail,
        result=result,
        thinking=not prompt.endswith("</think>\n\n"),
        asks_forecast="forecast" in tail,
    )


class AgentUpstream:
    """The upstream app; ``requests`` records (route, body) of every request, and
    ``authorization`` the ``Authorization`` header of each (None when absent)."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.authorization: list[str | None] = []

    def last(self) -> dict[str, Any]:
        return self.requests[-1][1]

    def app(self) -> Starlette:
        async def chat(request: Request) -> Response:
            body = await request.json()
            self.requests.append(("chat", body))
            self.authorization.append(request.headers.get("authorization"))
            return self._answer(body, _chat_output, chat=True)

        async def completions(request: Request) -> Response:
            body = await request.json()
            self.requests.append(("completions", body))
            self.authorization.append(request.headers.get("authorization"))
            return self._answer(body, lambda b: _prompt_output(b["prompt"]), chat=False)

        async def models(request: Request) -> Response:
            return JSONResponse({"object": "list", "data": [{"id": MODEL, "object": "model"}]})

        async def tokenize(request: Request) -> Response:
            # vLLM's /tokenize (beside /v1): a count for a prompt or for chat messages
            body = await request.json()
            self.requests.append(("tokenize", body))
            sent = body.get("prompt") if "prompt" in body else body.get("messages")
            count = len(json.dumps(sent)) // 4
            return JSONResponse({"count": count, "max_model_len": 32768, "tokens": [0] * count})

        return Starlette(
            routes=[
                Route("/tokenize", tokenize, methods=["POST"]),
                Route("/v1/chat/completions", chat, methods=["POST"]),
                Route("/v1/completions", completions, methods=["POST"]),
                Route("/v1/models", models, methods=["GET"]),
            ]
        )

    def _answer(self, body: dict[str, Any], output: Any, chat: bool) -> Response:
        model = body.get("model")
        if model == "refuse":
            error = {
                "message": "this model refuses the request",
                "type": "BadRequestError",
                "param": None,
                "code": 400,
            }
            return JSONResponse({"error": error}, status_code=400)
        if model == "broken":
            return PlainTextResponse("upstream exploded", status_code=500)
        text = output(body)
        finish = "stop"
        matched = None  # the stop string that ended the text, as vLLM reports it
        for stop in body.get("stop") or []:
            if stop in text:
                text = text.split(stop, 1)[0]
                matched = stop
        if model == CUT_MODEL and '"Paris"' in text:
            text = text[: text.index('"Paris"') + len('"Par')]
            finish, matched = "length", None
        sent = body.get("messages") if chat else body.get("prompt")
        prompt_tokens = len(json.dumps(sent)) // 4
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": max(1, len(text) // 4),
            "total_tokens": prompt_tokens + max(1, len(text) // 4),
        }
        kind = "chat.completion" if chat else "text_completion"
        if not body.get("stream"):
            choice: dict[str, Any] = {
                "index": 0,
                "finish_reason": finish,
                "logprobs": None,
                "stop_reason": matched,
            }
            if chat:
                choice["message"] = {"role": "assistant", "content": text}
            else:
                choice["text"] = text
            return JSONResponse(
                {
                    "id": "up-1",
                    "object": kind,
                    "created": 1765000000,
                    "model": model,
                    "choices": [choice],
                    "usage": usage,
                }
            )

        def chunk(piece: str | None, finish: str | None = None) -> bytes:
            choice: dict[str, Any] = {"index": 0, "finish_reason": finish}
            if finish is not None:
                choice["stop_reason"] = matched
            if chat:
                choice["delta"] = {} if piece is None else {"content": piece}
            else:
                choice["text"] = piece or ""
            data = {
                "id": "up-1",
                "object": kind + (".chunk" if chat else ""),
                "model": model,
                "choices": [choice],
            }
            return f"data: {json.dumps(data)}\n\n".encode()

        async def events() -> AsyncIterator[bytes]:
            for i in range(0, len(text), 3):
                yield chunk(text[i : i + 3])
            yield chunk(None, finish)
            if (body.get("stream_options") or {}).get("include_usage"):
                yield f"data: {json.dumps({'id': 'up-1', 'choices': [], 'usage': usage})}\n\n".encode()
            yield b"data: [DONE]\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")


class Stack:
    """The upstream and the proxies in front of it, each on 127.0.0.1: ``pass``,
    ``none`` (the upstream's chat route; ``none`` sends ``tool_choice: "none"``) and
    ``render`` (its completions route, with the prompt streamcall renders), and ``keyed``
    (``pass`` with the client key ``KEY``), ``refuse`` (``pass`` with ``hosted_tools``
    refused)."""

    KEY = "sk-client-key-39"

    def __init__(self) -> None:
        from loopback_harness import ServerThread

        from streamcall.server import ServerConfig, create_app

        self.upstream = AgentUpstream()
        self.threads = [ServerThread(self.upstream.app()).start()]
        base = f"{self.threads[0].url}/v1"
        self.urls: dict[str, str] = {}
        for name, config in {
            "pass": ServerConfig(upstream=base, timeout=20.0),
            "render": ServerConfig(upstream=base, timeout=20.0, upstream_tools="render"),
            "none": ServerConfig(upstream=base, timeout=20.0, upstream_tools="none"),
            "keyed": ServerConfig(upstream=base, timeout=20.0, client_keys=[self.KEY]),
            "refuse": ServerConfig(upstream=base, timeout=20.0, hosted_tools="refuse"),
        }.items():
            thread = ServerThread(create_app(config)).start()
            self.threads.append(thread)
            self.urls[name] = thread.url

    def stop(self) -> None:
        for thread in reversed(self.threads):
            thread.stop()
