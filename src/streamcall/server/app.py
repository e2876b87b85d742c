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

State: per process, only the shared httpx client (a connection pool) and counters; per
request, one parser inside the response's async generator. Nothing is shared between
requests, so workers scale out behind any load balancer. Backpressure: the generator
reads the upstream only when the client has taken the previous batch (uvicorn waits for
the socket to drain), so a slow client holds one batch in memory, not the whole answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import json
import logging
import os
import re
import secrets
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from streamcall import bundled
from streamcall.detect import Detected, detect, stream_parser_for
from streamcall.events import StreamError
from streamcall.prompt import Prompter, TemplateError, load_chat_template
from streamcall.server.api import BadRequest, Call, Endpoint, Parsed, StopSniffer, Wire
from streamcall.server.chat import validate
from streamcall.server.count import CountUnavailable, local_count, read_count, tokenize_body
from streamcall.server.emit import ChatWire, message_json
from streamcall.server.messages import MessagesWire, anthropic_error, message_answer
from streamcall.server.messages import chat_request as messages_request
from streamcall.server.render import chat_answer, chat_chunks, completion_body, refused
from streamcall.server.responses import ResponsesWire, response_answer
from streamcall.server.responses import chat_request as responses_request
from streamcall.server.unfinished import WrittenCalls, as_written
from streamcall.sse import SSEEncoder
from streamcall.stream import StreamParser
from streamcall.toolchoice import unknown_calls_error

__all__ = [
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

log = logging.getLogger("streamcall.server")
_ENCODER = SSEEncoder()
_DONE = _ENCODER.done()
_MAX_ERROR_BODY = 64 << 10  # how much of an upstream error body is read
_HEALTH_TIMEOUT = 3.0  # seconds for the /health probe of the upstream
CONFIG_ENV = "STREAMCALL_SERVER_CONFIG"
#: what ``--upstream-tools`` may say
UPSTREAM_TOOLS = ("pass", "strip", "none", "render")
#: what ``--hosted-tools`` may say
HOSTED_TOOLS = ("drop", "refuse")


@dataclass
class ServerConfig:
    """How the proxy runs. ``upstream`` is a base URL ending in ``/v1``."""

    upstream: str | None = None
    format: str | None = None
    reasoning: str | None = None
    #: the upstream's key (sent as ``Authorization: Bearer``); never shown to clients
    api_key: str | None = None
    timeout: float = 600.0
    connect_timeout: float = 10.0
    replay_delay: float = 0.02
    max_connections: int = 1000
    #: model id -> (tool-call format, reasoning format), for models whose id does not route
    models: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)
    #: what reaches the upstream of the request's tools: "pass", "strip", "none", or
    #: "render" (the proxy renders the prompt and calls the upstream's /v1/completions)
    upstream_tools: str = "pass"
    #: a call to a function the request's tools do not declare: "keep" it as a call (the
    #: default) or make it "text" (content, in the format's syntax); see streamcall.toolchoice
    unknown_calls: str = "keep"
    #: keys a client must send (``Authorization: Bearer KEY``); empty: no check
    client_keys: list[str] = field(default_factory=list)
    #: the largest request body accepted, in bytes (larger: 413)
    max_body: int = 16 << 20
    #: a checkpoint's response template (``--model-dir``): every answer is parsed with the
    #: ``hf`` format built from it, and ``format``/``reasoning`` say ``hf``
    response_template: dict[str, Any] | None = None
    #: the checkpoint directory (``--model-dir``); with ``upstream_tools="render"`` its chat
    #: template renders every prompt
    model_dir: str | None = None
    #: a hosted tool in a request (web search, code interpreter, MCP, ...: run by the API's
    #: own servers, so neither the proxy nor the model can): "drop" it (not offered to the
    #: model; said once in the log, counted in /health) or "refuse" the request (400)
    hosted_tools: str = "drop"


@dataclass
class Counters:
    """Per-process counters, shown by ``/health``."""

    requests: int = 0
    streams: int = 0
    bad_requests: int = 0
    unauthorized: int = 0
    upstream_errors: int = 0
    upstream_disconnects: int = 0
    rejected_chunks: int = 0
    parser_errors: int = 0


def error_body(
    message: str, type_: str, code: int | str | None = None, param: str | None = None
) -> dict[str, Any]:
    """An OpenAI-style error body."""
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


def _error(
    status: int,
    message: str,
    type_: str,
    param: str | None = None,
    headers: dict[str, str] | None = None,
    endpoint: Endpoint | None = None,
    details: Mapping[str, Any] | None = None,
) -> JSONResponse:
    """An error response, in ``endpoint``'s API's shape (OpenAI's by default)."""
    body = error_body(message, type_, status, param)
    if details:
        body["error"]["details"] = dict(details)
    if endpoint is not None:
        body = endpoint.error(status, body)
    return JSONResponse(body, status, headers=headers)


def upstream_body(body: dict[str, Any], mode: str) -> dict[str, Any]:
    """The request as the upstream gets it, by ``--upstream-tools``.

    ``pass``: as it is. ``strip``: without ``tools``, ``tool_choice`` and
    ``parallel_tool_calls`` (the model is then told of no tool: ``render`` is the mode for
    servers that refuse any tools). ``none``: ``tools`` kept, so the upstream's chat
    template still shows them to the model, and ``tool_choice: "none"``, so a server
    without a tool parser (vLLM, SGLang) accepts the request and leaves the text alone.
    ``render`` is not a chat request at all (``server/render.py``); here it is ``strip``.
    """
    if mode == "pass":
        return body
    out = dict(body)
    if mode in ("strip", "render"):
        for key in ("tools", "tool_choice", "parallel_tool_calls"):
            out.pop(key, None)
    elif mode == "none":
        if out.get("tools"):
            out["tool_choice"] = "none"
        else:
            out.pop("tool_choice", None)
    else:
        raise ValueError(f"upstream_tools must be one of {', '.join(UPSTREAM_TOOLS)}: {mode!r}")
    return out


# What servers say when they refuse a request because of its tools: llama.cpp without
# --jinja ("tools param requires --jinja flag", "Unsupported param: tool_choice", "tool_choice
# param requires --jinja flag"), vLLM and SGLang without a tool parser ('"auto" tool choice
# requires --enable-auto-tool-choice and --tool-call-parser to be set', 'tool_choice=...
# requires --tool-call-parser to be set'), Ollama ("... does not support tools").
_REFUSES_ALL_TOOLS = ("--jinja", "unsupported param: tool_choice", "does not support tools")
_REFUSES_TOOL_CHOICE = (
    "tool choice requires",
    "--tool-call-parser",
    "--enable-auto-tool-choice",
    "tool_choice=",
)


def tools_hint(mode: str, sent: dict[str, Any], text: str) -> str | None:
    """Which ``--upstream-tools`` fixes an upstream error, when the request's tools caused it."""
    if not sent.get("tools") and sent.get("tool_choice") is None:
        return None
    lowered = text.lower()
    refuses_all = any(m in lowered for m in _REFUSES_ALL_TOOLS)
    if not refuses_all and not any(m in lowered for m in _REFUSES_TOOL_CHOICE):
        return None
    if refuses_all or mode == "none":
        return (
            "the upstream refuses requests that carry tools; start streamcall serve with "
            "--upstream-tools render (streamcall writes the tools into the prompt with the "
            "model's chat template, sends it to the upstream's /v1/completions and parses "
            "the calls the model writes; give --model-dir for the checkpoint's own template)"
        )
    return (
        "the upstream refuses this tool_choice (it has no tool parser); start streamcall "
        'serve with --upstream-tools none (tools are forwarded with tool_choice "none", '
        "so the chat template still shows them and streamcall parses the calls), or "
        "--upstream-tools render to have streamcall write the prompt itself"
    )


def public_url(url: str | None) -> str | None:
    """``url`` without the userinfo (``user:password@``) it may carry."""
    if not url:
        return url
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit((parts.scheme, f"***@{host}", parts.path, parts.query, parts.fragment))


def _scrubber(keys: Iterable[str | None]) -> Callable[[str], str]:
    """A function that replaces each key, where it stands as a whole token, with ``***``.

    A token boundary (not a letter, digit, ``_`` or ``-`` on either side) keeps a short
    key from mangling words it happens to be part of.
    """
    found = sorted({k for k in keys if k}, key=len, reverse=True)
    if not found:
        return lambda text: text
    pattern = re.compile(
        r"(?<![A-Za-z0-9_\-])(?:" + "|".join(re.escape(k) for k in found) + r")(?![A-Za-z0-9_\-])"
    )
    return lambda text: pattern.sub("***", text)


def _bearer(value: str | None) -> str | None:
    if not value:
        return None
    scheme, _, token = value.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def _client_key(headers: Headers) -> str | None:
    """The key a client sent: ``Authorization: Bearer KEY``, else ``x-api-key: KEY`` (what
    Anthropic's clients send)."""
    token = _bearer(headers.get("authorization"))
    if token is None:
        token = (headers.get("x-api-key") or "").strip() or None
    return token


class _ClientAuth:
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
        token = _client_key(headers)
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
        response = _error(
            401,
            "missing or invalid API key: send the key this proxy was started with "
            "(--client-key) as 'Authorization: Bearer <key>' or 'x-api-key: <key>'",
            "invalid_request_error",
            headers={"www-authenticate": "Bearer"},
            endpoint=_errors_for(scope["path"]),
        )
        await response(scope, receive, send)


class _TooLarge(Exception):
    pass


_DRAIN_SECONDS = 2.0  # how long the rest of a refused body is read and thrown away
_DRAIN_BYTES = 64 << 20  # and how much of it, at most


async def _drain(receive: Receive) -> None:
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


def _chat_answer(
    call: Call, whole: dict[str, Any], parsed: list[Parsed], rejected: int
) -> dict[str, Any]:
    """The ``chat.completion``: the upstream's, with every choice's message parsed."""
    whole["choices"] = [
        {
            "index": p.choice.get("index", number),
            "message": message_json(p.message),
            "logprobs": p.choice.get("logprobs"),
            "finish_reason": p.message.finish_reason or "stop",
        }
        for number, p in enumerate(parsed)
    ]
    if rejected:
        whole["streamcall"] = {"rejected_chunks": rejected}
    return whole


def _call_prefix() -> str:
    return f"call_{secrets.token_hex(6)}_"


def _same(status: int, body: dict[str, Any]) -> dict[str, Any]:
    return body


#: ``POST /v1/chat/completions``: the request as it is, chunks out
CHAT = Endpoint(
    translate=lambda body: Call(body),  # validated by the shared path
    wire=lambda call, model: ChatWire(f"chatcmpl-{secrets.token_hex(12)}", model),
    answer=_chat_answer,
    error=_same,
    call_prefix=_call_prefix,
)
#: ``POST /v1/responses`` (``server/responses.py``)
RESPONSES = Endpoint(
    translate=responses_request,
    wire=lambda call, model: ResponsesWire(call, model),
    answer=response_answer,
    error=_same,
    call_prefix=_call_prefix,
)
#: ``POST /v1/messages`` (``server/messages.py``): Anthropic's shapes, ``toolu_`` ids
MESSAGES = Endpoint(
    translate=messages_request,
    wire=lambda call, model: MessagesWire(call, model),
    answer=message_answer,
    error=anthropic_error,
    call_prefix=lambda: f"toolu_{secrets.token_hex(6)}_",
)


def _errors_for(path: str) -> Endpoint | None:
    """Whose error shape a path's errors take: Anthropic's under ``/v1/messages``."""
    return MESSAGES if path == "/v1/messages" or path.startswith("/v1/messages/") else None


def create_app(config: ServerConfig) -> Starlette:
    """The proxy app. ``config.upstream`` must be set (``run`` sets it for the replay)."""
    if not config.upstream:
        raise ValueError("create_app needs config.upstream (a base URL ending in /v1)")
    if config.upstream_tools not in UPSTREAM_TOOLS:
        raise ValueError(
            f"upstream_tools must be one of {', '.join(UPSTREAM_TOOLS)}: {config.upstream_tools!r}"
        )
    why = unknown_calls_error(config.unknown_calls)
    if why is not None:
        raise ValueError(why)
    if config.hosted_tools not in HOSTED_TOOLS:
        raise ValueError(
            f"hosted_tools must be one of {', '.join(HOSTED_TOOLS)}: {config.hosted_tools!r}"
        )
    dropped: dict[str, int] = {}  # hosted tool type -> requests it was dropped from
    base_url = config.upstream.rstrip("/") + "/"
    shown_upstream = public_url(config.upstream)
    userinfo = urlsplit(config.upstream)
    counters = Counters()
    client_box: dict[str, httpx.AsyncClient] = {}
    known_keys = [config.api_key, *config.client_keys, userinfo.password, userinfo.username]
    scrub_known = _scrubber(known_keys)
    prompter = prompter_for(config) if config.upstream_tools == "render" else None
    warned: list[bool] = []  # strip's warning, once per process

    def scrubber(request: Request | None) -> Callable[[str], str]:
        """Scrubs the keys the proxy knows, and the one this client sent."""
        token = _client_key(request.headers) if request is not None else None
        return _scrubber([*known_keys, token]) if token else scrub_known

    def new_client() -> httpx.AsyncClient:
        return httpx.AsyncClient(
            base_url=base_url,
            timeout=httpx.Timeout(config.timeout, connect=config.connect_timeout),
            limits=httpx.Limits(
                max_connections=config.max_connections,
                max_keepalive_connections=min(config.max_connections, 200),
            ),
        )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        client_box["client"] = new_client()
        try:
            yield
        finally:
            await client_box.pop("client").aclose()

    def client() -> httpx.AsyncClient:
        found = client_box.get("client")
        if found is None:  # running without lifespan (some test harnesses)
            found = client_box["client"] = new_client()
        return found

    def upstream_headers(request: Request | None) -> dict[str, str]:
        headers = {"content-type": "application/json", "accept-encoding": "identity"}
        if config.api_key:
            headers["authorization"] = f"Bearer {config.api_key}"
        elif not config.client_keys and request is not None:
            # no key of its own: the client's is passed on (unless it was the proxy's own);
            # an Anthropic client's x-api-key as a bearer token, as the upstream reads it
            if "authorization" in request.headers:
                headers["authorization"] = request.headers["authorization"]
            elif request.headers.get("x-api-key"):
                headers["authorization"] = f"Bearer {request.headers['x-api-key']}"
        return headers

    def upstream_request(body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The upstream route and body for a chat request (``--upstream-tools``)."""
        if prompter is None:
            if config.upstream_tools == "strip" and body.get("tools") and not warned:
                warned.append(True)
                log.warning(
                    "--upstream-tools strip: the request's tools are not sent, so the model "
                    "is not told of them; --upstream-tools render writes them into the prompt"
                )
            return "chat/completions", upstream_body(body, config.upstream_tools)
        no = refused(body)
        if no is not None:
            raise BadRequest(
                f"'{no[0]}' is not supported with --upstream-tools render: {no[1]}", no[0]
            )
        try:
            return "completions", completion_body(body, prompter.prompt(body))
        except TemplateError as exc:
            raise BadRequest(str(exc), "messages") from None
        except (ValueError, TypeError) as exc:
            raise BadRequest(f"cannot render the prompt: {exc}", "messages") from None

    def make_parser(body: dict[str, Any], prefix: str) -> StreamParser:
        model = body.get("model")
        if config.response_template is not None:
            found = Detected("hf", config.reasoning, config.response_template, "--model-dir")
            return stream_parser_for(
                found,
                tools=body.get("tools"),
                id_prefix=prefix,
                request=body,
                tool_choice=body.get("tool_choice"),
                unknown_calls=config.unknown_calls,
            )
        fmt, reasoning = config.format, config.reasoning
        if isinstance(model, str) and model in config.models:
            known_fmt, known_reasoning = config.models[model]
            fmt = fmt or known_fmt
            reasoning = reasoning or known_reasoning
        tools = body.get("tools")
        try:
            return StreamParser(
                fmt,
                model=model,
                tools=tools,
                reasoning=reasoning,
                id_prefix=prefix,
                request=body,
                tool_choice=body.get("tool_choice"),
                unknown_calls=config.unknown_calls,
            )
        except ValueError as exc:
            log.warning("no parser for model %r (%s): content passes through", model, exc)
            return StreamParser(id_prefix=prefix)

    async def read_body(request: Request) -> bytes:
        """The body, refused (``_TooLarge``) once it is known to exceed ``max_body``: from
        ``Content-Length`` before anything is read, else as soon as the bytes read pass
        the limit. Nothing past the limit is kept; what the client still sends is read
        and thrown away, for a moment (``_drain``), so that it gets the 413 rather than a
        connection reset."""
        limit = config.max_body
        length = request.headers.get("content-length")
        if length is not None:
            try:
                declared = int(length)
            except ValueError:
                raise BadRequest("the Content-Length header is not a number") from None
            if declared > limit:
                # a client that waits for "100 Continue" has sent nothing: nothing to drain
                if request.headers.get("expect", "").lower() != "100-continue":
                    await _drain(request.receive)
                raise _TooLarge
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
                    await _drain(request.receive)
                raise _TooLarge
            parts.append(part)
            if not message.get("more_body", False):
                return b"".join(parts)

    def relay_error(
        request: Request, endpoint: Endpoint, status: int, raw: bytes, sent: dict[str, Any]
    ) -> JSONResponse:
        text = scrubber(request)(raw.decode("utf-8", errors="replace"))
        hint = tools_hint(config.upstream_tools, sent, text)
        if hint:
            log.warning("upstream answered %d because of the request's tools: %s", status, hint)
        return JSONResponse(endpoint.error(status, _relay_error(status, text, hint)), status)

    async def upstream_failure(
        request: Request, endpoint: Endpoint, resp: httpx.Response, sent: dict[str, Any]
    ) -> JSONResponse:
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
        return relay_error(request, endpoint, resp.status_code, raw, sent)

    def unreachable(request: Request, endpoint: Endpoint, exc: httpx.HTTPError) -> JSONResponse:
        counters.upstream_errors += 1
        what = scrubber(request)(_describe(exc))
        log.warning("upstream %s unreachable: %s", shown_upstream, what)
        return _error(502, f"upstream unreachable: {what}", "upstream_error", endpoint=endpoint)

    def hosted(call: Call) -> None:
        """The request's hosted tools: refused, or dropped with a word (once a type)."""
        if not call.hosted:
            return
        where, kind = call.hosted[0]
        if config.hosted_tools == "refuse":
            raise BadRequest(
                f"{where}: {kind!r} is a hosted tool (the API's own servers run it), which "
                "streamcall serve cannot run; leave it out, or start the proxy with "
                "--hosted-tools drop to have such tools left out for you",
                where,
            )
        for _, kind in call.hosted:
            if kind not in dropped:
                log.warning(
                    "a request offers the hosted tool %r, which streamcall serve cannot run: "
                    "not offered to the model (--hosted-tools refuse answers 400 instead)",
                    kind,
                )
            dropped[kind] = dropped.get(kind, 0) + 1

    async def answer(request: Request, endpoint: Endpoint) -> Response:
        """One client request, in any of the client APIs: translated, then streamed or not."""
        counters.requests += 1
        try:
            raw = await read_body(request)
            call = endpoint.translate(json.loads(raw))
            hosted(call)
            call.chat = validate(call.chat, prompter is not None)
            if call.chat.get("stream"):
                return await stream(request, endpoint, call)
            return await complete(request, endpoint, call)
        except _TooLarge:
            counters.bad_requests += 1
            return _error(
                413,
                f"the request body is larger than this proxy accepts ({config.max_body} bytes; "
                "see --max-body)",
                "invalid_request_error",
                headers={"connection": "close"},
                endpoint=endpoint,
            )
        except RecursionError:
            # json.loads (or re-encoding for the upstream) ran out of stack: nested arrays
            # or objects deeper than the decoder follows
            counters.bad_requests += 1
            return _error(
                400,
                "the request body is nested too deeply to decode (arrays or objects inside "
                "each other, several hundred levels down)",
                "invalid_request_error",
                endpoint=endpoint,
            )
        except BadRequest as exc:
            counters.bad_requests += 1
            return _error(
                400,
                str(exc),
                "invalid_request_error",
                exc.param,
                endpoint=endpoint,
                details=exc.details,
            )
        except ValueError as exc:
            counters.bad_requests += 1
            return _error(
                400,
                f"the request body is not valid JSON: {exc}",
                "invalid_request_error",
                endpoint=endpoint,
            )

    async def stream(request: Request, endpoint: Endpoint, call: Call) -> Response:
        body = call.chat
        parser = make_parser(body, endpoint.call_prefix())  # before any I/O: bad tools fail here
        path, sent = upstream_request(body)
        req = client().build_request("POST", path, json=sent, headers=upstream_headers(request))
        try:
            resp = await client().send(req, stream=True)
        except httpx.HTTPError as exc:
            return unreachable(request, endpoint, exc)
        if resp.status_code != 200:
            return await upstream_failure(request, endpoint, resp, sent)
        source: AsyncIterator[bytes] = resp.aiter_bytes()
        sniffer = StopSniffer(call.stop) if call.stop else None
        if sniffer is not None:
            source = _sniffed(source, sniffer)
        if prompter is not None:
            source = chat_chunks(source)
        if _media_type(resp) == "application/json":
            # An upstream that ignored "stream": true and answered one chat completion: it
            # is streamed to the client all the same, as if it had come as one chunk.
            try:
                whole = json.loads(await resp.aread())
                if prompter is not None:
                    whole = chat_answer(whole)
                # Its usage only if the client asked for it, as a streaming server sends it.
                options = body.get("stream_options")
                wanted = isinstance(options, dict) and options.get("include_usage") is True
                source = _as_sse(_completion_choices(whole), whole.get("usage") if wanted else None)
            except (ValueError, TypeError, KeyError, RecursionError, httpx.HTTPError) as exc:
                counters.upstream_errors += 1
                return _error(
                    502,
                    "the upstream answered a stream request with JSON that is not a chat "
                    f"completion: {scrubber(request)(_describe(exc))}",
                    "upstream_error",
                    endpoint=endpoint,
                )
            finally:
                await resp.aclose()
        counters.streams += 1
        wire = endpoint.wire(call, body.get("model") or "")
        return StreamingResponse(
            relay(resp, source, parser, wire, scrubber(request), sniffer),
            media_type="text/event-stream",
            headers={"cache-control": "no-cache", "x-accel-buffering": "no"},
        )

    async def relay(
        resp: httpx.Response,
        source: AsyncIterator[bytes],
        parser: StreamParser,
        wire: Wire,
        scrub: Callable[[str], str],
        sniffer: StopSniffer | None = None,
    ) -> AsyncIterator[bytes]:
        failure: dict[str, Any] | None = None
        rejected = 0
        calls = WrittenCalls()  # a cut call's arguments as the model wrote them

        def broke(exc: Exception) -> dict[str, Any]:
            # A parser that raises is a bug in streamcall; the client's stream ends the way
            # an upstream failure ends it, and the traceback goes to the log only.
            counters.parser_errors += 1
            log.error("parser failed mid-stream", exc_info=exc)
            return error_body(
                "streamcall failed while parsing the upstream stream "
                f"({scrub(_describe(exc))}); everything parsed before it was sent",
                "server_error",
                500,
            )

        def render(events: list[Any]) -> bytes:
            """One batch of events as SSE bytes: the rejected chunks in it reported as SSE
            comments (which every client skips), then the batch in the client's API."""
            nonlocal rejected
            parts: list[bytes] = []
            for err in events:
                if isinstance(err, StreamError):
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
            parts.append(wire.feed(calls.apply(events), rejected))
            return b"".join(parts)

        try:
            yield wire.start()
            try:
                async for data in source:
                    try:
                        out = render(parser.feed(data))
                    except Exception as exc:
                        failure = broke(exc)
                        break
                    if out:
                        yield out
                    if parser.done:
                        break
            except httpx.HTTPError as exc:
                what = scrub(_describe(exc))
                counters.upstream_disconnects += 1
                log.warning("upstream stream failed: %s", what)
                failure = error_body(
                    f"the upstream stream ended abnormally: {what}", "upstream_error", 502
                )
            try:
                out = render(parser.finish())
            except Exception as exc:
                if failure is None:
                    failure = broke(exc)
                else:  # finishing a parser that already failed: the first error stands
                    log.debug("finishing a failed parser raised too", exc_info=exc)
                out = b""
            if out:
                yield out
            if failure is None and parser.ended_early:
                counters.upstream_disconnects += 1
                log.warning("upstream stream ended without a finish_reason or [DONE]")
                failure = error_body(
                    "the upstream stream ended early: no finish_reason and no [DONE]",
                    "upstream_error",
                    502,
                )
            if failure is not None:
                yield wire.fail(failure)
            else:
                stop = sniffer.matched if sniffer is not None else None
                yield wire.end(parser.message.finish_reason, rejected, stop)
        finally:
            await resp.aclose()

    async def complete(request: Request, endpoint: Endpoint, call: Call) -> Response:
        body = call.chat
        prefix = endpoint.call_prefix()
        path, payload = upstream_request(body)
        payload = dict(payload)
        payload["stream"] = False
        payload.pop("stream_options", None)
        try:
            resp = await client().post(path, json=payload, headers=upstream_headers(request))
        except httpx.HTTPError as exc:
            return unreachable(request, endpoint, exc)
        if resp.status_code != 200:
            counters.upstream_errors += 1
            return relay_error(
                request, endpoint, resp.status_code, resp.content[:_MAX_ERROR_BODY], payload
            )
        try:
            whole = resp.json()
            if prompter is not None:
                whole = chat_answer(whole)
            choices = _completion_choices(whole)
        except (ValueError, KeyError, TypeError, RecursionError) as exc:
            counters.upstream_errors += 1
            return _error(
                502,
                f"the upstream answer is not a chat completion: {scrubber(request)(str(exc))}",
                "upstream_error",
                endpoint=endpoint,
            )
        parsed: list[Parsed] = []
        rejected = 0
        for number, choice in enumerate(choices):
            if not isinstance(choice, dict):
                continue
            parser = make_parser(body, f"{prefix}{number}_" if number else prefix)
            try:
                events = parser.feed(_ENCODER.encode_json(_as_chunk(choice)))
                events.extend(parser.finish())
                message = parser.message
            except Exception as exc:
                counters.parser_errors += 1
                log.error("parser failed on a completion", exc_info=exc)
                return _error(
                    500,
                    "streamcall failed while parsing the upstream answer "
                    f"({scrubber(request)(_describe(exc))})",
                    "server_error",
                    endpoint=endpoint,
                )
            rejected += parser.rejected
            events = WrittenCalls().apply(events)
            parsed.append(Parsed(choice, events, as_written(message, events)))
        counters.rejected_chunks += rejected
        return JSONResponse(endpoint.answer(call, whole, parsed, rejected))

    async def chat_completions(request: Request) -> Response:
        return await answer(request, CHAT)

    async def responses(request: Request) -> Response:
        return await answer(request, RESPONSES)

    async def messages(request: Request) -> Response:
        return await answer(request, MESSAGES)

    async def count_tokens(request: Request) -> Response:
        """``POST /v1/messages/count_tokens`` (``server/count.py``)."""
        counters.requests += 1
        try:
            body = json.loads(await read_body(request))
            if not isinstance(body, dict):
                raise BadRequest("the request body must be a JSON object")
            if "max_tokens" in body:
                raise BadRequest("max_tokens: not a member of a count_tokens request", "max_tokens")
            call = messages_request({**body, "max_tokens": 1})
            chat = validate(call.chat, prompter is not None)
            renders = prompter or (prompter_for(config) if config.model_dir else None)
            prompt = renders.prompt(chat).text if renders is not None else None
        except (BadRequest, ValueError, TypeError, TemplateError, RecursionError, _TooLarge) as exc:
            counters.bad_requests += 1
            status = 413 if isinstance(exc, _TooLarge) else 400
            what = str(exc) or "the request body is larger than this proxy accepts"
            if isinstance(exc, ValueError | TypeError) and not isinstance(exc, BadRequest):
                what = f"the request body is not a Messages request: {exc}"
            param = exc.param if isinstance(exc, BadRequest) else None
            return _error(status, what, "invalid_request_error", param, endpoint=MESSAGES)
        counted = local_count(config.model_dir, prompt)
        if counted is not None:
            return JSONResponse({"input_tokens": counted})
        root = config.upstream.rstrip("/") if config.upstream else ""
        root = root[: -len("/v1")] if root.endswith("/v1") else root
        try:
            resp = await client().post(
                f"{root}/tokenize",
                json=tokenize_body(chat, prompt),
                headers=upstream_headers(request),
            )
            if resp.status_code != 200:
                raise CountUnavailable(
                    f"the upstream {shown_upstream} answers {resp.status_code} to POST "
                    f"/tokenize: {scrubber(request)(resp.text[:300])}"
                )
            return JSONResponse({"input_tokens": read_count(resp.json())})
        except (CountUnavailable, ValueError, httpx.HTTPError) as exc:
            what = scrubber(request)(
                _describe(exc) if isinstance(exc, httpx.HTTPError) else str(exc)
            )
            return _error(
                501,
                f"cannot count tokens exactly: {what}. The proxy counts with the upstream's "
                "/tokenize (vLLM, SGLang and llama.cpp serve one), or with --model-dir and its "
                "tokenizer.json when the tokenizers package is installed",
                "api_error",
                endpoint=MESSAGES,
            )

    async def models(request: Request) -> Response:
        try:
            resp = await client().get("models", headers=upstream_headers(request))
        except httpx.HTTPError as exc:
            return unreachable(request, CHAT, exc)
        if resp.status_code != 200:
            return relay_error(request, CHAT, resp.status_code, resp.content[:_MAX_ERROR_BODY], {})
        return Response(resp.content, status_code=200, media_type="application/json")

    async def probe() -> str | None:
        """Why the upstream cannot serve now, or None: ``GET {upstream}/models``."""
        try:
            resp = await client().get(
                "models",
                headers=upstream_headers(None),
                timeout=httpx.Timeout(min(_HEALTH_TIMEOUT, config.connect_timeout)),
            )
        except httpx.HTTPError as exc:
            return f"the upstream {shown_upstream} cannot be reached: {scrub_known(_describe(exc))}"
        if resp.status_code >= 500:
            return f"the upstream {shown_upstream} answers {resp.status_code} to GET /models"
        if resp.status_code in (401, 403) and config.api_key:
            return (
                f"the upstream {shown_upstream} refuses the proxy's API key "
                f"({resp.status_code} to GET /models)"
            )
        return None

    async def health(request: Request) -> Response:
        reason = await probe()
        out: dict[str, Any] = {"status": "ok" if reason is None else "degraded"}
        if reason is not None:
            out["reason"] = reason
        out.update(
            {
                "upstream": shown_upstream,
                "format": config.format,
                "reasoning": config.reasoning,
                "upstream_tools": config.upstream_tools,
                "unknown_calls": config.unknown_calls,
                "hosted_tools": {"mode": config.hosted_tools, "dropped": dict(dropped)},
                "prompt_template": prompter.source if prompter is not None else None,
                "client_key_required": bool(config.client_keys),
                "pid": os.getpid(),
                "counters": asdict(counters),
            }
        )
        return JSONResponse(out, status_code=200 if reason is None else 503)

    async def http_error(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        detail = exc.detail if isinstance(exc, HTTPException) else "internal error"
        return _error(
            status,
            f"{detail}: {request.method} {request.url.path}",
            "invalid_request_error",
            endpoint=_errors_for(request.url.path),
        )

    middleware = (
        [Middleware(_ClientAuth, keys=list(config.client_keys), counters=counters)]
        if config.client_keys
        else []
    )
    app = Starlette(
        routes=[
            Route("/v1/chat/completions", chat_completions, methods=["POST"]),
            Route("/v1/responses", responses, methods=["POST"]),
            Route("/v1/messages", messages, methods=["POST"]),
            Route("/v1/messages/count_tokens", count_tokens, methods=["POST"]),
            Route("/v1/models", models, methods=["GET"]),
            Route("/health", health, methods=["GET"]),
        ],
        middleware=middleware,
        lifespan=lifespan,
        exception_handlers={HTTPException: http_error},
    )
    app.state.counters = counters
    app.state.config = config
    return app


def prompter_for(config: ServerConfig) -> Prompter:
    """The prompt renderer of ``--upstream-tools render``: the checkpoint's chat template
    (``model_dir``), else streamcall's template for ``format``'s family, else the family of
    each request's ``model`` (a request whose model routes to none gets a 400)."""
    from streamcall.prompt import FAMILIES, family_for

    fmt = config.format if config.format not in (None, "auto", "hf") else None
    if config.model_dir:
        return Prompter(template=load_chat_template(config.model_dir), format=fmt)
    if fmt is not None and family_for(fmt) is None:
        have = ", ".join(sorted(f for fam in FAMILIES for f in fam.formats))
        raise ValueError(
            f"--upstream-tools render: streamcall ships no chat template for the format "
            f"{fmt!r} (it has one for {have}); give --model-dir, the checkpoint whose "
            "chat template renders the prompt"
        )
    return Prompter(format=fmt)


async def _sniffed(source: AsyncIterator[bytes], sniffer: StopSniffer) -> AsyncIterator[bytes]:
    """The upstream's bytes as they come, each read shown to ``sniffer`` first."""
    async for data in source:
        sniffer.see(data)
        yield data


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


def _relay_error(status: int, text: str, hint: str | None = None) -> dict[str, Any]:
    """The upstream's error, OpenAI-shaped: its own ``{"error": {...}}`` body if it has one
    (vLLM's, llama.cpp's), else one wrapping its message or text; ``hint`` is appended to
    the message."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        value = None
    note = f" [streamcall: {hint}]" if hint else ""
    if isinstance(value, dict) and isinstance(value.get("error"), dict):
        if note:
            err = value["error"]
            err["message"] = f"{err.get('message') or ''}{note}"
        return value
    if isinstance(value, dict) and "error" in value and not note:
        return value
    if isinstance(value, dict) and isinstance(value.get("message"), str):
        message = value["message"]  # {"object": "error", "message": ...} (older vLLM)
    elif isinstance(value, dict) and isinstance(value.get("error"), str):
        message = value["error"]
    else:
        message = text.strip()[:2000] or f"HTTP {status}"
    return error_body(f"upstream error {status}: {message}{note}", "upstream_error", status)


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


def config_with_model_dir(config: ServerConfig, directory: str | os.PathLike[str]) -> ServerConfig:
    """``config`` with the formats ``detect`` reads off a checkpoint directory (an explicit
    ``format`` or ``reasoning`` in ``config`` wins); returns it with ``detect``'s reason.

    A response template decides both (``hf``). No tool-call format found: ``auto``, the
    format sniffed from each answer; no reasoning format found: none.
    """
    found = detect(Path(directory))
    if found.template is not None:
        return dataclasses.replace(
            config,
            format="hf",
            reasoning=found.reasoning,
            response_template=found.template,
            model_dir=str(directory),
        )
    return dataclasses.replace(
        config,
        format=config.format or found.format or "auto",
        reasoning=config.reasoning or found.reasoning or "none",
        model_dir=str(directory),
    )


def config_for_examples(config: ServerConfig) -> ServerConfig:
    """``config`` with the bundled examples' models and formats added."""
    models = dict(config.models)
    for ex in bundled.examples():
        models.setdefault(ex.model, (ex.format, ex.reasoning))
    config.models = models
    return config
