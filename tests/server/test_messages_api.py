"""``POST /v1/messages`` end to end, with the official ``anthropic`` SDK as the client.

The same raw-text upstream as ``test_responses_api`` (``agent_upstream``), in ``pass`` and
``render`` mode: ``messages.create`` and ``messages.stream`` get text, thinking blocks and
``tool_use`` blocks, the stream helper rebuilds the tool input from ``input_json_delta``,
and its final message equals the non-streamed one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anthropic
import httpx
import pytest
from agent_upstream import MODEL, THOUGHT, Stack
from anthropic import Anthropic
from loopback_harness import Script, ServerThread, scripted_upstream

from streamcall.server import ServerConfig, create_app

TOOLS: list[Any] = [
    {
        "name": "get_weather",
        "description": "Current weather in a city.",
        "input_schema": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    }
]
ASK = "What is the weather in Paris?"


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    made = Stack()
    yield made
    made.stop()


def _client(stack: Stack, mode: str, key: str = "x") -> Anthropic:
    return Anthropic(base_url=stack.urls[mode], api_key=key, max_retries=0, timeout=20)


def _summary(message: Any) -> dict[str, Any]:
    """What a message says, without the random ids (checked apart)."""
    blocks = []
    for block in message.content:
        if block.type == "thinking":
            blocks.append(("thinking", block.thinking, block.signature))
        elif block.type == "text":
            blocks.append(("text", block.text))
        elif block.type == "tool_use":
            blocks.append(("tool_use", block.name, block.input))
    return {
        "role": message.role,
        "model": message.model,
        "content": blocks,
        "stop_reason": message.stop_reason,
        "usage": (message.usage.input_tokens, message.usage.output_tokens),
    }


def _streamed(client: Anthropic, **kwargs: Any) -> tuple[Any, list[Any]]:
    with client.messages.stream(**kwargs) as stream:
        events = list(stream)
        final = stream.get_final_message()
    return final, events


@pytest.mark.parametrize("mode", ["pass", "render"])
def test_text_and_thinking(stack: Stack, mode: str) -> None:
    client = _client(stack, mode)
    kwargs: dict[str, Any] = {
        "model": MODEL,
        "max_tokens": 200,
        "system": "Be brief.",
        "messages": [{"role": "user", "content": "Hello"}],
        "thinking": {"type": "enabled", "budget_tokens": 100},
    }
    whole = client.messages.create(**kwargs)
    final, events = _streamed(client, **kwargs)
    assert _summary(whole)["content"] == [
        ("thinking", THOUGHT, ""),
        ("text", "Hello! How can I help?"),
    ]
    assert whole.stop_reason == "end_turn"
    assert _summary(final) == _summary(whole)
    assert whole.id.startswith("msg_") and whole.usage.input_tokens > 0
    kinds = [e.type for e in events]
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop"
    sent = stack.upstream.last()
    if mode == "pass":
        assert sent["messages"][0] == {"role": "system", "content": "Be brief."}
        assert sent["chat_template_kwargs"] == {"enable_thinking": True}
        assert sent["max_tokens"] == 200
    else:
        assert sent["prompt"].startswith("<|im_start|>system\nBe brief.")


@pytest.mark.parametrize("mode", ["pass", "none", "render"])
def test_tool_use_streamed_and_not(stack: Stack, mode: str) -> None:
    client = _client(stack, mode)
    kwargs: dict[str, Any] = {
        "model": MODEL,
        "max_tokens": 200,
        "messages": [{"role": "user", "content": ASK}],
        "tools": TOOLS,
    }
    whole = client.messages.create(**kwargs)
    final, events = _streamed(client, **kwargs)
    assert _summary(whole)["content"] == [
        ("thinking", THOUGHT, ""),
        ("text", "Checking.\n"),
        ("tool_use", "get_weather", {"city": "Paris"}),
    ]
    assert whole.stop_reason == "tool_use"
    assert _summary(final) == _summary(whole)
    for message in (whole, final):
        assert message.content[2].id.startswith("toolu_")
    # the input came as input_json_delta, and the accumulator rebuilt it from those
    raw = [
        e for e in events if e.type == "content_block_delta" and e.delta.type == "input_json_delta"
    ]
    assert raw and all(e.index == 2 for e in raw)
    assert json.loads("".join(e.delta.partial_json for e in raw)) == {"city": "Paris"}
    starts = [e for e in events if e.type == "content_block_start"]
    assert [(e.index, e.content_block.type) for e in starts] == [
        (0, "thinking"),
        (1, "text"),
        (2, "tool_use"),
    ]
    assert starts[2].content_block.input == {}
    assert [e.index for e in events if e.type == "content_block_stop"] == [0, 1, 2]


@pytest.mark.parametrize("mode", ["pass", "render"])
@pytest.mark.parametrize("stream", [False, True])
def test_two_turn_loop_with_a_tool_result(stack: Stack, mode: str, stream: bool) -> None:
    client = _client(stack, mode)
    messages: list[Any] = [{"role": "user", "content": ASK}]
    first = client.messages.create(model=MODEL, max_tokens=200, messages=messages, tools=TOOLS)
    use = next(block for block in first.content if block.type == "tool_use")
    messages.append(
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]}
    )
    messages.append(
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": use.id, "content": '{"temp": 21}'}],
        }
    )
    kwargs: dict[str, Any] = {
        "model": MODEL,
        "max_tokens": 200,
        "messages": messages,
        "tools": TOOLS,
    }
    second = _streamed(client, **kwargs)[0] if stream else client.messages.create(**kwargs)
    assert [b.type for b in second.content] == ["thinking", "text"]
    assert second.content[1].text == "It is 21 degrees in Paris."
    assert second.stop_reason == "end_turn"
    sent = stack.upstream.last()
    if mode == "pass":
        assert [m["role"] for m in sent["messages"]] == ["user", "assistant", "tool"]
        assistant = sent["messages"][1]
        assert assistant["reasoning_content"] == THOUGHT
        assert assistant["content"] == "Checking.\n"
        assert assistant["tool_calls"][0]["id"] == use.id
        assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"city": "Paris"}
        assert sent["messages"][2] == {
            "role": "tool",
            "tool_call_id": use.id,
            "content": '{"temp": 21}',
        }
    else:
        assert '<tool_response>\n{"temp": 21}\n</tool_response>' in sent["prompt"]


def test_thinking_disabled(stack: Stack) -> None:
    client = _client(stack, "pass")
    whole = client.messages.create(
        model=MODEL,
        max_tokens=50,
        messages=[{"role": "user", "content": "Hello"}],
        thinking={"type": "disabled"},
    )
    assert [b.type for b in whole.content] == ["text"]
    assert stack.upstream.last()["chat_template_kwargs"] == {"enable_thinking": False}


@pytest.mark.parametrize(
    ("choice", "sent"),
    [
        ({"type": "auto"}, "auto"),
        ({"type": "any"}, "required"),
        ({"type": "none"}, "none"),
        (
            {"type": "tool", "name": "get_weather"},
            {"type": "function", "function": {"name": "get_weather"}},
        ),
    ],
)
def test_tool_choice_is_mapped(stack: Stack, choice: dict[str, Any], sent: Any) -> None:
    client = _client(stack, "pass")
    client.messages.create(
        model=MODEL,
        max_tokens=50,
        messages=[{"role": "user", "content": ASK}],
        tools=TOOLS,
        tool_choice=choice,
    )
    assert stack.upstream.last()["tool_choice"] == sent


@pytest.mark.parametrize("stream", [False, True])
def test_upstream_refusal(stack: Stack, stream: bool) -> None:
    client = _client(stack, "pass")
    hello = [{"role": "user", "content": "Hello"}]
    with pytest.raises(anthropic.BadRequestError) as refused:
        if stream:
            _streamed(client, model="refuse", max_tokens=10, messages=hello)
        else:
            client.messages.create(model="refuse", max_tokens=10, messages=hello)
    assert refused.value.status_code == 400
    assert refused.value.body == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "this model refuses the request"},
    }
    with pytest.raises(anthropic.InternalServerError) as broken:
        client.messages.create(model="broken", max_tokens=10, messages=hello, stream=stream)
    body = broken.value.body
    assert isinstance(body, dict) and body["type"] == "error"
    assert body["error"]["type"] == "api_error"
    assert "upstream exploded" in body["error"]["message"]


HELLO = [{"role": "user", "content": "Hello"}]


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"max_tokens": 10, "messages": HELLO}, "model: field required"),
        ({"model": MODEL, "messages": HELLO}, "max_tokens: field required"),
        ({"model": MODEL, "max_tokens": 10}, "messages: field required"),
        (
            {
                "model": MODEL,
                "max_tokens": 10,
                "messages": [{"role": "user", "content": [{"type": "document"}]}],
            },
            "'document' is not supported",
        ),
        (
            {
                "model": MODEL,
                "max_tokens": 10,
                "messages": HELLO,
                "tools": [{"type": "wizard_20990101", "name": "w"}],
            },
            "tools.0.type: 'wizard_20990101' is not a tool type",
        ),
        (
            {"model": MODEL, "max_tokens": 10, "messages": HELLO, "tools": [{"name": "f"}]},
            "input_schema",
        ),
        (
            {"model": MODEL, "max_tokens": 10, "messages": HELLO, "thinking": {"type": "maybe"}},
            "thinking.type",
        ),
        (
            {"model": MODEL, "max_tokens": 10, "messages": [{"role": "system", "content": "x"}]},
            "messages: holds no user or assistant message",
        ),
        (
            {"model": MODEL, "max_tokens": 10, "messages": [{"role": "wizard", "content": "x"}]},
            "messages.0.role: must be user or assistant, not 'wizard'",
        ),
        (
            {"model": MODEL, "max_tokens": 10, "messages": [{"role": 0, "content": "x"}]},
            "messages.0.role: must be user or assistant, not 0",
        ),
        (
            {
                "model": MODEL,
                "max_tokens": 10,
                "messages": [
                    *HELLO,
                    {"role": "assistant", "content": [{"type": "thinking", "thinking": 5}]},
                    *HELLO,
                ],
            },
            "messages.1.content.0.thinking: must be a string",
        ),
        (
            {"model": MODEL, "max_tokens": 10, "messages": HELLO, "thinking": 5},
            "thinking: must be an object, not 5",
        ),
        (
            {"model": MODEL, "max_tokens": 10, "messages": HELLO, "temperature": "hot"},
            "temperature: must be a number, not 'hot'",
        ),
        (
            {"model": MODEL, "max_tokens": 10, "messages": HELLO, "wizardry": True},
            "wizardry: unknown member of a Messages request",
        ),
        (
            {"model": MODEL, "max_tokens": 10, "messages": HELLO, "container": "c1"},
            "container: not supported here",
        ),
        (
            {
                "model": MODEL,
                "max_tokens": 10,
                "messages": HELLO,
                "tools": [{"name": "f", "input_schema": {"type": "object"}, "description": 3}],
            },
            "tools.0.description: must be a string",
        ),
    ],
)
def test_bad_requests(stack: Stack, body: dict[str, Any], says: str) -> None:
    resp = httpx.post(f"{stack.urls['pass']}/v1/messages", json=body, timeout=20)
    assert resp.status_code == 400
    out = resp.json()
    assert out["type"] == "error" and set(out["error"]) == {"type", "message"}
    assert out["error"]["type"] == "invalid_request_error"
    assert says in out["error"]["message"]


def test_client_key(stack: Stack) -> None:
    hello: Any = HELLO
    with pytest.raises(anthropic.AuthenticationError) as refused:
        _client(stack, "keyed", "wrong").messages.create(model=MODEL, max_tokens=10, messages=hello)
    assert refused.value.body["error"]["type"] == "authentication_error"  # type: ignore[index]
    ok = _client(stack, "keyed", Stack.KEY).messages.create(
        model=MODEL, max_tokens=10, messages=hello
    )
    assert ok.content[-1].text == "Hello! How can I help?"  # type: ignore[union-attr]
    bearer = httpx.post(
        f"{stack.urls['keyed']}/v1/messages",
        json={"model": MODEL, "max_tokens": 10, "messages": HELLO},
        headers={"authorization": f"Bearer {Stack.KEY}"},
        timeout=20,
    )
    assert bearer.status_code == 200 and bearer.json()["type"] == "message"
    bare = httpx.post(f"{stack.urls['keyed']}/v1/messages", json={}, timeout=20)
    assert bare.status_code == 401 and bare.json()["type"] == "error"
    assert Stack.KEY not in bare.text


def test_client_x_api_key_reaches_a_keyless_upstream_as_a_bearer_token(stack: Stack) -> None:
    hello: Any = HELLO
    _client(stack, "pass", "sk-upstream-7").messages.create(
        model=MODEL, max_tokens=10, messages=hello
    )
    assert stack.upstream.authorization[-1] == "Bearer sk-upstream-7"
    # with client keys set, the client's key is the proxy's and never reaches the upstream
    _client(stack, "keyed", Stack.KEY).messages.create(model=MODEL, max_tokens=10, messages=hello)
    assert stack.upstream.authorization[-1] is None


def test_stream_that_breaks_ends_with_an_error_event() -> None:
    script = Script("Partial answer that goes on and on and on and on", fault="die", die_after=5)
    upstream = ServerThread(scripted_upstream({"dying": script})).start()
    proxy = ServerThread(
        create_app(ServerConfig(upstream=f"{upstream.url}/v1", timeout=20.0))
    ).start()
    try:
        client = Anthropic(base_url=proxy.url, api_key="x", max_retries=0, timeout=20)
        seen: list[Any] = []
        stream = client.messages.stream(model="dying", max_tokens=100, messages=HELLO)  # type: ignore[arg-type]
        with pytest.raises(anthropic.APIStatusError) as broke, stream as events:
            seen.extend(events)
        assert "ended abnormally" in str(broke.value)
        text = "".join(
            e.delta.text
            for e in seen
            if e.type == "content_block_delta" and e.delta.type == "text_delta"
        )
        assert text and "Partial answer".startswith(text[:14])
    finally:
        proxy.stop()
        upstream.stop()


def test_rejected_upstream_chunk_is_counted() -> None:
    script = Script("An answer long enough to carry a bad chunk in its middle.", fault="malformed")
    upstream = ServerThread(scripted_upstream({"bad-chunk": script})).start()
    proxy = ServerThread(
        create_app(ServerConfig(upstream=f"{upstream.url}/v1", timeout=20.0))
    ).start()
    try:
        client = Anthropic(base_url=proxy.url, api_key="x", max_retries=0, timeout=20)
        stream = client.messages.stream(model="bad-chunk", max_tokens=100, messages=HELLO)  # type: ignore[arg-type]
        with stream as events:
            deltas = [e for e in events if e.type == "message_delta"]
            final = events.get_final_message()
        assert final.content[0].text == script.text  # type: ignore[union-attr]
        assert deltas[0].model_extra == {"streamcall": {"rejected_chunks": 1}}
    finally:
        proxy.stop()
        upstream.stop()


def test_unknown_routes_under_messages_answer_in_anthropic_shape(stack: Stack) -> None:
    resp = httpx.post(f"{stack.urls['pass']}/v1/messages/batches", json={}, timeout=20)
    assert resp.status_code == 404
    assert resp.json() == {
        "type": "error",
        "error": {"type": "not_found_error", "message": "Not Found: POST /v1/messages/batches"},
    }
    wrong = httpx.get(f"{stack.urls['pass']}/v1/messages", timeout=20)
    assert wrong.status_code == 405 and wrong.json()["type"] == "error"


def test_unreachable_upstream_is_a_502_in_anthropic_shape() -> None:
    import socket

    with socket.socket() as sock:  # a loopback port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proxy = ServerThread(
        create_app(
            ServerConfig(upstream=f"http://127.0.0.1:{port}/v1", timeout=5.0, connect_timeout=2.0)
        )
    ).start()
    try:
        client = Anthropic(base_url=proxy.url, api_key="x", max_retries=0, timeout=20)
        with pytest.raises(anthropic.APIStatusError) as failed:
            client.messages.create(model=MODEL, max_tokens=10, messages=HELLO)  # type: ignore[arg-type]
        assert failed.value.status_code == 502
        body: Any = failed.value.body
        assert body["type"] == "error" and body["error"]["type"] == "api_error"
        assert body["error"]["message"].startswith("upstream unreachable")
    finally:
        proxy.stop()
