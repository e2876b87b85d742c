"""minicpm5 against SGLang's ``MiniCPM5Detector`` unit suites.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_minicpm5_detector.py``
and ``test_minicpm5_detector_finish.py`` (Apache-2.0, copyright the SGLang project): the
model outputs, the tool schemas, the expected calls and the chunkings it feeds (its
two-chunk stream, the start token cut after ``<``, a cut ``<fun`` at the end); the code is
ours. Every text goes through ``check_format`` (whole, 1-char, 7-char and random
chunkings), and each pinned chunking is replayed and compared with the one-shot result.

Where SGLang's expectation differs on purpose, we assert ours and say why:
- SGLang validates calls against the schema and keeps a rejected call's markup as text:
  an undeclared tool, an undeclared key (``City``), a repeated key, a missing required
  key. streamcall reports what the model called, as written (a repeated key is written
  twice in the arguments text; ``json.loads`` keeps the last).
- A ``<param>`` without a name ends the call there, ``incomplete``, and the rest is text
  (SGLang: the whole block is text).
- A call cut off before ``</function>`` is reported ``incomplete`` (SGLang: text).
- Text after a call is kept as written (blanks after the last call are markup, dropped
  as in every format here); ``finish`` never drops text
  (SGLang's finish drops a cut ``<function get_weather('par`` block).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sglang_fixtures import function_tool
from streamcall import Text, ToolCallStart, testing
from streamcall.formats.registry import parse_tool_calls, tool_parser
from support import check_format, summary

Calls = list[tuple[str, dict[str, Any]]]
FMT = "minicpm5"


WEATHER = [
    function_tool("get_weather", {"city": {"type": "string"}, "date": {"type": "string"}}, ["city"])
]
SUM = [
    function_tool("sum_values", {"nums": {"type": "array"}, "exact": {"type": "boolean"}}, ["nums"])
]
NOOP = [function_tool("noop", {"note": {"type": "string"}})]
TOOLS = WEATHER + SUM + NOOP

CASES: list[tuple[str, str, Calls]] = [
    (
        'Intro before.\n<function name="get_weather"><param name="city">上海</param>'
        '<param name="date">2024-06-27</param></function>\nOutro after.\n',
        "Intro before.\n\nOutro after.\n",
        [("get_weather", {"city": "上海", "date": "2024-06-27"})],
    ),
    (
        '<function name="sum_values"><param name="nums">[1, 2, 3]</param>'
        '<param name="exact">true</param></function>\n',
        "",
        [("sum_values", {"nums": [1, 2, 3], "exact": True})],
    ),
    (
        'Head\n<function name="get_weather"><param name="city">北京</param></function>\nTXT\n'
        '<function name="sum_values"><param name="nums">[7,8,9]</param>'
        '<param name="exact">false</param></function>\nTail\n',
        "Head\n\nTXT\n\nTail\n",
        [
            ("get_weather", {"city": "北京"}),
            ("sum_values", {"nums": [7, 8, 9], "exact": False}),
        ],
    ),
    ('<function name="noop"></function>\n', "", [("noop", {})]),
    (
        '<function name="get_weather"><param name="city">北京</param></function>'
        '<function name="sum_values"><param name="nums">[1,2]</param></function>',
        "",
        [("get_weather", {"city": "北京"}), ("sum_values", {"nums": [1, 2]})],
    ),
    (
        '<function name="get_weather"><param name="city">A & B</param></function>',
        "",
        [("get_weather", {"city": "A & B"})],
    ),
    (
        'Hello\n<function name="get_weather">\n  <param name="city">北京</param>\n'
        '  <param name="date">2024-06-27</param>\n</function>\n',
        "Hello\n",
        [("get_weather", {"city": "北京", "date": "2024-06-27"})],
    ),
    # SGLang rejects these calls (see the docstring); they are reported here.
    (
        '<function name="unknown"><param name="x">1</param></function>\n',
        "",
        [("unknown", {"x": 1})],
    ),
    (
        '<function name="get_weather"><param name="City">北京</param></function>\n',
        "",
        [("get_weather", {"City": "北京"})],
    ),
    (
        '<function name="get_weather"><param name="city">北京</param>'
        '<param name="city">上海</param></function>\n',
        "",
        [("get_weather", {"city": "上海"})],
    ),
    (
        '<function name="get_weather"><param>北京</param>'
        '<param name="date">2024-06-27</param></function>\n',
        '<param>北京</param><param name="date">2024-06-27</param></function>\n',
        [("get_weather", {})],
    ),
    (
        '<function name="get_weather"><param name="city">北京</param>',
        "",
        [("get_weather", {"city": "北京"})],
    ),
    # The finish suite's texts: nothing is dropped, a cut marker is released at the end.
    ("hi <function get_weather('par", "hi <function get_weather('par", []),
    ("hello <fun", "hello <fun", []),
    ("just some text", "just some text", []),
]


@pytest.mark.parametrize(("text", "content", "calls"), CASES)
@given(data=st.data())
def test_sglang_minicpm5_cases(text: str, content: str, calls: Calls, data: st.DataObject) -> None:
    assert summary(check_format(FMT, text, data, TOOLS)) == (content, calls)


def test_repeated_key_is_written_as_the_model_wrote_it() -> None:
    text = (
        '<function name="get_weather"><param name="city">北京</param>'
        '<param name="city">上海</param></function>'
    )
    [call] = parse_tool_calls(text, FMT, tools=TOOLS).tool_calls
    assert call.arguments == '{"city":"北京","city":"上海"}'


def test_incomplete_calls_are_marked() -> None:
    for text in (
        '<function name="get_weather"><param name="city">北京</param>',
        '<function name="get_weather"><param>北京</param></function>',
    ):
        items = check_format(FMT, text, None, TOOLS)
        assert [v.incomplete for k, v in items if isinstance(v, testing.Call)] == [True]


def _replay(pieces: list[str]) -> list[testing.Item]:
    return testing.coalesce(testing.run(tool_parser(FMT, tools=TOOLS), pieces))


def test_sglang_pinned_chunkings() -> None:
    c1 = 'Hello\n<function name="get_weather">\n  <param name="city">'
    c2 = '北京</param>\n  <param name="date">2024-06-27</param>\n</function>\n'
    p = tool_parser(FMT, tools=TOOLS)
    first = p.feed(c1)
    assert [e for e in first if isinstance(e, Text)] == [Text("Hello\n")]
    assert _replay([c1, c2]) == check_format(FMT, c1 + c2, None, TOOLS)

    text = '<function name="get_weather"><param name="city">北京</param></function>'
    p = tool_parser(FMT, tools=TOOLS)
    assert p.feed("<") == []  # the start token cut after '<' is held
    rest = p.feed(text[1:]) + p.finish()
    assert [e.name for e in rest if isinstance(e, ToolCallStart)] == ["get_weather"]
    assert _replay(["<", text[1:]]) == check_format(FMT, text, None, TOOLS)

    p = tool_parser(FMT, tools=TOOLS)
    assert p.feed("hello <fun") == [Text("hello ")]
    assert p.finish() == [Text("<fun")]


def test_cdata_value_is_unwrapped() -> None:
    text = (
        '<function name="get_weather"><param name="city"><![CDATA[北\n京]]></param>'
        '<param name="date">2024-06-27</param></function>\n'
    )
    assert summary(check_format(FMT, text, None, TOOLS)) == (
        "",  # blanks after the last call are markup, as everywhere
        [("get_weather", {"city": "北\n京", "date": "2024-06-27"})],
    )
