"""``POST /v1/responses`` end to end, with the official ``openai`` SDK as the client.

A raw-text upstream (``agent_upstream``: a Qwen3 that writes ``<think>`` and Hermes
``<tool_call>`` text) behind the proxy in ``pass`` mode (its chat route) and ``render``
mode (its completions route, the prompt rendered by streamcall): ``responses.create`` and
``responses.stream`` get text, reasoning items and function calls, and the stream
helper's final response equals the non-streamed one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest
from agent_upstream import MODEL, THOUGHT, Stack
from loopback_harness import Script, ServerThread, scripted_upstream
from openai import OpenAI

from streamcall.server import ServerConfig, create_app

TOOLS: list[Any] = [
    {
        "type": "function",
        "name": "get_weather",
        "description": "Current weather in a city.",
        "parameters": {
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


def _client(stack: Stack, mode: str, key: str = "x") -> OpenAI:
    return OpenAI(base_url=f"{stack.urls[mode]}/v1", api_key=key, max_retries=0, timeout=20)


def _summary(response: Any) -> dict[str, Any]:
    """What a response says, without the random ids (checked apart)."""
    items = []
    for item in response.output:
        if item.type == "reasoning":
            items.append(("reasoning", [c.text for c in item.content or []], item.status))
        elif item.type == "message":
            items.append(("message", [c.text for c in item.content], item.status))
        elif item.type == "function_call":
            items.append(("function_call", item.name, json.loads(item.arguments), item.status))
    usage = response.usage
    return {
        "status": response.status,
        "model": response.model,
        "output": items,
        "usage": (usage.input_tokens, usage.output_tokens, usage.total_tokens),
    }


def _ids_ok(response: Any) -> None:
    assert response.id.startswith("resp_")
    ids = [item.id for item in response.output]
    assert len(set(ids)) == len(ids)
    for item in response.output:
        prefix = {"reasoning": "rs_", "message": "msg_", "function_call": "fc_"}[item.type]
        assert item.id.startswith(prefix)
        if item.type == "function_call":
            assert item.call_id.startswith("call_")


def _streamed(client: OpenAI, **kwargs: Any) -> tuple[Any, list[Any]]:
    with client.responses.stream(**kwargs) as stream:
        events = list(stream)
        final = stream.get_final_response()
    return final, events


@pytest.mark.parametrize("mode", ["pass", "render"])
def test_text_and_reasoning(stack: Stack, mode: str) -> None:
    client = _client(stack, mode)
    kwargs: dict[str, Any] = {"model": MODEL, "input": "Hello", "instructions": "Be brief."}
    whole = client.responses.create(**kwargs)
    final, events = _streamed(client, **kwargs)
    expected = [
        ("reasoning", [THOUGHT], "completed"),
        ("message", ["Hello! How can I help?"], "completed"),
    ]
    assert _summary(whole)["output"] == expected
    assert _summary(final) == _summary(whole)
    assert whole.usage is not None and whole.usage.input_tokens > 0
    assert whole.instructions == "Be brief." and whole.store is False
    _ids_ok(whole)
    _ids_ok(final)
    # the stream: numbered from 0 without a gap, and its deltas add up to the items
    assert [e.sequence_number for e in events] == list(range(len(events)))
    assert events[0].type == "response.created" and events[-1].type == "response.completed"
    reasoning = "".join(e.delta for e in events if e.type == "response.reasoning_text.delta")
    text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    assert (reasoning, text) == (THOUGHT, "Hello! How can I help?")
    sent = stack.upstream.last()
    if mode == "pass":
        assert sent["messages"][0] == {"role": "system", "content": "Be brief."}
    else:
        assert sent["prompt"].startswith("<|im_start|>system\nBe brief.")


@pytest.mark.parametrize("mode", ["pass", "none", "render"])
def test_tool_call_streamed_and_not(stack: Stack, mode: str) -> None:
    client = _client(stack, mode)
    kwargs: dict[str, Any] = {"model": MODEL, "input": ASK, "tools": TOOLS}
    whole = client.responses.create(**kwargs)
    final, events = _streamed(client, **kwargs)
    expected = [
        ("reasoning", [THOUGHT], "completed"),
        ("message", ["Checking.\n"], "completed"),
        ("function_call", "get_weather", {"city": "Paris"}, "completed"),
    ]
    assert _summary(whole)["output"] == expected
    assert _summary(final) == _summary(whole)
    _ids_ok(final)
    # the order the SDK's accumulator needs, item by item
    kinds = [e.type for e in events]
    call = kinds.index("response.function_call_arguments.delta")
    assert kinds[call - 1] == "response.output_item.added"
    assert kinds[-3:] == [
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
    ]
    done = [e for e in events if e.type == "response.function_call_arguments.done"]
    streamed = "".join(
        e.delta for e in events if e.type == "response.function_call_arguments.delta"
    )
    assert [d.arguments for d in done] == [streamed]
    assert json.loads(streamed) == {"city": "Paris"}
    added = [e for e in events if e.type == "response.output_item.added"]
    assert [e.output_index for e in added] == [0, 1, 2]
    fc = final.output[2]
    assert fc.type == "function_call" and done[0].item_id == fc.id and done[0].output_index == 2


@pytest.mark.parametrize("mode", ["pass", "render"])
@pytest.mark.parametrize("stream", [False, True])
def test_two_turn_loop_with_a_tool_result(stack: Stack, mode: str, stream: bool) -> None:
    client = _client(stack, mode)
    first = client.responses.create(model=MODEL, input=ASK, tools=TOOLS)
    call = next(item for item in first.output if item.type == "function_call")
    history: list[Any] = [{"role": "user", "content": ASK}]
    history += [item.model_dump(exclude_none=True) for item in first.output]
    history.append(
        {"type": "function_call_output", "call_id": call.call_id, "output": '{"temp": 21}'}
    )
    kwargs: dict[str, Any] = {"model": MODEL, "input": history, "tools": TOOLS}
    second = _streamed(client, **kwargs)[0] if stream else client.responses.create(**kwargs)
    assert second.output_text == "It is 21 degrees in Paris."
    sent = stack.upstream.last()
    if mode == "pass":
        roles = [m["role"] for m in sent["messages"]]
        assert roles == ["user", "assistant", "tool"]
        assistant = sent["messages"][1]
        assert assistant["reasoning_content"] == THOUGHT
        assert assistant["content"] == "Checking.\n"
        assert assistant["tool_calls"][0]["id"] == call.call_id
        assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"city": "Paris"}
        assert sent["messages"][2] == {
            "role": "tool",
            "tool_call_id": call.call_id,
            "content": '{"temp": 21}',
        }
    else:
        assert '<tool_response>\n{"temp": 21}\n</tool_response>' in sent["prompt"]


def test_reasoning_effort_none_switches_thinking_off(stack: Stack) -> None:
    client = _client(stack, "pass")
    whole = client.responses.create(
        model=MODEL, input="Hello", reasoning={"effort": "none"}, max_output_tokens=50
    )
    assert [item.type for item in whole.output] == ["message"]
    assert whole.output_text == "Hello! How can I help?"
    sent = stack.upstream.last()
    assert sent["chat_template_kwargs"] == {"enable_thinking": False}
    assert sent["reasoning_effort"] == "none" and sent["max_tokens"] == 50


def test_tool_choice_is_mapped(stack: Stack) -> None:
    client = _client(stack, "pass")
    client.responses.create(
        model=MODEL, input=ASK, tools=TOOLS, tool_choice={"type": "function", "name": "get_weather"}
    )
    sent = stack.upstream.last()
    assert sent["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
    assert sent["tools"][0]["function"]["name"] == "get_weather"
    client.responses.create(model=MODEL, input=ASK, tools=TOOLS, tool_choice="required")
    assert stack.upstream.last()["tool_choice"] == "required"


@pytest.mark.parametrize("stream", [False, True])
def test_upstream_refusal(stack: Stack, stream: bool) -> None:
    client = _client(stack, "pass")
    with pytest.raises(openai.BadRequestError) as refused:
        if stream:
            _streamed(client, model="refuse", input="Hello")
        else:
            client.responses.create(model="refuse", input="Hello")
    assert refused.value.status_code == 400
    assert "this model refuses the request" in refused.value.message
    with pytest.raises(openai.InternalServerError) as broken:
        client.responses.create(model="broken", input="Hello", stream=stream)
    body = broken.value.body
    assert isinstance(body, dict) and "upstream exploded" in body["message"]
    assert body["type"] == "upstream_error"


@pytest.mark.parametrize(
    ("body", "param", "says"),
    [
        ({"input": "Hello"}, "model", "'model' is required"),
        ({"model": MODEL}, "input", "'input' is required"),
        ({"model": MODEL, "input": [{"type": "computer_call"}]}, "input[0]", "not supported"),
        (
            {"model": MODEL, "input": "Hello", "tools": [{"type": "wizard_search"}]},
            "tools[0]",
            "'wizard_search' is not a tool type of the Responses API",
        ),
        (
            {
                "model": MODEL,
                "input": "Hello",
                "tools": [{"type": "function", "name": "f", "parameters": "s"}],
            },
            "tools[0]",
            "tools[0].parameters must be an object, not 's'",
        ),
        (
            {
                "model": MODEL,
                "input": "Hello",
                "tools": [{"type": "namespace", "name": "ns", "tools": [{"type": "web_search"}]}],
            },
            "tools[0].tools[0]",
            "must be function or custom",
        ),
        (
            {"model": MODEL, "input": "Hello", "max_output_tokens": "many"},
            "max_output_tokens",
            "'max_output_tokens' must be an integer, not 'many'",
        ),
        (
            {"model": MODEL, "input": "Hello", "temperature": "hot"},
            "temperature",
            "'temperature' must be a number, not 'hot'",
        ),
        (
            {"model": MODEL, "input": "Hello", "wizardry": 1},
            "wizardry",
            "'wizardry' is not a member of a Responses request",
        ),
        (
            {"model": MODEL, "input": "Hello", "tool_choice": {"type": "web_search"}},
            "tool_choice",
            "hosted tools are not offered",
        ),
        (
            {"model": MODEL, "input": "Hello", "previous_response_id": "resp_1"},
            "previous_response_id",
            "stores no state",
        ),
        (
            {"model": MODEL, "input": [{"type": "item_reference", "id": "msg_1"}]},
            "input[0]",
            "stores none",
        ),
        ({"model": MODEL, "input": "Hello", "tool_choice": "sometimes"}, "tool_choice", "auto"),
    ],
)
def test_bad_requests(stack: Stack, body: dict[str, Any], param: str, says: str) -> None:
    resp = httpx.post(f"{stack.urls['pass']}/v1/responses", json=body, timeout=20)
    assert resp.status_code == 400
    error = resp.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["type"] == "invalid_request_error" and error["param"] == param
    assert says in error["message"]


def test_not_json_is_a_clear_400(stack: Stack) -> None:
    resp = httpx.post(f"{stack.urls['pass']}/v1/responses", content=b"{nope", timeout=20)
    assert resp.status_code == 400
    assert "not valid JSON" in resp.json()["error"]["message"]


def test_client_key(stack: Stack) -> None:
    with pytest.raises(openai.AuthenticationError):
        _client(stack, "keyed", "wrong").responses.create(model=MODEL, input="Hello")
    ok = _client(stack, "keyed", Stack.KEY).responses.create(model=MODEL, input="Hello")
    assert ok.output_text == "Hello! How can I help?"


def test_stream_that_breaks_ends_with_response_failed() -> None:
    script = Script(
        'Partial answer that goes on and on and on <tool_call>{"name"', fault="die", die_after=5
    )
    upstream = ServerThread(scripted_upstream({"dying": script})).start()
    proxy = ServerThread(
        create_app(ServerConfig(upstream=f"{upstream.url}/v1", timeout=20.0))
    ).start()
    try:
        client = OpenAI(base_url=f"{proxy.url}/v1", api_key="x", max_retries=0, timeout=20)
        with client.responses.stream(model="dying", input="Hello") as stream:
            events = list(stream)
            with pytest.raises(RuntimeError, match=r"response\.completed"):
                stream.get_final_response()
        last = events[-1]
        assert last.type == "response.failed"
        assert last.response.status == "failed"
        assert last.response.error is not None
        assert "ended abnormally" in last.response.error.message
        text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
        assert text and "Partial answer".startswith(text[:14])
        assert [e.sequence_number for e in events] == list(range(len(events)))
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
        raw = httpx.post(
            f"{proxy.url}/v1/responses",
            json={"model": "bad-chunk", "input": "Hello", "stream": True},
            timeout=20,
        ).text
        assert ": streamcall: rejected upstream chunk" in raw
        client = OpenAI(base_url=f"{proxy.url}/v1", api_key="x", max_retries=0, timeout=20)
        final = _streamed(client, model="bad-chunk", input="Hello")[0]
        assert final.output_text == script.text
        assert final.model_extra is not None
        assert final.model_extra["streamcall"] == {"rejected_chunks": 1}
    finally:
        proxy.stop()
        upstream.stop()


def test_upstream_that_ignores_stream_still_streams() -> None:
    script = Script("One whole answer.", fault="json")
    upstream = ServerThread(scripted_upstream({"whole": script})).start()
    proxy = ServerThread(
        create_app(ServerConfig(upstream=f"{upstream.url}/v1", timeout=20.0))
    ).start()
    try:
        client = OpenAI(base_url=f"{proxy.url}/v1", api_key="x", max_retries=0, timeout=20)
        final, events = _streamed(client, model="whole", input="Hello")
        assert final.output_text == "One whole answer."
        assert final.usage is not None and final.usage.total_tokens == 12
        assert events[-1].type == "response.completed"
    finally:
        proxy.stop()
        upstream.stop()
