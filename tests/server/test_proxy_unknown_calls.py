"""``streamcall serve --unknown-calls``, end to end on loopback: a scripted raw-text
upstream under uvicorn, the real proxy in front of it, and the official SDKs as clients.

The model calls ``search``, which the request's tools do not declare, then
``get_weather``, which they do. By default (``keep``) both are tool calls; with
``--unknown-calls text`` the undeclared one reaches the client as content, on every wire
(chat completions streamed and not, /v1/responses, /v1/messages).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from anthropic import Anthropic
from loopback_harness import Script, ServerThread, scripted_upstream
from openai import OpenAI

from streamcall.server import ServerConfig, create_app

MODEL = "NousResearch/Hermes-3-Llama-3.1-8B"  # routes to the hermes format
UNDECLARED = '<tool_call>\n{"name": "search", "arguments": {"q": "tea"}}\n</tool_call>'
DECLARED = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
TEXT = f"Looking.\n{UNDECLARED}\n{DECLARED}"
TOOLS: list[Any] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]
ASK: list[Any] = [{"role": "user", "content": "weather in Paris?"}]


@pytest.fixture(scope="module")
def proxies() -> Iterator[dict[str, str]]:
    upstream = ServerThread(scripted_upstream({MODEL: Script(TEXT)})).start()
    made = {
        mode: ServerThread(
            create_app(
                ServerConfig(upstream=f"{upstream.url}/v1", timeout=20.0, unknown_calls=mode)
            )
        ).start()
        for mode in ("keep", "text")
    }
    try:
        yield {mode: server.url for mode, server in made.items()}
    finally:
        for server in made.values():
            server.stop()
        upstream.stop()


def _openai(url: str) -> OpenAI:
    return OpenAI(base_url=f"{url}/v1", api_key="x", max_retries=0, timeout=20.0)


def _chat(url: str, stream: bool, tools: Any = TOOLS) -> tuple[str, list[tuple[str, Any]]]:
    client = _openai(url)
    kw: dict[str, Any] = {"tools": tools} if tools is not None else {}
    if not stream:
        msg = client.chat.completions.create(model=MODEL, messages=ASK, **kw).choices[0].message
        calls = [(c.function.name, json.loads(c.function.arguments)) for c in msg.tool_calls or []]
        return msg.content or "", calls
    content: list[str] = []
    parts: dict[int, list[str]] = {}
    for chunk in client.chat.completions.create(model=MODEL, messages=ASK, stream=True, **kw):
        for choice in chunk.choices:
            content.append(choice.delta.content or "")
            for tc in choice.delta.tool_calls or []:
                got = parts.setdefault(tc.index, ["", ""])
                if tc.function and tc.function.name:
                    got[0] = tc.function.name
                if tc.function and tc.function.arguments:
                    got[1] += tc.function.arguments
    assert sorted(parts) == list(range(len(parts)))  # indices 0, 1, ...
    return "".join(content), [(n, json.loads(a)) for _, (n, a) in sorted(parts.items())]


@pytest.mark.parametrize("stream", [False, True])
def test_chat_default_keeps_the_undeclared_call(proxies: dict[str, str], stream: bool) -> None:
    content, calls = _chat(proxies["keep"], stream)
    assert calls == [("search", {"q": "tea"}), ("get_weather", {"city": "Paris"})]
    assert "search" not in content


@pytest.mark.parametrize("stream", [False, True])
def test_chat_text_makes_it_content(proxies: dict[str, str], stream: bool) -> None:
    content, calls = _chat(proxies["text"], stream)
    assert calls == [("get_weather", {"city": "Paris"})]
    assert content.startswith("Looking.\n")
    assert UNDECLARED in content  # hermes re-renders it as the model wrote it


def test_chat_text_without_tools_keeps_every_call(proxies: dict[str, str]) -> None:
    _, calls = _chat(proxies["text"], False, tools=None)
    assert [name for name, _ in calls] == ["search", "get_weather"]


@pytest.mark.parametrize("stream", [False, True])
def test_responses(proxies: dict[str, str], stream: bool) -> None:
    tools: Any = [
        {
            "type": "function",
            "name": "get_weather",
            "parameters": TOOLS[0]["function"]["parameters"],
        }
    ]
    for mode, want in (("keep", ["search", "get_weather"]), ("text", ["get_weather"])):
        client = _openai(proxies[mode])
        if stream:
            done = None
            for event in client.responses.create(
                model=MODEL, input="weather?", tools=tools, stream=True
            ):
                if event.type == "response.completed":
                    done = event.response
            assert done is not None
            resp = done
        else:
            resp = client.responses.create(model=MODEL, input="weather?", tools=tools)
        names = [item.name for item in resp.output if item.type == "function_call"]
        assert names == want, mode
        text = "".join(
            part.text
            for item in resp.output
            if item.type == "message"
            for part in item.content
            if part.type == "output_text"
        )
        assert ('"search"' in text) is (mode == "text")


def test_messages(proxies: dict[str, str]) -> None:
    tools: Any = [{"name": "get_weather", "input_schema": TOOLS[0]["function"]["parameters"]}]
    for mode, want in (("keep", ["search", "get_weather"]), ("text", ["get_weather"])):
        client = Anthropic(base_url=proxies[mode], api_key="x", max_retries=0, timeout=20.0)
        msg = client.messages.create(model=MODEL, max_tokens=100, messages=ASK, tools=tools)
        assert [b.name for b in msg.content if b.type == "tool_use"] == want, mode
        text = "".join(b.text for b in msg.content if b.type == "text")
        assert ('"search"' in text) is (mode == "text")


def test_health_says_the_mode(proxies: dict[str, str]) -> None:
    for mode, url in proxies.items():
        assert httpx.get(f"{url}/health", timeout=20).json()["unknown_calls"] == mode


def test_a_bad_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown_calls"):
        create_app(ServerConfig(upstream="http://127.0.0.1:9/v1", unknown_calls="drop"))
