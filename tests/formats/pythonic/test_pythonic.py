"""``pythonic`` and ``llama4_pythonic``: vLLM's cases in every chunking, plus the literal
scanner's edges.

Fixture strings marked "vLLM" are copied from vllm-project/vllm
``tests/tool_parsers/test_pythonic_tool_parser.py`` and
``tests/tool_parsers/test_llama4_pythonic_tool_parser.py`` (Apache-2.0). Expected
arguments are compared as parsed JSON (streamcall writes compact JSON).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pythonic_cases import (
    EMPTY_DICT,
    EMPTY_LIST,
    ESCAPED,
    ESCAPED_ARGS,
    MORE_TYPES,
    MORE_TYPES_ARGS,
    PARAMETERLESS,
    SIMPLE,
    SIMPLE_ARGS,
)

from streamcall import testing
from streamcall.formats.registry import tool_parser
from support import check_format, summary

# --- vLLM fixtures ---------------------------------------------------------------------

Case = tuple[str, str, list[tuple[str, dict[str, Any]]]]

PYTHONIC: list[Case] = [
    ("How can I help you today?", "How can I help you today?", []),  # vLLM test_no_tool_call
    (f"[{SIMPLE}]", "", [("get_weather", SIMPLE_ARGS)]),
    (f"[{MORE_TYPES}]", "", [("register_user", MORE_TYPES_ARGS)]),
    (f"[{PARAMETERLESS}]", "", [("get_weather", {})]),
    (f"[{EMPTY_DICT}]", "", [("do_something_cool", {"additional_data": {}})]),
    (f"[{EMPTY_LIST}]", "", [("do_something_cool", {"steps": []})]),
    (f"[{ESCAPED}]", "", [("get_weather", ESCAPED_ARGS)]),
    (
        f"[{SIMPLE}, {MORE_TYPES}]",
        "",
        [("get_weather", SIMPLE_ARGS), ("register_user", MORE_TYPES_ARGS)],
    ),
    # vLLM test_streaming_tool_call_with_large_steps
    (
        f"[get_weather(city='San Francisco', metric='celsius'), {PARAMETERLESS}, {EMPTY_LIST}]",
        "",
        [("get_weather", SIMPLE_ARGS), ("get_weather", {}), ("do_something_cool", {"steps": []})],
    ),
    # vLLM test_bad_sibling_call_does_not_drop_good_calls: vLLM drops bad(); kept here
    (f"[bad(x=b'z'), {SIMPLE}]", "", [("bad", {"x": "z"}), ("get_weather", SIMPLE_ARGS)]),
    # vLLM test_regex_timeout_handling input: not a call list, so all text
    ("hello world[A(A=" + "\t)A(A=,\t" * 2, "hello world[A(A=" + "\t)A(A=,\t" * 2, []),
    # text after the list is text; a list that is not calls is text
    (f"[{SIMPLE}]\nDone.", "\nDone.", [("get_weather", SIMPLE_ARGS)]),
    ("[1, 2] and [Note] are lists", "[1, 2] and [Note] are lists", []),
    (f"  [{PARAMETERLESS}]", "  ", [("get_weather", {})]),
    (f"Sure. [{SIMPLE}]", f"Sure. [{SIMPLE}]", []),  # must be the whole output
]

LLAMA4: list[Case] = [
    ("How can I help you today?", "How can I help you today?", []),
    ("[get_weather(city='LA', metric='C')]", "", [("get_weather", {"city": "LA", "metric": "C"})]),
    (
        "<|python_start|>[get_weather(city='LA', metric='C')]<|python_end|>",
        "",
        [("get_weather", {"city": "LA", "metric": "C"})],
    ),
    (
        "<|python_start|>[get_weather(city='LA', metric='C'),register_user(name='Doe', age=9)]",
        "",
        [
            ("get_weather", {"city": "LA", "metric": "C"}),
            ("register_user", {"name": "Doe", "age": 9}),
        ],
    ),
    (
        "[get_weather(city='LA',metric='C'),register_user(name='Doe',age=9)]",
        "",
        [
            ("get_weather", {"city": "LA", "metric": "C"}),
            ("register_user", {"name": "Doe", "age": 9}),
        ],
    ),
    (
        "<|python_start|>[get_weather(city='LA', metric='C'), get_weather(), "
        "do_something_cool(steps=[])]<|python_end|>",
        "",
        [
            ("get_weather", {"city": "LA", "metric": "C"}),
            ("get_weather", {}),
            ("do_something_cool", {"steps": []}),
        ],
    ),
    # streamcall: the marker is recognised after text, and text follows the block
    (
        "Let me look. <|python_start|>[f(a=1)]<|python_end|> Done.",
        "Let me look.  Done.",
        [("f", {"a": 1})],
    ),
]

# The literal scanner: what Python writes, converted to JSON.
LITERALS: list[Case] = [
    (
        "[f(t=(1, 2), one=(1,), s={'a', 'b'}, d={1: 'x', True: None, None: 2.5}, e={}, "
        "n=-3, h=0x1F, o=0o17, b=0b101, u=1_000, z=007, dot=1., lead=.5, pos=+2, "
        "big=1e999, exp=1e-05)]",
        "",
        [
            (
                "f",
                {
                    "t": [1, 2],
                    "one": [1],
                    "s": ["a", "b"],
                    "d": {"1": "x", "true": None, "null": 2.5},
                    "e": {},
                    "n": -3,
                    "h": 31,
                    "o": 15,
                    "b": 5,
                    "u": 1000,
                    "z": 7,
                    "dot": 1.0,
                    "lead": 0.5,
                    "pos": 2,
                    "big": float("inf"),
                    "exp": 1e-05,
                },
            )
        ],
    ),
    (
        r"""[f(a="dq 'x'", b='''tri'ple "q"''', c=r'raw\n\'', d=b'\x41\101', """
        r"""e='\x41\u00e9\U0001F600\N{SNOWMAN}\ud83d\ude00\q\
cont', g=u"\t", h=f'{x}')]""",
        "",
        [
            (
                "f",
                {
                    "a": "dq 'x'",
                    "b": 'tri\'ple "q"',
                    "c": "raw\\n\\'",
                    "d": "AA",
                    "e": "Aé😀☃😀\\qcont",
                    "g": "\t",
                    "h": "{x}",
                },
            )
        ],
    ),
    # nested containers, trailing commas, whitespace and newlines inside the call
    (
        "[f(\n  a=[1, [2, {'k': [3,]},],],\n  b={'x': {'y': ()}},\n)]",
        "",
        [("f", {"a": [1, [2, {"k": [3]}]], "b": {"x": {"y": []}}})],
    ),
    # positional arguments without a schema are keyed by position
    ("[search('cats', 5, lang='en')]", "", [("search", {"_0": "cats", "_1": 5, "lang": "en"})]),
    # dotted names
    ("[a.b.c(x=1)]", "", [("a.b.c", {"x": 1})]),
]

MALFORMED = [
    "[f(a=x)]",  # a bare name
    "[f(a=1",  # cut off
    "[f(a='open string",
    "[f(a={'k': [1, 2",
    "[f(a=1) g(b=2)]",
    "[f(**kw)]",
    "[f(a=1)",
    "[foo(x=1])]",  # vLLM test_streaming_mismatched_brackets_reported_once
    "[f(a=1j)]",
    "[f(a='x\\",
    "[f(a={'k'",
    "[f(a={1, 2",
    "[f(a=1), ]",
    "[",
    "[f",
    "[f(",
    "[f(a",
    "[f(a=",
    "[f(a=''",
]


def _check(fmt: str, case: Case, data: st.DataObject) -> None:
    text, content, calls = case
    got_content, got_calls = summary(check_format(fmt, text, data))
    assert got_content == content
    assert got_calls == calls


@pytest.mark.parametrize("case", PYTHONIC + LITERALS)
@given(data=st.data())
def test_pythonic_cases_in_any_chunking(case: Case, data: st.DataObject) -> None:
    _check("pythonic", case, data)


@pytest.mark.parametrize("case", LLAMA4)
@given(data=st.data())
def test_llama4_pythonic_cases_in_any_chunking(case: Case, data: st.DataObject) -> None:
    _check("llama4_pythonic", case, data)


@pytest.mark.parametrize("text", MALFORMED)
@given(data=st.data())
def test_malformed_never_loses_text(text: str, data: st.DataObject) -> None:
    check_format("pythonic", text, data)


@pytest.mark.parametrize("text", MALFORMED + [c[0] for c in LITERALS])
def test_every_two_way_split(text: str) -> None:
    whole = testing.coalesce(testing.run(tool_parser("pythonic"), [text]))
    for cut in range(1, len(text)):
        pieces = [text[:cut], text[cut:]]
        assert testing.coalesce(testing.run(tool_parser("pythonic"), pieces)) == whole, cut


def test_cut_call_ends_incomplete_with_closed_json() -> None:
    items = check_format("pythonic", "[f(a={'k': [1, 'tw")
    call = items[0][1]
    assert isinstance(call, testing.Call)
    assert call.incomplete
    assert json.loads(call.arguments) == {"a": {"k": [1, "tw"]}}


def test_positional_arguments_take_schema_names() -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "search",
                "parameters": {
                    "type": "object",
                    "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
                },
            },
        }
    ]
    items = check_format("pythonic", "[search('cats', 5, 6)]", tools=tools)
    assert summary(items)[1] == [("search", {"query": "cats", "limit": 5, "_2": 6})]


def test_string_arguments_stream_before_the_call_ends() -> None:
    parser = tool_parser("pythonic")
    events = parser.feed("[f(text='hello wor")
    deltas = "".join(getattr(e, "delta", "") for e in events)
    assert deltas == '{"text":"hello wor'
    # a scalar is held until its terminator
    parser = tool_parser("pythonic")
    events = parser.feed("[f(n=12")
    assert "".join(getattr(e, "delta", "") for e in events) == '{"n":'


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("[search(query='hello')] Done.", " Done."),
        ("[a(x=1), b(y=2)] ok", " ok"),
        ("[a(x=1), ] ok", " ok"),
        ("<|python_start|>[a(x=1)] Done.", " Done."),
        ("[a(x=1)]<", "<"),
    ],
)
@given(data=st.data())
def test_llama4_list_closer_is_markup_when_no_end_marker_follows(
    text: str, content: str, data: st.DataObject
) -> None:
    """The ``]`` of a list with no ``<|python_end|>`` after it was released as text
    (``"] Done."``); found by SGLang's pythonic streaming suite."""
    got_content, _calls = summary(check_format("llama4_pythonic", text, data))
    assert got_content == content
