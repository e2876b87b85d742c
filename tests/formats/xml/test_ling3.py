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
from support import calls, check_contract, check_upstream_case, schema_for, upstream_cases

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
