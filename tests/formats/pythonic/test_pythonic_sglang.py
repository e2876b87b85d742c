"""pythonic (and llama4_pythonic) against SGLang's ``PythonicDetector`` unit suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_pythonic_detector.py``
(Apache-2.0, copyright the SGLang project): the model outputs, the tool schemas, the
chunkings it feeds and the expected calls and content; the code is ours. Every text goes
through ``check_format`` (whole, 1-char, 7-char and random chunkings), and SGLang's
chunkings are replayed as given and compared with the one-shot result.

SGLang's one ``PythonicDetector`` serves Llama 3.2 and Llama 4; here they are ``pythonic``
(the list must open the output, as in vLLM) and ``llama4_pythonic`` (``<|python_start|>``
... ``<|python_end|>``, text around it). Where SGLang's expectation differs on purpose, we
assert ours and say why:
- ``pythonic``: a list after prose (``I will check ... [get_weather(...)]``) is text, and so
  is one inside ``<|python_start|>`` (``llama4_pythonic`` reads that one): vLLM's grammar,
  under which a ``[`` in prose (``[1]``, ``[Note]``) is never mistaken for calls.
- Positional arguments are named from the schema (``get_weather('Tokyo')`` gives
  ``{"city": "Tokyo"}``; SGLang drops them: ``{}``).
- A call to a tool not in the list is reported (SGLang skips it).
- ``[get_weather(city=)]``: the call had started, so it ends ``incomplete`` with its
  arguments closed (``{"city": null}``) and the rest (``)]``) is text; SGLang drops it.
- A call cut off by the end of the stream is reported ``incomplete`` (SGLang's streaming
  step has emitted nothing yet).
- Arguments are compact JSON (``{"city":"Tokyo"}``; SGLang's ``json.dumps`` spacing).

Not ported: ``_text_strip``, ``has_tool_call``, ``_find_matching_bracket``,
``supports_structural_tag`` and ``structure_info`` (SGLang's API); the bracket cases are
checked as calls instead (``[func(arg="]")]``).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sglang_fixtures import WEATHER_AND_SEARCH
from streamcall import testing
from streamcall.events import Text, ToolCallStart
from streamcall.formats.registry import tool_parser
from support import check_format, summary

TOOLS = WEATHER_AND_SEARCH
TOKYO = [("get_weather", {"city": "Tokyo"})]

CASES: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]] = [
    ("[get_weather(city='Tokyo')]", "", TOKYO),
    ("[get_weather(city=123)]", "", [("get_weather", {"city": 123})]),
    ("[get_weather('Tokyo')]", "", TOKYO),  # SGLang: {} (positional dropped)
    (
        "[get_weather(city='Tokyo'), search(query='restaurants')]",
        "",
        [*TOKYO, ("search", {"query": "restaurants"})],
    ),
    ("The weather is nice today.", "The weather is nice today.", []),
    ("The weather in Tokyo is sunny today.", "The weather in Tokyo is sunny today.", []),
    (
        "[search(query={'key': 'value', 'nested': {'a': 1}})]",
        "",
        [("search", {"query": {"key": "value", "nested": {"a": 1}}})],
    ),
    ("[search(query=['a', 'b', 'c'])]", "", [("search", {"query": ["a", "b", "c"]})]),
    ("[unknown_func(arg=1)]", "", [("unknown_func", {"arg": 1})]),  # SGLang skips it
    ("get_weather(city='Tokyo')", "get_weather(city='Tokyo')", []),
    ('[func(arg="]")]', "", [("func", {"arg": "]"})]),
    (
        "[get_weather(city='Tokyo'), search(query='news')]",
        "",
        [*TOKYO, ("search", {"query": "news"})],
    ),
]


@pytest.mark.parametrize(("text", "content", "calls"), CASES)
@given(data=st.data())
def test_sglang_pythonic_cases(text: str, content: str, calls: Any, data: st.DataObject) -> None:
    assert summary(check_format("pythonic", text, data, TOOLS)) == (content, calls)


@pytest.mark.parametrize(
    ("text", "pythonic", "llama4"),
    [
        (  # SGLang: a call, the prose kept. pythonic: the list must open the output
            "I will check the weather for you. [get_weather(city='Tokyo')]",
            ("I will check the weather for you. [get_weather(city='Tokyo')]", []),
            ("I will check the weather for you. [get_weather(city='Tokyo')]", []),
        ),
        (  # SGLang strips the tokens; they are Llama 4's, read by llama4_pythonic
            "<|python_start|>[get_weather(city='Tokyo')]<|python_end|>",
            ("<|python_start|>[get_weather(city='Tokyo')]<|python_end|>", []),
            ("", TOKYO),
        ),
    ],
)
@given(data=st.data())
def test_sglang_text_around_the_list(
    text: str, pythonic: Any, llama4: Any, data: st.DataObject
) -> None:
    assert summary(check_format("pythonic", text, data, TOOLS)) == pythonic
    assert summary(check_format("llama4_pythonic", text, data, TOOLS)) == llama4


@given(data=st.data())
def test_sglang_malformed_python(data: st.DataObject) -> None:
    items = check_format("pythonic", "[get_weather(city=)]", data, TOOLS)
    calls = [(v.name, v.arguments, v.incomplete) for _, v in items if isinstance(v, testing.Call)]
    assert calls == [("get_weather", '{"city":null}', True)]  # SGLang: no call
    assert summary(items)[0] == ")]"


@pytest.mark.parametrize(
    ("fmt", "pieces", "content"),
    [
        ("pythonic", ["[get_", "weather(city=", "'Tokyo'", ")]"], ""),
        ("pythonic", ["[get_weather(city=", "'Tokyo')]"], ""),
        ("llama4_pythonic", ["<|python_start|>[get_", "weather(city='Tokyo')]<|python_end|>"], ""),
        # SGLang's test_streaming_text_then_tool_call: prose first is a Llama 4 form here
        ("llama4_pythonic", ["Sure, let me check. ", "[get_weather(city=", "'Tokyo')]"], None),
    ],
)
def test_sglang_streaming(fmt: str, pieces: list[str], content: str | None) -> None:
    one_shot = check_format(fmt, "".join(pieces), None, TOOLS)
    got = testing.coalesce(testing.run(tool_parser(fmt, tools=TOOLS), pieces))
    assert got == one_shot
    if content is not None:
        assert summary(one_shot) == (content, TOKYO)


def test_sglang_streaming_normal_text_before_tool() -> None:
    parser = tool_parser("llama4_pythonic", tools=TOOLS)
    assert [e.text for e in parser.feed("Hello! Let me help. ") if isinstance(e, Text)] == [
        "Hello! Let me help. "
    ]


def test_sglang_streaming_incomplete_tool_call() -> None:
    # SGLang: nothing yet. Here the call starts once its name is known, and a stream
    # that ends there reports it incomplete, its arguments closed.
    parser = tool_parser("pythonic", tools=TOOLS)
    started = parser.feed("[get_weather(city=")
    assert [e.name for e in started if isinstance(e, ToolCallStart)] == ["get_weather"]
    assert not [e for e in started if isinstance(e, Text)]
    items = testing.coalesce(started + parser.finish())
    calls = [(v.name, v.arguments, v.incomplete) for _, v in items if isinstance(v, testing.Call)]
    assert calls == [("get_weather", '{"city":null}', True)]
    # With prose first: text to pythonic (SGLang gives "Hello! " and holds the rest).
    assert check_format("pythonic", "Hello! [search(query=", None, TOOLS) == [
        ("text", "Hello! [search(query=")
    ]
