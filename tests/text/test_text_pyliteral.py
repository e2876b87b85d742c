"""Python literals read as JSON (``streamcall.text.pyliteral``): string bodies and scalars,
and ``json_body``'s fast read against its reference path (``fast.reference``)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall.text import fast, pyliteral
from streamcall.text.pyliteral import BYTES, RAW, STR, body_run, decode_body, json_body, scalar_json
from support import pure_only

KINDS = [STR, BYTES, RAW]
# Pieces of string bodies: escapes whole and cut, quotes, raw controls and surrogates.
PIECES = [
    *"ab'\"\\ntrxuUN0{}\n\r\x01\x7fé東",
    "😀",
    "\ud83d",
    "\\\\",
    "\\n",
    "\\t",
    "\\r",
    "\\'",
    '\\"',
    "\\x41",
    "\\101",
    "\\u00e9",
    "\\ud83d\\ude00",
    "\\U0001F600",
    "\\N{BULLET}",
    "\\q",
    "\\\n",
]
bodies = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)


@pytest.mark.parametrize("kind", KINDS)
@given(text=bodies, quote=st.sampled_from("'\""))
def test_json_body_fast_read_equals_its_reference(kind: int, text: str, quote: str) -> None:
    """On every run a string body can hold (``body_run``'s match), from any start."""
    for start in range(len(text) + 1):
        run = text[start : body_run(quote, kind).match(text, start).end()]  # type: ignore[union-attr]
        fast_body = json_body(run, kind)
        with fast.reference():
            reference_body = json_body(run, kind)
        assert fast_body == reference_body, run
        assert isinstance(json.loads('"' + fast_body + '"'), str)


@pytest.mark.parametrize(
    ("run", "kind", "expected"),
    [
        ("a\\\\b\\nc\\td\\re", STR, "a\\\\b\\nc\\td\\re"),
        ('say "hi" \\\\', STR, 'say \\"hi\\" \\\\'),
        ("it\\'s", STR, "it's"),
        ('q\\"', STR, 'q\\"'),
        ("\\x41\\101\\u00e9\\N{BULLET}", STR, "AAé•"),
        ("\\u00e9\\N{BULLET}", BYTES, "\\\\u00e9\\\\N{BULLET}"),  # not escapes in bytes
        ("\\d+\\n", RAW, "\\\\d+\\\\n"),
        ("\\q", STR, "\\\\q"),  # an unknown escape keeps its backslash
        ("\\ud83d\\ude00 \\ud800", STR, "😀 \ufffd"),  # a pair joined, a lone one replaced
        ("line\\\nmore", STR, "linemore"),  # a line continuation
    ],
)
def test_json_body_values(run: str, kind: int, expected: str) -> None:
    for reference in (False, True):
        if reference:
            with fast.reference():
                assert json_body(run, kind) == expected
        else:
            assert json_body(run, kind) == expected


def test_decode_body_values() -> None:
    assert decode_body("a\\x41\\n", STR) == "aA\n"
    assert decode_body("a\\x41\\n", RAW) == "a\\x41\\n"
    assert decode_body("\\N{NO SUCH NAME}", STR) == "\\N{NO SUCH NAME}"


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("True", "true"),
        ("None", "null"),
        ("false", "false"),
        ("12", "12"),
        ("-1.5e3", "-1.5e3"),
        ("1_000", "1000"),
        ("0x1F", "31"),
        ("0o7", "7"),
        ("0b11", "3"),
        ("07", "7"),
        ("1.", "1.0"),
        (".5", "0.5"),
        ("+1", "1"),
        ("1e999", "1e999"),  # a JSON number is kept as written
        ("1.5e999", "1.5e999"),
        ("nan", None),
        ("inf", None),
        ("abc", None),
        ("1.5.3", None),
        ("0x", None),
    ],
)
def test_scalar_json(token: str, expected: str | None) -> None:
    assert scalar_json(token) == expected
    assert pyliteral.quick_scalar(token) == expected


class Refuse:
    def __call__(self, *args: object) -> object:
        raise AssertionError("the reference read ran (decode_body)")


@pure_only
def test_the_json_body_fast_read_is_on_and_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    """It measured faster (docs/performance.md): a run whose escapes JSON spells as Python
    does is not decoded; with the switch off it is."""
    assert fast.FAST is True
    monkeypatch.setattr(pyliteral, "decode_body", Refuse())
    assert json_body('<div class="row"> \\\\ path</div>\\n', STR) == (
        '<div class=\\"row\\"> \\\\ path</div>\\n'
    )
    with fast.reference(), pytest.raises(AssertionError, match="reference read ran"):
        json_body("a\\nb", STR)
