"""``streamcall.text.bare``: objects written with bare keys and delimited strings.

``BareMembers.read`` is a fast read: with the switch on it takes whole common members as
JSON and holds a cut one whole; on its reference path it takes nothing (the caller reads
token by token). The engines that use it (Gemma 4, FunctionGemma) are proved equal on
both paths in tests/formats/gemma4/test_gemma4_fast_reads.py.
"""

from __future__ import annotations

import json

import pytest

from streamcall.text import BareMembers, bare_scalar, fast
from streamcall.text.bare import AFTER, CUT, KEY, VALUE

Q = '<|"|>'


@pytest.mark.parametrize(
    ("text", "json_text"),
    [
        ("true", "true"),
        ("false", "false"),
        ("True", '"True"'),  # only null, none and nil in any case
        ("null", "null"),
        ("None", "null"),
        ("NIL", "null"),
        ("", "null"),
        ("  ", "null"),
        ("42", "42"),
        ("-5", "-5"),
        ("01", "1"),
        ("+7", "7"),
        ("1.50", "1.50"),
        ("1.", "1.0"),
        (".5", "0.5"),
        ("1e5", "1e5"),  # a JSON number, exponent and all (issue 46)
        ("1.5e3", "1.5e3"),
        ("nan.", '"nan."'),
        ("x-y.z", '"x-y.z"'),
        ("abc", '"abc"'),
        (" 3 ", "3"),
    ],
)
def test_bare_scalar(text: str, json_text: str) -> None:
    assert bare_scalar(text) == json_text
    json.loads(json_text)


def test_read_takes_whole_members_as_json() -> None:
    read = BareMembers(Q).read
    text = f'a:1,b:true,c:{Q}x "y"{Q},d:2.5,e:None,f:01}}'
    assert read(text, 0, True, False) == (
        '"a":1,"b":true,"c":"x \\"y\\"","d":2.5,"e":null,"f":1',
        len(text) - 1,
        AFTER,
    )
    assert read(text, 0, False, False)[0].startswith(',"a":1,')


def test_read_stops_where_a_member_is_not_common() -> None:
    read = BareMembers(Q).read
    assert read("a:1,b:[1]", 0, True, False) == ('"a":1,"b":', 6, VALUE)
    assert read(f"a:1,b:{Q}x<y{Q}", 0, True, False) == ('"a":1,"b":', 6, VALUE)
    assert read("a:1, b:2", 0, True, False) == ('"a":1', 4, KEY)  # a blank: the caller's
    assert read("a :1", 0, True, False) == ("", 0, KEY)
    assert read(f"{Q}k{Q}:1", 0, True, False) == ("", 0, KEY)
    assert read("a:12<tool_call|>", 0, True, False) == ('"a":', 2, VALUE)
    assert read("}", 0, True, False) == ("", 0, KEY)


@pytest.mark.parametrize("cut", ["k", "key", "key:", "key:tr", f"key:{Q}va", f"key:{Q}v<|", "k:-1"])
def test_read_holds_a_cut_member_whole(cut: str) -> None:
    read = BareMembers(Q).read
    assert read("a:1," + cut, 0, True, False) == ('"a":1', 4, CUT)
    assert read("a:1," + cut, 0, True, True) == ('"a":1', 4, KEY)  # not at the end
    long = "k" * 70
    assert read(long, 0, True, False) == ("", 0, KEY)  # past MAX_MEMBER: not held


def test_reference_path_takes_nothing() -> None:
    read = BareMembers(Q).read
    with fast.reference():
        assert read("a:1,b:2}", 0, True, False) == ("", 0, KEY)
        assert read("a:tr", 0, True, False) == ("", 0, KEY)
    assert read("a:1,b:2}", 0, True, False) == ('"a":1,"b":2', 7, AFTER)
