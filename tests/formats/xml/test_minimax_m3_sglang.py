"""minimax_m3 against SGLang's ``MinimaxM3Detector`` unit suites.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_minimax_m3_detector.py``
and ``test_minimax_m3_detector_finish.py`` (Apache-2.0, copyright the SGLang project): the
model outputs (its ``_wire`` helper), the tool schemas, the expected calls and the
chunkings it feeds (one ``NS``-prefixed segment per increment); the code is ours. Every
text goes through ``check_format`` (whole, 1-char, 7-char and random chunkings), and its
segment chunkings are replayed and compared with the one-shot result.

Found by this port and fixed (``engines/xml_params.py``): a tool whose ``parameters`` is a
top-level ``oneOf`` of objects did not type its values (``"7"`` and ``"true"`` as strings);
the properties of ``allOf``/``anyOf``/``oneOf`` branches now type them.

Where SGLang's expectation differs on purpose, we assert ours and say why:
- A call cut off by the end of the stream is reported ``incomplete`` with what it had
  (SGLang: no call, the text as content).
- A parameter closed by the wrong tag (``NS</wrong>``) keeps that tag as text in its value
  and ends at ``NS</invoke>`` (SGLang: no call, the text as content).
- ``null`` for a nullable string (``["string", "null"]``) stays the string ``"null"``:
  minimax_m3 streams string parameters as they are written (SGLang: null).
- The finish suite's ``<parameter name="city">P`` (MiniMax-M2's spelling, without ``NS``,
  inside an M3 call) is not M3 markup: the call ends there, ``incomplete``, and that text
  is content (SGLang flushes it as text at finish, with the block's markup).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import ToolCallStart, testing
from streamcall.formats.registry import tool_parser
from support import check_format, summary

Calls = list[tuple[str, dict[str, Any]]]
FMT = "minimax_m3"
NS = "]<]minimax[>["


def _tool(name: str, parameters: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


def _obj(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    return out


TOOLS = [
    _tool("get_current_date", {}),
    _tool("get_weather", _obj({"city": {"type": "string"}}, ["city"])),
    _tool(
        "search",
        _obj(
            {
                "query": {"type": "string"},
                "count": {"type": "integer"},
                "ratio": {"type": "number"},
                "verbose": {"type": "boolean"},
            },
            ["query"],
        ),
    ),
    _tool(
        "create_event",
        _obj(
            {
                "title": {"type": "string"},
                "location": _obj({"city": {"type": "string"}, "zip": {"type": "integer"}}),
                "tags": {"type": "array", "items": {"type": "string"}},
            }
        ),
    ),
    _tool("add_note", _obj({"note": {"type": "string"}})),
    _tool(
        "configure",
        _obj(
            {
                "mode": {"type": "string", "enum": ["none", "low", "high"]},
                "optional": {"type": ["string", "null"]},
            }
        ),
    ),
]
ACME = [
    _tool(
        "acme",
        {
            "type": "object",
            "oneOf": [
                _obj({"count": {"type": "integer"}, "verbose": {"type": "boolean"}}),
                _obj({"kind": {"const": "other"}}, ["kind"]),
            ],
        },
    )
]


def _segments(*lines: str) -> list[str]:
    return [NS + line for line in lines]


def _wire(*lines: str) -> str:
    return "".join(_segments(*lines))


def _call(name: str, *params: str) -> tuple[str, ...]:
    return ("<tool_call>", f'<invoke name="{name}">', *params, "</invoke>", "</tool_call>")


WEATHER = _call("get_weather", "<city>Beijing", "</city>")
TYPED = _call(
    "search",
    "<query>pizza",
    "</query>",
    "<count>7",
    "</count>",
    "<ratio>0.5",
    "</ratio>",
    "<verbose>true",
    "</verbose>",
)
NESTED = _call(
    "create_event",
    "<title>Standup",
    "</title>",
    "<location>",
    "<city>NYC",
    "</city>",
    "<zip>10001",
    "</zip>",
    "</location>",
    "<tags>",
    "<item>red",
    "</item>",
    "<item>blue",
    "</item>",
    "</tags>",
)
SPECIAL_VALUE = 'a "quoted" word with \\ backslash and\nnewline'
MULTI_INVOKE = (
    "<tool_call>",
    '<invoke name="get_weather">',
    "<city>Beijing",
    "</city>",
    "</invoke>",
    '<invoke name="get_weather">',
    "<city>Tokyo",
    "</city>",
    "</invoke>",
    "</tool_call>",
)
TWO_BLOCKS = WEATHER + _call("get_weather", "<city>Tokyo", "</city>")

SEGMENTED: list[tuple[tuple[str, ...], Calls]] = [
    (WEATHER, [("get_weather", {"city": "Beijing"})]),
    (_call("get_current_date"), [("get_current_date", {})]),
    (TWO_BLOCKS, [("get_weather", {"city": "Beijing"}), ("get_weather", {"city": "Tokyo"})]),
    (MULTI_INVOKE, [("get_weather", {"city": "Beijing"}), ("get_weather", {"city": "Tokyo"})]),
    (TYPED, [("search", {"query": "pizza", "count": 7, "ratio": 0.5, "verbose": True})]),
    (
        NESTED,
        [
            (
                "create_event",
                {
                    "title": "Standup",
                    "location": {"city": "NYC", "zip": 10001},
                    "tags": ["red", "blue"],
                },
            )
        ],
    ),
    (
        _call("add_note", "<note>" + SPECIAL_VALUE, "</note>"),
        [("add_note", {"note": SPECIAL_VALUE})],
    ),
    (
        _call("add_note", "<note>" + 'a "q" and \\ back\nslash', "</note>"),
        [("add_note", {"note": 'a "q" and \\ back\nslash'})],
    ),
    *[
        (_call("configure", f"<mode>{v}", "</mode>"), [("configure", {"mode": v})])
        for v in ("none", "nil", "null")
    ],
    # SGLang: null; a nullable string streams as written here.
    (_call("configure", "<optional>null", "</optional>"), [("configure", {"optional": "null"})]),
    (_call("configure", "<optional>none", "</optional>"), [("configure", {"optional": "none"})]),
    # Cut off: reported incomplete (SGLang: text).
    (
        ("<tool_call>", '<invoke name="get_weather">', "<city>Beijing"),
        [("get_weather", {"city": "Beijing"})],
    ),
    # The wrong closer stays in the value (SGLang: text).
    (
        _call("get_weather", "<city>Beijing", "</wrong>"),
        [("get_weather", {"city": "Beijing" + NS + "</wrong>"})],
    ),
]


@pytest.mark.parametrize(("segments", "calls"), SEGMENTED)
@given(data=st.data())
def test_sglang_minimax_m3_segments(
    segments: tuple[str, ...], calls: Calls, data: st.DataObject
) -> None:
    text = _wire(*segments)
    items = check_format(FMT, text, data, TOOLS)
    assert summary(items) == ("", calls)
    replayed = testing.coalesce(testing.run(tool_parser(FMT, tools=TOOLS), _segments(*segments)))
    assert replayed == items


@pytest.mark.parametrize(
    "value",
    [
        "remember this ",
        "remember this\n",
        "remember this\t",
        "remember this\u00a0",
        "\u3000中\u3000",
    ],
)
def test_trailing_whitespace_in_a_string_is_kept(value: str) -> None:
    text = _wire(*_call("add_note", f"<note>{value}", "</note>"))
    assert summary(check_format(FMT, text, None, TOOLS)) == ("", [("add_note", {"note": value})])


@pytest.mark.parametrize(
    ("text", "content", "calls"),
    [
        (
            "This is a plain response with no tool call.",
            "This is a plain response with no tool call.",
            [],
        ),
        ("The weather in Beijing is sunny.", "The weather in Beijing is sunny.", []),
        ("Hello there.", "Hello there.", []),
        (
            "Let me check the weather." + _wire(*_call("get_weather", "<city>Paris", "</city>")),
            "Let me check the weather.",
            [("get_weather", {"city": "Paris"})],
        ),
    ],
)
def test_sglang_text_cases(text: str, content: str, calls: Calls) -> None:
    assert summary(check_format(FMT, text, None, TOOLS)) == (content, calls)


@given(data=st.data())
def test_top_level_one_of_types_the_values(data: st.DataObject) -> None:
    segments = _call("acme", "<count>7", "</count>", "<verbose>true", "</verbose>")
    text = _wire(*segments)
    items = check_format(FMT, text, data, ACME)
    assert summary(items) == ("", [("acme", {"count": 7, "verbose": True})])


def test_sequential_tool_indices() -> None:
    events = testing.run(tool_parser(FMT, tools=TOOLS), _segments(*MULTI_INVOKE))
    assert [e.index for e in events if isinstance(e, ToolCallStart)] == [0, 1]


FINISH_TOOLS = [_tool("get_weather", _obj({"city": {"type": "string"}}))]


def test_sglang_finish_cases() -> None:
    # SGLang's finish suite writes M2's <parameter name="city"> inside an M3 block.
    cut = "hi " + NS + "<tool_call>" + NS + '<invoke name="get_weather"><parameter name="city">P'
    items = check_format(FMT, cut, None, FINISH_TOOLS)
    assert summary(items) == ('hi <parameter name="city">P', [("get_weather", {})])
    assert [v.incomplete for k, v in items if isinstance(v, testing.Call)] == [True]
    full = (
        NS
        + "<tool_call>"
        + NS
        + '<invoke name="get_weather">'
        + NS
        + "<city>Paris"
        + NS
        + "</city>"
        + NS
        + "</invoke>"
        + NS
        + "</tool_call>"
    )
    p = tool_parser(FMT, tools=FINISH_TOOLS)
    events = p.feed(full)
    assert p.finish() == []  # nothing held back, nothing repeated
    assert summary(testing.coalesce(events)) == ("", [("get_weather", {"city": "Paris"})])
    p = tool_parser(FMT, tools=FINISH_TOOLS)
    p.feed("just some text")
    assert p.finish() == []
