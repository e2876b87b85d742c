"""spark3 (and its alias spark) against the contract.

The fixtures (tests/fixtures/upstream/spark3.json) are the Spark3 plugin's parser test
(XHToken/Spark-plugin ``tests/test_smoke.py``, Apache-2.0, a vendored copy of vLLM's
``vllm/tool_parsers/spark3_tool_parser.py``) and cases built from that parser.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall.formats.spark3 import Spark3Parser
from support import (
    calls,
    check_outcome,
    check_rendered,
    check_upstream_case,
    schema_for,
    upstream_cases,
)

FMT = "spark3"


@pytest.mark.parametrize("case", upstream_cases(FMT))
def test_upstream_fixtures(case: dict[str, Any]) -> None:
    check_upstream_case(case, FMT, "none")


@pytest.mark.parametrize("fmt", ["spark3", "spark"])
@given(data=st.data(), call_list=calls, before=st.sampled_from(["", "Sure. ", "a < b\n"]))
def test_rendered_calls_in_any_chunking(
    fmt: str, data: st.DataObject, call_list: list[tuple[str, dict[str, Any]]], before: str
) -> None:
    text = before + Spark3Parser.render(call_list)
    check_rendered(fmt, text, data, call_list, before, schema_for(call_list))


@pytest.mark.parametrize(
    ("text", "expected", "content"),
    [
        # values are kept as written: no framing newline is stripped
        (
            "<tool_call>f\n<arg_key>a</arg_key><arg_value>\nx\n</arg_value></tool_call>",
            [("f", {"a": "\nx\n"}, False)],
            "",
        ),
        # a value without its closer ends at the call's closer
        (
            "<tool_call>f<arg_key>a</arg_key><arg_value>x</tool_call>",
            [("f", {"a": "x"}, False)],
            "",
        ),
        # cut by the end of the stream
        ("<tool_call>f<arg_key>a</arg_key><arg_value>x", [("f", {"a": "x"}, True)], ""),
        ("<tool_call>", [], "<tool_call>"),
    ],
)
@given(data=st.data())
def test_malformed(
    data: st.DataObject, text: str, expected: list[tuple[str, Any, bool]], content: str
) -> None:
    check_outcome(FMT, text, expected, content, data)
