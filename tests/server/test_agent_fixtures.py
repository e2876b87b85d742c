"""The requests real agents send, replayed through the proxy: each recorded request
(tests/fixtures/agents, recorded from Claude Code, Codex, OpenCode, Qwen Code, Aider and the
Python agent frameworks by ``scripts/test-agents``) is sent as it was, to each
``--upstream-tools`` mode, and must be answered 200 in its API's own shape: streamed answers
event by event as the official SDKs' types, whole answers as their response types; and no
whitespace-only text part, whatever the model wrote around its reasoning."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from agent_upstream import Stack
from anthropic.types import Message as AnthropicMessage
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from openai.types.responses import Response
from test_agent_wires import ANTHROPIC_EVENTS, OPENAI_EVENTS

from streamcall.sse import SSEDecoder

FIXTURES = Path(__file__).parent.parent / "fixtures" / "agents"
RECORDED = sorted(FIXTURES.glob("*.json"))


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    s = Stack()
    try:
        yield s
    finally:
        s.stop()


def test_every_client_was_recorded() -> None:
    clients = {json.loads(p.read_text())["client"] for p in RECORDED}
    assert {"claude-code", "codex", "opencode", "qwen-code", "aider"} <= clients
    assert {"pydantic-ai-slim", "openai-agents", "langchain-openai", "litellm"} <= clients


def _events(data: bytes) -> list[tuple[str | None, Any]]:
    out = []
    for sse in SSEDecoder().feed(data):
        if sse.data.strip() == "[DONE]":
            continue
        out.append((sse.event, json.loads(sse.data)))
    return out


def _check_stream(route: str, data: bytes) -> list[str]:
    """Each event validated as its SDK type; the text parts the client would show."""
    texts: list[str] = []
    events = _events(data)
    assert events, "no events"
    for name, value in events:
        if route == "/v1/chat/completions":
            chunk = ChatCompletionChunk.model_validate(value)
            for choice in chunk.choices:
                if choice.delta.content:
                    texts.append(choice.delta.content)
        elif route == "/v1/responses":
            assert "error" not in value.get("response", {}) or value["response"]["error"] is None
            OPENAI_EVENTS[value["type"]].model_validate(value)
            if value["type"] == "response.output_text.done":
                texts.append(value["text"])
        else:
            assert name == value["type"] != "error", value
            if value["type"] != "ping":
                ANTHROPIC_EVENTS[value["type"]].model_validate(value)
            if value["type"] == "content_block_start" and value["content_block"]["type"] == "text":
                texts.append("")
            if value["type"] == "content_block_delta" and value["delta"]["type"] == "text_delta":
                texts[-1] += value["delta"]["text"]
    if route == "/v1/chat/completions":
        return ["".join(texts)] if texts else []
    return texts


def _check_whole(route: str, value: Any) -> list[str]:
    if route == "/v1/chat/completions":
        done = ChatCompletion.model_validate(value)
        content = done.choices[0].message.content
        return [content] if content else []
    if route == "/v1/responses":
        response = Response.model_validate(value)
        assert response.status == "completed"
        return [
            c.text
            for i in response.output
            if i.type == "message"
            for c in i.content
            if c.type == "output_text"
        ]
    message = AnthropicMessage.model_validate(value)
    return [b.text for b in message.content if b.type == "text"]


@pytest.mark.parametrize("mode", ["pass", "none", "render"])
@pytest.mark.parametrize("path", RECORDED, ids=[p.stem for p in RECORDED])
def test_recorded_request_is_answered(stack: Stack, path: Path, mode: str) -> None:
    recorded = json.loads(path.read_text())
    route, body = recorded["route"], recorded["body"]
    url = f"{stack.urls[mode]}{route}"
    if recorded["query"]:
        url += f"?{recorded['query']}"
    headers = {k: v for k, v in recorded["headers"].items() if k.lower() != "content-length"}
    resp = httpx.post(url, json=body, headers=headers, timeout=30)
    if "thread" in body:
        # the SDK's tool runner asks for a server-held thread: refused as the SDK reads it,
        # and it sends the turn again without the field (test_agent_requests)
        assert resp.status_code == 400
        assert resp.json()["error"]["details"]["error_code"] == "thread_unsupported_request"
        body = {k: v for k, v in body.items() if k != "thread"}
        resp = httpx.post(url, json=body, headers=headers, timeout=30)
    assert resp.status_code == 200, f"{path.name} [{mode}]: {resp.text[:500]}"
    if body.get("stream"):
        texts = _check_stream(route, resp.content)
    else:
        texts = _check_whole(route, resp.json())
    # framing is not content: no text part a client would show is only blanks
    assert all(t.strip() for t in texts), texts
