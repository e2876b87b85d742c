"""The request's ``tool_choice`` through ``output_parser``, for every format, in every chunking.

- ``"none"``: nothing is parsed; the model's call markup is the content, byte for byte.
- a named function: only that function's calls are calls; a call to another function is
  content, written in the format's own syntax (``render``), in its place in the text.
- ``"auto"``/``"required"``/nothing: every call is parsed, as without a choice.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcall import formats, output_parser, parse_output, testing
from streamcall.formats.registry import parser_class
from streamcall.toolchoice import chosen_function, tool_choice_error
from support import random_chunkings

WEATHER = {"type": "function", "function": {"name": "get_weather"}}
CALLS = [("search", {"q": "tea"}), ("get_weather", {"city": "Paris"})]


def _text(fmt: str) -> str:
    return parser_class(fmt).render(CALLS) + " Bye."


def _items(fmt: str, choice: object, text: str) -> list[testing.Item]:
    return testing.check_chunkings(
        lambda: output_parser(tool_format=fmt, reasoning_format="none", tool_choice=choice), text
    )


def _split(items: list[testing.Item]) -> tuple[str, list[tuple[str, object]]]:
    text = "".join(v for k, v in items if k == "text" and isinstance(v, str))
    calls = [
        (v.name, json.loads(v.arguments))
        for k, v in items
        if k == "call" and isinstance(v, testing.Call)
    ]
    return text, calls


@pytest.mark.parametrize("fmt", formats())
def test_none_parses_nothing_and_keeps_the_text(fmt: str) -> None:
    text = _text(fmt)
    assert _items(fmt, "none", text) == [("text", text)]


@pytest.mark.parametrize("fmt", formats())
def test_a_named_function_is_the_only_call(fmt: str) -> None:
    text = _text(fmt)
    content, calls = _split(_items(fmt, WEATHER, text))
    assert calls == [("get_weather", {"city": "Paris"})]
    # the other call is content, in the format's own syntax, before the rest of the text
    assert content.startswith(parser_class(fmt).render(CALLS[:1]))
    assert content.endswith("Bye.")


@pytest.mark.parametrize("fmt", ["hermes", "gemma4", "qwen3_coder", "mistral", "kimi_k2"])
@pytest.mark.parametrize("choice", ["auto", "required", None])
def test_auto_and_required_parse_every_call(fmt: str, choice: object) -> None:
    text = _text(fmt)
    _, calls = _split(_items(fmt, choice, text))
    assert calls == [(name, args) for name, args in CALLS]


@pytest.mark.parametrize("fmt", ["hermes", "granite4", "gemma4", "qwen3_coder", "glm47", "mistral"])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_named_choice_at_random_cuts(fmt: str, data: st.DataObject) -> None:
    """Calls before, between and after the chosen one, each alone in its block."""
    cls = parser_class(fmt)
    text = (
        cls.render([("search", {"q": "a"})])
        + cls.render([("get_weather", {"city": "Oslo"})])
        + cls.render([("lookup", {"id": "7"})])
    )
    expected = _items(fmt, WEATHER, text)
    for pieces in random_chunkings(data, text):
        parser = output_parser(tool_format=fmt, reasoning_format="none", tool_choice=WEATHER)
        assert testing.coalesce(testing.run(parser, pieces)) == expected
    content, calls = _split(expected)
    assert calls == [("get_weather", {"city": "Oslo"})]
    assert cls.render([("search", {"q": "a"})]).strip() in content
    assert cls.render([("lookup", {"id": "7"})]).strip() in content
    # the call that passes is renumbered from 0
    assert [v.index for k, v in expected if k == "call" and isinstance(v, testing.Call)] == [0]


def test_a_cut_call_to_another_function_is_text_too() -> None:
    got = parse_output(
        '<tool_call>\n{"name": "search", "arguments": {"q": "te', tool_format="hermes",
        tool_choice=WEATHER,
    )  # fmt: skip
    assert got.tool_calls == []
    assert "search" in got.content


def test_none_with_reasoning_keeps_reasoning_and_the_markup_is_content() -> None:
    text = '<think>check</think>Sure.<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>'
    got = parse_output(text, tool_format="hermes", reasoning_format="qwen3", tool_choice="none")
    assert got.reasoning == "check"
    assert got.content == text.split("</think>", 1)[1]
    assert got.tool_calls == []


@pytest.mark.parametrize(
    ("choice", "ok"),
    [
        ("none", True),
        ("auto", True),
        ("required", True),
        (None, True),
        ({"type": "function", "function": {"name": "f"}}, True),
        ({"function": {"name": "f"}}, True),
        ("any", False),
        ({"type": "function", "function": {}}, False),
        ({"type": "function", "function": {"name": ""}}, False),
        ({"type": "custom", "custom": {"name": "f"}}, False),
        (3, False),
    ],
)
def test_tool_choice_shapes(choice: object, ok: bool) -> None:
    assert (tool_choice_error(choice) is None) is ok
    if ok and isinstance(choice, dict):
        assert chosen_function(choice) == "f"
