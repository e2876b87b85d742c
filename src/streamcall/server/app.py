"""The proxy: an OpenAI-compatible ASGI app (starlette) in front of a raw-text upstream.

Routes:

- ``POST /v1/chat/completions``: validated, forwarded to ``{upstream}/chat/completions``
  with httpx, and the answer parsed by ``StreamParser`` (format from the config, else from
  the bundled example of that model, else routed from the request's ``model``; the
  request's ``tools`` type untyped values). Streaming answers are re-emitted chunk by
  chunk (``emit.ChunkEmitter``): tool calls as structured ``tool_calls`` deltas whose
  arguments stream before the call ends, reasoning as ``reasoning_content``, the
  upstream's whole usage object passed on (details and provider members included),
  ``data: [DONE]`` last. Non-streaming answers are parsed the same way, one choice at
  a time, into a ``chat.completion`` with ``message.tool_calls``.
- ``GET /v1/models``: passed through. ``GET /health``: liveness and counters.

Faults, each answered without a traceback:

- bad request body (not JSON, not an object, no ``messages``, wrong types): 400 with an
  OpenAI-style ``{"error": {...}}``;
- upstream unreachable: 502; upstream status other than 200: the same status, with the
  upstream's ``{"error": ...}`` body when it has one, else one wrapping its text;
- upstream ignores ``"stream": true`` and answers one ``application/json`` chat
  completion: the client still gets a stream, made from that completion (its first choice
  as one chunk, then its usage); JSON that is not a chat completion: 502;
- upstream dies mid-stream (connection lost, read timeout): everything parsed so far has
  been sent; the parser is finished (held-back text released, open calls closed and
  flagged), then one ``data: {"error": {...}}`` event and ``data: [DONE]``;
- a malformed upstream chunk: counted, reported as an SSE comment
  (``: streamcall: rejected upstream chunk ...``, which clients skip) and in a
  ``streamcall`` field of the finish chunk (``{"rejected_chunks": N}``); the stream goes on.

State: per process, only the shared httpx client (a connection pool) and counters; per
request, one parser inside the response's async generator. Nothing is shared between
requests, so workers scale out behind any load balancer. Backpressure: the generator
reads the upstream only when the client has taken the previous batch (uvicorn waits for
the socket to drain), so a slow client holds one batch in memory, not the whole answer.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass, field
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from streamcall import bundled
from streamcall.server.emit import ChunkEmitter, message_json
from streamcall.sse import SSEEncoder
from streamcall.stream import StreamParser

__all__ = ["Counters", "ServerConfig", "app_from_env", "create_app", "error_body"]

log = logging.getLogger("streamcall.server")
_ENCODER = SSEEncoder()
_DONE = _ENCODER.done()
_MAX_BODY = 32 << 20  # a request body larger than this is refused (413)
_MAX_ERROR_BODY = 64 << 10  # how much of an upstream error body is read
CONFIG_ENV = "STREAMCALL_SERVER_CONFIG"


@dataclass
class ServerConfig:
    """How the proxy runs. ``upstream`` is a base URL ending in ``/v1``."""

    upstream: str | None = None
    format: str | None = None
    reasoning: str | None = None
    api_key: str | None = None
    timeout: float = 600.0
    connect_timeout: float = 10.0
    replay_delay: float = 0.02
    max_connections: int = 1000
    #: model id -> (tool-call format, reasoning format), for models whose id does not route
    models: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)


@dataclass
class Counters:
    """Per-process counters, shown by ``/health``."""

    requests: int = 0
    streams: int = 0
    bad_requests: int = 0
    upstream_errors: int = 0
    upstream_disconnects: int = 0
    rejected_chunks: int = 0


def error_body(
    message: str, type_: str, code: int | str | None = None, param: str | None = None
) -> dict[str, Any]:
    """An OpenAI-style error body."""
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


def _error(status: int, message: str, type_: str, param: str | None = None) -> JSONResponse:
    return JSONResponse(error_body(message, type_, status, param), status_code=status)


class _BadRequest(Exception):
    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param


def _validate(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise _BadRequest("the request body must be a JSON object")
    messages = body.get("messages")
    if messages is None:
        raise _BadRequest("'messages' is required", "messages")
    if not isinstance(messages, list) or not messages:
        raise _BadRequest("'messages' must be a non-empty list", "messages")
    if not all(isinstance(m, dict) for m in messages):
        raise _BadRequest("each message must be an object", "messages")
    if "model" in body and body["model"] is not None and not isinstance(body["model"], str):
        raise _BadRequest("'model' must be a string", "model")
    if "stream" in body and body["stream"] is not None and not isinstance(body["stream"], bool):
        raise _BadRequest("'stream' must be a boolean", "stream")
    tools = body.get("tools")
    if tools is not None and (
        not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools)
    ):
        raise _BadRequest("'tools' must be a list of objects", "tools")
    n = body.get("n")
    if n is not None and n != 1:
        raise _BadRequest("streamcall serve supports n=1 only", "n")
    return body


def create_app(config: ServerConfig) -> Starlette:
    """The proxy app. ``config.upstream`` must be set (``run`` sets it for the replay)."""
    if not config.upstream:
        raise ValueError("create_app needs config.upstream (a base URL ending in /v1)")
    base_url = config.upstream.rstrip("/") + "/"
    counters = Counters()
    client_box: dict[str, httpx.AsyncClient] = {}

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        client = httpx.AsyncClient(
            base_url=base_url,
            timeout=httpx.Timeout(config.timeout, connect=config.connect_timeout),
            limits=httpx.Limits(
                max_connections=config.max_connections,
                max_keepalive_connections=min(config.max_connections, 200),
            ),
        )
        client_box["client"] = client
        try:
            yield
        finally:
            await client.aclose()

    def client() -> httpx.AsyncClient:
        found = client_box.get("client")
        if found is None:  # running without lifespan (some test harnesses)
            found = client_box["client"] = httpx.AsyncClient(
                base_url=base_url,
                timeout=httpx.Timeout(config.timeout, connect=config.connect_timeout),
            )
        return found

    def upstream_headers(request: Request) -> dict[str, str]:
        headers = {"content-type": "application/json", "accept-encoding": "identity"}
        if config.api_key:
            headers["authorization"] = f"Bearer {config.api_key}"
        elif "authorization" in request.headers:
            headers["authorization"] = request.headers["authorization"]
        return headers

    def make_parser(body: dict[str, Any], prefix: str) -> StreamParser:
        model = body.get("model")
        fmt, reasoning = config.format, config.reasoning
        if isinstance(model, str) and model in config.models:
            known_fmt, known_reasoning = config.models[model]
            fmt = fmt or known_fmt
            reasoning = reasoning or known_reasoning
        tools = body.get("tools")
        try:
            return StreamParser(
                fmt, model=model, tools=tools, reasoning=reasoning, id_prefix=prefix
            )
        except ValueError as exc:
            log.warning("no parser for model %r (%s): content passes through", model, exc)
            return StreamParser(id_prefix=prefix)

    async def upstream_failure(resp: httpx.Response) -> JSONResponse:
        counters.upstream_errors += 1
        raw = b""
        try:
            async for part in resp.aiter_bytes():
                raw += part
                if len(raw) >= _MAX_ERROR_BODY:
                    break
        except httpx.HTTPError:
            pass
        finally:
            await resp.aclose()
        return _relay_error(resp.status_code, raw)

    async def chat_completions(request: Request) -> Response:
        counters.requests += 1
        raw = await request.body()
        if len(raw) > _MAX_BODY:
            counters.bad_requests += 1
            return _error(413, "request body too large", "invalid_request_error")
        try:
            body = _validate(json.loads(raw))
        except ValueError as exc:
            counters.bad_requests += 1
            return _error(
                400, f"the request body is not valid JSON: {exc}", "invalid_request_error"
            )
        except _BadRequest as exc:
            counters.bad_requests += 1
            return _error(400, str(exc), "invalid_request_error", exc.param)
        prefix = f"call_{secrets.token_hex(6)}_"
        completion_id = f"chatcmpl-{secrets.token_hex(12)}"
        model = body.get("model") or ""
        if body.get("stream"):
            return await stream(request, body, prefix, completion_id, model)
        return await complete(request, body, prefix)

    async def stream(
        request: Request, body: dict[str, Any], prefix: str, completion_id: str, model: str
    ) -> Response:
        parser = make_parser(body, prefix)  # before any I/O: a bad tools list fails here
        req = client().build_request(
            "POST", "chat/completions", json=body, headers=upstream_headers(request)
        )
        try:
            resp = await client().send(req, stream=True)
        except httpx.HTTPError as exc:
            counters.upstream_errors += 1
            return _error(502, f"upstream unreachable: {_describe(exc)}", "upstream_error")
        if resp.status_code != 200:
            return await upstream_failure(resp)
        source: AsyncIterator[bytes] = resp.aiter_bytes()
        if _media_type(resp) == "application/json":
            # An upstream that ignored "stream": true and answered one chat completion: it
            # is streamed to the client all the same, as if it had come as one chunk.
            try:
                answer = json.loads(await resp.aread())
                # Its usage only if the client asked for it, as a streaming server sends it.
                options = body.get("stream_options")
                wanted = isinstance(options, dict) and options.get("include_usage") is True
                source = _as_sse(
                    _completion_choices(answer), answer.get("usage") if wanted else None
                )
            except (ValueError, TypeError, KeyError, httpx.HTTPError) as exc:
                counters.upstream_errors += 1
                return _error(
                    502,
                    "the upstream answered a stream request with JSON that is not a chat "
                    f"completion: {_describe(exc)}",
                    "upstream_error",
                )
            finally:
                await resp.aclose()
        counters.streams += 1
        return StreamingResponse(
            relay(resp, source, parser, ChunkEmitter(completion_id, model)),
            media_type="text/event-stream",
            headers={"cache-control": "no-cache", "x-accel-buffering": "no"},
        )

    async def relay(
        resp: httpx.Response,
        source: AsyncIterator[bytes],
        parser: StreamParser,
        emitter: ChunkEmitter,
    ) -> AsyncIterator[bytes]:
        failure: str | None = None
        rejected = 0
        try:
            yield _ENCODER.encode_json(emitter.start())
            try:
                async for data in source:
                    out, n = render(emitter, parser.feed(data), rejected)
                    rejected += n
                    if out:
                        yield out
                    if parser.done:
                        break
            except httpx.HTTPError as exc:
                failure = _describe(exc)
            out, n = render(emitter, parser.finish(), rejected)
            rejected += n
            if out:
                yield out
            if failure is not None:
                counters.upstream_disconnects += 1
                log.warning("upstream stream failed: %s", failure)
                yield _ENCODER.encode_json(
                    error_body(
                        f"the upstream stream ended abnormally: {failure}",
                        "upstream_error",
                        502,
                    )
                )
            elif not emitter.finished:
                final = emitter.final(parser.message.finish_reason)
                if rejected:
                    final["streamcall"] = {"rejected_chunks": rejected}
                yield _ENCODER.encode_json(final)
            yield _DONE
        finally:
            await resp.aclose()

    def render(
        emitter: ChunkEmitter, events: list[Any], rejected_so_far: int = 0
    ) -> tuple[bytes, int]:
        """One batch of events as SSE bytes; the number of rejected chunks in it."""
        chunks = emitter.chunks(events)
        rejected = 0
        parts: list[bytes] = []
        if emitter.errors:
            for err in emitter.errors:
                rejected += 1
                counters.rejected_chunks += 1
                data = err.data if len(err.data) <= 200 else err.data[:200] + "..."
                parts.append(
                    _ENCODER.comment(
                        f" streamcall: rejected upstream chunk ({err.where}): {err.message}"
                        f" data={data!r}"
                    )
                    + b"\n"
                )
            emitter.errors.clear()
        for chunk in chunks:
            if rejected or rejected_so_far:
                choices = chunk.get("choices")
                if choices and choices[0].get("finish_reason"):
                    chunk["streamcall"] = {"rejected_chunks": rejected + rejected_so_far}
            parts.append(_ENCODER.encode_json(chunk))
        return b"".join(parts), rejected

    async def complete(request: Request, body: dict[str, Any], prefix: str) -> Response:
        payload = dict(body)
        payload["stream"] = False
        payload.pop("stream_options", None)
        try:
            resp = await client().post(
                "chat/completions", json=payload, headers=upstream_headers(request)
            )
        except httpx.HTTPError as exc:
            counters.upstream_errors += 1
            return _error(502, f"upstream unreachable: {_describe(exc)}", "upstream_error")
        if resp.status_code != 200:
            counters.upstream_errors += 1
            return _relay_error(resp.status_code, resp.content[:_MAX_ERROR_BODY])
        try:
            answer = resp.json()
            choices = _completion_choices(answer)
        except (ValueError, KeyError, TypeError) as exc:
            counters.upstream_errors += 1
            return _error(
                502, f"the upstream answer is not a chat completion: {exc}", "upstream_error"
            )
        parsed: list[dict[str, Any]] = []
        rejected = 0
        for number, choice in enumerate(choices):
            if not isinstance(choice, dict):
                continue
            parser = make_parser(body, f"{prefix}{number}_" if number else prefix)
            parser.feed(_ENCODER.encode_json(_as_chunk(choice)))
            parser.finish()
            rejected += parser.rejected
            message = parser.message
            parsed.append(
                {
                    "index": choice.get("index", number),
                    "message": message_json(message),
                    "logprobs": choice.get("logprobs"),
                    "finish_reason": message.finish_reason or "stop",
                }
            )
        counters.rejected_chunks += rejected
        answer["choices"] = parsed
        if rejected:
            answer["streamcall"] = {"rejected_chunks": rejected}
        return JSONResponse(answer)

    async def models(request: Request) -> Response:
        try:
            resp = await client().get("models", headers=upstream_headers(request))
        except httpx.HTTPError as exc:
            counters.upstream_errors += 1
            return _error(502, f"upstream unreachable: {_describe(exc)}", "upstream_error")
        if resp.status_code != 200:
            return _relay_error(resp.status_code, resp.content[:_MAX_ERROR_BODY])
        return Response(resp.content, status_code=200, media_type="application/json")

    async def health(request: Request) -> Response:
        return JSONResponse(
            {
                "status": "ok",
                "upstream": config.upstream,
                "format": config.format,
                "reasoning": config.reasoning,
                "pid": os.getpid(),
                "counters": asdict(counters),
            }
        )

    async def http_error(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        detail = exc.detail if isinstance(exc, HTTPException) else "internal error"
        return _error(
            status, f"{detail}: {request.method} {request.url.path}", "invalid_request_error"
        )

    app = Starlette(
        routes=[
            Route("/v1/chat/completions", chat_completions, methods=["POST"]),
            Route("/v1/models", models, methods=["GET"]),
            Route("/health", health, methods=["GET"]),
        ],
        lifespan=lifespan,
        exception_handlers={HTTPException: http_error},
    )
    app.state.counters = counters
    app.state.config = config
    return app


def _media_type(resp: httpx.Response) -> str:
    return str(resp.headers.get("content-type", "")).split(";")[0].strip().lower()


def _completion_choices(answer: Any) -> list[Any]:
    """The choices of a ``chat.completion`` body; raises if it is not one."""
    if not isinstance(answer, dict):
        raise TypeError("the body is not a JSON object")
    choices = answer["choices"]
    if not isinstance(choices, list):
        raise TypeError("choices is not a list")
    return choices


def _as_chunk(choice: dict[str, Any]) -> dict[str, Any]:
    """A completion's choice as one ``chat.completion.chunk``: its message as the delta."""
    delta = dict(choice.get("message") or {})
    calls = delta.get("tool_calls")
    if isinstance(calls, list):
        delta["tool_calls"] = [
            {"index": i, **c} if isinstance(c, dict) and "index" not in c else c
            for i, c in enumerate(calls)
        ]
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": choice.get("finish_reason")}]}


async def _as_sse(choices: list[Any], usage: Any) -> AsyncIterator[bytes]:
    """A whole completion (first choice, as ``n=1`` is enforced) as an upstream SSE stream."""
    for choice in choices[:1]:
        if isinstance(choice, dict):
            yield _ENCODER.encode_json(_as_chunk(choice))
    if isinstance(usage, dict):
        yield _ENCODER.encode_json({"choices": [], "usage": usage})
    yield _DONE


def _relay_error(status: int, raw: bytes) -> JSONResponse:
    """The upstream's error, OpenAI-shaped: its own ``{"error": ...}`` body if it has one."""
    try:
        value = json.loads(raw)
    except ValueError:
        value = None
    if isinstance(value, dict) and "error" in value:
        return JSONResponse(value, status_code=status)
    text = raw.decode("utf-8", errors="replace").strip() or f"HTTP {status}"
    return JSONResponse(
        error_body(f"upstream error {status}: {text[:2000]}", "upstream_error", status),
        status_code=status,
    )


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def app_from_env() -> Starlette:
    """The app for ``uvicorn --factory`` workers: the config comes as JSON in the env."""
    raw = os.environ.get(CONFIG_ENV)
    if not raw:
        raise RuntimeError(f"{CONFIG_ENV} is not set")
    values = json.loads(raw)
    values["models"] = {k: tuple(v) for k, v in values.get("models", {}).items()}
    return create_app(ServerConfig(**values))


def config_for_examples(config: ServerConfig) -> ServerConfig:
    """``config`` with the bundled examples' models and formats added."""
    models = dict(config.models)
    for ex in bundled.examples():
        models.setdefault(ex.model, (ex.format, ex.reasoning))
    config.models = models
    return config
