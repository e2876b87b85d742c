"""``muse``, ``musespark1x`` and ``muse_glimmer``: messages, channels, ATEM calls.

The upstream cases are in ``test_muse_upstream.py``; the framing's own reads in
``test_muse_framing.py``. Here: the channel tables, the tool parser alone, the reasoning
parser alone and the pair, names and value typing, streaming while a call is written,
malformed and cut-off input, and random conversations in random chunkings (the contract,
and the pair reading every stream as the tool parser alone does).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import Reasoning, Text, ToolCallArgs, ToolCallEnd, reasoning_parser, testing
from streamcall.formats.registry import tool_parser
from streamcall.output import output_parser
from support import check_contract, check_format, random_chunkings, summary, typed_tool

S = "<|start|>assistant"
SPARK = ("muse", "musespark", "musespark1x")
ALL = (*SPARK, "muse_glimmer")
WEATHER = typed_tool("get_weather", city="string", days="integer")


def msg(to: str | None, body: str, end: str = "<|eom|>", *, framed: bool = True) -> str:
    """A message: ``<|start|>assistant to=R<|message|>body<|eom|>`` (``framed=False``: the
    first message's bare header, `` to=R<|message|>``)."""
    header = (S if framed else "") + (f" to={to}" if to is not None else "")
    return f"{header}<|message|>{body}{end}"


def atem(name: str, **params: str) -> str:
    """An ATEM block with one invoke, values written as given."""
    body = "".join(f'<atem:parameter name="{k}">{v}</atem:parameter>\n' for k, v in params.items())
    return f'<atem:function_calls>\n<atem:invoke name="{name}">\n{body}</atem:invoke>\n</atem:function_calls>'


def pair(fmt: str, tools: list[dict[str, Any]] | None = None) -> Any:
    return lambda: output_parser(tools=tools, tool_format=fmt, reasoning_format=fmt)


def read(fmt: str, text: str, tools: list[dict[str, Any]] | None = None) -> list[testing.Item]:
    """The tool parser alone and the pair, in the fixed chunkings: they must agree."""
    alone = testing.check_chunkings(lambda: tool_parser(fmt, tools=tools), text)
    both = testing.check_chunkings(pair(fmt, tools), text)
    assert both == alone, (fmt, text)
    return alone


def calls_of(items: list[testing.Item]) -> list[tuple[str, Any]]:
    return summary(items)[1]


# -- the channel tables ---------------------------------------------------------------------

# (recipient, Spark's kind, Glimmer's kind) of a message whose body is prose
CHANNELS = [
    (None, "reasoning", "text"),
    ("self", "reasoning", "reasoning"),
    ("user", "text", "text"),
    ("commentary", "text", "tool"),
    ("developer", "dropped", "tool"),
    ("get_weather", "tool", "tool"),
    ("functions.lookup", "tool", "tool"),
]


@pytest.mark.parametrize("fmt", ALL)
@pytest.mark.parametrize(("to", "spark", "glimmer"), CHANNELS)
@pytest.mark.parametrize("framed", [True, False])
def test_what_a_prose_body_is_by_its_recipient(
    fmt: str, to: str | None, spark: str, glimmer: str, framed: bool
) -> None:
    kind = glimmer if fmt == "muse_glimmer" else spark
    # (the blanks before a bare header are the header's)
    a = "a " if framed else "a"
    text = "a " + msg(to, "hello to=x there", framed=framed) + "b"
    expected = {
        "reasoning": [("text", a), ("reasoning", "hello to=x there"), ("text", "b")],
        "text": [("text", a + "hello to=x thereb")],
        "dropped": [("text", a + "b")],
        # a tool channel whose body is not ATEM: its body is text, the frames markup
        "tool": [("text", a + "hello to=x thereb")],
    }[kind]
    assert read(fmt, text) == expected
    # the reasoning parser alone hands a tool channel's message on, frames and all
    alone = testing.check_chunkings(lambda: reasoning_parser(fmt), text)
    if kind == "tool":
        assert alone == [("text", text)]
    else:
        assert alone == expected


@pytest.mark.parametrize("fmt", ALL)
@pytest.mark.parametrize("to", ["self", "user", "commentary", "developer", None])
def test_atem_outside_a_tool_channel_is_that_messages_text(fmt: str, to: str | None) -> None:
    block = atem("get_weather", city="Paris")
    items = read(fmt, msg(to, f"Like this: {block}"))
    kind = dict((r, (s, g)) for r, s, g in CHANNELS)[to][fmt == "muse_glimmer"]
    if kind == "tool":  # (Glimmer's commentary and developer are tool channels)
        assert items[0] == ("text", "Like this: ")
        assert calls_of(items) == [("get_weather", {"city": "Paris"})]
    elif kind == "dropped":
        assert items == []
    else:
        assert items == [(kind, f"Like this: {block}")]


@pytest.mark.parametrize("fmt", ALL)
def test_unframed_atem_is_text(fmt: str) -> None:
    block = atem("get_weather", city="Paris")
    assert read(fmt, block) == [("text", block)]
    assert read(fmt, "Sure. " + block + "<|eot|>") == [("text", "Sure. " + block)]


@pytest.mark.parametrize("fmt", ALL)
def test_a_conversation(fmt: str) -> None:
    text = (
        msg("self", "Two cities.", framed=False)
        + msg("user", "Checking.")
        + msg("get_weather", atem("get_weather", city="Paris"))
        + msg("get_weather.get_weather", atem("get_weather.get_weather", city="Tokyo", days="3"))
        + msg("user", "Done.", "<|eot|>")
    )
    items = read(fmt, text, [WEATHER])
    assert items == [
        ("reasoning", "Two cities."),
        ("text", "Checking."),
        ("call", testing.Call(0, "call_0", "get_weather", '{"city":"Paris"}')),
        ("call", testing.Call(1, "call_1", "get_weather", '{"city":"Tokyo","days":3}')),
        ("text", "Done."),
    ]


@pytest.mark.parametrize("fmt", ALL)
def test_several_invokes_in_one_message_and_a_bare_invoke(fmt: str) -> None:
    two = (
        '<atem:function_calls><atem:invoke name="a"><atem:parameter name="x">1'
        '</atem:parameter></atem:invoke><atem:invoke name="b"></atem:invoke>'
        "</atem:function_calls>"
    )
    bare = '<atem:invoke name="c"><atem:parameter name="y">z</atem:parameter></atem:invoke>'
    items = read(fmt, msg("t.a", two) + msg("t.c", bare, "<|eot|>"))
    assert calls_of(items) == [("a", {"x": 1}), ("b", {}), ("c", {"y": "z"})]
    assert summary(items)[0] == ""


@pytest.mark.parametrize("fmt", ALL)
def test_prompt_opened_starts_in_reasoning(fmt: str) -> None:
    r = reasoning_parser(fmt, prompt_opened=True)
    assert r.in_reasoning
    got = testing.coalesce(testing.run(r, ["Thinking.<|eom|>", msg("user", "Hi.", "<|eot|>")]))
    assert got == [("reasoning", "Thinking."), ("text", "Hi.")]
    assert not reasoning_parser(fmt).in_reasoning


# -- names ----------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ALL)
@pytest.mark.parametrize(
    ("written", "tools", "name"),
    [
        ("get_weather.get_weather", ["get_weather"], "get_weather"),
        ("get_weather.get_weather", [], "get_weather.get_weather"),  # not a tool: kept
        (
            "get_weather.get_weather",
            ["get_weather.get_weather", "get_weather"],
            "get_weather.get_weather",
        ),
        ("weather.get", ["weather.get", "weather"], "weather.get"),
        ("weather.weather.weather", ["weather"], "weather.weather.weather"),
        ("get_weather", ["other"], "get_weather"),
    ],
)
def test_a_doubled_name_of_a_tool_is_the_tools_name(
    fmt: str, written: str, tools: list[str], name: str
) -> None:
    schemas = [typed_tool(t) for t in tools]
    items = read(fmt, msg(written, atem(written, k="v")), schemas)
    assert calls_of(items) == [(name, {"k": "v"})]


# -- values ---------------------------------------------------------------------------------

VALUES = [
    # (written, untyped: JSON when it loads, else the raw string)
    ("hello world", "hello world"),
    ("42", 42),
    ("-1.5", -1.5),
    ("true", True),
    ("null", None),
    ('{"a": [1, {"b": null}]}', {"a": [1, {"b": None}]}),
    ("[1, 2]", [1, 2]),
    ('"quoted"', "quoted"),  # one JSON string: that string
    ('"a" and "b"', '"a" and "b"'),  # not one: raw
    ('"\\u00e9\\n"', "é\n"),
    ("line1\nline2\n", "line1\nline2\n"),  # byte-exact, no newline stripped
    ("\n  indented\n", "\n  indented\n"),
    ("12abc", "12abc"),
    ("truely", "truely"),
    ("NaN", "NaN"),
    ("-Infinity", "-Infinity"),
    ("", ""),
    (" 42", " 42"),  # JSON only as written (vLLM's json.loads would skip the blank)
]


@pytest.mark.parametrize("fmt", ALL)
@pytest.mark.parametrize(("written", "value"), VALUES)
def test_untyped_values_are_json_when_they_load(fmt: str, written: str, value: Any) -> None:
    items = read(fmt, msg("f", atem("f", v=written)))
    assert calls_of(items) == [("f", {"v": value})]


@pytest.mark.parametrize(
    ("written", "spark", "glimmer"),
    [
        ("42", "42", 42),
        ("true", "true", True),
        ('"x"', '"x"', "x"),
        ('{"a": 1}', '{"a": 1}', {"a": 1}),
        ("Paris", "Paris", "Paris"),
    ],
)
def test_spark_keeps_a_string_typed_key_raw(written: str, spark: Any, glimmer: Any) -> None:
    tools = [typed_tool("f", s="string", n="integer")]
    text = msg("f", atem("f", s=written, n=written))
    for fmt in SPARK:
        assert calls_of(read(fmt, text, tools)) == [("f", {"s": spark, "n": glimmer})]
    # Glimmer's schema types nothing: every value is JSON when it loads
    assert calls_of(read("muse_glimmer", text, tools)) == [("f", {"s": glimmer, "n": glimmer})]


def test_a_nullable_string_key_is_null_or_raw_in_spark() -> None:
    nullable = {"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"s": {"type": ["string", "null"]}}}}}  # fmt: skip
    for written, value in [("null", None), ("42", "42"), ("x", "x")]:
        assert calls_of(read("muse", msg("f", atem("f", s=written)), [nullable])) == [
            ("f", {"s": value})
        ]


# -- streaming --------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ALL)
def test_a_long_string_value_streams_before_its_closer(fmt: str) -> None:
    head = msg("self", "Plan.", framed=False) + S + " to=write<|message|><atem:function_calls>\n"
    head += '<atem:invoke name="write">\n<atem:parameter name="text">'
    words = [f"word{i} " for i in range(40)]
    tail = "</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|eom|>"
    for make in (lambda: tool_parser(fmt), pair(fmt)):
        p = make()
        p.feed(head)
        seen = ""
        for w in words:
            for ev in p.feed(w):
                if isinstance(ev, ToolCallArgs):
                    seen += ev.delta
        assert "word38" in seen  # streamed before the closer came
        end = p.feed(tail) + p.finish()
        (last,) = [e for e in end if isinstance(e, ToolCallEnd)]
        assert json.loads(last.arguments) == {"text": "".join(words)}


@pytest.mark.parametrize("fmt", ALL)
def test_reasoning_and_text_stream_before_their_terminator(fmt: str) -> None:
    p = output_parser(tool_format=fmt, reasoning_format=fmt)
    assert p.feed(" to=self<|message|>Let me think") == [Reasoning("Let me think")]
    assert p.feed(" about it") == [Reasoning(" about i")]  # 't' may still be 'to=...'
    assert p.feed(" ") == [Reasoning("t")]  # ' ' may still begin ' to=NAME<|message|>'
    assert p.feed("now.<|eom|>") == [Reasoning(" now.")]
    assert p.feed(S + " to=user<|message|>The answer") == [Text("The answer")]
    assert p.feed(" is 42") == [Text(" is 42")]
    assert p.finish() == []


# -- framing edge cases ------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ALL)
def test_a_message_left_without_its_terminator(fmt: str) -> None:
    """A bare ``to=NAME<|message|>`` (or a framed header) ends the body it follows."""
    call = atem("weather.get", city="Paris")
    items = read(fmt, " to=self<|message|>calling now to=weather.get<|message|>" + call)
    assert items[0] == ("reasoning", "calling now")
    assert calls_of(items) == [("weather.get", {"city": "Paris"})]
    # a tool message cut short by the next message's header
    text = msg("f", atem("f", a="1"), "") + msg("user", "Done.", "") + msg("g", atem("g"), "")
    items = read(fmt, text + msg("self", "hmm", "") + msg("user", "ok", "<|eot|>"))
    assert calls_of(items) == [("f", {"a": 1}), ("g", {})]
    assert summary(items)[0] == "Done.ok"


@pytest.mark.parametrize("fmt", ALL)
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # prose with to= is no header unless <|message|> follows
        (" to=self<|message|>set x to=5 and to=<|eom|>", [("reasoning", "set x to=5 and to=")]),
        # 'to=' with no name before <|message|>: the header has no recipient
        ("a to=<|message|>b", None),
        # at most 16 blanks before a bare header are markup; the rest are text
        ("x" + " " * 20 + "to=user<|message|>y", [("text", "x    y")]),
        # a stray terminator outside a message is dropped
        ("a<|eot|>b<|eom|>", [("text", "ab")]),
        # a <|start|> that opens no header is text of the body it is in
        (msg("user", "a<|start|>b"), [("text", "a<|start|>b")]),
        (msg("user", "a<|start|>user"), [("text", "a<|start|>user")]),
        ("<|start|>assistant to=user", [("text", "<|start|>assistant to=user")]),
        # a framed header may not hold a terminator
        (msg("user", "a<|start|>b<|eot|> to=user<|message|>c"), [("text", "a<|start|>bc")]),
    ],
)
def test_framing_edge_cases(fmt: str, text: str, expected: list[testing.Item] | None) -> None:
    items = read(fmt, text)
    if expected is None:  # what a header with no recipient is depends on the format
        kind = "text" if fmt == "muse_glimmer" else "reasoning"
        expected = [("text", "a to="), (kind, "b")] if kind == "reasoning" else [("text", "a to=b")]
    assert items == expected


@pytest.mark.parametrize("fmt", ALL)
def test_a_long_recipient_is_no_recipient(fmt: str) -> None:
    name = "n" * 300
    items = read(fmt, f"x to={name}<|message|>y")
    if fmt == "muse_glimmer":  # a header with no recipient: text
        assert items == [("text", f"x to={name}y")]
    else:
        assert items == [("text", f"x to={name}"), ("reasoning", "y")]
    ok = "n" * 256
    assert read(fmt, f"x to={ok}<|message|>y<|eot|>z") == [("text", "xyz")]


@pytest.mark.parametrize("fmt", ALL)
def test_a_header_past_its_bound_is_text(fmt: str) -> None:
    long = S + " " * 600 + "to=user<|message|>hi"
    items = read(fmt, long)
    assert summary(items)[0].startswith(S)


# -- malformed and cut-off input -------------------------------------------------------------

CONVERSATION = (
    " to=self<|message|>Weather for two; to=x is prose.<|eom|>"
    + msg("user", "One moment.")
    + msg("get_weather.get_weather", atem("get_weather.get_weather", city="Paris", days="2"))
    + msg("developer", "note")
    + msg("get_weather", atem("get_weather", city='"Oslo"'), "<|eot|>")
)


@pytest.mark.parametrize("fmt", ALL)
def test_every_prefix_keeps_the_contract(fmt: str) -> None:
    """Every prefix, as a whole stream: the contract holds, calls cut off are incomplete,
    and the pair reads it as the tool parser alone does."""
    for end in range(len(CONVERSATION) + 1):
        text = CONVERSATION[:end]
        items = check_contract(fmt, text, tools=[WEATHER])
        both = testing.check_chunkings(pair(fmt, [WEATHER]), text)
        assert both == testing.drop_framing_blanks(items), text
        for _, v in items:
            if isinstance(v, testing.Call) and not v.incomplete:
                assert v.name == "get_weather"


@pytest.mark.parametrize("fmt", ALL)
@pytest.mark.parametrize(
    "body",
    [
        '<atem:function_calls><atem:invoke name="f"><atem:parameter name="a">1',
        '<atem:function_calls><atem:invoke name="f"><atem:parameter name=',
        '<atem:function_calls><atem:invoke name="f">junk</atem:invoke>',
        "<atem:function_calls>junk",
        '<atem:invoke name="f"><atem:parameter name="a">x</atem:parameter>',
        "</atem:invoke></atem:function_calls>",
    ],
)
@pytest.mark.parametrize("end", ["<|eom|>", "<|start|>assistant to=user<|message|>ok", ""])
def test_malformed_tool_bodies_degrade(fmt: str, body: str, end: str) -> None:
    text = msg("f", body, end)
    items = read(fmt, text)
    check_contract(fmt, text)
    for _, v in items:
        if isinstance(v, testing.Call):
            assert v.name == "f"
            assert isinstance(json.loads(v.arguments), dict)


# -- random conversations ---------------------------------------------------------------------

recipients = st.sampled_from(
    [None, "self", "user", "commentary", "developer", "get_weather", "get_weather.get_weather",
     "math.add", "x"]
)  # fmt: skip
prose = st.lists(
    st.sampled_from(
        ["hello", " ", "to=", "to=x", " to", "t", "\n", "<", "<|", "<|start|>", "é", "  ",
         '"q"', "atem", "42", "<atem:function_calls>"]
    ),
    max_size=6,
).map("".join)  # fmt: skip
values = st.sampled_from(["Paris", "42", "true", '"q"', "line\n", "", "a to=b", "[1, 2]", " x "])
params = st.dictionaries(st.sampled_from(["city", "days", "k"]), values, max_size=3)


@st.composite
def bodies(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["prose", "atem", "atem", "cut"]))
    if kind == "prose":
        return draw(prose)
    name = draw(st.sampled_from(["get_weather", "get_weather.get_weather", "math.add"]))
    block = atem(name, **draw(params))
    if kind == "cut":
        return block[: draw(st.integers(0, len(block)))]
    return draw(prose) + block + draw(prose)


@st.composite
def conversations(draw: st.DrawFn) -> str:
    parts = [draw(prose)]
    for _ in range(draw(st.integers(0, 4))):
        to = draw(recipients)
        style = draw(st.sampled_from(["framed", "bare", "glued"]))
        header = {"framed": S + (f" to={to}" if to else ""), "bare": f" to={to}" if to else " ",
                  "glued": f"to={to}" if to else ""}[style]  # fmt: skip
        end = draw(st.sampled_from(["<|eom|>", "<|eot|>", "", "<|eot|>" + draw(prose)]))
        parts.append(header + "<|message|>" + draw(bodies()) + end)
    return "".join(parts)


@pytest.mark.parametrize("fmt", ALL)
@given(data=st.data(), text=conversations())
def test_random_conversations(fmt: str, data: st.DataObject, text: str) -> None:
    """The contract in random chunkings, and the pair reads as the tool parser alone."""
    tools = [WEATHER]
    items = check_contract(fmt, text, data, tools)
    chunkings = random_chunkings(data, text)
    both = testing.check_chunkings(pair(fmt, tools), text, chunkings)
    assert both == testing.drop_framing_blanks(items)
    reasoning_only = testing.check_chunkings(lambda: reasoning_parser(fmt), text, chunkings)
    assert "".join(v for k, v in reasoning_only if k == "reasoning" and isinstance(v, str)) == (
        "".join(v for k, v in items if k == "reasoning" and isinstance(v, str))
    )


@pytest.mark.parametrize("fmt", ALL)
@given(data=st.data())
def test_rendered_calls_with_reasoning_and_text_around(fmt: str, data: st.DataObject) -> None:
    from support import calls as call_lists
    from support import same, schema_for

    call_list = data.draw(call_lists)
    by_name: dict[str, dict[str, Any]] = {}
    for name, args in call_list:
        by_name.setdefault(name, {}).update(args)
    call_list = [(name, by_name[name]) for name, _ in call_list]
    tools = schema_for(call_list)
    from streamcall.formats.registry import parser_class

    rendered = parser_class(fmt).render(call_list)
    text = (
        msg("self", "Thinking about it.", framed=False) + rendered + msg("user", "Done.", "<|eot|>")
    )
    items = check_format(fmt, text, data, tools)
    assert testing.check_chunkings(pair(fmt, tools), text, random_chunkings(data, text)) == (
        testing.drop_framing_blanks(items)
    )
    content, got = summary(items)
    assert content == "Done."
    assert items[0] == ("reasoning", "Thinking about it.")
    assert [n for n, _ in got] == [n for n, _ in call_list]
    for (_, g), (_, w) in zip(got, call_list, strict=True):
        assert same(g, w), (g, w)
