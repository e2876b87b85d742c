"""A chunk of the wrong type is a ``TypeError`` that says what ``feed`` takes: ``str`` for
every parser of model text (bytes off a socket are a common first try), ``bytes`` for the
parsers of an SSE stream. Not ``cannot use a string pattern on a bytes-like object``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import streamcall
from streamcall.formats.registry import formats

TEXT_PARSERS: dict[str, Callable[[], Any]] = {
    "tool_parser hermes": lambda: streamcall.tool_parser("hermes"),
    "tool_parser auto": lambda: streamcall.tool_parser("auto"),
    "output_parser": lambda: streamcall.output_parser("Qwen/Qwen3-8B"),
    "reasoning_parser": lambda: streamcall.reasoning_parser("qwen3"),
    "response_parser": lambda: streamcall.response_parser(
        streamcall.response_template_for("hermes")
    ),
}
SSE_PARSERS: dict[str, Callable[[], Any]] = {
    "StreamParser": lambda: streamcall.StreamParser("hermes"),
    "MessagesStreamParser": streamcall.MessagesStreamParser,
    "ResponsesStreamParser": streamcall.ResponsesStreamParser,
}
CALL = '<tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</tool_call>'
OURS = r"feed\(\) takes model text as str, not bytes"
# The compiled build checks the argument's type where a compiled ``feed`` is entered, with
# mypyc's own message (the README's "Compiled build" says so); the pure build says more.
NOT_STR = rf"str object expected; got bytes|{OURS}" if streamcall.compiled() else OURS


@pytest.mark.parametrize("make", TEXT_PARSERS.values(), ids=list(TEXT_PARSERS))
def test_bytes_to_a_text_parser_say_str_is_expected(make: Callable[[], Any]) -> None:
    for before in ("", "Hi <tool"):  # the first chunk, and one after a held tail
        parser = make()
        parser.feed(before)
        with pytest.raises(TypeError, match=NOT_STR):
            parser.feed(CALL.encode())


@pytest.mark.parametrize("name", [f for f in formats() if f != "hf"])
def test_every_format_says_it(name: str) -> None:
    with pytest.raises(TypeError, match=NOT_STR):
        streamcall.tool_parser(name).feed(f"{CALL} [TOOL_CALLS] <|tool_call>".encode())


@pytest.mark.parametrize("make", SSE_PARSERS.values(), ids=list(SSE_PARSERS))
def test_str_to_an_sse_parser_says_bytes_are_expected(make: Callable[[], Any]) -> None:
    with pytest.raises(TypeError, match=r"feed\(\) takes the SSE stream as bytes"):
        make().feed('data: {"choices": []}\n\n')


def test_the_right_types_still_parse() -> None:
    parser = streamcall.tool_parser("hermes")
    events = [*parser.feed(CALL), *parser.finish()]
    assert type(events[0]).__name__ == "ToolCallStart"
