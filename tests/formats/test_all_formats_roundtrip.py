"""Every registered format, through its own wire syntax: render, parse, compare.

Each format class renders calls the way its model writes them (``render``). Random calls
with "tame" values (no markup characters, no edge whitespace, so that every format can
carry them) are rendered with text around them and parsed back in random chunkings.
Format-specific edge cases live in each format's own test file.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall.formats.registry import formats, parser_class
from support import check_format, summary

RENDERABLE = []
for _name in formats():
    try:
        parser_class(_name).render([("f", {})])
    except NotImplementedError:
        continue
    RENDERABLE.append(_name)

keys = st.from_regex(r"[a-z][a-z0-9_]{0,7}", fullmatch=True)
tame_text = st.from_regex(
    r"[A-Za-z0-9é中😀_.,!?-]([A-Za-z0-9é中😀_.,!? -]{0,18}[A-Za-z0-9é中😀_.,!?-])?", fullmatch=True
)
scalars = (
    tame_text
    | st.integers(-(10**9), 10**9)
    | st.floats(-1e6, 1e6, allow_nan=False).filter(lambda f: "." in repr(f) and "e" not in repr(f))
    | st.booleans()
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=6,
)
calls = st.lists(
    st.tuples(
        st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True),
        st.dictionaries(keys, values, max_size=4),
    ),
    min_size=1,
    max_size=3,
)

_TYPES = {
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    list: "array",
    dict: "object",
}


def schema_for(call_list: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    tools: dict[str, dict[str, Any]] = {}
    for name, args in call_list:
        props = tools.setdefault(name, {})
        for key, value in args.items():
            props[key] = {"type": _TYPES[type(value)]}
    return [
        {
            "type": "function",
            "function": {"name": n, "parameters": {"type": "object", "properties": p}},
        }
        for n, p in tools.items()
    ]


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, int | float) and isinstance(b, int | float) and math.isclose(a, b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b) and type(a) is type(b)


@pytest.mark.parametrize("fmt", RENDERABLE)
@given(data=st.data(), call_list=calls, before=st.sampled_from(["", "Sure. ", "Let me check.\n"]))
def test_render_then_parse_in_any_chunking(
    fmt: str, data: st.DataObject, call_list: list[tuple[str, dict[str, Any]]], before: str
) -> None:
    # Duplicate names with different key types would make the schema ambiguous.
    by_name: dict[str, dict[str, Any]] = {}
    for name, args in call_list:
        by_name.setdefault(name, {}).update(args)
    call_list = [(name, by_name[name]) for name, _ in call_list]
    rendered = parser_class(fmt).render(call_list)
    # A format whose calls must be the whole output (``pythonic``) has text only after them.
    whole = getattr(parser_class(fmt), "WHOLE_OUTPUT", False)
    text = rendered + "\n" + before if whole and before else before + rendered
    items = check_format(fmt, text, data, tools=schema_for(call_list))
    content, got = summary(items)
    assert content.strip() == before.strip()
    assert [n for n, _ in got] == [n for n, _ in call_list]
    for (_, g), (_, w) in zip(got, call_list, strict=True):
        assert same(g, w), (g, w)
