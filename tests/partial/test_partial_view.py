"""call_view: the UI layer over a half-written function call."""

from __future__ import annotations

import pytest

from streamcall import CallView, call_view


def test_seed_streaming_frames() -> None:
    assert call_view('{"tool":"search"') == CallView("parsing", "search", {})
    assert call_view('{"tool":"search","args":{"from"') == CallView(
        "parsing", "search", {"from": None}
    )
    assert call_view('{"tool":"search","args":{"from":"北京"') == CallView(
        "parsing", "search", {"from": "北京"}
    )
    assert call_view('{"tool":"search","args":{"from":"北京","to":"上') == CallView(
        "parsing", "search", {"from": "北京", "to": "上"}
    )
    assert call_view('{"tool":"search","args":{"from":"北京","to":"上海"}}') == CallView(
        "complete", "search", {"from": "北京", "to": "上海"}
    )


def test_openai_string_arguments_parse_while_open() -> None:
    view = call_view('{"name": "get_weather", "arguments": "{\\"city\\": \\"Par')
    assert view == CallView("parsing", "get_weather", {"city": "Par"})
    view = call_view('{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}')
    assert view == CallView("complete", "get_weather", {"city": "Paris"})


def test_openai_tool_calls_entry() -> None:
    text = '{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{\\"a'
    assert call_view(text) == CallView("parsing", "f", {"a": None})


def test_anthropic_shape() -> None:
    assert call_view('{"name": "lookup", "input": {"q": "x", "n": 3}}') == CallView(
        "complete", "lookup", {"q": "x", "n": 3}
    )


def test_parameters_shape_and_name_before_tool() -> None:
    view = call_view('{"tool": "t", "name": "n", "parameters": {"k": [1, 2')
    assert view == CallView("parsing", "n", {"k": [1, 2]})


@pytest.mark.parametrize("text", ["[1, 2]", '"name"', "42", "[", "null"])
def test_not_an_object_is_invalid(text: str) -> None:
    assert call_view(text) == CallView("invalid", None, {})


def test_empty_text_is_parsing_nothing_yet() -> None:
    assert call_view("") == CallView("parsing", None, {})


def test_arguments_that_are_not_an_object_give_empty_args() -> None:
    assert call_view('{"name": "f", "arguments": "[1, 2]"}') == CallView("complete", "f", {})
    assert call_view('{"name": "f", "args": null}') == CallView("complete", "f", {})
    assert call_view('{"name": 3, "args": {}}') == CallView("complete", None, {})


def test_completed_args_entries_are_stable_while_the_tail_grows() -> None:
    doc = (
        '{"name": "f", "arguments": "{\\"a\\": \\"one\\", \\"b\\": [1, 2], \\"c\\": \\"three\\"}"}'
    )
    seen: dict[str, object] = {}
    for k in range(len(doc) + 1):
        args = call_view(doc[:k]).args
        for key in list(args)[:-1]:  # every entry but the last is complete
            assert seen.setdefault(key, args[key]) == args[key]
    assert seen == {"a": "one", "b": [1, 2]}
