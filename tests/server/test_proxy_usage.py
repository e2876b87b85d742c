"""Usage details through the proxy, end to end on loopback: a scripted upstream that sends
a full usage object (details, a provider's own members), the real proxy under uvicorn, and
the official openai SDK as the client. Streamed, non-streamed, and streamed from a JSON
answer; null details; a malformed usage chunk."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from loopback_harness import Script, ServerThread, scripted_upstream
from openai import OpenAI

from streamcall import StreamParser
from streamcall.server import ServerConfig, create_app
from usage_fixtures import PROVIDER_USAGE

CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
TEXT = f"Checking.\n<tool_call>\n{CALL}\n</tool_call>"

# What OpenAI sends (details), what DeepSeek adds (cache hit/miss) and what OpenRouter adds
# (cost, a details object of its own with a null in it).
USAGE = PROVIDER_USAGE
NULL_DETAILS: dict[str, Any] = {
    "prompt_tokens": 5,
    "completion_tokens": 7,
    "total_tokens": 12,
    "prompt_tokens_details": None,
    "completion_tokens_details": {"reasoning_tokens": 3, "note": "estimated"},
}
MALFORMED: dict[str, Any] = {
    "prompt_tokens": 5,
    "completion_tokens": 7,
    "total_tokens": 12,
    "prompt_tokens_details": {"cached_tokens": "1920"},
}

SCRIPTS = {
    "test/usage": Script(TEXT, usage=USAGE),
    "test/usage-json": Script(TEXT, fault="json", usage=USAGE),
    "test/usage-null-details": Script(TEXT, usage=NULL_DETAILS),
    "test/usage-malformed": Script(TEXT, usage=MALFORMED),
}
MODELS = {name: ("hermes", None) for name in SCRIPTS}


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


def _stream_raw(url: str, model: str) -> bytes:
    body = {
        "model": model,
        "messages": _messages(),
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    with httpx.stream("POST", url + "/v1/chat/completions", json=body, timeout=20) as r:
        assert r.status_code == 200
        return b"".join(r.iter_bytes())


def _usage_chunks(raw: bytes) -> list[dict[str, Any]]:
    chunks = [
        json.loads(line[len("data: ") :])
        for line in raw.decode().split("\n")
        if line.startswith("data: {")
    ]
    return [c for c in chunks if "usage" in c]


def test_streamed_usage_details_reach_the_openai_client(client: OpenAI) -> None:
    stream = client.chat.completions.create(
        model="test/usage",
        messages=_messages(),
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    # the tool call was still parsed out of the text
    calls = [tc for c in chunks for ch in c.choices for tc in ch.delta.tool_calls or []]
    assert calls and calls[0].function is not None and calls[0].function.name == "get_weather"
    with_usage = [c for c in chunks if c.usage is not None]
    assert len(with_usage) == 1 and with_usage[0] is chunks[-1] and chunks[-1].choices == []
    usage = with_usage[0].usage
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (2006, 640, 2646)
    assert usage.prompt_tokens_details is not None
    assert usage.prompt_tokens_details.cached_tokens == 1920
    assert usage.prompt_tokens_details.audio_tokens == 0
    assert usage.completion_tokens_details is not None
    assert usage.completion_tokens_details.reasoning_tokens == 512
    assert usage.completion_tokens_details.accepted_prediction_tokens == 0
    extra = usage.model_extra or {}
    assert extra["prompt_cache_hit_tokens"] == 1920
    assert extra["prompt_cache_miss_tokens"] == 86
    assert extra["cost"] == 0.00042 and extra["is_byok"] is False
    assert extra["cost_details"] == {"upstream_inference_cost": None}
    # nothing more, nothing less than the upstream sent
    assert usage.to_dict() == USAGE


def test_the_usage_object_on_the_wire_is_the_upstreams(
    servers: tuple[ServerThread, ServerThread],
) -> None:
    upstream, proxy = servers
    raw = _stream_raw(proxy.url, "test/usage")
    assert [c["usage"] for c in _usage_chunks(raw)] == [USAGE]
    # StreamParser fed the raw SSE bytes, of the upstream and of the proxy, in any chunking
    upstream_raw = _stream_raw(upstream.url, "test/usage")
    for data in (upstream_raw, raw):
        for step in (len(data), 64, 7, 1):
            parser = StreamParser("hermes")
            for i in range(0, len(data), step):
                parser.feed(data[i : i + step])
            parser.finish()
            usage = parser.message.usage
            assert usage is not None
            assert (usage.cached_tokens, usage.reasoning_tokens) == (1920, 512)
            assert usage.prompt_tokens_details == USAGE["prompt_tokens_details"]
            assert usage.completion_tokens_details == USAGE["completion_tokens_details"]
            assert usage.extra == {
                "prompt_cache_hit_tokens": 1920,
                "prompt_cache_miss_tokens": 86,
                "cost": 0.00042,
                "is_byok": False,
                "cost_details": {"upstream_inference_cost": None},
            }
            assert usage.to_dict() == USAGE
            assert parser.rejected == 0


def test_non_streaming_usage_details(client: OpenAI) -> None:
    answer = client.chat.completions.create(model="test/usage", messages=_messages())
    usage = answer.usage
    assert usage is not None
    assert usage.prompt_tokens_details is not None
    assert usage.prompt_tokens_details.cached_tokens == 1920
    assert usage.completion_tokens_details is not None
    assert usage.completion_tokens_details.reasoning_tokens == 512
    assert usage.to_dict() == USAGE
    assert answer.choices[0].finish_reason == "tool_calls"


def test_stream_request_answered_with_json_keeps_usage_details(client: OpenAI) -> None:
    """An upstream that ignores ``"stream": true``: its completion's usage is streamed whole."""
    stream = client.chat.completions.create(
        model="test/usage-json",
        messages=_messages(),
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    usages = [c.usage for c in chunks if c.usage is not None]
    assert len(usages) == 1
    assert usages[0].prompt_tokens_details is not None
    assert usages[0].prompt_tokens_details.cached_tokens == 1920
    assert usages[0].completion_tokens_details is not None
    assert usages[0].completion_tokens_details.reasoning_tokens == 512
    assert usages[0].to_dict() == USAGE
    finals = [c for c in chunks if c.choices and c.choices[0].finish_reason]
    assert finals[-1].choices[0].finish_reason == "tool_calls"


def test_stream_request_answered_with_json_sends_usage_only_when_asked(client: OpenAI) -> None:
    """Without ``stream_options.include_usage`` a streaming server sends no usage chunk (a
    chunk with no choices breaks clients that read ``choices[0]``); nor does the proxy when
    it streams an upstream's JSON answer."""
    stream = client.chat.completions.create(
        model="test/usage-json", messages=_messages(), stream=True
    )
    chunks = list(stream)
    assert chunks and all(c.usage is None and c.choices for c in chunks)
    assert chunks[-1].choices[0].finish_reason == "tool_calls"


def test_null_details_and_members_the_sdk_does_not_know(
    client: OpenAI, servers: tuple[ServerThread, ServerThread]
) -> None:
    stream = client.chat.completions.create(
        model="test/usage-null-details",
        messages=_messages(),
        stream=True,
        stream_options={"include_usage": True},
    )
    usage = [c.usage for c in stream if c.usage is not None][-1]
    assert usage.prompt_tokens_details is None  # null: sent as no details at all
    assert usage.completion_tokens_details is not None
    assert usage.completion_tokens_details.reasoning_tokens == 3
    assert (usage.completion_tokens_details.model_extra or {}) == {"note": "estimated"}
    raw = _stream_raw(servers[1].url, "test/usage-null-details")
    assert [c["usage"] for c in _usage_chunks(raw)] == [
        {
            "prompt_tokens": 5,
            "completion_tokens": 7,
            "total_tokens": 12,
            "completion_tokens_details": {"reasoning_tokens": 3, "note": "estimated"},
        }
    ]


def test_malformed_usage_is_reported_and_the_stream_goes_on(
    client: OpenAI, servers: tuple[ServerThread, ServerThread]
) -> None:
    """``cached_tokens: "1920"`` rejects the usage chunk (the decoder's Go rule): the client
    gets everything else, the reason as an SSE comment, and no made-up usage."""
    stream = client.chat.completions.create(
        model="test/usage-malformed",
        messages=_messages(),
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    assert [c for c in chunks if c.usage is not None] == []
    finals = [c for c in chunks if c.choices and c.choices[0].finish_reason]
    assert finals[-1].choices[0].finish_reason == "tool_calls"
    raw = _stream_raw(servers[1].url, "test/usage-malformed").decode()
    comments = [line for line in raw.split("\n") if line.startswith(": streamcall:")]
    assert len(comments) == 1
    assert (
        "usage.prompt_tokens_details.cached_tokens: expected an integer, got string"
        in (comments[0])
    )
    assert raw.endswith("data: [DONE]\n\n")
    health = httpx.get(f"{servers[1].url}/health", timeout=5).json()
    assert health["counters"]["rejected_chunks"] >= 2
