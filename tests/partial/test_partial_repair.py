"""repair_json and parse_partial_json: the rules R0-R6 of ``partial/repair.py``'s header,
one by one, against json.loads."""

from __future__ import annotations

import json
import sys

import pytest

from streamcall import PartialJSON, parse_partial_json, repair_json
from streamcall.partial.incremental import MAX_DEPTH


def repaired(text: str) -> object:
    out = repair_json(text)
    value = json.loads(out)
    assert parse_partial_json(text) == value
    return value


# --- worked examples, verbatim ---------------------------------------------------------


def test_seed_half_keyword() -> None:
    assert repair_json('{"value": tru') == '{"value": null}'


def test_seed_half_number() -> None:
    assert repair_json('{"count": 12.') == '{"count": 12}'


def test_seed_junk_after_a_complete_value() -> None:
    assert repair_json('{"text": "abc"def') == '{"text": "abc"}'


def test_seed_streaming_sequence() -> None:
    final = '{"tool":"search","args":{"from":"北京","to":"上海"}}'
    assert repaired('{"tool":"search"') == {"tool": "search"}
    assert repaired('{"tool":"search","args":{"from"') == {
        "tool": "search",
        "args": {"from": None},
    }
    assert repaired('{"tool":"search","args":{"from":"北京"') == {
        "tool": "search",
        "args": {"from": "北京"},
    }
    assert repaired('{"tool":"search","args":{"from":"北京","to":"上') == {
        "tool": "search",
        "args": {"from": "北京", "to": "上"},
    }
    assert repair_json(final) == final


# --- R0-R6 ------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", " ", "\n\t\r "])
def test_r0_empty_gives_empty_object(text: str) -> None:
    assert repair_json(text) == "{}"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('"abc', '"abc"'),
        ('{"a": "x', '{"a": "x"}'),
        ('["x", "y', '["x", "y"]'),
        ('{"a": "', '{"a": ""}'),
    ],
)
def test_r1_unclosed_string_value_is_closed(text: str, expected: str) -> None:
    assert repair_json(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"ke', '{"ke":null}'),
        ('{"', '{"":null}'),
        ('{"a":1,"b', '{"a":1,"b":null}'),
        ('{"key"', '{"key":null}'),
        ('{"key" ', '{"key":null}'),
    ],
)
def test_r2_unclosed_key_gets_null(text: str, expected: str) -> None:
    assert repair_json(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[tru", "[null]"),
        ("[1, fal", "[1, null]"),
        ('{"a": nul', '{"a": null}'),
        ("tru", "null"),
        ("[Na", "[null]"),
        ("[-Infin", "[null]"),
    ],
)
def test_r3_half_keyword_becomes_null(text: str, expected: str) -> None:
    assert repair_json(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[1,", "[1]"),
        ("[1, ", "[1]"),
        ('{"a": 1,', '{"a": 1}'),
        ('{"a": 1 , \n', '{"a": 1 }'),
    ],
)
def test_r4_dangling_comma_is_dropped(text: str, expected: str) -> None:
    assert repair_json(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [('{"a":', '{"a":null}'), ('{"a": ', '{"a": null}'), ('{"a": {"b":', '{"a": {"b":null}}')],
)
def test_r5_missing_value_becomes_null(text: str, expected: str) -> None:
    assert repair_json(text) == expected


def test_r6_containers_close_in_stack_order() -> None:
    assert repair_json('{"a": [1, {"b": [') == '{"a": [1, {"b": []}]}'
    assert repair_json("[[{") == "[[{}]]"


# --- numbers, escapes, junk -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[12.", "[12]"),
        ("[-", "[null]"),
        ("[1e", "[1]"),
        ("[1e-", "[1]"),
        ("[1.5E+", "[1.5]"),
        ("[-0.", "[-0]"),
        ("[12", "[12]"),
        ("[01", "[0]"),
        ("-", "null"),
        ("12.", "12"),
    ],
)
def test_half_number_keeps_its_complete_part(text: str, expected: str) -> None:
    assert repair_json(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('"ab\\', '"ab"'),
        ('"ab\\u', '"ab"'),
        ('"ab\\u12', '"ab"'),
        ('"ab\\u123', '"ab"'),
        ('"ab\\ud83d', '"ab"'),
        ('"ab\\ud83d\\', '"ab"'),
        ('"ab\\ud83d\\ude0', '"ab"'),
        ('"ab\\\\', '"ab\\\\"'),
        ('"ab\\\\ud83d', '"ab\\\\ud83d"'),
        ('"ab\\n', '"ab\\n"'),
    ],
)
def test_cut_escape_and_lone_high_surrogate_are_dropped(text: str, expected: str) -> None:
    assert repair_json(text) == expected


def test_surrogate_pair_survives() -> None:
    assert repaired('["\\ud83d\\ude00') == ["😀"]
    assert repaired('{"k\\ud83d\\ude00": 1') == {"k😀": 1}


def test_lone_surrogate_inside_a_string_is_kept_as_json_loads_does() -> None:
    assert repaired('["\\ud83dx') == json.loads('["\\ud83dx"]')


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1} trailing', '{"a": 1}'),
        ('{"a": 1}{"b": 2}', '{"a": 1}'),
        ("[1, 2 x, 3]", "[1, 2]"),
        ('{"a": 1, b: 2}', '{"a": 1}'),
        ('{"a": 1,}', '{"a": 1}'),
        ("[1,]", "[1]"),
        ('{"a": tx}', '{"a": null}'),
        ('{"a" 1}', '{"a":null}'),
        ('["a\\x", "b"]', '["a"]'),
        ("[1}", "[1]"),
        ("hello", "{}"),
        ("]", "{}"),
    ],
)
def test_junk_and_everything_after_it_is_dropped(text: str, expected: str) -> None:
    assert repair_json(text) == expected


def test_raw_control_characters_in_strings_are_escaped() -> None:
    text = '{"code": "line1\nline2\t\x01'
    out = repair_json(text)
    assert json.loads(out) == {"code": "line1\nline2\t\x01"}
    assert parse_partial_json(text) == {"code": "line1\nline2\t\x01"}
    # Whitespace between tokens is left alone.
    assert repair_json('{\n"a":\n1,\n"b": "x\ny"}') == '{\n"a":\n1,\n"b": "x\\u000ay"}'


# --- idempotence and validity -----------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "{}",
        "[]",
        " [1, 2.5e3, -0, true, false, null] ",
        '{"a": {"b": ["c", {"d": "\\u00e9\\n"}]}}\n',
        '"just a string"',
        "42",
        "NaN",
        "-Infinity",
        '{"a":1,"a":2}',
    ],
)
def test_valid_json_comes_back_unchanged(text: str) -> None:
    assert repair_json(text) == text


def test_keywords_json_loads_accepts() -> None:
    text = "[NaN, Infinity, -Infinity, tr"
    assert repair_json(text) == "[NaN, Infinity, -Infinity, null]"
    value = parse_partial_json(text)
    assert isinstance(value, list)
    assert value[0] != value[0]
    assert value[1:] == [float("inf"), float("-inf"), None]


def test_huge_integer_is_dropped_rather_than_unloadable() -> None:
    digits = "1" * (sys.get_int_max_str_digits() + 10)
    out = repair_json("[1, " + digits + ", 2]")
    assert json.loads(out) == [1]


def test_duplicate_keys_last_wins_in_place() -> None:
    assert repaired('{"a": 1, "b": 2, "a": [3') == {"a": [3], "b": 2}
    assert list(repaired('{"a": 1, "b": 2, "a": [3')) == ["a", "b"]  # type: ignore[arg-type]


def test_million_nested_brackets_are_cut_at_the_depth_limit() -> None:
    # Past MAX_DEPTH open containers the opener is junk: the text is cut there and closed,
    # so the result loads with json.loads, even from deep inside a program's stack.
    text = "[" * 1_000_000
    out = repair_json(text)
    assert out == "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert json.loads(out) == parse_partial_json(text)
    value = parse_partial_json(text)
    seen = 0
    while value:
        assert isinstance(value, list)
        assert len(value) == 1
        value = value[0]
        seen += 1
    assert seen == MAX_DEPTH - 1
    assert value == []


def _deep(depth: int, inner: str = "1") -> str:
    return '{"a": ' * depth + inner + "}" * depth


def test_nesting_up_to_the_limit_is_kept_and_past_it_cut() -> None:
    at_limit = _deep(MAX_DEPTH)
    assert repair_json(at_limit) == at_limit  # valid and within the limit: unchanged
    assert parse_partial_json(at_limit) == json.loads(at_limit)
    # One level more: valid JSON that json.loads reads at the top of the stack, but not
    # deep inside one; it is cut where it goes past the limit, whatever json.loads says.
    past = _deep(MAX_DEPTH + 1)
    cut = repair_json(past)
    assert cut == '{"a": ' * (MAX_DEPTH - 1) + '{"a": null' + "}" * MAX_DEPTH
    assert json.loads(cut) == parse_partial_json(past)
    # Brackets inside strings do not count.
    quoted = '{"s": "' + "[{" * 2000 + '", "t": 1}'
    assert repair_json(quoted) == quoted


def test_depth_is_the_same_in_every_path() -> None:
    from streamcall.partial import repair as module

    for text in (
        _deep(MAX_DEPTH + 5),
        "[" * (MAX_DEPTH + 3) + "1",
        '{"k": [' + "[" * 300 + '"x", ' + "]" * 30,
        "[" + "[1], " * 400 + "[" * 260,
    ):
        fast = repair_json(text), parse_partial_json(text)
        module._ONESHOT_FAST_ENABLED = False
        try:
            slow = repair_json(text), parse_partial_json(text)
        finally:
            module._ONESHOT_FAST_ENABLED = True
        assert fast == slow
        assert json.loads(fast[0]) == fast[1]
        pj = PartialJSON()
        for i in range(0, len(text), 7):
            pj.feed(text[i : i + 7])
        assert pj.value == fast[1]
