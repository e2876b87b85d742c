"""iquest_q1: IQuest Q1 writes GLM-4.7's calls in ``<iquest_tool_call>``, string values
kept byte-exact.

The upstream cases (``tests/fixtures/upstream/iquest_q1.json``, from SGLang's
``test/registered/unit/function_call/test_iquest_q1_detector.py``, Apache-2.0, Copyright
the SGLang authors) run through ``output_parser`` in every chunking. The code is ours.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import format_for_model
from streamcall.formats.registry import parse_tool_calls, parser_class
from support import (
    calls,
    check_contract,
    check_every_end,
    check_rendered,
    check_upstream_case,
    check_value_streams,
    merged_by_name,
    schema_for,
    summary,
    upstream_cases,
)

_TOLERANT = (
    "a value whose </arg_value> is missing ends at the call's closer, as in every GLM "
    "format here (SGLang keeps the whole block as text)"
)
_CUT = "a call cut by the end of the stream is reported incomplete (SGLang keeps it as text)"
SKIP = {
    "unparsed_text_around_calls_0": _TOLERANT,
    "unparsed_text_around_calls_1": _TOLERANT,
    "malformed_is_text": _TOLERANT,
    "unparsed_text_around_calls_2": _CUT,
    "incomplete_call_at_end_is_text": _CUT,
    "unknown_tool_filtered": "names are not checked against the tools (SGLang drops the call)",
}


@pytest.mark.parametrize("case", upstream_cases("iquest_q1", skip=SKIP))
def test_upstream(case: dict[str, Any]) -> None:
    check_upstream_case(case, tool_format="iquest_q1")


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "run",
            "parameters": {
                "type": "object",
                "properties": {"code": {"type": "string"}, "count": {"type": "integer"}},
            },
        },
    }
]


def test_skipped_cases_give_what_we_say() -> None:
    got = parse_tool_calls(
        "<iquest_tool_call>run<arg_key>count</arg_key><arg_value>1</iquest_tool_call>",
        "iquest_q1",
        tools=TOOLS,
    )
    assert [(c.name, c.args, c.incomplete) for c in got.tool_calls] == [
        ("run", {"count": 1}, False)
    ]
    got = parse_tool_calls("before<iquest_tool_call>run<arg_key>code</arg_key>", "iquest_q1")
    assert [(c.name, c.incomplete) for c in got.tool_calls] == [("run", True)]
    assert got.content == "before<arg_key>code</arg_key>"


@given(data=st.data(), call_list=calls, before=st.sampled_from(["", "Sure. ", "a < b\n"]))
def test_round_trip(data: st.DataObject, call_list: Any, before: str) -> None:
    call_list = merged_by_name(call_list)
    text = before + parser_class("iquest_q1").render(call_list) + "<|iquest_end|>"
    check_rendered(
        "iquest_q1", text, data, call_list, before + "<|iquest_end|>", schema_for(call_list)
    )


@given(data=st.data())
def test_string_values_are_byte_exact(data: st.DataObject) -> None:
    text = (
        "<iquest_tool_call>run\n<arg_key>code</arg_key><arg_value>\n  x = 1\n\n</arg_value>"
        "<arg_key>count</arg_key><arg_value>\n 3 \n</arg_value>\n</iquest_tool_call>"
    )
    assert summary(check_contract("iquest_q1", text, data, TOOLS)) == (
        "",
        [("run", {"code": "\n  x = 1\n\n", "count": 3})],
    )


def test_string_values_stream_before_their_closer() -> None:
    check_value_streams(
        "iquest_q1",
        "<iquest_tool_call>run\n<arg_key>code</arg_key><arg_value>print('hello, wor",
        '{"code":"print(\'hello, wor',
        "ld')\n",
        "ld')\\n",
        times=1,
        tools=TOOLS,
    )


@given(data=st.data())
def test_iquest_coder_v2_tags_are_not_calls(data: st.DataObject) -> None:
    text = (
        "<iquestcoder_tool_call>run\n<arg_key>code</arg_key><arg_value>x</arg_value>"
        "</iquestcoder_tool_call>"
    )
    assert summary(check_contract("iquest_q1", text, data, TOOLS)) == (text, [])
    assert summary(check_contract("iquest_q1", "<tool_call>run</tool_call>", data)) == (
        "<tool_call>run</tool_call>",
        [],
    )


def test_every_end_of_stream() -> None:
    check_every_end(
        "iquest_q1",
        "Hi <iquest_tool_call>run\n<arg_key>code</arg_key><arg_value> a\n</arg_value>"
        "<arg_key>count</arg_key> <arg_value>42</arg_value>\n</iquest_tool_call> bye",
        TOOLS,
    )


def test_routing() -> None:
    assert format_for_model("IQuestLab/IQuest-Q1-Instruct") == "iquest_q1"
    assert format_for_model("org/iquest_q1-small") == "iquest_q1"
    # IQuest-Coder V1 and V2 write other tags
    assert format_for_model("IQuestLab/IQuest-Coder-V1-40B-Instruct") is None
    assert format_for_model("IQuestLab/IQuest-Coder-V2-Instruct") is None
