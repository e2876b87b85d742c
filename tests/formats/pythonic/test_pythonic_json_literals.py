"""JSON's true/false/null inside pythonic calls, in every pythonic format.

Models trained on JSON write ``on=false`` inside a Python call; in Python that would be
an unknown name, so reading it as the literal changes nothing valid. Every case runs in
every chunking (whole, 1 and 7 characters, random cuts), and cut short.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from support import check_format, summary

WRAP: dict[str, Callable[[str], str]] = {
    "pythonic": lambda calls: f"[{calls}]",
    "llama4_pythonic": lambda calls: f"<|python_start|>[{calls}]<|python_end|>",
    "lfm2": lambda calls: f"<|tool_call_start|>[{calls}]<|tool_call_end|>",
    "olmo3": lambda calls: f"<function_calls>{calls}</function_calls>",
}
FORMATS = sorted(WRAP)

CASES: list[tuple[str, list[tuple[str, dict[str, Any]]]]] = [
    (
        'toggle_light(room="hall", on=false, dim=null, opts={"fade": true})',
        [("toggle_light", {"room": "hall", "on": False, "dim": None, "opts": {"fade": True}})],
    ),
    (
        'f(xs=[true, false, null], d={"a": null, "b": [1, true]}, t=(false,))',
        [("f", {"xs": [True, False, None], "d": {"a": None, "b": [1, True]}, "t": [False]})],
    ),
    ("f(true, null)", [("f", {"_0": True, "_1": None})]),  # positional
    ('f(s="false", a=True, b=false, c=None)', [("f", {"s": "false", "a": True, "b": False,
                                                      "c": None})]),
    ("f(d={true: 1, null: 2})", [("f", {"d": {"true": 1, "null": 2}})]),  # keys, as json.dumps
    ("f(a=false), g(b=null)", [("f", {"a": False}), ("g", {"b": None})]),
]  # fmt: skip


def _calls_text(calls: str, fmt: str) -> str:
    return calls.replace("), ", ")\n") if fmt == "olmo3" else calls  # olmo3: one per line


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(("calls", "expected"), CASES)
@given(data=st.data())
def test_json_literals_in_calls(
    fmt: str, calls: str, expected: list[tuple[str, dict[str, Any]]], data: st.DataObject
) -> None:
    text = WRAP[fmt](_calls_text(calls, fmt))
    items = check_format(fmt, text, data)
    assert summary(items) == ("", expected)
    assert [v.incomplete for k, v in items if isinstance(v, testing.Call)] == [False] * len(
        expected
    )


@pytest.mark.parametrize("fmt", FORMATS)
@given(data=st.data())
def test_text_around_a_call_with_json_literals(fmt: str, data: st.DataObject) -> None:
    if fmt == "pythonic":  # its calls are the whole output
        return
    text = "On it. " + WRAP[fmt]("set(on=true)") + " Done."
    items = check_format(fmt, text, data)
    assert summary(items) == ("On it.  Done.", [("set", {"on": True})])


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    ("cut", "args"),
    [
        ("set(on=false", {"on": False}),  # the literal whole, the call cut
        ("set(on=fal", {"on": None}),  # the literal cut: not a value
        ('set(o={"a": true', {"o": {"a": True}}),
        ("set(xs=[null, ", {"xs": [None]}),
    ],
)
def test_a_call_cut_after_a_json_literal_is_incomplete(
    fmt: str, cut: str, args: dict[str, Any]
) -> None:
    text = WRAP[fmt](cut)
    text = text[: text.index(cut) + len(cut)]
    items = check_format(fmt, text)
    calls = [v for k, v in items if isinstance(v, testing.Call)]
    assert [(c.name, json.loads(c.arguments), c.incomplete) for c in calls] == [("set", args, True)]


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_name_that_only_starts_like_a_literal_is_malformed(fmt: str) -> None:
    """``falsey`` is neither Python's nor JSON's literal: the call breaks there, ends
    incomplete, and the rest is text."""
    text = WRAP[fmt]("set(on=falsey)")
    items = check_format(fmt, text)
    calls = [v for k, v in items if isinstance(v, testing.Call)]
    assert [(c.name, c.incomplete) for c in calls] == [("set", True)]
    assert summary(items)[0].startswith("falsey)")
