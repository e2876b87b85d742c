"""The chunk decoding truth table, row by row: Go's ``encoding/json`` semantics, as the
header of ``streamcall.chunks.decode`` states them.

Each row is decoded from ``str`` and from ``bytes``, through ``decode_chunk`` as shipped
and through the full (tree) path alone, so that the fast path can never drift.
"""

from __future__ import annotations

import pytest

from streamcall import ChunkDelta, ChunkError, Usage, decode_chunk
from streamcall.chunks import decode as decode_module


def both(data: str) -> ChunkDelta:
    shipped = decode_chunk(data)
    assert decode_chunk(data.encode()) == shipped
    assert decode_module._full_decode(data) == shipped
    return shipped


def rejected(data: str) -> ChunkError:
    with pytest.raises(ChunkError) as info:
        decode_chunk(data)
    with pytest.raises(ChunkError):
        decode_chunk(data.encode())
    return info.value


def content(value_json: str) -> str:
    return both('{"choices":[{"delta":{"content":' + value_json + "}}]}").content


# --- keys match case-insensitively -------------------------------------------------------


def test_struct_keys_are_case_insensitive() -> None:
    assert both('{"choices":[{"DELTA":{"CONTENT":"up"}}]}').content == "up"
    assert both('{"CHOICES":[{"DELTA":{"CONTENT":"ci"}}]}').content == "ci"
    d = both('{"choices":[{"delta":{"content":"x"},"FINISH_REASON":"stop"}]}')
    assert (d.done, d.finish_reason) == (True, "stop")
    assert both('{"Usage":{"Prompt_Tokens":3}}').usage == Usage(prompt_tokens=3)


def test_keys_inside_content_parts_are_case_sensitive() -> None:
    assert content('[{"TEXT":"up"}]') == ""
    assert content('[{"Text":"up"},{"text":"ok"}]') == "ok"


# --- a type mismatch rejects the whole chunk ---------------------------------------------


@pytest.mark.parametrize(
    ("chunk", "field"),
    [
        ('{"choices":[{"delta":{"reasoning_content":123}}]}', "reasoning_content"),
        ('{"usage":{"prompt_tokens":"1"}}', "prompt_tokens"),
        ('{"usage":{"prompt_tokens":1.5}}', "prompt_tokens"),
        ('{"usage":{"prompt_tokens":1e2}}', "prompt_tokens"),
        ('{"usage":{"prompt_tokens":99999999999999999999}}', "prompt_tokens"),
        ('{"usage":{"prompt_tokens":true}}', "prompt_tokens"),
        ('{"choices":[{"delta":{"content":"x"},"finish_reason":42}]}', "finish_reason"),
        ('{"choices":[{"index":1.5,"delta":{}}]}', "index"),
        ('{"choices":[{"delta":{"tool_calls":[{"index":1.5}]}}]}', "index"),
        ('{"usage":{"prompt_cache_hit_tokens":"x","prompt_tokens":1}}', "prompt_cache_hit_tokens"),
        ('{"choices":[{"delta":{"reasoning":[]}}]}', "reasoning"),
        ('{"choices":{"delta":{}}}', "choices"),
        ('{"choices":[1]}', "choices[0]"),
        ('{"choices":[{"delta":"x"}]}', "delta"),
        ('{"usage":[]}', "usage"),
        ('{"choices":[{"delta":{"tool_calls":[{"function":{"name":1}}]}}]}', "name"),
        ('{"choices":[{"delta":{"tool_calls":[{"id":7}]}}]}', "id"),
        ('{"usage":{"prompt_tokens_details":{"cached_tokens":"7"}}}', "cached_tokens"),
    ],
)
def test_type_mismatch_rejects_and_names_the_field(chunk: str, field: str) -> None:
    error = rejected(chunk)
    assert isinstance(error, ValueError)
    assert field in str(error)


def test_int64_bounds() -> None:
    assert both('{"usage":{"prompt_tokens":9223372036854775807}}').usage == Usage(
        prompt_tokens=9223372036854775807
    )
    rejected('{"usage":{"prompt_tokens":9223372036854775808}}')
    assert both('{"usage":{"total_tokens":-9223372036854775808}}').usage is not None
    rejected('{"usage":{"total_tokens":-9223372036854775809}}')


# --- content is loosely typed ------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ('"hi"', "hi"),
        ("null", ""),
        ("123", "123"),
        ('[{"type":"text","text":"a"}]', "a"),
        ('[{"type":"text","text":"a"},{"type":"text","text":"b"}]', "ab"),
        ('["a",{"text":"b"}]', "b"),  # non-objects skipped
        ('[{"text":123},{"text":"b"}]', "b"),  # non-string text skipped
        ('[{"text":"a","text":"z"}]', "z"),  # a Go map: the last key wins
        ("[]", ""),
        # content {} is lenient: re-encoded, it gives "{}"
        ("{}", "{}"),
        ('{"b":1,"a":2}', '{"a":2,"b":1}'),
        ('{"k":"<a>&b"}', '{"k":"\\u003ca\\u003e\\u0026b"}'),
        ('{"a":{"d":[1,true,null],"c":"x"}}', '{"a":{"c":"x","d":[1,true,null]}}'),
        ('{"a":1,"a":2}', '{"a":2}'),
        ("true", "true"),
        ("false", "false"),
        ("1.5", "1.5"),
        ("1e2", "100"),
        ("1.0", "1"),
        ("123456789012345678", "123456789012345680"),
        ("1e21", "1e+21"),
        ("1e20", "100000000000000000000"),
        ("-2.5e-7", "-2.5e-7"),
        ("0.000001", "0.000001"),
        ("1E-300", "1e-300"),
        ("-0.0", "-0"),
        ('{"s":"line\\nbreak\\u2028\\t\\u0001"}', '{"s":"line\\nbreak\\u2028\\t\\u0001"}'),
    ],
)
def test_content_stringified_like_go(value: str, text: str) -> None:
    assert content(value) == text


def test_content_number_out_of_float64_range_rejects() -> None:
    assert "content" in str(rejected('{"choices":[{"delta":{"content":1e400}}]}'))


# --- reasoning_content is a strict string; `reasoning` is a synonym ----------------------


def test_reasoning_and_its_synonym() -> None:
    assert both('{"choices":[{"delta":{"reasoning_content":"r"}}]}').reasoning == "r"
    assert both('{"choices":[{"delta":{"reasoning":"v"}}]}').reasoning == "v"
    # vLLM in transition sends both with the same text: it is not doubled.
    assert (
        both('{"choices":[{"delta":{"reasoning":"v","reasoning_content":"v"}}]}').reasoning == "v"
    )
    assert both('{"choices":[{"delta":{"reasoning_content":null}}]}').reasoning == ""


def test_empty_delta_is_valid() -> None:
    assert both('{"choices":[{"delta":{}}]}') == ChunkDelta()


# --- strict grammar ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "{",
        '{"a":}',
        "",
        "   ",
        "null",
        "[]",
        '"str"',
        "123",
        '{"a":1,}',
        "{'a':1}",
        '{"a":[1,]}',
        '{"a":NaN}',
        '{"a":Infinity}',
        '{"a":-Infinity}',
        '{"a":01}',
        '{"a":1.}',
        '{"a":.5}',
        '{"a":+1}',
        '{"a":"\\q"}',
        '{"a":"\\u00"}',
        '{"a":"tab\tinside"}',
        '{"a":1} {}',
        '{"a":1}x',
        "\ufeff{}",
        '{"a":tru}',
        "{}\x00",
    ],
)
def test_strict_grammar(text: str) -> None:
    assert "JSON" in str(rejected(text)) or "object" in str(rejected(text))


def test_whitespace_around_is_fine() -> None:
    assert both(' \t\r\n{"choices":[{"delta":{"content":"a"}}]} \n').content == "a"


# --- duplicate keys merge field by field -------------------------------------------------


def test_duplicate_keys_merge_field_by_field() -> None:
    d = both(
        '{"choices":[{"delta":{"content":"a"}}],"choices":[{"delta":{"reasoning_content":"r"}}]}'
    )
    assert (d.content, d.reasoning) == ("a", "r")
    assert both('{"choices":[{"delta":{"content":"a"}}],"choices":[{"delta":{}}]}').content == "a"
    assert (
        both(
            '{"choices":[{"delta":{"content":"a"}}],"choices":[{"delta":{"content":"b"}}]}'
        ).content
        == "b"
    )
    assert both('{"usage":{"prompt_tokens":1},"usage":{"completion_tokens":2}}').usage == Usage(
        1, 2, 0
    )
    assert both('{"usage":{"total_tokens":1},"usage":{"total_tokens":2}}').usage == Usage(
        total_tokens=2
    )
    assert both('{"usage":{"total_tokens":1},"usage":null}').usage is None
    # keys that differ only in case are the same struct field
    assert both('{"choices":[{"delta":{"content":"a","CONTENT":"b"}}]}').content == "b"


def test_duplicate_array_is_cut_to_the_new_length() -> None:
    d = both(
        '{"choices":[{"index":0,"delta":{"content":"a"}},{"index":1,"delta":{"content":"b"}}],'
        '"choices":[{"delta":{"reasoning":"r"}}]}'
    )
    assert (d.content, d.reasoning, d.others) == ("a", "r", ())


# --- finish_reason -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reason", "done", "finish"),
    [("null", False, None), ('"stop"', True, "stop"), ('""', False, None), (None, False, None)],
)
def test_finish_reason(reason: str | None, done: bool, finish: str | None) -> None:
    member = "" if reason is None else f',"finish_reason":{reason}'
    d = both('{"choices":[{"delta":{"content":"x"}' + member + "}]}")
    assert (d.done, d.finish_reason) == (done, finish)


# --- UTF-8 and escapes -------------------------------------------------------------------


def test_invalid_utf8_is_one_replacement_per_bad_byte() -> None:
    raw = b'{"choices":[{"delta":{"content":"\xff\xfe"}}]}'
    assert decode_chunk(raw).content == "\ufffd\ufffd"
    # Go, unlike Python's "replace", gives one U+FFFD per byte of a cut sequence too.
    raw = b'{"choices":[{"delta":{"content":"a\xe4\xbdb\xed\xa0\x80"}}]}'
    assert decode_chunk(raw).content == "a\ufffd\ufffdb\ufffd\ufffd\ufffd"


def test_escapes_decode_and_utf8_passes_through() -> None:
    assert content('"\\" \\\\ \\/ \\n \\t \\b \\f \\r"') == '" \\ / \n \t \b \f \r'
    assert content('"\\u4f60\\ud83d\\ude00"') == "你😀"
    assert content('"你好😀"') == "你好😀"
    # A lone surrogate escape is U+FFFD, as in Go.
    assert content('"a\\ud83db"') == "a\ufffdb"
    assert content('"\\ude00"') == "\ufffd"


# --- usage -------------------------------------------------------------------------------


def test_usage_only_chunk() -> None:
    d = both('{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}')
    assert d.usage == Usage(3, 4, 7)
    assert d.content == "" and not d.done


def test_usage_details() -> None:
    d = both(
        '{"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7,'
        '"prompt_tokens_details":{"cached_tokens":2,"unknown":"x"},'
        '"completion_tokens_details":{"reasoning_tokens":1}}}'
    )
    assert d.usage == Usage(
        3,
        4,
        7,
        cached_tokens=2,
        reasoning_tokens=1,
        prompt_tokens_details={"cached_tokens": 2, "unknown": "x"},
        completion_tokens_details={"reasoning_tokens": 1},
    )


def test_usage_heartbeat_changes_nothing() -> None:
    d = both('{"usage":{"prompt_cache_hit_tokens":5,"prompt_tokens_details":{"cached_tokens":7}}}')
    assert d.usage is None
    assert d == ChunkDelta()


def test_chunk_carrying_nothing_is_an_empty_delta() -> None:
    for text in ("{}", '{"id":"x","object":"chat.completion.chunk"}', '{"choices":null}'):
        assert both(text) == ChunkDelta()


# --- tool calls, role, choice index ------------------------------------------------------


def test_tool_call_fragments() -> None:
    d = both(
        '{"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":['
        '{"index":0,"id":"call_1","type":"function","function":{"name":"get","arguments":""}},'
        '{"index":1,"function":{"arguments":"{\\"a\\":"}}]}}]}'
    )
    assert d.role == "assistant"
    first, second = d.tool_calls
    assert (first.index, first.id, first.name, first.arguments) == (0, "call_1", "get", "")
    assert (second.index, second.id, second.name, second.arguments) == (1, None, None, '{"a":')


def test_tool_call_without_index() -> None:
    (call,) = both(
        '{"choices":[{"delta":{"tool_calls":[{"id":"c","function":{"name":"f"}}]}}]}'
    ).tool_calls
    assert (call.index, call.index_given) == (0, False)


def test_object_arguments_are_re_encoded() -> None:
    (call,) = both(
        '{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":{"b":2,"a":1}}}]}}]}'
    ).tool_calls
    assert call.arguments == '{"a":1,"b":2}'


def test_several_choices() -> None:
    d = both(
        '{"choices":[{"index":0,"delta":{"content":"a"}},{"index":1,"delta":{"content":"b"},"finish_reason":"length"}]}'
    )
    assert (d.choice, d.content) == (0, "a")
    (other,) = d.others
    assert (other.choice, other.content, other.finish_reason) == (1, "b", "length")


def test_input_type_checked() -> None:
    with pytest.raises(ChunkError):
        decode_chunk(123)  # type: ignore[arg-type]
    assert decode_chunk(bytearray(b"{}")) == ChunkDelta()


def test_deep_nesting_is_rejected_not_crashed() -> None:
    rejected('{"a":' + "[" * 100000 + "]" * 100000 + "}")
