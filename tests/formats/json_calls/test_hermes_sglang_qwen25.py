"""hermes and qwen3_json against SGLang's ``Qwen25Detector`` unit suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_qwen25_detector.py``
(Apache-2.0, copyright the SGLang project): the model outputs, the tool schemas, the
chunkings it feeds and the expected calls and content; the code is ours. Every text goes
through ``check_format`` (whole, 1-char, 7-char and random chunkings) for both names
(vLLM calls the Qwen2.5 JSON form ``hermes``, and ``qwen3_json`` is its alias), and
SGLang's chunking is replayed as given and compared with the one-shot result.

Where SGLang's expectation differs on purpose: a block whose body is not JSON
(``{invalid json}``) and an opener with no call after it are text, whole (SGLang skips
the block): nothing the model wrote is lost. ``has_tool_call`` (SGLang's API) is not
ported.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sglang_fixtures import WEATHER_AND_SEARCH
from streamcall import testing
from streamcall.events import Text
from streamcall.formats.registry import tool_parser
from support import check_format, summary

TOOLS = WEATHER_AND_SEARCH
FORMATS = ["hermes", "qwen3_json"]


def block(body: str) -> str:
    return f"<tool_call>\n{body}\n</tool_call>"


CASES: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]] = [
    (
        block('{"name": "get_weather", "arguments": {"city": "Beijing"}}'),
        "",
        [("get_weather", {"city": "Beijing"})],
    ),
    (
        block('{"name": "get_weather", "arguments": {"city": "Beijing"}}')
        + "\n"
        + block('{"name": "search", "arguments": {"query": "restaurants"}}'),
        "",
        [("get_weather", {"city": "Beijing"}), ("search", {"query": "restaurants"})],
    ),
    (
        "Let me check the weather.\n"
        + block('{"name": "get_weather", "arguments": {"city": "Shanghai"}}'),
        "Let me check the weather.\n",
        [("get_weather", {"city": "Shanghai"})],
    ),
    ("Hello, how can I help you today?", "Hello, how can I help you today?", []),
    ("The weather in Beijing is sunny today.", "The weather in Beijing is sunny today.", []),
    # SGLang skips the block; text here, whole
    (block("{invalid json}"), block("{invalid json}"), []),
    (
        block('  {"name": "get_weather", "arguments": {"city": "Tokyo"}}  '),
        "",
        [("get_weather", {"city": "Tokyo"})],
    ),
    (
        "<tool_call>no newline so not matching bot_token",
        "<tool_call>no newline so not matching bot_token",
        [],
    ),
]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(("text", "content", "calls"), CASES)
@given(data=st.data())
def test_sglang_qwen25_cases(
    fmt: str, text: str, content: str, calls: Any, data: st.DataObject
) -> None:
    assert summary(check_format(fmt, text, data, TOOLS)) == (content, calls)


@pytest.mark.parametrize("fmt", FORMATS)
def test_sglang_streaming_single_call(fmt: str) -> None:
    pieces = [
        "<tool_call>\n",
        '{"name": "get_weather",',
        ' "arguments": {"city": "Beijing"}}',
        "\n</tool_call>",
    ]
    one_shot = check_format(fmt, "".join(pieces), None, TOOLS)
    assert testing.coalesce(testing.run(tool_parser(fmt, tools=TOOLS), pieces)) == one_shot
    assert summary(one_shot) == ("", [("get_weather", {"city": "Beijing"})])


@pytest.mark.parametrize("fmt", FORMATS)
def test_sglang_streaming_normal_text_before_call(fmt: str) -> None:
    out = tool_parser(fmt, tools=TOOLS).feed("Hello there! ")
    assert "Hello" in "".join(e.text for e in out if isinstance(e, Text))
