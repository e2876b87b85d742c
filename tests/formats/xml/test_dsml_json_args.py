"""DSML invokes whose body is a JSON object, through ``check_format`` (whole, 1-char,
7-char and random chunkings, and every cut at the end of the stream)."""

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


P = "<｜DSML｜"
Q = "</｜DSML｜"


def _invoke(body: str, name: str = "f") -> str:
    return f'{P}invoke name="{name}">{body}{Q}invoke>'


JSON_CASES: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]] = [
    (
        f"{P}function_calls>\n" + _invoke('\n{"s": "a</｜DSML｜invoke>", "n": [1, {}]}\n') + "\n"
        f"{Q}function_calls>",
        "",
        [("f", {"s": "a</｜DSML｜invoke>", "n": [1, {}]})],
    ),
    (_invoke("{}") + " after", " after", [("f", {})]),
    (_invoke('{"a": "\t"}') + _invoke('{"b": 1}'), "", [("f", {"a": "\t"}), ("f", {"b": 1})]),
    # an object closed by the block's closer
    (f'{P}function_calls>{P}invoke name="f">{{"a": 1}}{Q}function_calls>', "", [("f", {"a": 1})]),
    # junk after the object: the call ends incomplete, the junk is text
    (_invoke('{"a": 1} tail'), f" tail{Q}invoke>", [("f", {"a": 1})]),
    # broken JSON: what streamed is closed, the rest is text
    (_invoke('{"a": 1 x}'), f"x}}{Q}invoke>", [("f", {"a": 1})]),
    # neither parameters nor JSON: an empty call, the body is text (as before)
    (_invoke("navigate"), f"navigate{Q}invoke>", [("f", {})]),
    # after a parameter a `{` is not a body
    (
        _invoke(f'{P}parameter name="s" string="true">v{Q}parameter>{{"a": 1}}'),
        f'{{"a": 1}}{Q}invoke>',
        [("f", {"s": "v"})],
    ),
]


@pytest.mark.parametrize("fmt", ["deepseek_v32", "deepseek_v4"])
@pytest.mark.parametrize(("text", "content", "calls"), JSON_CASES)
@given(data=st.data())
def test_dsml_json_body(fmt: str, text: str, content: str, calls: Any, data: st.DataObject) -> None:
    if fmt == "deepseek_v4":
        text = text.replace("function_calls>", "tool_calls>")
    assert summary(check_format(fmt, text, data, TOOLS)) == (content, calls)


def test_dsml_v41_json_body() -> None:
    text = '<｜DSML｜ calls><｜DSML｜ invoke name="f">{"a": [1]}</｜DSML｜ invoke></｜DSML｜ calls>'
    assert summary(check_format("deepseek_v41", text, None, TOOLS)) == ("", [("f", {"a": [1]})])


def test_dsml_json_body_cut_at_end_of_stream() -> None:
    text = "Hi " + _invoke('{"s": "x\\u00e9", "t": true, "n": -1.5e3}') + "\n" + _invoke("{}")
    check_every_end("deepseek_v32", text, TOOLS)
    cut = parse_tool_calls(_invoke('{"s": "ab', "f")[: -len(f"{Q}invoke>")], "deepseek_v32")
    assert [(json.loads(c.arguments), c.incomplete) for c in cut.tool_calls] == [
        ({"s": "ab"}, True)
    ]


def test_dsml_json_body_streams_verbatim() -> None:
    parser = tool_parser("deepseek_v32")
    deltas = []
    text = _invoke('{"k": "' + "v" * 40 + '", "m": 2}')
    for piece in (text[:60], text[60:]):
        deltas += [e.delta for e in parser.feed(piece) if isinstance(e, ToolCallArgs)]
    assert deltas[0].startswith('{"k": "vvv')  # streamed before the object is whole
    assert "".join(deltas) == '{"k": "' + "v" * 40 + '", "m": 2}'
