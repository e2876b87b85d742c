"""DSML's wrapper parameter: an invoke whose only parameter is ``arguments`` or ``input``.

When that name is not a property of the tool's schema and its value is a JSON object
(written raw, or as a JSON string) whose keys are all the tool's, the object is the call's
arguments (vLLM's and SGLang's DSML parsers unwrap it). The parameter is held until the
invoke's closer decides it, so that every chunking agrees: a second parameter, junk or the
end of the stream leave it the parameter it was written as. Every case runs in every
chunking, and every prefix of the text as a whole stream keeps the contract.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.formats.registry import parser_class
from streamcall.text import fast as fast_reads
from support import check_every_end, check_format, summary, typed_tool

FORMATS = ["deepseek_v32", "deepseek_v4", "deepseek_v41"]
TOOLS = [typed_tool("book_flight", origin="string", dest="string", seats="integer")]
ARGS = {"origin": "OSL", "dest": "LIS"}


def _param(fmt: str, key: str, value: str, flag: str | None = "false") -> str:
    cls = parser_class(fmt)
    attr = f' string="{flag}"' if flag is not None else ""
    return f'{cls.P}parameter name="{key}"{attr}>{value}{cls.CLOSE_P}parameter>\n'


def _invoke(fmt: str, *params: str, name: str = "book_flight", block: bool = True) -> str:
    cls = parser_class(fmt)
    call = f'{cls.P}invoke name="{name}">\n' + "".join(params) + f"{cls.CLOSE_P}invoke>"
    return f"{cls.BLOCK_OPEN}\n{call}\n{cls.BLOCK_CLOSE}" if block else call


def _calls(items: list[testing.Item]) -> list[tuple[str, dict[str, Any], bool]]:
    return [
        (v.name, json.loads(v.arguments), v.incomplete)
        for k, v in items
        if isinstance(v, testing.Call)
    ]


OBJ = json.dumps(ARGS)
UNWRAPPED: list[tuple[str, str, str | None, dict[str, Any]]] = [
    ("arguments", OBJ, "false", ARGS),  # raw JSON
    ("arguments", OBJ, "true", ARGS),  # flagged a string: its text is the object
    ("arguments", OBJ, None, ARGS),  # no flag
    ("input", OBJ, "false", ARGS),
    ("arguments", json.dumps(OBJ), "false", ARGS),  # a JSON string holding the object
    ("arguments", "\n" + OBJ + "\n", "false", ARGS),  # the newlines around a value
    ("arguments", "{}", "false", {}),
    ("arguments", '{"origin": "a<b</x>", "seats": 2}', "false", {"origin": "a<b</x>", "seats": 2}),
    ("arguments", json.dumps({"origin": "O" * 300, "dest": "D"}), "false",
     {"origin": "O" * 300, "dest": "D"}),  # longer than any shortcut holds
]  # fmt: skip


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(("key", "value", "flag", "args"), UNWRAPPED)
@given(data=st.data())
def test_a_wrapper_parameter_is_the_arguments(
    fmt: str, key: str, value: str, flag: str | None, args: dict[str, Any], data: st.DataObject
) -> None:
    text = "Booking. " + _invoke(fmt, _param(fmt, key, value, flag)) + " Done."
    items = check_format(fmt, text, data, TOOLS)
    assert _calls(items) == [("book_flight", args, False)]
    assert summary(items)[0] == "Booking.  Done."


@pytest.mark.parametrize("fmt", FORMATS)
@given(data=st.data())
def test_a_wrapper_in_a_bare_invoke_and_between_calls(fmt: str, data: st.DataObject) -> None:
    wrapped = _invoke(fmt, _param(fmt, "arguments", OBJ), block=False)
    plain = _invoke(fmt, _param(fmt, "origin", "BGO", "true"), block=False)
    text = wrapped + "\n" + plain + "\n" + wrapped
    items = check_format(fmt, text, data, TOOLS)
    assert [(n, a) for n, a, _ in _calls(items)] == [
        ("book_flight", ARGS),
        ("book_flight", {"origin": "BGO"}),
        ("book_flight", ARGS),
    ]


NOT_UNWRAPPED: list[tuple[str, list[tuple[str, str, str | None]], Any, dict[str, Any]]] = [
    # a key the tool does not have: not its arguments
    ("unknown key", [("arguments", '{"origin": "OSL", "x": 1}', "false")], TOOLS,
     {"arguments": {"origin": "OSL", "x": 1}}),
    # the wrapper is a property of the schema: a parameter like any other
    ("wrapper in schema", [("arguments", OBJ, "false")],
     [typed_tool("book_flight", arguments="object", origin="string", dest="string")],
     {"arguments": ARGS}),
    # no schema: nothing says the name is not a real parameter
    ("no tools", [("arguments", OBJ, "false")], None, {"arguments": ARGS}),
    # not the only parameter, either way round
    ("and another", [("arguments", OBJ, "false"), ("seats", "2", "false")], TOOLS,
     {"arguments": ARGS, "seats": 2}),
    ("after another", [("seats", "2", "false"), ("arguments", OBJ, "false")], TOOLS,
     {"seats": 2, "arguments": ARGS}),
    ("two wrappers", [("arguments", OBJ, "false"), ("input", OBJ, "false")], TOOLS,
     {"arguments": ARGS, "input": ARGS}),
    # not an object
    ("a list", [("arguments", "[1, 2]", "false")], TOOLS, {"arguments": [1, 2]}),
    ("a number", [("input", "42", None)], TOOLS, {"input": 42}),
    ("text", [("arguments", "fly me to LIS", "true")], TOOLS, {"arguments": "fly me to LIS"}),
    ("broken JSON", [("arguments", '{"origin": ', "false")], TOOLS, {"arguments": '{"origin": '}),
    # (as any string="false" value: a JSON string is the string it encodes, as vLLM has it)
    ("a JSON string", [("arguments", '"to LIS"', "false")], TOOLS, {"arguments": "to LIS"}),
]  # fmt: skip


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    ("why", "params", "tools", "args"), NOT_UNWRAPPED, ids=[c[0] for c in NOT_UNWRAPPED]
)
@given(data=st.data())
def test_what_is_not_a_wrapper_stays_as_written(
    fmt: str,
    why: str,
    params: list[tuple[str, str, str | None]],
    tools: Any,
    args: dict[str, Any],
    data: st.DataObject,
) -> None:
    text = _invoke(fmt, *(_param(fmt, k, v, f) for k, v, f in params))
    items = check_format(fmt, text, data, tools)
    assert _calls(items) == [("book_flight", args, False)]


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_wrapper_cut_off_is_the_parameter_as_written(fmt: str) -> None:
    """Cut before the invoke's closer, the parameter is not known to be the only one:
    the call ends incomplete with it as written. Every prefix keeps the contract."""
    text = _invoke(fmt, _param(fmt, "arguments", OBJ))
    check_every_end(fmt, text, TOOLS)
    closer = parser_class(fmt).CLOSE_P + "invoke>"
    for cut in (text.index(closer), text.index(closer) + 3, text.index(OBJ) + len(OBJ)):
        calls = _calls(check_format(fmt, text[:cut], None, TOOLS))
        assert calls == [("book_flight", {"arguments": ARGS}, True)], cut
    cut = text.index(OBJ) + 10  # inside the value: what came of it, as a string
    assert _calls(check_format(fmt, text[:cut], None, TOOLS)) == [
        ("book_flight", {"arguments": OBJ[:10]}, True)
    ]


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_wrapper_followed_by_junk_is_incomplete_as_written(fmt: str) -> None:
    text = _invoke(fmt, _param(fmt, "arguments", OBJ) + "junk ", block=False)
    items = check_format(fmt, text, None, TOOLS)
    assert _calls(items) == [("book_flight", {"arguments": ARGS}, True)]
    assert summary(items)[0].startswith("\njunk ")


def _general(fmt: str, pieces: list[str]) -> list[testing.Item]:
    """The engine's reference reads (``streamcall.text.fast.reference``)."""
    with fast_reads.reference():
        parser = parser_class(fmt)(TOOLS)
        events = []
        for piece in pieces:
            events.extend(parser.feed(piece))
        events.extend(parser.finish())
    return testing.coalesce(events)


@pytest.mark.parametrize("fmt", FORMATS)
@given(data=st.data())
def test_the_shortcuts_hold_a_wrapper_as_the_general_path_does(
    fmt: str, data: st.DataObject
) -> None:
    cases = [_invoke(fmt, _param(fmt, k, v, f)) for k, v, f, _ in UNWRAPPED]
    cases += [
        _invoke(fmt, *(_param(fmt, k, v, f) for k, v, f in params))
        for _, params, _, _ in NOT_UNWRAPPED
    ]
    text = data.draw(st.sampled_from(cases))
    text = text[: data.draw(st.integers(0, len(text)))]
    cuts = data.draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=20))
    pieces = testing.chunk_at(text, cuts)
    fast = testing.coalesce(testing.run(parser_class(fmt)(TOOLS), pieces))
    assert fast == _general(fmt, pieces), pieces
