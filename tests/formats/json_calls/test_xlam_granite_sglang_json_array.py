"""xlam and granite against SGLang's ``JsonArrayParser`` unit suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_json_array_parser.py``
(Apache-2.0, copyright the SGLang project): the model outputs and the chunking it feeds;
the code is ours. SGLang's ``JsonArrayParser`` reads the bare JSON array of calls that
constrained decoding (``tool_choice="required"``) makes the model write. Here the formats
that read a bare array at the start of the output are ``xlam`` and ``granite``; every text
goes through ``check_format`` for both (whole, 1-char, 7-char and random chunkings), and
SGLang's chunking is replayed and compared with the one-shot result.

Not ported: the marker attributes, ``has_tool_call``, and ``detect_and_parse`` /
``structure_info`` (which raise ``NotImplementedError`` in SGLang).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.formats.registry import tool_parser
from support import check_format, summary

TOOLS = [{"type": "function", "function": {"name": "test_tool", "parameters": {}}}]
FORMATS = ["xlam", "granite"]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    ("text", "content", "calls"),
    [
        ('[{"name": "test_tool", "arguments": {}}]', "", [("test_tool", {})]),
        ('{"name": "test_tool", "arguments": {}}', "", [("test_tool", {})]),
        (
            "This is regular text without brackets.",
            "This is regular text without brackets.",
            [],
        ),
    ],
)
@given(data=st.data())
def test_sglang_json_array(
    fmt: str,
    text: str,
    content: str,
    calls: list[tuple[str, dict[str, object]]],
    data: st.DataObject,
) -> None:
    assert summary(check_format(fmt, text, data, TOOLS)) == (content, calls)


@pytest.mark.parametrize("fmt", FORMATS)
def test_sglang_multi_chunk(fmt: str) -> None:
    pieces = ['[{"name": "test_tool"', ', "arguments": {}}]']
    one_shot = check_format(fmt, "".join(pieces), None, TOOLS)
    assert testing.coalesce(testing.run(tool_parser(fmt, tools=TOOLS), pieces)) == one_shot
    assert summary(one_shot) == ("", [("test_tool", {})])
