"""The three core formats (hermes, granite4, gemma4) against the contract.

Property tests render random calls in each format, with random text around them, and
check that every chunking parses back to exactly those calls and that text.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from streamcall import ToolCallArgs, ToolCallEnd, ToolCallStart, testing
from streamcall.formats.registry import parse_tool_calls, tool_parser
from support import check_format, summary

# --- generated documents ----------------------------------------------------------------

keys = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)
plain_text = st.text(alphabet=st.sampled_from(list("ab <>|{}[]\"':,\\\n_tolcaé中😀")), max_size=30)
floats = st.floats(allow_nan=False, allow_infinity=False).filter(
    lambda f: "." in repr(f) and "e" not in repr(f)
)
scalars = st.none() | st.booleans() | st.integers(-(10**12), 10**12) | floats | st.text(max_size=20)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=12,
)
arguments = st.dictionaries(keys, json_values, max_size=5)
names = st.from_regex(r"[a-z_][a-z0-9_]{0,12}", fullmatch=True)


def gemma_value(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return f'<|"|>{value}<|"|>'
    if isinstance(value, list):
        return "[" + ",".join(gemma_value(v) for v in value) + "]"
    return "{" + ",".join(f"{k}:{gemma_value(v)}" for k, v in value.items()) + "}"


def render(fmt: str, name: str, args: dict[str, Any], style: int) -> str:
    if fmt == "gemma4":
        return f"<|tool_call>call:{name}{gemma_value(args)}<tool_call|>"
    if fmt == "granite4" and style % 2:
        body = json.dumps({"name": name, "arguments": json.dumps(args)})
    elif style % 3 == 2:
        body = json.dumps({"arguments": args, "name": name}, indent=1)
    else:
        body = json.dumps({"name": name, "arguments": args}, ensure_ascii=bool(style % 2))
    pad = "\n" if style % 2 else " "
    return f"<tool_call>{pad}{body}{pad}</tool_call>"


def same_value(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, int | float) and isinstance(b, int | float) and math.isclose(a, b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b) and type(a) is type(b)


segments = st.lists(
    st.tuples(plain_text, st.none() | st.tuples(names, arguments, st.integers(0, 5))),
    min_size=1,
    max_size=4,
)


@pytest.mark.parametrize("fmt", ["hermes", "granite4", "gemma4"])
@given(data=st.data(), parts=segments)
def test_rendered_calls_parse_back_in_any_chunking(
    fmt: str, data: st.DataObject, parts: list[Any]
) -> None:
    # Text between calls, grouped; whitespace alone after a call is markup and dropped.
    groups: list[str] = [""]
    expected_calls, doc = [], []
    for text, call in parts:
        assume("<tool_call>" not in text and "<|tool_call>" not in text)
        groups[-1] += text
        doc.append(text)
        if call is not None:
            name, args, style = call
            if fmt == "gemma4":
                assume(all('<|"|>' not in s for s in _strings(args)))
            doc.append(render(fmt, name, args, style))
            expected_calls.append((name, args))
            groups.append("")
    source = "".join(doc)
    items = check_format(fmt, source, data)
    text, calls = summary(items)
    assert text == groups[0] + "".join(g for g in groups[1:] if g.strip())
    assert [n for n, _ in calls] == [n for n, _ in expected_calls]
    for (_, got), (_, want) in zip(calls, expected_calls, strict=True):
        assert same_value(got, want), (got, want)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *_strings(v)]]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


# --- a corpus of hand-written cases, malformed ones included -----------------------------

CORPUS: dict[str, list[str]] = {
    "hermes": [
        'Hi <tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
        '<tool_call>{"name": "a", "arguments": {}}</tool_call>\n<tool_call>{"name": "b", "arguments": {"x": [1, 2.5e3, -0.5, null, true, false, "\\u00e9\\ud83d\\ude00"]}}</tool_call> tail',
        '<tool_call>{"name": "no_args"}</tool_call>',
        '<tool_call>{"name": "nulled", "arguments": null}</tool_call>',
        '<tool_call>{"arguments": {"q": 1}, "name": "late"}</tool_call>',
        '<tool_call>[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"k": "v"}}]</tool_call>',
        '<tool_call>{"name": "f", "arguments": {"a": tru',
        '<tool_call>{"name": "f", "arguments": {"a": "cut \\u12',
        '<tool_call>{"name": "f", "arguments": {"a": 1}',
        '<tool_call>{"name": "f", "argu',
        "<tool_call>not json at all</tool_call> and text",
        '<tool_call>{"name": 5, "arguments": {}}</tool_call>',
        '<tool_call>{"name": "f", "arguments": [1, 2]}</tool_call>',
        '<tool_call>{"name": "f", "arguments": {"a": 01}}</tool_call>',
        '<tool_call>{"name": "f", "arguments": {"a": "raw\ttab\nnewline"}}</tool_call>',
        '<tool_call>{"name": "f", "arguments": {"a": 1}} trailing junk </tool_call>',
        "text with < and <tool and <tool_call but no call",
        "<tool_call>",
        "<tool_call></tool_call>",
        '<tool_call>{"name": "f", "arguments": "{\\"a\\": 1}"}</tool_call>',
    ],
    "granite4": [
        '<tool_call>{"name": "get_current_weather", "arguments": {"city": "Boston"}}</tool_call>',
        '<tool_call>{"name": "get_current_weather", "arguments": "{\\"city\\": \\"Boston\\"}"}</tool_call>',
        ' <tool_call> {"name": "spaced", "arguments": {"a": 1}} </tool_call> ',
        'Let me check. <tool_call>{"name": "a", "arguments": {"x": 1}}</tool_call> and '
        '<tool_call>{"name": "b", "arguments": "{\\"y\\": [2, \\"\\\\u00e9\\"]}"}</tool_call> done',
        '<tool_call>{"name": "bad", "arguments": 42}</tool_call>',
        '<tool_call>{"name": "bad", "arguments": "not json"}</tool_call>',
        '<tool_call>{"name": "bad", "arguments": "{\\"a\\": 1"}</tool_call>',
        '<tool_call>{"name": "cut", "arguments": "{\\"a\\": \\"b',
        '<tool_call>{"name": "emoji", "arguments": "{\\"e\\": \\"\\\\ud83d\\\\ude00\\"}"}</tool_call>',
        '<tool_call>{"name": "empty", "arguments": ""}</tool_call>',
        '<tool_call>{"name": "junk", "arguments": "{\\"a\\": 1} trailing"}</tool_call>',
        # a bad escape in the outer string, before and after the object began, and a
        # high surrogate before it (a chunking once changed whether the call started)
        '<tool_call>{"name": "esc", "arguments": "{\\"s\\": \\q\\"}"} </tool_call> after',
        '<tool_call>{"name": "esc", "arguments": "\\q{\\"s\\": 1}"}</tool_call>',
        '<tool_call>{"name": "esc", "arguments": "{\\"s\\": \\"\\ud83d\\q"}</tool_call>',
        '<tool_call>{"name": "cut", "arguments": "{\\"s\\": \\',
        # the string closes before its object: once closed twice (arguments '{"k": 1}}')
        '<tool_call> {"name": "f", "arguments": "{\\"k\\": 1"',
        '<tool_call> {"name": "f", "arguments": "{"\\"k\\": 1}"} </tool_call> after',
        # many small members, then a cut one (the members shortcut holds it whole)
        '<tool_call> {"name": "m", "arguments": "{\\"k0\\": 0, \\"k1\\": true, '
        '\\"k2\\": \\"v\\", \\"k3\\": null, \\"k4\\": -1.5e3, \\"k5\\": 12',
        '<tool_call> {"name": "m", "arguments": "{\\"k0\\": 0, \\"k1\\": 01, '
        '\\"k2\\": tru, \\"k3\\": \\"v\\"}"} </tool_call>',
    ],
    "gemma4": [
        '<|tool_call>call:get_weather{location:<|"|>Paris<|"|>,unit:<|"|>celsius<|"|>}<tool_call|>',
        "<|tool_call>call:f{i:42,f:3.14,t:true,n:None,N:NULL,x:nil,s:hello world,neg:-7}<tool_call|>",
        '<|tool_call>call:f{o:{a:1,b:[1,2,{c:<|"|>d<|"|>}]},e:[],eo:{},}<tool_call|>',
        '<|tool_call>call:f{html:<|"|><p>a}b<tool_call|>c</p><|"|>}<tool_call|> after',
        "<|tool_call>call:a{}<tool_call|><|tool_call>call:b{k:1}<tool_call|>",
        "<|tool_call>call:f{a:1",
        '<|tool_call>call:f{a:<|"|>open string',
        "<|tool_call>call:f{a:1<tool_call|>text",
        "<|tool_call>garbage that is not a header",
        "<|tool_call>call:f{:1}<tool_call|>",
        '<|tool_call>call:f{<|"|>quoted key<|"|>:1}<tool_call|>',
        "<|tool_call>call:f{a:,b:1}<tool_call|>",
        "<|tool_call>call:f{a:1}junk after",
        "plain < text <| with <|tool and no call",
    ],
}


@pytest.mark.parametrize(
    ("fmt", "text"), [(fmt, text) for fmt, texts in CORPUS.items() for text in texts]
)
@given(data=st.data())
def test_corpus_in_any_chunking(fmt: str, text: str, data: st.DataObject) -> None:
    check_format(fmt, text, data)


@pytest.mark.parametrize(
    ("fmt", "text"), [(fmt, text) for fmt, texts in CORPUS.items() for text in texts]
)
def test_corpus_every_two_way_split(fmt: str, text: str) -> None:
    """Every single cut point, exhaustively."""
    whole = testing.coalesce(testing.run(tool_parser(fmt), [text]))
    for cut in range(1, len(text)):
        pieces = [text[:cut], text[cut:]]
        assert testing.coalesce(testing.run(tool_parser(fmt), pieces)) == whole, cut


# --- malformed input degrades to text, and nothing is lost -------------------------------


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("hermes", "<tool_call>not json at all</tool_call> and text"),
        ("hermes", '<tool_call>{"name": 5, "arguments": {}}</tool_call>'),
        ("hermes", '<tool_call>{"name": "f", "arguments": [1, 2]}</tool_call>'),
        ("granite4", '<tool_call>{"name": "bad", "arguments": 42}</tool_call>'),
        ("granite4", '<tool_call>{"name": "bad", "arguments": "not json"}</tool_call>'),
        ("gemma4", "<|tool_call>garbage that is not a header"),
        ("gemma4", "plain < text <| with <|tool and no call"),
        ("hermes", "<tool_call>"),
    ],
)
def test_malformed_markup_is_text_whole(fmt: str, text: str) -> None:
    parsed = parse_tool_calls(text, fmt)
    assert parsed.tool_calls == []
    assert parsed.content == text


def test_markup_breaking_after_the_call_started_closes_it_and_keeps_the_rest() -> None:
    text = '<tool_call>{"name": "f", "arguments": {"a": 01}}</tool_call>'
    parsed = parse_tool_calls(text, "hermes")
    assert [(c.name, c.args, c.incomplete) for c in parsed.tool_calls] == [("f", {"a": 0}, True)]
    assert parsed.content == "1}}</tool_call>"


def test_raw_control_characters_in_strings_are_escaped() -> None:
    text = '<tool_call>{"name": "f", "arguments": {"a": "raw\ttab\nnewline"}}</tool_call>'
    (call,) = parse_tool_calls(text, "hermes").tool_calls
    assert call.arguments == '{"a": "raw\\ttab\\nnewline"}'
    assert call.args == {"a": "raw\ttab\nnewline"}


def test_hermes_parameterless_call_gets_empty_object() -> None:
    # vLLM #28806: hermes dropped the empty {} of a parameterless tool.
    for text in (
        '<tool_call>{"name": "ping"}</tool_call>',
        '<tool_call>{"name": "ping", "arguments": {}}</tool_call>',
        '<tool_call>{"name": "ping", "arguments": null}</tool_call>',
    ):
        (call,) = parse_tool_calls(text, "hermes").tool_calls
        assert (call.name, call.arguments) == ("ping", "{}")


def test_arguments_before_name_are_held_then_released() -> None:
    p = tool_parser("hermes")
    events = p.feed('<tool_call>{"arguments": {"q": "x"}, ')
    assert not any(isinstance(e, ToolCallStart) for e in events)
    events = p.feed('"name": "search"}</tool_call>')
    assert [type(e) for e in events] == [ToolCallStart, ToolCallArgs, ToolCallEnd]
    assert events[2] == ToolCallEnd(0, '{"q": "x"}')


def test_several_calls_in_one_chunk() -> None:
    # SGLang #37634: several complete calls in one delta lost their arguments.
    text = "".join(
        f'<tool_call>{{"name": "f{i}", "arguments": {{"i": {i}}}}}</tool_call>' for i in range(5)
    )
    p = tool_parser("hermes")
    calls = [e for e in p.feed(text) if isinstance(e, ToolCallEnd)]
    assert [json.loads(c.arguments) for c in calls] == [{"i": i} for i in range(5)]


def test_ids_are_unique_and_prefixable() -> None:
    text = '<tool_call>{"name": "a"}</tool_call><tool_call>{"name": "b"}</tool_call>'
    p = tool_parser("hermes", id_prefix="call_req42_")
    starts = [e for e in testing.run(p, [text]) if isinstance(e, ToolCallStart)]
    assert [s.id for s in starts] == ["call_req42_0", "call_req42_1"]
