"""minicpm5 CDATA values through ``check_format`` (whole, 1-char, 7-char and random
chunkings, and every cut at the end of the stream)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import ToolCallArgs
from streamcall.formats.registry import parse_tool_calls, tool_parser
from support import check_every_end, check_format, summary, typed_tool

TOOLS = [typed_tool("f", s="string", n="integer", o="object")]


def _fn(*params: str) -> str:
    return '<function name="f">' + "".join(params) + "</function>"


CDATA_CASES: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]] = [
    # markup inside the section is the value's, literally
    (_fn('<param name="s"><![CDATA[a</param>b]]></param>'), "", [("f", {"s": "a</param>b"})]),
    # the section ends at the first ]]>; quotes and backslashes are escaped
    (_fn('<param name="s"><![CDATA[x"\\]]]></param>'), "", [("f", {"s": 'x"\\]'})]),
    # the newline after the opener and before the closer are stripped, as for any value
    (_fn('<param name="s">\n<![CDATA[\nline\n]]>\n</param>'), "", [("f", {"s": "\nline\n"})]),
    # text after the section goes on in the value
    (_fn('<param name="s"><![CDATA[<a>]]> & b</param>'), "", [("f", {"s": "<a> & b"})]),
    # typed values are converted from the section's text
    (_fn('<param name="n"><![CDATA[42]]></param>'), "", [("f", {"n": 42})]),
    (
        _fn('<param name="o"><![CDATA[{"k": "</param>"}]]></param>'),
        "",
        [("f", {"o": {"k": "</param>"}})],
    ),
    # untyped: the section is character data, a string
    (_fn('<param name="u"><![CDATA[7]]></param>'), "", [("f", {"u": "7"})]),
    (_fn('<param name="s"><![CDATA[]]></param>'), "", [("f", {"s": ""})]),
    # not a section: the value as written
    (_fn('<param name="s"><![CDAT</param>'), "", [("f", {"s": "<![CDAT"})]),
    (_fn('<param name="s">a<![CDATA[b]]></param>'), "", [("f", {"s": "a<![CDATA[b]]>"})]),
]


@pytest.mark.parametrize(("text", "content", "calls"), CDATA_CASES)
@given(data=st.data())
def test_minicpm5_cdata(text: str, content: str, calls: Any, data: st.DataObject) -> None:
    assert summary(check_format("minicpm5", text, data, TOOLS)) == (content, calls)


def test_minicpm5_cdata_cut_at_end_of_stream() -> None:
    text = _fn('<param name="s"><![CDATA[a]</param>]]>\n</param><param name="n">1</param>')
    check_every_end("minicpm5", "Hi " + text, TOOLS)
    cut = parse_tool_calls('<function name="f"><param name="s"><![CDATA[a</pa', "minicpm5")
    assert [(c.name, json.loads(c.arguments), c.incomplete) for c in cut.tool_calls] == [
        ("f", {"s": "a</pa"}, True)
    ]


def test_minicpm5_long_cdata_streams() -> None:
    body = "x]" * 500 + "</param>"
    text = _fn(f'<param name="s"><![CDATA[{body}]]></param>')
    assert summary(check_format("minicpm5", text, None, TOOLS)) == ("", [("f", {"s": body})])
    parser = tool_parser("minicpm5", tools=TOOLS)
    events = parser.feed(text[: len(text) // 2])  # the deltas arrive while it is written
    assert any(isinstance(e, ToolCallArgs) and "x]" in e.delta for e in events)


def test_cdata_is_minicpm5_only() -> None:
    text = (
        "<tool_call>\n<function=f>\n<parameter=s>\n<![CDATA[a]]>\n</parameter>\n"
        "</function>\n</tool_call>"
    )
    assert summary(check_format("qwen3_coder", text, None, TOOLS)) == (
        "",
        [("f", {"s": "<![CDATA[a]]>"})],
    )
