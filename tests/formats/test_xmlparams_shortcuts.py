"""The XML-parameter engine's shortcuts give what its general path gives (a fast path is
kept only if it measures faster, docs/performance.md, and is proved equal to the path it
shortcuts).

The shortcuts: ``feed`` hands a chunk between parameters straight to ``_whole_params`` (and
holds a short parameter that the chunk cuts), and a chunk inside a string value or a held
value, with no terminator in sight, straight to the delta or to the held parts;
``_whole_params`` reads a whole short parameter (opener, header, value, closer) with one
regex, in ``feed`` and in the general loop; ``value_plan`` plans a ``{"type": NAME}`` schema
once per type name. Here the first two are switched off on one parser (the general
``FeedLoop.feed``, and no member regex) and the two parsers are fed the same chunks, for
every format on the engine, with schema-typed parameters and without, in any chunking, and
in streams that end anywhere.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcall import testing
from streamcall._feedloop import FeedLoop
from streamcall.formats._xmlparams import XmlParamsParser
from streamcall.formats.registry import formats, parser_class
from streamcall.formats.schema import _general_plan, value_plan

XML_FORMATS = [n for n in formats() if issubclass(parser_class(n), XmlParamsParser)]

TYPES: list[Any] = [
    {"type": "string"},
    {"type": "integer"},
    {"type": "number"},
    {"type": "boolean"},
    {"type": "null"},
    {"type": "object"},
    {"type": "array", "items": {"type": "integer"}},
    {"type": ["string", "null"]},
    {"type": ["integer", "null"]},
    {"anyOf": [{"type": "integer"}, {"type": "string"}]},
    {"enum": ["a", "b"]},
    {"type": "int"},
    {},
]


def tools_for(args: dict[str, Any], kinds: list[Any]) -> list[dict[str, Any]]:
    props = {k: kinds[i % len(kinds)] for i, k in enumerate(args)}
    return [{"type": "function", "function": {"name": "f", "parameters": {"properties": props}}}]


def general(fmt: str, tools: list[dict[str, Any]] | None, pieces: list[str]) -> list[testing.Item]:
    parser = parser_class(fmt)(tools)
    parser._member_re = None  # the whole-parameter shortcut off
    events = []
    for piece in pieces:
        events.extend(FeedLoop.feed(parser, piece))  # the feed shortcut off
    events.extend(parser.finish())
    return testing.coalesce(events)


def both(fmt: str, tools: list[dict[str, Any]] | None, pieces: list[str]) -> list[testing.Item]:
    fast = testing.coalesce(testing.run(parser_class(fmt)(tools), pieces))
    assert fast == general(fmt, tools, pieces), pieces
    return fast


# Values that sit on the edges of the typing rules and of the markup: newlines around the
# value, literals and their prefixes, numbers, JSON and Python containers, '<' and markup
# inside, empty and blank values, values about as long as the hold, long JSON values (held
# whole over many chunks).
VALUES = [
    "0",
    "-12",
    "1.5e3",
    "01",
    "true",
    "false",
    "null",
    "nul",
    "tru",
    "nullable",
    "True",
    "",
    "\n",
    "\n\n",
    " ",
    "\nx\n",
    "x\n\n",
    "\n\nnull",
    "null\n",
    '{"a": [1, 2]}',
    "{'a': 1}",
    "[1, 2",
    "a < b",
    "<b>bold</b>",
    'say "hi" \\ there',
    "東京 Ünïcödé",
    "x" * 15,
    "y" * 17,
    "z" * 140,
    "a ]<]minimax[>[ b",
    "]",
    json.dumps({f"k{i}": ["v" * i, i, None] for i in range(12)}),
    "\n" + json.dumps(list(range(60))) + "\n",
]

value_text = st.sampled_from(VALUES) | st.text(
    st.sampled_from(list('ab1-{["tfnul\n <>/]')), max_size=24
)
args_st = st.dictionaries(
    st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True),
    value_text
    | st.integers(-50, 50)
    | st.booleans()
    | st.none()
    | st.lists(st.integers(), max_size=3),
    max_size=6,
)


def render(fmt: str, calls: list[tuple[str, dict[str, Any]]]) -> str:
    return "Sure. " + parser_class(fmt).render(calls) + " done"


@pytest.mark.parametrize("fmt", XML_FORMATS)
@settings(max_examples=60, deadline=None)
@given(data=st.data(), args=args_st, typed=st.booleans())
def test_shortcuts_equal_the_general_path_on_generated_calls(
    fmt: str, data: st.DataObject, args: dict[str, Any], typed: bool
) -> None:
    kinds = data.draw(st.lists(st.sampled_from(TYPES), min_size=1, max_size=4)) if typed else []
    tools = tools_for(args, kinds) if typed else None
    text = render(fmt, [("f", args), ("f", {"k": "v", "n": 1})])
    end = data.draw(st.integers(1, len(text)))  # a stream that may end mid-call
    text = text[:end] if data.draw(st.booleans()) else text
    cuts = data.draw(st.lists(st.integers(1, max(1, len(text))), max_size=25))
    both(fmt, tools, testing.chunk_at(text, cuts))


@pytest.mark.parametrize("fmt", XML_FORMATS)
@pytest.mark.parametrize("typed", [False, True])
def test_shortcuts_equal_the_general_path_cut_anywhere(fmt: str, typed: bool) -> None:
    args: dict[str, Any] = {f"k{i}": v for i, v in enumerate(VALUES[:20])}
    args.update(n=7, b=True, z=None, l=[1, 2], s="y" * 17, j=json.loads(VALUES[-2]), m=VALUES[-1])
    tools = tools_for(args, TYPES) if typed else None
    text = render(fmt, [("f", args)])
    for i in range(1, len(text)):
        both(fmt, tools, [text[:i], text[i:]])  # one cut at every position
        both(fmt, tools, [text[:i]])  # the stream ends there
    for size in (1, 2, 3, 5, 7, 11):
        both(fmt, tools, testing.chunk_every(text, size))


# Markup the shortcut must leave to the general path: a missing closer, junk between
# parameters, a closer-looking tag inside a value, whitespace runs longer than the hold.
QWEN_TEXTS = [
    "<tool_call>\n<function=f>\n<parameter=a>\n1\n<parameter=b>\n2\n</parameter>\n</function>\n</tool_call>",
    "<tool_call>\n<function=f>\n<parameter=a>\nx\n</function>\n</tool_call>tail",
    "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\njunk<parameter=b>2</parameter></function></tool_call>",
    "<tool_call>\n<function=f>\n<parameter=a>\n</param>\n</parameter>\n</function>\n</tool_call>",
    "<tool_call>\n<function=f>\n" + " " * 200 + "<parameter=a>1</parameter></function></tool_call>",
    "<tool_call>\n<function=f>\n" + " " * 200 + "<parameter=a>1</parameter> junk</function>",
    '<tool_call>\n<function name="f">\n<parameter name="a">\n1\n</parameter>\n</function>\n</tool_call>',
    "<function=f><parameter=a >x</parameter><parameter= b>y</parameter></function>",
    "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</tool_call> and text",
    '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call><tool_call><function=g><parameter=x>1</parameter></function></tool_call>',
]


@pytest.mark.parametrize("text", QWEN_TEXTS)
@pytest.mark.parametrize("typed", [False, True])
@given(cuts=st.lists(st.integers(1, 300), max_size=30))
def test_shortcuts_equal_the_general_path_on_broken_markup(
    text: str, typed: bool, cuts: list[int]
) -> None:
    tools = tools_for({"a": 0, "b": 0, "x": 0}, [{"type": "integer"}]) if typed else None
    both("qwen3_coder", tools, testing.chunk_at(text, cuts))
    both("qwen3_coder", tools, testing.chunk_at(text[: max(cuts, default=1)], cuts))


def test_dsml_flags_through_the_shortcut() -> None:
    text = (
        "<｜DSML｜function_calls>\n"
        '<｜DSML｜invoke name="f">\n'
        '<｜DSML｜parameter name="a" string="true">12</｜DSML｜parameter>\n'
        '<｜DSML｜parameter name="b" string="false">12</｜DSML｜parameter>\n'
        '<｜DSML｜parameter name="c" string="false">[1, 2]</｜DSML｜parameter>\n'
        '<｜DSML｜parameter name="d">true</｜DSML｜parameter>\n'
        "</｜DSML｜invoke>\n"
        "</｜DSML｜function_calls>"
    )
    for size in (1, 4, 7, len(text)):
        items = both("deepseek_v32", None, testing.chunk_every(text, size))
        call = next(v for k, v in items if k == "call")
        assert json.loads(call.arguments) == {"a": "12", "b": 12, "c": [1, 2], "d": True}  # type: ignore[union-attr]


@pytest.mark.parametrize("fmt", XML_FORMATS)
def test_the_shortcuts_are_on(fmt: str) -> None:
    """They measured faster (docs/performance.md), so a test pins them on. A short parameter
    cut by a chunk comes out whole with the next chunk, as one event."""
    parser = parser_class(fmt)()
    assert parser._member_re is not None
    assert parser._terminator_lead is not None
    text = parser_class(fmt).render([("f", {"a": 1, "b": "xy", "c": 3})])
    cut = text.index("xy") + 1
    events = parser.feed(text[:cut])
    tail = parser.feed(text[cut:])
    args = [e for e in tail if type(e).__name__ == "ToolCallArgs"]
    assert len(args) == 1
    assert '"b":"xy"' in args[0].delta
    assert "xy" not in "".join(getattr(e, "delta", "") for e in events)


@given(
    kind=st.sampled_from(["string", "integer", "number", "boolean", "null", "object", "array"])
    | st.text(max_size=8),
    extra=st.dictionaries(
        st.sampled_from(["enum", "anyOf", "items", "properties", "description"]),
        st.just([{"type": "integer"}]),
        max_size=3,
    ),
)
def test_the_planned_types_equal_the_general_plan(kind: str, extra: dict[str, Any]) -> None:
    schema = {"type": kind, **extra}
    assert value_plan(schema) == _general_plan(schema)
    assert value_plan(schema) == value_plan(dict(schema))  # cached: the same answer again
