"""The built-in replay upstream behind the proxy: every bundled example, streamed and
not, gives the calls the library parses from the same recording; plus the chunk emitter."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from loopback_harness import ServerThread
from openai import OpenAI

from streamcall import Finish, Reasoning, StreamParser, Text, ToolCallArgs, ToolCallStart
from streamcall.bundled import Example, examples
from streamcall.output import output_parser
from streamcall.server import ChunkEmitter, ServerConfig, create_app, replay_app
from streamcall.server.app import config_for_examples


@pytest.fixture(scope="module")
def client() -> Iterator[OpenAI]:
    upstream = ServerThread(replay_app(delay=0)).start()
    config = config_for_examples(ServerConfig(upstream=f"{upstream.url}/v1", timeout=20))
    proxy = ServerThread(create_app(config)).start()
    try:
        yield OpenAI(base_url=f"{proxy.url}/v1", api_key="x", max_retries=0, timeout=20)
    finally:
        proxy.stop()
        upstream.stop()


def _expected(ex: Example) -> list[tuple[str, Any]]:
    if ex.is_sse:
        parser = StreamParser(ex.format, model=ex.model, reasoning=ex.reasoning)
        parser.feed(ex.read_bytes())
        parser.finish()
        return [(c.name, json.loads(c.arguments)) for c in parser.message.tool_calls]
    text_parser = output_parser(ex.model, tool_format=ex.format, reasoning_format=ex.reasoning)
    events = text_parser.feed(ex.read_bytes().decode()) + text_parser.finish()
    names = {e.index: e.name for e in events if isinstance(e, ToolCallStart)}
    args: dict[int, list[str]] = {}
    for e in events:
        if isinstance(e, ToolCallArgs):
            args.setdefault(e.index, []).append(e.delta)
    return [(names[i], json.loads("".join(a))) for i, a in sorted(args.items())]


@pytest.mark.parametrize("example", examples(), ids=lambda ex: ex.file)
def test_every_bundled_example_through_the_proxy(client: OpenAI, example: Example) -> None:
    expected = _expected(example)
    assert expected, "every bundled example makes tool calls"
    stream = client.chat.completions.create(
        model=example.model, messages=[{"role": "user", "content": "go"}], stream=True
    )
    args: dict[int, list[str]] = {}
    names: dict[int, str] = {}
    finish = None
    for chunk in stream:
        for choice in chunk.choices:
            for tc in choice.delta.tool_calls or []:
                if tc.function and tc.function.name:
                    names[tc.index] = tc.function.name
                if tc.function and tc.function.arguments:
                    args.setdefault(tc.index, []).append(tc.function.arguments)
            finish = choice.finish_reason or finish
    got = [(names[i], json.loads("".join(a))) for i, a in sorted(args.items())]
    assert got == expected
    assert finish == "tool_calls"
    answer = client.chat.completions.create(
        model=example.model, messages=[{"role": "user", "content": "go"}]
    )
    calls = answer.choices[0].message.tool_calls or []
    assert [(c.function.name, json.loads(c.function.arguments)) for c in calls] == expected


def test_emitter_coalesces_and_marks_the_first_fragment() -> None:
    emitter = ChunkEmitter("chatcmpl-1", "m", created=7)
    chunks = emitter.chunks(
        [
            Reasoning("a"),
            Reasoning("b"),
            Text("x"),
            ToolCallStart(0, "call_0", "f"),
            ToolCallArgs(0, '{"k"'),
            ToolCallArgs(0, ": 1}"),
            Finish("stop"),
        ]
    )
    deltas = [c["choices"][0]["delta"] for c in chunks]
    assert deltas[0] == {"reasoning_content": "ab"}
    assert deltas[1] == {"content": "x"}
    assert deltas[2] == {
        "tool_calls": [
            {
                "index": 0,
                "id": "call_0",
                "type": "function",
                "function": {"name": "f", "arguments": '{"k": 1}'},
            }
        ]
    }
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"
    more = emitter.chunks([ToolCallArgs(0, " ")])
    assert more[0]["choices"][0]["delta"] == {
        "tool_calls": [{"index": 0, "function": {"arguments": " "}}]
    }
