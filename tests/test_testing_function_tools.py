"""streamcall.testing.function_tools: the tools list that typed parsers read."""

from __future__ import annotations

from streamcall import parse_tool_calls
from streamcall.testing import function_tools


def test_one_function_per_name_with_the_properties() -> None:
    props = {"n": {"type": "integer"}}
    tools = function_tools(("f", "g"), props)
    assert [t["function"]["name"] for t in tools] == ["f", "g"]
    for t in tools:
        assert t["type"] == "function"
        assert t["function"]["parameters"] == {"type": "object", "properties": props}
    tools[0]["function"]["parameters"]["properties"]["x"] = {}
    assert "x" not in props  # each tool holds its own copy


def test_a_typed_parser_reads_it() -> None:
    text = "<tool_call>\n<function=f>\n<parameter=n>\n7\n</parameter>\n</function>\n</tool_call>"
    typed = parse_tool_calls(
        text, "qwen3_coder", tools=function_tools(["f"], {"n": {"type": "string"}})
    )
    assert typed.tool_calls[0].arguments == '{"n":"7"}'  # the schema says string
    untyped = parse_tool_calls(text, "qwen3_coder", tools=function_tools(["f"], {}))
    assert untyped.tool_calls[0].arguments == '{"n":7}'  # no type: read as JSON
