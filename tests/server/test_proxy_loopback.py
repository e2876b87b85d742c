"""The proxy end to end on loopback: a scripted raw-text upstream, the real proxy under
uvicorn, and the official openai SDK as the client. Faults included."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest
from loopback_harness import GATE, Script, ServerThread, scripted_upstream
from openai import OpenAI

from streamcall import parse_tool_calls
from streamcall.server import ServerConfig, create_app

HERMES = "NousResearch/Hermes-3-Llama-3.1-8B"  # routes to the hermes format
GRANITE = "ibm-granite/granite-4.0-h-small"  # routes to granite4

CALL_A = '{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}'
CALL_B = '{"name": "search", "arguments": {"query": "eiffel tower height", "top_k": 3}}'
HERMES_TEXT = (
    f"Checking both.\n<tool_call>\n{CALL_A}\n</tool_call>\n<tool_call>\n{CALL_B}\n</tool_call>"
)
THINK_TEXT = "<think>\nThey want Paris weather.\n</think>\n\nOne moment.\n" + (
    f"<tool_call>\n{CALL_A}\n</tool_call>"
)
GRANITE_TEXT = (
    'Sure.<tool_call>{"name": "get_weather", "arguments": "{\\"city\\": \\"Oslo\\"}"}</tool_call>'
)
GATED_TEXT = f"Let me check.\n<tool_call>\n{CALL_A}{GATE}\n</tool_call> Done."
PLAIN_TEXT = "Just words, " * 20 + "no calls at all."

SCRIPTS = {
    HERMES: Script(HERMES_TEXT),
    GRANITE: Script(GRANITE_TEXT),
    "test/think": Script(THINK_TEXT),
    "test/structured-reasoning": Script(HERMES_TEXT, reasoning="First, think it over. "),
    "test/gated": Script(GATED_TEXT),
    "test/500": Script("never sent", fault="500"),
    "test/die": Script(HERMES_TEXT, fault="die", die_after=30),
    "test/malformed": Script(PLAIN_TEXT, fault="malformed"),
    "test/json": Script(HERMES_TEXT, fault="json"),
    "test/json-bad": Script("never sent", fault="json-bad"),
}
MODELS = {
    "test/think": ("hermes", "qwen3"),
    "test/structured-reasoning": ("hermes", None),
    "test/gated": ("hermes", None),
    "test/die": ("hermes", None),
    "test/malformed": ("hermes", None),
    "test/json": ("hermes", None),
}


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[ServerThread, ServerThread]]:
    upstream = ServerThread(scripted_upstream(SCRIPTS)).start()
    config = ServerConfig(upstream=f"{upstream.url}/v1", timeout=20.0, models=MODELS)
    proxy = ServerThread(create_app(config)).start()
    try:
        yield upstream, proxy
    finally:
        proxy.stop()
        upstream.stop()


@pytest.fixture(scope="module")
def client(servers: tuple[ServerThread, ServerThread]) -> OpenAI:
    return OpenAI(base_url=f"{servers[1].url}/v1", api_key="x", max_retries=0, timeout=20.0)


def _messages() -> list[Any]:
    return [{"role": "user", "content": "weather in Paris?"}]


def _load(arguments: str) -> Any:
    """A call's arguments loaded; a cut call's, which do not load (the proxy sends what the
    model wrote, server/unfinished.py), as the text that came."""
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments


def _collect(chunks: list[Any]) -> dict[str, Any]:
    """Merge SDK chunks the way an application does."""
    content: list[str] = []
    reasoning: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    finish = None
    usage = None
    for chunk in chunks:
        if chunk.usage is not None:
            usage = chunk.usage
        for choice in chunk.choices:
            delta = choice.delta
            if delta.content:
                content.append(delta.content)
            extra = delta.model_extra or {}
            if extra.get("reasoning_content"):
                reasoning.append(extra["reasoning_content"])
            for tc in delta.tool_calls or []:
                call = calls.setdefault(tc.index, {"id": None, "name": None, "args": []})
                if tc.id:
                    assert call["id"] is None, "id sent twice"
                    call["id"] = tc.id
                if tc.function and tc.function.name:
                    assert call["name"] is None, "name sent twice"
                    call["name"] = tc.function.name
                if tc.function and tc.function.arguments:
                    call["args"].append(tc.function.arguments)
            if choice.finish_reason:
                finish = choice.finish_reason
    return {
        "content": "".join(content),
        "reasoning": "".join(reasoning),
        "calls": [
            (c["id"], c["name"], _load("".join(c["args"]))) for _, c in sorted(calls.items())
        ],
        "fragments": {i: c["args"] for i, c in calls.items()},
        "finish": finish,
        "usage": usage,
    }


def test_streamed_tool_calls(client: OpenAI) -> None:
    stream = client.chat.completions.create(
        model=HERMES,
        messages=_messages(),
        stream=True,
        stream_options={"include_usage": True},
    )
    got = _collect(list(stream))
    assert got["content"] == "Checking both.\n"
    assert [(name, args) for _, name, args in got["calls"]] == [
        ("get_weather", {"city": "Paris", "unit": "celsius"}),
        ("search", {"query": "eiffel tower height", "top_k": 3}),
    ]
    ids = [ident for ident, _, _ in got["calls"]]
    assert len(set(ids)) == 2 and all(ident.startswith("call_") for ident in ids)
    # the arguments came in pieces, as the upstream wrote them
    assert all(len(fragments) > 1 for fragments in got["fragments"].values())
    assert got["finish"] == "tool_calls"
    assert got["usage"] is not None and got["usage"].prompt_tokens == 5


def test_arguments_arrive_before_the_call_ends(client: OpenAI) -> None:
    """The upstream holds back ``</tool_call>`` until the client has the whole arguments."""
    script = SCRIPTS["test/gated"]
    script.gate.clear()
    stream = client.chat.completions.create(model="test/gated", messages=_messages(), stream=True)
    chunks: list[Any] = []
    args: list[str] = []
    released_at = None
    for chunk in stream:
        chunks.append(chunk)
        for choice in chunk.choices:
            for tc in choice.delta.tool_calls or []:
                if tc.function and tc.function.arguments:
                    args.append(tc.function.arguments)
        if released_at is None and args:
            text = "".join(args)
            try:
                complete = json.loads(text) == {"city": "Paris", "unit": "celsius"}
            except ValueError:
                complete = False
            if complete:
                assert not script.gate.is_set(), "the call had already ended upstream"
                released_at = len(chunks)
                script.gate.set()
    assert released_at is not None, "arguments never arrived before the end marker"
    assert len(args) > 1  # streamed, not sent whole
    got = _collect(chunks)
    assert got["content"] == "Let me check.\n Done."
    assert got["finish"] == "tool_calls"


def test_reasoning_from_think_markup(client: OpenAI) -> None:
    stream = client.chat.completions.create(model="test/think", messages=_messages(), stream=True)
    got = _collect(list(stream))
    assert got["reasoning"] == "\nThey want Paris weather.\n"
    assert got["content"].strip() == "One moment."
    assert [name for _, name, _ in got["calls"]] == ["get_weather"]


def test_structured_reasoning_passes_through(client: OpenAI) -> None:
    stream = client.chat.completions.create(
        model="test/structured-reasoning", messages=_messages(), stream=True
    )
    got = _collect(list(stream))
    assert got["reasoning"] == "First, think it over. "
    assert len(got["calls"]) == 2


def test_non_streaming(client: OpenAI) -> None:
    answer = client.chat.completions.create(model=HERMES, messages=_messages())
    choice = answer.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == "Checking both.\n"
    calls = choice.message.tool_calls or []
    assert [(c.function.name, json.loads(c.function.arguments)) for c in calls] == [
        ("get_weather", {"city": "Paris", "unit": "celsius"}),
        ("search", {"query": "eiffel tower height", "top_k": 3}),
    ]
    assert answer.usage is not None and answer.usage.total_tokens == 12
    expected = parse_tool_calls(HERMES_TEXT, "hermes")
    assert [c.function.arguments for c in calls] == [c.arguments for c in expected.tool_calls]


def test_non_streaming_reasoning_and_granite_string_arguments(client: OpenAI) -> None:
    answer = client.chat.completions.create(model="test/think", messages=_messages())
    message = answer.choices[0].message
    assert (message.model_extra or {}).get("reasoning_content") == "\nThey want Paris weather.\n"
    granite = client.chat.completions.create(model=GRANITE, messages=_messages())
    calls = granite.choices[0].message.tool_calls or []
    assert [json.loads(c.function.arguments) for c in calls] == [{"city": "Oslo"}]


def test_call_ids_are_unique_per_request(client: OpenAI) -> None:
    first = client.chat.completions.create(model=HERMES, messages=_messages())
    second = client.chat.completions.create(model=HERMES, messages=_messages())
    ids = [c.id for a in (first, second) for c in a.choices[0].message.tool_calls or []]
    assert len(ids) == 4 and len(set(ids)) == 4


def test_upstream_500(client: OpenAI) -> None:
    with pytest.raises(openai.InternalServerError) as info:
        client.chat.completions.create(model="test/500", messages=_messages(), stream=True)
    assert info.value.status_code == 500
    assert "upstream exploded" in str(info.value)
    with pytest.raises(openai.InternalServerError):
        client.chat.completions.create(model="test/500", messages=_messages())


def test_upstream_killed_mid_stream(client: OpenAI) -> None:
    stream = client.chat.completions.create(model="test/die", messages=_messages(), stream=True)
    chunks: list[Any] = []
    with pytest.raises(openai.APIError) as info:
        for chunk in stream:
            chunks.append(chunk)
    assert "upstream" in str(info.value.message)
    got = _collect(chunks)
    # 30 pieces of 3 characters reached the proxy: nothing of them is lost
    sent = HERMES_TEXT[:90]
    assert got["content"] == "Checking both.\n"
    assert sent.startswith("Checking both.\n<tool_call>\n" + CALL_A[:20])
    # the open call ends as the model wrote it: arguments that do not load, not to be run
    assert len(got["calls"]) == 1 and got["calls"][0][1] == "get_weather"
    assert isinstance(got["calls"][0][2], str) and got["calls"][0][2] in sent
    assert got["finish"] is None


def test_malformed_upstream_chunk_is_reported_and_the_stream_goes_on(
    client: OpenAI, servers: tuple[ServerThread, ServerThread]
) -> None:
    stream = client.chat.completions.create(
        model="test/malformed", messages=_messages(), stream=True
    )
    chunks = list(stream)
    got = _collect(chunks)
    assert got["content"] == PLAIN_TEXT
    assert got["finish"] == "stop"
    finals = [c for c in chunks if c.choices and c.choices[0].finish_reason]
    assert (finals[-1].model_extra or {}).get("streamcall") == {"rejected_chunks": 1}
    # on the wire: an SSE comment that clients skip, then the rest of the stream
    body = {"model": "test/malformed", "messages": _messages(), "stream": True}
    with httpx.stream("POST", f"{servers[1].url}/v1/chat/completions", json=body, timeout=20) as r:
        raw = b"".join(r.iter_bytes()).decode()
    assert ": streamcall: rejected upstream chunk (event " in raw
    assert raw.endswith("data: [DONE]\n\n")
    health = httpx.get(f"{servers[1].url}/health", timeout=5).json()
    assert health["counters"]["rejected_chunks"] >= 2


def test_bad_requests(client: OpenAI, servers: tuple[ServerThread, ServerThread]) -> None:
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(model=HERMES, messages=[])
    assert info.value.status_code == 400
    url = f"{servers[1].url}/v1/chat/completions"
    for raw in (b"{not json", b"[1, 2]", b'{"model": "m"}', b'{"messages": "hi"}'):
        r = httpx.post(url, content=raw, headers={"content-type": "application/json"}, timeout=5)
        assert r.status_code == 400, raw
        error = r.json()["error"]
        assert error["type"] == "invalid_request_error" and error["message"]
    r = httpx.post(url, json={"messages": _messages(), "stream": "yes"}, timeout=5)
    assert r.status_code == 400 and r.json()["error"]["param"] == "stream"


def test_models_health_and_unknown_route(servers: tuple[ServerThread, ServerThread]) -> None:
    base = servers[1].url
    models = httpx.get(f"{base}/v1/models", timeout=5).json()
    assert {m["id"] for m in models["data"]} == set(SCRIPTS)
    health = httpx.get(f"{base}/health", timeout=5).json()
    assert health["status"] == "ok"
    missing = httpx.get(f"{base}/v1/nothing", timeout=5)
    assert missing.status_code == 404 and "error" in missing.json()


def test_upstream_unreachable() -> None:
    with ServerThreadClosedPort() as port:
        config = ServerConfig(upstream=f"http://127.0.0.1:{port}/v1", timeout=5.0)
        proxy = ServerThread(create_app(config)).start()
        try:
            c = OpenAI(base_url=f"{proxy.url}/v1", api_key="x", max_retries=0, timeout=10)
            with pytest.raises(openai.APIStatusError) as info:
                c.chat.completions.create(model=HERMES, messages=_messages(), stream=True)
            assert info.value.status_code == 502
        finally:
            proxy.stop()


class ServerThreadClosedPort:
    """A loopback port with nothing listening on it."""

    def __enter__(self) -> int:
        import socket

        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.port: int = sock.getsockname()[1]
        sock.close()
        return self.port

    def __exit__(self, *exc: object) -> None:
        pass


def test_upstream_that_answers_a_stream_request_with_json(client: OpenAI) -> None:
    """An upstream that ignores ``"stream": true``: the client still gets a stream."""
    stream = client.chat.completions.create(
        model="test/json",
        messages=_messages(),
        stream=True,
        stream_options={"include_usage": True},
    )
    got = _collect(list(stream))
    assert got["content"] == "Checking both.\n"
    assert [(name, args) for _, name, args in got["calls"]] == [
        ("get_weather", {"city": "Paris", "unit": "celsius"}),
        ("search", {"query": "eiffel tower height", "top_k": 3}),
    ]
    assert got["finish"] == "tool_calls"
    assert got["usage"] is not None and got["usage"].total_tokens == 12


def test_upstream_that_answers_a_stream_request_with_other_json(client: OpenAI) -> None:
    with pytest.raises(openai.APIStatusError) as info:
        client.chat.completions.create(model="test/json-bad", messages=_messages(), stream=True)
    assert info.value.status_code == 502
    assert "not a chat completion" in str(info.value)
