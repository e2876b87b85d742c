"""``lfm2``: vLLM's cases in every chunking, messy agentic strings included.

Fixture strings are copied from vllm-project/vllm
``tests/tool_parsers/test_lfm2_tool_parser.py`` (Apache-2.0). Expected arguments are
compared as parsed JSON (streamcall writes compact JSON).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pythonic_cases import MORE_TYPES

from streamcall import testing
from support import check_format, summary

START = "<|tool_call_start|>"
END = "<|tool_call_end|>"

SIMPLE = "get_candidate_status(candidate_id='12345')"
SIMPLE_CALL = ("get_candidate_status", {"candidate_id": "12345"})
MORE_TYPES_CALL = (
    "register_user",
    {
        "name": "John Doe",
        "age": 37,
        "address": {"city": "San Francisco", "state": "CA"},
        "role": None,
        "passed_test": True,
        "aliases": ["John", "Johnny"],
    },
)
DOTTED = (
    "grocery.orderIngredients("
    "ingredientList=[{'name': 'Lasagna noodles', 'amount': 250, 'unit': 'g'}], "
    "deliveryAddress='845 Willow Lane, Springfield, IL 62704')"
)
DOTTED_CALL = (
    "grocery.orderIngredients",
    {
        "ingredientList": [{"name": "Lasagna noodles", "amount": 250, "unit": "g"}],
        "deliveryAddress": "845 Willow Lane, Springfield, IL 62704",
    },
)
NESTED_PYTHON_C = (
    "bash(command='cd /testbed && python3 -c \"from sympy import latex\n"
    "print(latex(3*x, mul_symbol='\\,'))\"')"
)
NESTED_PYTHON_C_CALL = (
    "bash",
    {
        "command": "cd /testbed && python3 -c \"from sympy import latex\nprint(latex(3*x, mul_symbol='\\,'))\""
    },
)


def wrap(body: str, after: str = "") -> str:
    return f"{START}[{body}]{END}" + (f"\n{after}" if after else "")


CASES: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]] = [
    ("How can I help you today?", "How can I help you today?", []),
    (wrap(SIMPLE), "", [SIMPLE_CALL]),
    (wrap(MORE_TYPES), "", [MORE_TYPES_CALL]),
    (wrap("get_weather()"), "", [("get_weather", {})]),
    (
        wrap("do_something_cool(additional_data={})"),
        "",
        [("do_something_cool", {"additional_data": {}})],
    ),
    (wrap("do_something_cool(steps=[])"), "", [("do_something_cool", {"steps": []})]),
    (
        wrap(r"get_weather(city='Martha\'s Vineyard', metric='\"cool units\"')"),
        "",
        [("get_weather", {"city": "Martha's Vineyard", "metric": '"cool units"'})],
    ),
    (wrap(f"{SIMPLE}, {MORE_TYPES}"), "", [SIMPLE_CALL, MORE_TYPES_CALL]),
    (
        wrap(SIMPLE, "Checking the current status of candidate ID 12345."),
        "\nChecking the current status of candidate ID 12345.",
        [SIMPLE_CALL],
    ),
    (wrap(DOTTED), "", [DOTTED_CALL]),
    (
        wrap("exec(command='grep -F \"]\" log.txt')"),
        "",
        [("exec", {"command": 'grep -F "]" log.txt'})],
    ),
    (
        wrap("exec(command='cat > f.py << EOF\nimport csv\nprint(1)\nEOF')"),
        "",
        [("exec", {"command": "cat > f.py << EOF\nimport csv\nprint(1)\nEOF"})],
    ),
    (wrap("label(tags={'urgent', 'bug'})"), "", [("label", {"tags": ["urgent", "bug"]})]),
    (
        wrap("bash(command='sed -n '360,450p' /testbed/sympy/matrices/common.py')"),
        "",
        [("bash", {"command": "sed -n '360,450p' /testbed/sympy/matrices/common.py"})],
    ),
    (wrap(NESTED_PYTHON_C), "", [NESTED_PYTHON_C_CALL]),
    (wrap("set_date(month=07, day=05)"), "", [("set_date", {"month": 7, "day": 5})]),
    (wrap("exec(command='printf a\x00b')"), "", [("exec", {"command": "printf a\x00b"})]),
    # vLLM test_bad_sibling_call_does_not_drop_good_calls: kept here, as a string
    (f"{START}[{SIMPLE}, bad(x=b'z')]{END}", "", [SIMPLE_CALL, ("bad", {"x": "z"})]),
    # vLLM test_whitespace_after_start_token
    (f"{START} [{SIMPLE}]{END}", "", [SIMPLE_CALL]),
    # vLLM: leading and trailing content around a block in one delta
    (f"Let me check. {wrap(SIMPLE)}\nDone.", "Let me check. \nDone.", [SIMPLE_CALL]),
    # vLLM test_streaming_char_by_char_multi_dict_list
    (
        f"{START}[grocery.orderIngredients(ingredientList=["
        '{"name": "apple", "quantity": "2"}, '
        '{"name": "bread", "quantity": "1"}'
        f"])]{END}",
        "",
        [
            (
                "grocery.orderIngredients",
                {
                    "ingredientList": [
                        {"name": "apple", "quantity": "2"},
                        {"name": "bread", "quantity": "1"},
                    ]
                },
            )
        ],
    ),
    # vLLM test_empty_tool_call_block: no calls; the block is text here
    (f"{START}[]{END}", f"{START}[]{END}", []),
    (f"{START}[ ]{END}", f"{START}[ ]{END}", []),
    # vLLM test_echoed_tool_call_body_not_leaked_to_content: vLLM drops the echo; here the
    # echoed body after the block is text (nothing is lost).
    (
        f"{START}[{DOTTED}]{END}[{DOTTED}]{END}",
        f"[{DOTTED}]{END}",
        [DOTTED_CALL],
    ),
]

MALFORMED = [
    f"{START}[A(A=" + "\t)A(A=,\t" * 2 + f"]{END}",  # vLLM test_regex_timeout_handling input
    f"{START}[get_candidate_status(candidate_id='123",
    f"{START}[f(a=1",
    f"{START}[not_a_call]{END}",
    f"{START}[f()] trailing junk {END}",
    "<|tool_call_st",
]


@pytest.mark.parametrize(("text", "content", "calls"), CASES)
@given(data=st.data())
def test_vllm_cases_in_any_chunking(
    text: str, content: str, calls: list[tuple[str, dict[str, Any]]], data: st.DataObject
) -> None:
    got_content, got_calls = summary(check_format("lfm2", text, data))
    assert got_content == content
    assert got_calls == calls


@pytest.mark.parametrize("text", MALFORMED)
@given(data=st.data())
def test_malformed_never_loses_text(text: str, data: st.DataObject) -> None:
    check_format("lfm2", text, data)


@pytest.mark.parametrize(
    ("text", "content", "calls"),
    [
        (
            '<|tool_call_start|>[{"name": "search", "arguments": {"query": "sglang"}}]'
            "<|tool_call_end|>",
            "",
            [("search", {"query": "sglang"})],
        ),
        (
            'Sure <|tool_call_start|>[{"name": "a", "arguments": {}}, '
            '{"name": "b", "arguments": {"x": [1, "]"]}}]<|tool_call_end|> done',
            "Sure  done",
            [("a", {}), ("b", {"x": [1, "]"]})],
        ),
        (  # an object, not in a list
            '<|tool_call_start|>{"name": "a", "arguments": {"k": 1}}<|tool_call_end|>',
            "",
            [("a", {"k": 1})],
        ),
        (  # pythonic and JSON blocks in one output
            "<|tool_call_start|>[a(x=1)]<|tool_call_end|>"
            '<|tool_call_start|>[{"name": "b", "arguments": {}}]<|tool_call_end|>'
            "<|tool_call_start|>[c()]<|tool_call_end|>",
            "",
            [("a", {"x": 1}), ("b", {}), ("c", {})],
        ),
        (  # not a call: text, whole
            '<|tool_call_start|>[{"foo": 1}]<|tool_call_end|> x',
            '<|tool_call_start|>[{"foo": 1}]<|tool_call_end|> x',
            [],
        ),
    ],
)
@given(data=st.data())
def test_json_body_is_read_by_the_json_engine(
    text: str, content: str, calls: list[tuple[str, dict[str, Any]]], data: st.DataObject
) -> None:
    """LFM2 writes JSON calls in its markers when its system prompt asks for them; they
    were text (SGLang's Lfm2Detector suite reads them)."""
    assert summary(check_format("lfm2", text, data)) == (content, calls)


def test_json_body_cut_by_the_end_is_incomplete() -> None:
    text = '<|tool_call_start|>[{"name": "a", "arguments": {"k": "cut'
    items = check_format("lfm2", text)
    calls = [(v.name, v.arguments, v.incomplete) for _, v in items if isinstance(v, testing.Call)]
    assert calls == [("a", '{"k": "cut"}', True)]
