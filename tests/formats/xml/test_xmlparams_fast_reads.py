"""The XML-parameter engine gives the same events with the text layer's fast reads on (the
default) and on their reference paths (``streamcall.text.fast.reference``), for every
format on the engine, with schema-typed parameters and without, in any chunking, cut
anywhere and ended anywhere.

The fast reads it takes: whole short parameters by one regex each and a cut one held
whole (``ShortMembers``; its reference path takes nothing and the token-by-token steps
read the parameter), and value text up to a terminator (``StopMarkers``: a chunk without
the terminators' lead is all value, with no marker search). A fast read is kept only if
it measures faster (docs/performance.md), and a test pins each one on and taken. Also
here: ``value_plan`` plans a ``{"type": NAME}`` schema once per type name.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcall import testing
from streamcall.events import Event, ToolCallArgs
from streamcall.formats.engines import xml_args as _xmlargs
from streamcall.formats.engines.xml_params import XmlParamsParser
from streamcall.formats.registry import formats, parser_class
from streamcall.formats.schema import _general_plan, value_plan
from streamcall.text import fast
from support import count_steps, pure_only

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


def run(fmt: str, tools: list[dict[str, Any]] | None, pieces: list[str]) -> list[testing.Item]:
    """The coalesced events; each chunk's argument pieces leave with that chunk, as one
    event per call."""
    parser = parser_class(fmt)(tools)
    events: list[Event] = []
    for piece in pieces:
        chunk = parser.feed(piece)
        assert not parser._delta, pieces  # type: ignore[attr-defined]
        indices = [e.index for e in chunk if isinstance(e, ToolCallArgs)]
        assert len(indices) == len(set(indices)), chunk
        events.extend(chunk)
    events.extend(parser.finish())
    return testing.coalesce(events)


def both(fmt: str, tools: list[dict[str, Any]] | None, pieces: list[str]) -> list[testing.Item]:
    fast_items = run(fmt, tools, pieces)
    with fast.reference():
        assert fast_items == run(fmt, tools, pieces), pieces
    return fast_items


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
def test_fast_reads_equal_the_reference_on_generated_calls(
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
def test_fast_reads_equal_the_reference_cut_anywhere(fmt: str, typed: bool) -> None:
    args: dict[str, Any] = {f"k{i}": v for i, v in enumerate(VALUES[:20])}
    args.update(n=7, b=True, z=None, l=[1, 2], s="y" * 17, j=json.loads(VALUES[-2]), m=VALUES[-1])
    tools = tools_for(args, TYPES) if typed else None
    text = render(fmt, [("f", args)])
    for i in range(1, len(text)):
        both(fmt, tools, [text[:i], text[i:]])  # one cut at every position
        both(fmt, tools, [text[:i]])  # the stream ends there
    for size in (1, 2, 3, 5, 7, 11):
        both(fmt, tools, testing.chunk_every(text, size))


# Markup the fast reads must leave to the token-by-token steps: a missing closer, junk between
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
def test_fast_reads_equal_the_reference_on_broken_markup(
    text: str, typed: bool, cuts: list[int]
) -> None:
    tools = tools_for({"a": 0, "b": 0, "x": 0}, [{"type": "integer"}]) if typed else None
    both("qwen3_coder", tools, testing.chunk_at(text, cuts))
    both("qwen3_coder", tools, testing.chunk_at(text[: max(cuts, default=1)], cuts))


def test_dsml_flags_through_the_fast_reads() -> None:
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
def test_a_cut_short_parameter_is_held_whole(fmt: str) -> None:
    """It measured faster (docs/performance.md), so it is on: a short parameter cut by a
    chunk comes out whole with the next chunk, as one event; on the reference path its key
    comes out with the first chunk."""
    assert fast.FAST is True
    text = parser_class(fmt).render([("f", {"a": 1, "b": "xy", "c": 3})])
    cut = text.index("xy") + 1

    def split() -> tuple[str, str]:
        parser = parser_class(fmt)()
        before = parser.feed(text[:cut])
        after = parser.feed(text[cut:])
        args = [e.delta for e in after if isinstance(e, ToolCallArgs)]
        assert len(args) == 1
        return "".join(e.delta for e in before if isinstance(e, ToolCallArgs)), args[0]

    before, after = split()
    assert '"b":"xy"' in after
    assert '"b"' not in before
    with fast.reference():
        before, after = split()
    assert '"b":' in before


@pytest.mark.parametrize("fmt", XML_FORMATS)
@pytest.mark.parametrize("cut_mid_chunk", [True, False])
def test_a_held_value_that_outgrows_a_short_one_streams(fmt: str, cut_mid_chunk: bool) -> None:
    """A value cut while short is held whole, but the chunk that makes it longer than a
    short value is read with it, and its text streams, whether the parameter was cut in
    the middle of a chunk or held from a chunk's start (a chunk without the closer's last
    character cannot close it, but must not keep a long value held)."""
    text = parser_class(fmt).render([("f", {"a": 1, "b": "San Francisco, CA"})])
    cut = text.index("San ") + 4
    opener = text.rindex("b", 0, cut)  # in the parameter's header
    parser = parser_class(fmt)()
    chunks = [text[:cut]] if cut_mid_chunk else [text[: opener - 3], text[opener - 3 : cut]]
    chunks.append("Francisco")
    events = [e for c in chunks for e in parser.feed(c)]
    args = "".join(e.delta for e in events if isinstance(e, ToolCallArgs))
    assert "San Francisco" in args


@pytest.mark.parametrize("fmt", XML_FORMATS)
def test_a_held_parameter_waits_in_the_loop(fmt: str) -> None:
    """A short parameter cut in its header waits unread in the feed loop (``FeedLoop``'s
    rule 4): a chunk that cannot end its header runs no step, and the parameter still
    comes out whole; on the reference path nothing is held and every chunk is read."""
    text = parser_class(fmt).render([("f", {"a": 1, "bbbbbb": 2, "c": 3})])
    key = text.index("bbbbbb")
    cut = [text[: key + 1], text[key + 1 : key + 3], text[key + 3 : key + 5], text[key + 5 :]]

    def steps_run() -> tuple[int, str]:
        parser = parser_class(fmt)()
        count = count_steps(parser)
        events = parser.feed(cut[0])
        before = count[0]
        for chunk in cut[1:3]:
            events += parser.feed(chunk)
        middle = count[0] - before
        events += parser.feed(cut[3]) + parser.finish()
        call = dict(testing.coalesce(events))["call"]
        return middle, call.arguments  # type: ignore[union-attr]

    waited, arguments = steps_run()
    assert waited == 0
    assert list(json.loads(arguments)) == ["a", "bbbbbb", "c"]
    with fast.reference():
        read, reference_arguments = steps_run()
    assert read >= 2 and reference_arguments == arguments


class Refuse:
    """Stands in for a marker search that must not run."""

    def take(self, *args: Any) -> Any:
        raise AssertionError("the terminator search ran")


@pure_only
@pytest.mark.parametrize("fmt", [f for f in XML_FORMATS if f != "minimax_m3"])
def test_value_text_is_read_without_the_terminator_search(fmt: str) -> None:
    """A chunk of a long string value with no terminator's lead in it is value text, read
    without the marker search; with the switch off the search runs."""
    parser = parser_class(fmt)()
    text = parser_class(fmt).render([("f", {"k": "v" * 80})])
    parser.feed(text[: text.index("vvv") + 20])  # past the cut value held whole
    assert parser._mode == _xmlargs.STRING_MODE
    stops = parser._terminator_stops  # type: ignore[attr-defined]
    # what every terminator starts with
    assert stops.lead == {"kimi_k3": "<|", "solar_open2": "<|"}.get(fmt, "<")
    stops.finder = Refuse()
    assert parser.feed("vvvvvvv") == [ToolCallArgs(0, "vvvvvvv")]
    with fast.reference(), pytest.raises(AssertionError, match="terminator search ran"):
        parser.feed("vvvvvvv")


@pure_only
def test_minimax_m3_value_text_is_read_without_the_namespace_search() -> None:
    from streamcall.formats import minimax

    parser = parser_class("minimax_m3")()
    text = parser_class("minimax_m3").render([("f", {"k": "v" * 80})])
    parser.feed(text[: text.index("vvv") + 20])  # past the cut value held whole
    assert parser._mode == _xmlargs.STRING_MODE
    saved = minimax._NS_STOPS.finder
    minimax._NS_STOPS.finder = Refuse()  # type: ignore[assignment]
    try:
        assert parser.feed("vvvvvvv") == [ToolCallArgs(0, "vvvvvvv")]
        with fast.reference(), pytest.raises(AssertionError, match="terminator search ran"):
            parser.feed("vvvvvvv")
    finally:
        minimax._NS_STOPS.finder = saved


@pytest.mark.parametrize("fmt", XML_FORMATS)
def test_whole_short_parameters_are_read_by_one_regex(fmt: str) -> None:
    """Between parameters, a chunk of whole short ones is read without the token steps
    (``_read_key`` does not run); with the switch off it does, once per parameter."""
    text = parser_class(fmt).render([("f", {f"k{i}": i for i in range(6)})])
    start = re.search(r"k0", text)
    assert start is not None

    def keys_read() -> int:
        parser = parser_class(fmt)()
        parser.feed(text[: start.start() - 12])
        count = 0
        read_key = parser._read_key  # type: ignore[attr-defined]

        def counting(*args: Any) -> Any:
            nonlocal count
            count += 1
            return read_key(*args)

        steps = list(parser._steps)  # type: ignore[attr-defined]
        steps[_xmlargs.KEY] = counting
        parser._steps = tuple(steps)  # type: ignore[attr-defined]
        parser.feed(text[start.start() - 12 :])
        return count

    assert keys_read() == 0
    with fast.reference():
        assert keys_read() >= 6


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
