"""ling3: inclusionAI Ling 3 writes GLM-4.7's calls (vLLM's ``ling3`` is its GLM-4.7
parser with reasoning on by default).

The upstream tool cases (``tests/fixtures/upstream/ling3.json``, from vLLM's
``tests/tool_parsers/test_ling3_tool_parser.py``, Apache-2.0, Copyright contributors to
the vLLM project) run through ``output_parser`` in every chunking; the reasoning ones are
in ``tests/reasoning/test_ling3_reasoning.py``.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.formats.registry import parser_class, tool_parser
from support import (
    calls,
    check_contract,
    check_format,
    check_upstream_case,
    schema_for,
    summary,
    typed_tool,
    upstream_cases,
)

CASES = [c for c in upstream_cases("ling3") if c.values[0]["parser"] == "tool"]


@pytest.mark.parametrize("case", CASES)
def test_upstream(case: dict[str, Any]) -> None:
    check_upstream_case(case, tool_format="ling3")


@given(data=st.data(), call_list=calls)
def test_reads_what_glm47_reads(data: st.DataObject, call_list: Any) -> None:
    """The GLM-4.7 wire, either newline convention, to the same result as glm47."""
    for render in (parser_class("glm47").render, parser_class("glm45").render):
        text = "Sure. " + render(call_list) + "\nok"
        tools = schema_for(call_list)
        items = check_contract("ling3", text, data, tools)
        glm = testing.coalesce(testing.run(tool_parser("glm47", tools=tools), [text]))
        assert items == glm


TOOLS = [typed_tool("get_weather", city="string", days="integer"), typed_tool("ping")]
WEATHER = "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Oslo</arg_value>"
FIXED: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]] = [
    ("No call here.", "No call here.", []),
    (WEATHER + "</tool_call>", "", [("get_weather", {"city": "Oslo"})]),
    (
        "Checking.\n" + WEATHER + "<arg_key>days</arg_key><arg_value>3</arg_value></tool_call>",
        "Checking.\n",
        [("get_weather", {"city": "Oslo", "days": 3})],
    ),
    (
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n"
        "</tool_call>\n<tool_call>ping</tool_call>",
        "",
        [("get_weather", {"city": "Oslo"}), ("ping", {})],
    ),
    (WEATHER + "</tool_call>\nDone.", "\nDone.", [("get_weather", {"city": "Oslo"})]),
    ("<tool_call>ping</tool_call>", "", [("ping", {})]),
    (
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>\nNew York\n</arg_value>"
        "</tool_call>",
        "",
        [("get_weather", {"city": "New York"})],
    ),
    ("a <b> c <tool_call", "a <b> c <tool_call", []),
]


@pytest.mark.parametrize(("text", "content", "want"), FIXED)
def test_fixed_texts(text: str, content: str, want: Any) -> None:
    assert summary(check_format("ling3", text, None, TOOLS)) == (content, want)
