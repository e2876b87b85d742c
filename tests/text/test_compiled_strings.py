"""The compiled read of a whole JSON string literal (``decode_string_literal``).

orjson, when installed (the ``fast`` extra; the test extra installs it), decodes a long
string literal for the one-shot partial JSON path. It is an optional speed-up, never a
change of result: every literal gives what json's scanner gives, with orjson, without it
(the pure fallback) and with the fast reads switched off; and a cut document parses the
same three ways.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from json.decoder import scanstring
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import streamcall
from streamcall.text import fast, jsonstring
from streamcall.text.jsonstring import COMPILED_MIN, decode_string_literal

orjson = pytest.importorskip("orjson", reason="the fast extra (orjson) is not installed")


@contextmanager
def pure() -> Iterator[None]:
    """As if orjson were not installed."""
    saved = jsonstring._compiled_loads
    jsonstring._compiled_loads = None
    try:
        yield
    finally:
        jsonstring._compiled_loads = saved


def reference_read(literal: str) -> str | type[ValueError] | None:
    try:
        decoded, end = scanstring(literal, 1, False)
    except ValueError:
        return ValueError
    return decoded if end == len(literal) else None


def read(literal: str) -> str | type[ValueError] | None:
    try:
        return decode_string_literal(literal)
    except ValueError:
        return ValueError


# Bodies with what a string may hold and what orjson refuses: escapes of every kind, raw
# control characters, lone surrogates (escaped and raw), quotes escaped and not, a cut
# escape at the end.
_PIECES = st.sampled_from(
    [
        "a",
        "plain text ",
        "東京",
        "😀",
        "\\n",
        '\\"',
        "\\\\",
        "\\/",
        "\\t",
        "\\u00e9",
        "\\ud83d\\ude00",
        "\\ud800",
        "\\udc00x",
        "\ud800",
        "\x01",
        "\n",
        '"',
        "\\x",
        "\\u12",
        "\\",
    ]
)


@given(st.lists(_PIECES, max_size=80), st.integers(0, 3))
def test_every_literal_reads_as_json_scanner_reads_it(pieces: list[str], pad: int) -> None:
    body = "".join(pieces) + "x" * (COMPILED_MIN * pad)
    literal = '"' + body + '"'
    want = reference_read(literal)
    assert read(literal) == want
    with pure():
        assert read(literal) == want
    with fast.reference():
        assert read(literal) == want


def test_the_compiled_read_is_taken_for_a_long_literal() -> None:
    literal = json.dumps("line\n" * COMPILED_MIN)
    calls: list[str] = []
    saved = jsonstring._compiled_loads

    def spy(text: str) -> Any:
        calls.append(text)
        return orjson.loads(text)

    jsonstring._compiled_loads = spy
    try:
        assert decode_string_literal(literal) == "line\n" * COMPILED_MIN
        assert calls == [literal]
        with fast.reference():
            assert decode_string_literal(literal) == "line\n" * COMPILED_MIN
        assert calls == [literal]  # not with the fast reads off
        assert decode_string_literal(literal[: COMPILED_MIN - 2] + '"') is not None
        assert len(calls) == 1  # nor below COMPILED_MIN
        wide = json.dumps("😀 line\n" * COMPILED_MIN, ensure_ascii=False)
        assert decode_string_literal(wide) == "😀 line\n" * COMPILED_MIN
        assert len(calls) == 1  # nor for a literal that is not ASCII (it measured slower)
    finally:
        jsonstring._compiled_loads = saved


def _code_document(lines: int) -> str:
    rows = [
        f'    return render(name, rows, path="C:\\tmp\\{i}.txt")  # \t{i}' for i in range(lines)
    ]
    return json.dumps({"path": "app/handlers.py", "content": "\n".join(rows), "mode": "w"})


@pytest.mark.parametrize("lines", [3, 40, 400])
def test_cut_documents_parse_the_same_with_and_without_orjson(lines: int) -> None:
    doc = _code_document(lines)
    step = max(1, len(doc) // 300)
    for cut in [*range(0, len(doc), step), len(doc) - 1, len(doc)]:
        text = doc[:cut]
        value, repaired = streamcall.parse_partial_json(text), streamcall.repair_json(text)
        with pure():
            assert streamcall.parse_partial_json(text) == value, cut
            assert streamcall.repair_json(text) == repaired, cut
        with fast.reference():
            assert streamcall.parse_partial_json(text) == value, cut
            assert streamcall.repair_json(text) == repaired, cut
        assert json.loads(repaired) == value


@given(st.lists(_PIECES, max_size=60), st.integers(0, 200), st.booleans())
def test_a_document_cut_in_a_long_string_parses_the_same(
    pieces: list[str], pad: int, escaped_end: bool
) -> None:
    body = "x" * pad + "".join(pieces)
    if escaped_end:
        body += '\\"'  # the text's last quote is escaped: the strings are walked
    text = '{"path": "a.py", "content": "' + "y\\n" * 700 + body
    value = streamcall.parse_partial_json(text)
    with pure():
        assert streamcall.parse_partial_json(text) == value
    with fast.reference():
        assert streamcall.parse_partial_json(text) == value
