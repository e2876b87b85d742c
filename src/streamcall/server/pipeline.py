"""The request pipeline the three client APIs share: read, translate, check, send, parse,
answer.

``Pipeline.answer`` takes one request on any route (its ``Endpoint`` says how to translate
it and how to write the answer): the body is read with its limit (``server/body.py``),
translated into the chat request (``Endpoint.translate``), its hosted tools dropped with a
word or refused (``hosted``), checked (``server/chat.py``), and sent upstream
(``server/upstream.py``). A streamed answer is relayed (``relay``): the upstream's bytes
through the parser (``server/parsers.py``), the events through ``WrittenCalls`` (a cut
call's arguments as the model wrote them), then the client's wire. A whole answer is parsed
choice by choice (``complete``). ``count_tokens`` serves ``/v1/messages/count_tokens``.

The faults, each answered in the route's own shape without a traceback (``app.py``'s
docstring lists them): a bad body is a 400 (413 over ``--max-body``), an unreachable
upstream a 502, an upstream error is passed on with its status, a stream that breaks ends
with everything parsed so far and then the API's error event.

State: the config, the upstream, the counters, and which hosted tool types were dropped
(for ``/health``). Nothing per request outlives it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from streamcall.events import StreamError
from streamcall.prompt import TemplateError
from streamcall.server.api import BadRequest, Call, Endpoint, Parsed, StopSniffer, Wire
from streamcall.server.body import TooLarge, read_body
from streamcall.server.chat import validate
from streamcall.server.config import Counters, ServerConfig, prompter_for
from streamcall.server.count import CountUnavailable, local_count, read_count, tokenize_body
from streamcall.server.endpoints import MESSAGES
from streamcall.server.errors import (
    describe,
    error_body,
    error_response,
    relay_error_body,
    tools_hint,
)
from streamcall.server.messages import chat_request as messages_request
from streamcall.server.parsers import parser_for
from streamcall.server.render import chat_answer, chat_chunks
from streamcall.server.unfinished import WrittenCalls, as_written
from streamcall.server.upstream import Upstream
from streamcall.sse import SSEEncoder
from streamcall.stream import StreamParser

__all__ = ["Pipeline"]

log = logging.getLogger("streamcall.server")
_ENCODER = SSEEncoder()
_DONE = _ENCODER.done()
_MAX_ERROR_BODY = 64 << 10  # how much of an upstream error body is read


class Pipeline:
    """One app's request pipeline (module docstring)."""

    def __init__(self, config: ServerConfig, upstream: Upstream, counters: Counters) -> None:
        self.config = config
        self.upstream = upstream
        self.counters = counters
        self.dropped: dict[str, int] = {}  # hosted tool type -> requests it was dropped from

    def relay_error(
        self, request: Request, endpoint: Endpoint, status: int, raw: bytes, sent: dict[str, Any]
    ) -> JSONResponse:
        text = self.upstream.scrubber_for(request)(raw.decode("utf-8", errors="replace"))
        hint = tools_hint(self.config.upstream_tools, sent, text)
        if hint:
            log.warning("upstream answered %d because of the request's tools: %s", status, hint)
        return JSONResponse(endpoint.error(status, relay_error_body(status, text, hint)), status)

    async def upstream_failure(
        self, request: Request, endpoint: Endpoint, resp: httpx.Response, sent: dict[str, Any]
    ) -> JSONResponse:
        self.count_refusal(resp.status_code)
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
        return self.relay_error(request, endpoint, resp.status_code, raw, sent)

    def unreachable(
        self, request: Request, endpoint: Endpoint, exc: httpx.HTTPError
    ) -> JSONResponse:
        """A 502 for an upstream that could not be reached, or whose answer broke off
        before its body came (the two said apart: the fix for each differs)."""
        self.counters.upstream_errors += 1
        what = self.upstream.scrubber_for(request)(describe(exc))
        if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout):
            log.warning("upstream %s unreachable: %s", self.upstream.shown, what)
            message = f"upstream unreachable: {what}"
        else:
            log.warning("upstream %s broke off its answer: %s", self.upstream.shown, what)
            message = f"the upstream's answer broke off before it was whole: {what}"
        return error_response(502, message, "upstream_error", endpoint=endpoint)

    def count_refusal(self, status: int) -> None:
        """An upstream answer that is not a 200: its own error (5xx) or a refusal of the
        client's request (4xx: an unknown model, a bad member), counted apart."""
        if status >= 500:
            self.counters.upstream_errors += 1
        else:
            self.counters.upstream_refusals += 1

    def hosted(self, call: Call) -> None:
        """The request's hosted tools: refused, or dropped with a word (once a type)."""
        if not call.hosted:
            return
        where, kind = call.hosted[0]
        if self.config.hosted_tools == "refuse":
            raise BadRequest(
                f"{where}: {kind!r} is a hosted tool (the API's own servers run it), which "
                "streamcall serve cannot run; leave it out, or start the proxy with "
                "--hosted-tools drop to have such tools left out for you",
                where,
            )
        for _, kind in call.hosted:
            if kind not in self.dropped:
                log.warning(
                    "a request offers the hosted tool %r, which streamcall serve cannot run: "
                    "not offered to the model (--hosted-tools refuse answers 400 instead)",
                    kind,
                )
            self.dropped[kind] = self.dropped.get(kind, 0) + 1

    async def answer(self, request: Request, endpoint: Endpoint) -> Response:
        """One client request, in any of the client APIs: translated, then streamed or not."""
        self.counters.requests += 1
        try:
            raw = await read_body(request, self.config.max_body)
            call = endpoint.translate(json.loads(raw))
            self.hosted(call)
            call.chat = validate(call.chat, self.upstream.prompter is not None)
            if call.chat.get("stream"):
                return await self.stream(request, endpoint, call)
            return await self.complete(request, endpoint, call)
        except TooLarge:
            self.counters.bad_requests += 1
            return error_response(
                413,
                f"the request body is larger than this proxy accepts ({self.config.max_body} bytes; "
                "see --max-body)",
                "invalid_request_error",
                headers={"connection": "close"},
                endpoint=endpoint,
            )
        except RecursionError:
            # json.loads (or re-encoding for the upstream) ran out of stack: nested arrays
            # or objects deeper than the decoder follows
            self.counters.bad_requests += 1
            return error_response(
                400,
                "the request body is nested too deeply to decode (arrays or objects inside "
                "each other, several hundred levels down)",
                "invalid_request_error",
                endpoint=endpoint,
            )
        except BadRequest as exc:
            self.counters.bad_requests += 1
            return error_response(
                400,
                str(exc),
                "invalid_request_error",
                exc.param,
                endpoint=endpoint,
                details=exc.details,
            )
        except ValueError as exc:
            self.counters.bad_requests += 1
            return error_response(
                400,
                f"the request body is not valid JSON: {exc}",
                "invalid_request_error",
                endpoint=endpoint,
            )

    async def stream(self, request: Request, endpoint: Endpoint, call: Call) -> Response:
        body = call.chat
        path, sent, prompt = self.upstream.request_for(body)
        # before any I/O: bad tools fail here
        parser = parser_for(self.config, body, endpoint.call_prefix(), prompt)
        req = self.upstream.client.build_request(
            "POST", path, json=sent, headers=self.upstream.headers(request)
        )
        try:
            resp = await self.upstream.client.send(req, stream=True)
        except httpx.HTTPError as exc:
            return self.unreachable(request, endpoint, exc)
        if resp.status_code != 200:
            return await self.upstream_failure(request, endpoint, resp, sent)
        source: AsyncIterator[bytes] = resp.aiter_bytes()
        sniffer = StopSniffer(call.stop) if call.stop else None
        if sniffer is not None:
            source = _sniffed(source, sniffer)
        if self.upstream.prompter is not None:
            source = chat_chunks(source)
        if _media_type(resp) == "application/json":
            # An upstream that ignored "stream": true and answered one chat completion: it
            # is streamed to the client all the same, as if it had come as one chunk.
            try:
                whole = json.loads(await resp.aread())
                if self.upstream.prompter is not None:
                    whole = chat_answer(whole)
                # Its usage only if the client asked for it, as a streaming server sends it.
                options = body.get("stream_options")
                wanted = isinstance(options, dict) and options.get("include_usage") is True
                source = _as_sse(_completion_choices(whole), whole.get("usage") if wanted else None)
            except (ValueError, TypeError, KeyError, RecursionError, httpx.HTTPError) as exc:
                self.counters.upstream_errors += 1
                return error_response(
                    502,
                    "the upstream answered a stream request with JSON that is not a chat "
                    f"completion: {self.upstream.scrubber_for(request)(describe(exc))}",
                    "upstream_error",
                    endpoint=endpoint,
                )
            finally:
                await resp.aclose()
        self.counters.streams += 1
        wire = endpoint.wire(call, body.get("model") or "")
        return StreamingResponse(
            self.relay(resp, source, parser, wire, self.upstream.scrubber_for(request), sniffer),
            media_type="text/event-stream",
            headers={"cache-control": "no-cache", "x-accel-buffering": "no"},
        )

    async def relay(
        self,
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
            self.counters.parser_errors += 1
            log.error("parser failed mid-stream", exc_info=exc)
            return error_body(
                "streamcall failed while parsing the upstream stream "
                f"({scrub(describe(exc))}); everything parsed before it was sent",
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
                    self.counters.rejected_chunks += 1
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
                what = scrub(describe(exc))
                self.counters.upstream_disconnects += 1
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
                self.counters.upstream_disconnects += 1
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

    async def complete(self, request: Request, endpoint: Endpoint, call: Call) -> Response:
        body = call.chat
        prefix = endpoint.call_prefix()
        path, payload, prompt = self.upstream.request_for(body)
        payload = dict(payload)
        payload["stream"] = False
        payload.pop("stream_options", None)
        try:
            resp = await self.upstream.client.post(
                path, json=payload, headers=self.upstream.headers(request)
            )
        except httpx.HTTPError as exc:
            return self.unreachable(request, endpoint, exc)
        if resp.status_code != 200:
            self.count_refusal(resp.status_code)
            return self.relay_error(
                request, endpoint, resp.status_code, resp.content[:_MAX_ERROR_BODY], payload
            )
        try:
            whole = resp.json()
            if self.upstream.prompter is not None:
                whole = chat_answer(whole)
            choices = _completion_choices(whole)
        except (ValueError, KeyError, TypeError, RecursionError) as exc:
            self.counters.upstream_errors += 1
            return error_response(
                502,
                f"the upstream answer is not a chat completion: {self.upstream.scrubber_for(request)(str(exc))}",
                "upstream_error",
                endpoint=endpoint,
            )
        parsed: list[Parsed] = []
        rejected = 0
        for number, choice in enumerate(choices):
            if not isinstance(choice, dict):
                continue
            parser = parser_for(
                self.config, body, f"{prefix}{number}_" if number else prefix, prompt
            )
            try:
                events = parser.feed(_ENCODER.encode_json(_as_chunk(choice)))
                events.extend(parser.finish())
                message = parser.message
            except Exception as exc:
                self.counters.parser_errors += 1
                log.error("parser failed on a completion", exc_info=exc)
                return error_response(
                    500,
                    "streamcall failed while parsing the upstream answer "
                    f"({self.upstream.scrubber_for(request)(describe(exc))})",
                    "server_error",
                    endpoint=endpoint,
                )
            rejected += parser.rejected
            events = WrittenCalls().apply(events)
            parsed.append(Parsed(choice, events, as_written(message, events)))
        self.counters.rejected_chunks += rejected
        return JSONResponse(endpoint.answer(call, whole, parsed, rejected))

    async def count_tokens(self, request: Request) -> Response:
        """``POST /v1/messages/count_tokens`` (``server/count.py``)."""
        self.counters.requests += 1
        try:
            body = json.loads(await read_body(request, self.config.max_body))
            if not isinstance(body, dict):
                raise BadRequest("the request body must be a JSON object")
            if "max_tokens" in body:
                raise BadRequest("max_tokens: not a member of a count_tokens request", "max_tokens")
            call = messages_request({**body, "max_tokens": 1})
            chat = validate(call.chat, self.upstream.prompter is not None)
            renders = self.upstream.prompter or (
                prompter_for(self.config) if self.config.model_dir else None
            )
            prompt = renders.prompt(chat).text if renders is not None else None
        except (BadRequest, ValueError, TypeError, TemplateError, RecursionError, TooLarge) as exc:
            self.counters.bad_requests += 1
            status = 413 if isinstance(exc, TooLarge) else 400
            what = str(exc) or "the request body is larger than this proxy accepts"
            if isinstance(exc, ValueError | TypeError) and not isinstance(exc, BadRequest):
                what = f"the request body is not a Messages request: {exc}"
            param = exc.param if isinstance(exc, BadRequest) else None
            return error_response(status, what, "invalid_request_error", param, endpoint=MESSAGES)
        counted = local_count(self.config.model_dir, prompt)
        if counted is not None:
            return JSONResponse({"input_tokens": counted})
        try:
            resp = await self.upstream.client.post(
                self.upstream.tokenize_url,
                json=tokenize_body(chat, prompt),
                headers=self.upstream.headers(request),
            )
            if resp.status_code != 200:
                raise CountUnavailable(
                    f"the upstream {self.upstream.shown} answers {resp.status_code} to POST "
                    f"/tokenize: {self.upstream.scrubber_for(request)(resp.text[:300])}"
                )
            return JSONResponse({"input_tokens": read_count(resp.json())})
        except (CountUnavailable, ValueError, httpx.HTTPError) as exc:
            what = self.upstream.scrubber_for(request)(
                describe(exc) if isinstance(exc, httpx.HTTPError) else str(exc)
            )
            return error_response(
                501,
                f"cannot count tokens exactly: {what}. The proxy counts with the upstream's "
                "/tokenize (vLLM, SGLang and llama.cpp serve one), or with --model-dir and its "
                "tokenizer.json when the tokenizers package is installed",
                "api_error",
                endpoint=MESSAGES,
            )


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
