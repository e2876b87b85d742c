"""qwen3_coder against SGLang's ``Qwen3CoderDetector`` unit suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_qwen3_coder_detector.py``
(Apache-2.0, copyright the SGLang project): the model outputs, the tool schema and the
expected arguments; the code is ours. Every text goes through ``check_format`` (whole,
1-char, 7-char and random chunkings), and SGLang's 3-character chunking is replayed.

Not ported: SGLang strips a drifted close marker (``</parameter1>``,
``</parameter_function>``, a bare ``</parameter``) that ends an unclosed value before the
next ``<parameter=``; here it stays in the (string) value, which is streamed before the
next tag shows that the marker was meant as a closer.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.formats.registry import tool_parser
from support import check_format, summary

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city"],
            },
        },
    }
]


def _call(city_block: str) -> str:
    return (
        "<tool_call>\n<function=get_weather>\n"
        f"<parameter=city>\n{city_block}\n"
        "<parameter=days>\n3\n</parameter>\n"
        "</function>\n</tool_call>"
    )


@pytest.mark.parametrize(
    ("block", "city"),
    [
        ("Shanghai\n</parameter>", "Shanghai"),
        ("a <b>tag</b> city\n</parameter>", "a <b>tag</b> city"),
        # a value closed by a real </parameter> may itself end like a marker
        (
            "<config>\n  <p>1</p>\n</parameters>\n</parameter>",
            "<config>\n  <p>1</p>\n</parameters>",
        ),
        ("x </parameterList>\n</parameter>", "x </parameterList>"),
    ],
)
@given(data=st.data())
def test_sglang_values(block: str, city: str, data: st.DataObject) -> None:
    text = _call(block)
    items = check_format("qwen3_coder", text, data, TOOLS)
    assert summary(items) == ("", [("get_weather", {"city": city, "days": 3})])
    pieces = testing.chunk_every(text, 3)  # SGLang's _stream chunking
    assert testing.coalesce(testing.run(tool_parser("qwen3_coder", tools=TOOLS), pieces)) == items


def test_sglang_long_blank_run_in_unclosed_value_is_linear() -> None:
    """SGLang's case of a long blank run in a value whose closer is missing: the value is
    read right, and while it streams the parser holds no growing buffer (what made the
    upstream parser quadratic: it re-scanned the run on every chunk). The growth itself is
    measured by ``python -m benchmarks oneshot``, not timed here."""
    value = "a" + " " * 100_000 + "b"
    text = (
        "<tool_call>\n<function=get_weather>\n"
        f"<parameter=city>\n{value}\n"
        "<parameter=days>\n3\n</parameter>\n"
        "</function>\n</tool_call>"
    )
    for size in (7, len(text)):
        items = testing.coalesce(
            testing.run(tool_parser("qwen3_coder", tools=TOOLS), testing.chunk_every(text, size))
        )
        assert summary(items) == ("", [("get_weather", {"city": value, "days": 3})])
    parser = tool_parser("qwen3_coder", tools=TOOLS)
    held = 0
    for piece in testing.chunk_every(text, 7):
        parser.feed(piece)
        held = max(held, len(parser._tail))  # type: ignore[attr-defined]
    assert held <= 32
