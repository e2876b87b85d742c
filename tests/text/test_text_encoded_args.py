"""``EncodedArgs``: arguments written as a string of escaped JSON (Granite 4), read as they
arrive. Its fast reads give what its reference path gives (``streamcall.text.fast``), in
any chunking and cut anywhere, and both give what decoding the whole string gives."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.text import fast
from streamcall.text.args import BLANK, BROKEN, CLOSED, MORE, EncodedArgs


def read(body: str, pieces: list[str], final_cut: bool) -> tuple[object, ...]:
    """Feed ``body`` (what follows the opening quote) in ``pieces`` the way the engine
    does, holding what the reader leaves; a stream that ends before the string does is
    closed the way the engine closes it. Positions are absolute, in the raw text."""
    encoded = EncodedArgs()
    inner = encoded.inner
    deltas: list[str] = []
    tail = ""
    consumed = 0  # raw characters consumed before ``tail``
    outcome, at = MORE, 0
    for i, piece in enumerate(pieces):
        buf = tail + piece
        final = final_cut and i == len(pieces) - 1
        delta, resume, outcome = encoded.push(buf, 0, final)
        deltas.append(delta)
        at = consumed + resume
        if outcome != MORE:
            break
        consumed += resume
        tail = buf[resume:]
    if outcome == MORE and not final_cut:  # the end of the stream, as ``finish`` reads it
        delta, resume, outcome = encoded.push(tail, 0, True)
        deltas.append(delta)
        at = consumed + resume
        tail = tail[resume:]
    if outcome == MORE and encoded.started and not inner.done:
        deltas.append(inner.close(encoded.decode_tail(tail)))
    assert "".join(deltas) == inner.text()
    return (
        outcome,
        at,
        inner.text(),
        inner.done,
        inner.error,
        encoded.started,
        encoded.cut,
        "".join(encoded.junk),
    )


def both(body: str, cuts: list[int], final_cut: bool = False) -> tuple[object, ...]:
    pieces = testing.chunk_at(body, cuts) or [""]
    got = read(body, pieces, final_cut)
    with fast.reference():
        assert read(body, pieces, final_cut) == got
    return got


tricky = st.lists(
    # (no lone surrogate: its escape decodes to U+FFFD, by design, test_text_primitives)
    st.sampled_from([*'ab "\\/\n\t\x01éü東😀', "\\u00e9", "\\n", '\\"', "u00"]),
    max_size=20,
).map("".join)
member = st.sampled_from(
    ['"k": 1, ', '"key_2": "v2", ', '"a":true,', '"n": null, ', '"x": -1.5e3, ', '"e": "", ']
)


def encode(inner: str, ascii_outer: bool) -> str:
    """The string body (after the opening quote, closing quote included) holding ``inner``."""
    return json.dumps(inner, ensure_ascii=ascii_outer)[1:]


@given(
    value=tricky,
    members=st.lists(member, max_size=6),
    inner_ascii=st.booleans(),
    outer_ascii=st.booleans(),
    lead=st.sampled_from(["", " ", "\n"]),
    extra=st.sampled_from(["", " ", "x", "}", '"']),
    cuts=st.lists(st.integers(1, 200), max_size=30),
)
def test_a_whole_string_reads_as_json_decodes_it(
    value: str,
    members: list[str],
    inner_ascii: bool,
    outer_ascii: bool,
    lead: str,
    extra: str,
    cuts: list[int],
) -> None:
    inner = (
        "{"
        + "".join(members)
        + json.dumps({"s": value, "n": [1, True, None]}, ensure_ascii=inner_ascii)[1:]
    )
    body = encode(lead + inner + extra, outer_ascii)
    outcome, at, text, done, error, *_ = both(body, cuts)
    if error or outcome == BROKEN:
        return  # extra text the inner scan rejects ('}', '"'): the markup breaks
    assert outcome == CLOSED and at == len(body) and done
    assert json.loads(text) == json.loads(inner)


@given(
    members=st.lists(member, max_size=8),
    bad=st.sampled_from(["", "\\q", "\\u12", "\\ud83d\\q", "\\", '\\"', "}"]),
    at=st.integers(0, 10**6),
    end=st.integers(0, 10**6),
    final=st.booleans(),
    cuts=st.lists(st.integers(1, 60), max_size=30),
)
def test_cut_or_broken_anywhere_the_fast_reads_equal_the_reference(
    members: list[str], bad: str, at: int, end: int, final: bool, cuts: list[int]
) -> None:
    body = encode("{" + "".join(members) + '"last": "a \\"q\\" b"}', True)
    at %= len(body)
    body = body[:at] + bad + body[at:]
    body = body[: end % (len(body) + 1)]  # the stream may end anywhere
    outcome, _, text, _, _, started, *_ = both(body, cuts, final_cut=final)
    assert outcome in (MORE, CLOSED, BROKEN, BLANK)
    if started and outcome != BROKEN:  # closed or cut off: the arguments load
        assert isinstance(json.loads(text), dict)


def test_a_blank_string_is_no_arguments() -> None:
    assert both(' \\n "', [])[0] == BLANK
    assert both("", [])[0] == MORE
    assert both("x", [])[:2] == (BROKEN, 0)
