"""The proxy: an OpenAI-compatible ASGI app (starlette) in front of a raw-text upstream.

Routes:

- ``POST /v1/chat/completions``: validated, forwarded to ``{upstream}/chat/completions``
  with httpx (``tools``/``tool_choice`` as ``upstream_tools`` says: ``pass`` them as they
  are, ``strip`` both, or keep ``tools`` and send ``tool_choice: "none"``), and the answer
  parsed by ``StreamParser`` (format from the config, which ``--model-dir`` fills from
  the checkpoint (``config_with_model_dir``: its response template, read by the ``hf``
  format, else the formats its chat template writes), else from the bundled example of
  that model, else routed from the request's ``model``; the request's ``tools`` type
  untyped values, its own ``tool_choice`` decides which calls are parsed (and, with
  ``unknown_calls="text"``, ``--unknown-calls text``, a call to a function its tools do
  not declare is content), and its thinking switches where reasoning starts). Streaming answers are re-emitted chunk by
  chunk (``emit.ChunkEmitter``): tool calls as structured ``tool_calls`` deltas whose
  arguments stream before the call ends, reasoning as ``reasoning_content``, the
  upstream's whole usage object passed on (details and provider members included),
  ``data: [DONE]`` last. Non-streaming answers are parsed the same way, one choice at
  a time, into a ``chat.completion`` with ``message.tool_calls``.
- ``POST /v1/responses`` (the OpenAI Responses API, ``server/responses.py``) and
  ``POST /v1/messages`` (Anthropic's Messages API, ``server/messages.py``): each request
  is translated into a chat request and takes the same upstream path (``answer``:
  validation, ``--upstream-tools``, the parser, the faults below); only the answer's
  format differs. Each route is an ``Endpoint`` (``server/api.py``): its translator, its
  ``Wire`` (the stream in its API's events: ``ChatWire``, ``ResponsesWire``,
  ``MessagesWire``), its whole answer and its error shape (OpenAI's, or Anthropic's
  ``{"type": "error", "error": {...}}`` on ``/v1/messages``).
- ``POST /v1/messages/count_tokens``: the prompt's tokens, counted exactly by the
  checkpoint's tokenizer (``--model-dir``) or the upstream's ``/tokenize``, else a 501
  that says so (``server/count.py``).
- Tools the client APIs have and the model cannot call (hosted tools: web search, code
  interpreter, MCP, ...) are not offered to it: said once per type in the log and counted
  in ``/health`` (``hosted_tools``), or, with ``hosted_tools="refuse"``, a 400 that names
  the tool. A call the model did not finish reaches no client as runnable: its arguments
  go out as the model wrote them, without the closing the parser adds
  (``server/unfinished.py``), and the finish says why.
- ``GET /v1/models``: passed through. ``GET /health``: the upstream probed
  (``GET {upstream}/models``), counters; ``"degraded"`` with the reason, and status 503,
  while the upstream cannot be reached.

Who may call it: with ``client_keys`` set, every route but ``/health`` needs
``Authorization: Bearer <one of them>`` or ``x-api-key: <one of them>`` (else a 401 in
the route's error shape), and the client's header is never forwarded; the upstream only
ever sees ``api_key``. No key is written into a log line or an error body: upstream error
bodies and failure descriptions are scrubbed of every key the proxy knows, and of
userinfo in the upstream URL.

Faults, each answered without a traceback, and in the route's own error shape (below,
the chat route's):

- bad request body (not JSON, nested too deeply for the decoder, not an object, no
  ``messages``, wrong types, an unknown ``tool_choice``): 400 with an OpenAI-style
  ``{"error": {...}}``; a body over ``max_body`` bytes: 413, as soon as the
  ``Content-Length`` (or, chunked, the bytes read so far) says so;
- upstream unreachable: 502; upstream status other than 200: the same status, with the
  upstream's ``{"error": ...}`` body when it has one, else one wrapping its text; when
  the upstream refused the request's tools, the message says which ``--upstream-tools``
  fixes it;
- upstream ignores ``"stream": true`` and answers one ``application/json`` chat
  completion: the client still gets a stream, made from that completion (its first choice
  as one chunk, then its usage); JSON that is not a chat completion: 502;
- upstream dies mid-stream (connection lost, read timeout, or a stream that ends with
  neither a ``finish_reason`` nor ``[DONE]``): everything parsed so far has been sent;
  the parser is finished (held-back text released, open calls closed and flagged), then
  one ``data: {"error": {...}}`` event and ``data: [DONE]`` (Responses API:
  ``response.failed``; Messages API: ``event: error``);
- the parser itself raises mid-stream (a bug): the same ending, with a ``server_error``
  event; counted in ``/health`` as ``parser_errors``; without a stream, a 500;
- a malformed upstream chunk: counted, reported as an SSE comment
  (``: streamcall: rejected upstream chunk ...``, which clients skip) and in a
  ``streamcall`` field of the finish chunk (``{"rejected_chunks": N}``); the stream goes on.

The parts, each a module with its own rules at the top: ``config`` (``ServerConfig``, its
checks), ``upstream`` (the one HTTP client, what each request sends), ``pipeline`` (the
request path the three APIs share), ``parsers`` (which parser a request gets: decided
there only), ``endpoints`` with ``api``, ``chat``, ``responses``, ``messages``, ``emit``
(each API's translation and wire), ``tools`` and ``fields`` (what a request may hold),
``unfinished`` (a cut call never runnable), ``render`` (``--upstream-tools render``),
``count`` (``count_tokens``), ``errors``, ``auth`` and ``body``. This module only puts them
together: ``create_app``.

State: per process, only the shared httpx client (a connection pool) and counters; per
request, one parser inside the response's async generator. Nothing is shared between
requests, so workers scale out behind any load balancer. Backpressure: the generator
reads the upstream only when the client has taken the previous batch (uvicorn waits for
the socket to drain), so a slow client holds one batch in memory, not the whole answer.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from streamcall.server.auth import ClientAuth
from streamcall.server.config import (
    CONFIG_ENV,
    HOSTED_TOOLS,
    UPSTREAM_TOOLS,
    Counters,
    ServerConfig,
    check_config,
    config_for_examples,
    config_with_model_dir,
    prompter_for,
)
from streamcall.server.endpoints import CHAT, MESSAGES, RESPONSES, errors_for
from streamcall.server.errors import error_body, error_response, public_url, tools_hint
from streamcall.server.pipeline import Pipeline
from streamcall.server.upstream import Upstream, upstream_body

__all__ = [
    "CONFIG_ENV",
    "HOSTED_TOOLS",
    "UPSTREAM_TOOLS",
    "Counters",
    "ServerConfig",
    "app_from_env",
    "config_for_examples",
    "config_with_model_dir",
    "create_app",
    "error_body",
    "prompter_for",
    "public_url",
    "tools_hint",
    "upstream_body",
]

_MAX_ERROR_BODY = 64 << 10  # how much of an upstream error body is read


class _Routes:
    """The routes that are not a client API: models, health, and errors of the router."""

    def __init__(self, pipeline: Pipeline) -> None:
        self.pipeline = pipeline
        self.upstream = pipeline.upstream
        self.config = pipeline.config

    async def models(self, request: Request) -> Response:
        """``GET /v1/models``: the upstream's, passed through."""
        try:
            resp = await self.upstream.client.get("models", headers=self.upstream.headers(request))
        except httpx.HTTPError as exc:
            return self.pipeline.unreachable(request, CHAT, exc)
        if resp.status_code != 200:
            return self.pipeline.relay_error(
                request, CHAT, resp.status_code, resp.content[:_MAX_ERROR_BODY], {}
            )
        return Response(resp.content, status_code=200, media_type="application/json")

    async def health(self, request: Request) -> Response:
        """``GET /health``: the upstream probed, the config in force and the counters."""
        reason = await self.upstream.probe()
        config, prompter = self.config, self.upstream.prompter
        out: dict[str, Any] = {"status": "ok" if reason is None else "degraded"}
        if reason is not None:
            out["reason"] = reason
        out.update(
            {
                "upstream": self.upstream.shown,
                "format": config.format,
                "reasoning": config.reasoning,
                "upstream_tools": config.upstream_tools,
                "unknown_calls": config.unknown_calls,
                "hosted_tools": {
                    "mode": config.hosted_tools,
                    "dropped": dict(self.pipeline.dropped),
                },
                "prompt_template": prompter.source if prompter is not None else None,
                "client_key_required": bool(config.client_keys),
                "pid": os.getpid(),
                "counters": asdict(self.pipeline.counters),
            }
        )
        return JSONResponse(out, status_code=200 if reason is None else 503)

    async def http_error(self, request: Request, exc: Exception) -> Response:
        """A route or method the app does not have, in that path's error shape."""
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        detail = exc.detail if isinstance(exc, HTTPException) else "internal error"
        return error_response(
            status,
            f"{detail}: {request.method} {request.url.path}",
            "invalid_request_error",
            endpoint=errors_for(request.url.path),
        )


def create_app(config: ServerConfig) -> Starlette:
    """The proxy app. ``config.upstream`` must be set (``run`` sets it for the replay)."""
    check_config(config)
    counters = Counters()
    upstream = Upstream(config)
    pipeline = Pipeline(config, upstream, counters)
    routes = _Routes(pipeline)

    async def chat_completions(request: Request) -> Response:
        return await pipeline.answer(request, CHAT)

    async def responses(request: Request) -> Response:
        return await pipeline.answer(request, RESPONSES)

    async def messages(request: Request) -> Response:
        return await pipeline.answer(request, MESSAGES)

    middleware = (
        [Middleware(ClientAuth, keys=list(config.client_keys), counters=counters)]
        if config.client_keys
        else []
    )
    app = Starlette(
        routes=[
            Route("/v1/chat/completions", chat_completions, methods=["POST"]),
            Route("/v1/responses", responses, methods=["POST"]),
            Route("/v1/messages", messages, methods=["POST"]),
            Route("/v1/messages/count_tokens", pipeline.count_tokens, methods=["POST"]),
            Route("/v1/models", routes.models, methods=["GET"]),
            Route("/health", routes.health, methods=["GET"]),
        ],
        middleware=middleware,
        lifespan=upstream.lifespan,
        exception_handlers={HTTPException: routes.http_error},
    )
    app.state.counters = counters
    app.state.config = config
    return app


def app_from_env() -> Starlette:
    """The app for ``uvicorn --factory`` workers: the config comes as JSON in the env."""
    raw = os.environ.get(CONFIG_ENV)
    if not raw:
        raise RuntimeError(f"{CONFIG_ENV} is not set")
    values = json.loads(raw)
    values["models"] = {k: tuple(v) for k, v in values.get("models", {}).items()}
    return create_app(ServerConfig(**values))
