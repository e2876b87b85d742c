"""``Usage`` keeps the whole usage object: details, a provider's own members, as sent.

Known members are Go struct fields (case-insensitive, checked, null changes nothing);
everything else is kept as sent. Malformed input never raises anything but ``ChunkError``,
whose message names the member, and ``decode_chunk`` as shipped always equals the full path.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import ChunkDelta, ChunkError, Usage, UsageEvent, decode_chunk
from streamcall.chunks import decode as decode_module
from usage_fixtures import OPENAI_USAGE


def both(data: str) -> ChunkDelta:
    shipped = decode_chunk(data)
    assert decode_chunk(data.encode()) == shipped
    assert decode_module._full_decode(data) == shipped
    return shipped


def usage_of(usage_json: str) -> Usage | None:
    return both('{"choices":[],"usage":' + usage_json + "}").usage


def rejected(usage_json: str) -> str:
    data = '{"choices":[],"usage":' + usage_json + "}"
    with pytest.raises(ChunkError) as info:
        decode_chunk(data)
    with pytest.raises(ChunkError):
        decode_chunk(data.encode())
    return str(info.value)


def test_the_openai_usage_object_is_kept_whole() -> None:
    usage = usage_of(json.dumps(OPENAI_USAGE))
    assert usage == Usage(
        2006,
        640,
        2646,
        cached_tokens=1920,
        reasoning_tokens=512,
        prompt_tokens_details=OPENAI_USAGE["prompt_tokens_details"],
        completion_tokens_details=OPENAI_USAGE["completion_tokens_details"],
    )
    assert usage is not None and usage.extra is None
    assert usage.to_dict() == OPENAI_USAGE


def test_provider_members_are_kept_as_sent() -> None:
    sent = {
        **OPENAI_USAGE,
        "prompt_cache_hit_tokens": 1920,  # DeepSeek
        "prompt_cache_miss_tokens": 86,
        "cost": 0.00042,  # OpenRouter
        "is_byok": False,
        "cost_details": {"upstream_inference_cost": None},
        "queue_time": 0.0123,  # Groq
        "input_tokens_details": {"cached_tokens": 3},  # the Responses API's name
        "tags": ["a", {"b": [1, 2.5, None]}],
    }
    usage = usage_of(json.dumps(sent))
    assert usage is not None
    assert usage.extra == {k: v for k, v in sent.items() if k not in OPENAI_USAGE}
    assert usage.to_dict() == sent
    assert json.loads(json.dumps(usage.to_dict())) == sent


def test_three_totals_alone_are_as_before() -> None:
    usage = usage_of('{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}')
    assert usage == Usage(3, 4, 7)
    assert usage is not None
    assert (usage.prompt_tokens_details, usage.completion_tokens_details, usage.extra) == (
        None,
        None,
        None,
    )
    assert usage.to_dict() == {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}


def test_null_or_missing_details_are_none_and_counts_zero() -> None:
    for details in ("", ',"prompt_tokens_details":null,"completion_tokens_details":null'):
        usage = usage_of('{"total_tokens":7' + details + "}")
        assert usage == Usage(total_tokens=7)
        assert usage is not None and usage.prompt_tokens_details is None
    # an empty object was sent: it is kept
    usage = usage_of('{"total_tokens":7,"prompt_tokens_details":{}}')
    assert usage is not None and usage.prompt_tokens_details == {}
    assert usage.cached_tokens == 0


def test_missing_totals_are_zero() -> None:
    usage = usage_of('{"total_tokens":9,"prompt_tokens_details":{"cached_tokens":4}}')
    assert usage == Usage(0, 0, 9, cached_tokens=4, prompt_tokens_details={"cached_tokens": 4})


def test_details_without_totals_are_a_heartbeat() -> None:
    """A usage heartbeat (no token totals) changes nothing, whatever else it carries."""
    assert usage_of('{"prompt_tokens_details":{"cached_tokens":7},"cost":1}') is None
    assert usage_of('{"prompt_tokens":null,"completion_tokens_details":{}}') is None


def test_null_count_changes_nothing_null_member_is_kept() -> None:
    usage = usage_of(
        '{"total_tokens":1,"prompt_cache_hit_tokens":null,"note":null,'
        '"prompt_tokens_details":{"cached_tokens":null,"audio_tokens":2,"why":null}}'
    )
    assert usage is not None
    assert usage.prompt_tokens_details == {"audio_tokens": 2, "why": None}
    assert usage.cached_tokens == 0
    assert usage.extra == {"note": None}


@pytest.mark.parametrize(
    ("usage_json", "where"),
    [
        ('{"total_tokens":1,"prompt_tokens_details":{"cached_tokens":"1920"}}', "string"),
        ('{"total_tokens":1,"prompt_tokens_details":{"cached_tokens":1.5}}', "number"),
        ('{"total_tokens":1,"prompt_tokens_details":{"cached_tokens":true}}', "boolean"),
        ('{"total_tokens":1,"prompt_tokens_details":{"cached_tokens":[]}}', "array"),
        ('{"total_tokens":1,"completion_tokens_details":{"reasoning_tokens":{}}}', "object"),
        ('{"total_tokens":1,"completion_tokens_details":{"audio_tokens":1e2}}', "number"),
        ('{"total_tokens":1,"input_tokens_details":{"cached_tokens":"x"}}', "string"),
    ],
)
def test_a_count_of_the_wrong_type_rejects_the_chunk_and_says_where(
    usage_json: str, where: str
) -> None:
    message = rejected(usage_json)
    member = next(iter(json.loads(usage_json).keys() - {"total_tokens"}))
    count = next(iter(json.loads(usage_json)[member]))
    assert message.startswith(f"usage.{member}.{count}: expected an integer, got {where}")


def test_a_details_member_that_is_not_an_object_rejects_the_chunk() -> None:
    assert rejected('{"total_tokens":1,"prompt_tokens_details":5}').startswith(
        "usage.prompt_tokens_details: expected an object, got number"
    )
    assert rejected('{"total_tokens":1,"completion_tokens_details":[]}').startswith(
        "usage.completion_tokens_details: expected an object, got array"
    )
    assert "overflows a 64-bit integer" in rejected(
        '{"total_tokens":1,"prompt_tokens_details":{"cached_tokens":9223372036854775808}}'
    )
    assert rejected('{"total_tokens":1,"prompt_cache_hit_tokens":"x"}').startswith(
        "usage.prompt_cache_hit_tokens: expected an integer"
    )


def test_other_members_are_never_checked() -> None:
    usage = usage_of(
        '{"total_tokens":1,"prompt_tokens_details":{"cached_tokens":1,"cache_type":"ephemeral",'
        '"ratio":0.5,"parts":[1,{"x":true}]},"speed":"fast","ok":true,"n":99999999999999999999}'
    )
    assert usage is not None
    assert usage.prompt_tokens_details == {
        "cached_tokens": 1,
        "cache_type": "ephemeral",
        "ratio": 0.5,
        "parts": [1, {"x": True}],
    }
    assert usage.extra == {"speed": "fast", "ok": True, "n": 99999999999999999999}


def test_known_keys_fold_case_other_keys_are_exact() -> None:
    usage = usage_of(
        '{"Total_Tokens":5,"PROMPT_TOKENS_DETAILS":{"Cached_Tokens":3,"Mode":"x"},'
        '"Prompt_Cache_Hit_Tokens":3,"Cost":1,"cost":2}'
    )
    assert usage is not None
    assert usage.prompt_tokens_details == {"cached_tokens": 3, "Mode": "x"}
    assert usage.cached_tokens == 3
    assert usage.extra == {"prompt_cache_hit_tokens": 3, "Cost": 1, "cost": 2}


def test_repeated_keys_merge_as_the_rest_of_the_chunk_does() -> None:
    d = both(
        '{"usage":{"prompt_tokens":1,"prompt_tokens_details":{"cached_tokens":1,"a":1},"x":1},'
        '"usage":{"total_tokens":2,"prompt_tokens_details":{"audio_tokens":0,"a":2},"x":{"y":1}}}'
    )
    assert d.usage == Usage(
        1,
        0,
        2,
        cached_tokens=1,
        prompt_tokens_details={"cached_tokens": 1, "a": 2, "audio_tokens": 0},
        extra={"x": {"y": 1}},
    )
    # inside an unknown member, a Go map: the last of duplicate keys wins
    usage = usage_of('{"total_tokens":1,"m":{"k":{"deep":1},"k":2,"j":[{"a":1,"a":3}]}}')
    assert usage is not None and usage.extra == {"m": {"k": 2, "j": [{"a": 3}]}}
    assert both('{"usage":{"total_tokens":1,"cost":3},"usage":null}').usage is None


def test_a_deeply_nested_member_is_kept_not_a_crash() -> None:
    depth = 900
    nested = "[" * depth + "]" * depth
    usage = usage_of('{"total_tokens":1,"deep":' + nested + "}")
    assert usage is not None and usage.extra is not None
    value = usage.extra["deep"]
    for _ in range(depth - 1):
        assert type(value) is list and len(value) == 1
        value = value[0]
    assert value == []


def test_lone_surrogates_in_kept_members_become_u_fffd() -> None:
    usage = usage_of('{"total_tokens":1,"\\ud800k":"a\\udc00","m":{"\\udfff":["\\ud83d"]}}')
    assert usage is not None
    assert usage.extra == {"\ufffdk": "a\ufffd", "m": {"\ufffd": ["\ufffd"]}}
    json.dumps(usage.to_dict(), ensure_ascii=False).encode()  # encodable as UTF-8
    # a valid pair stays what it is
    pair = usage_of('{"total_tokens":1,"emoji":"\\ud83d\\ude00"}')
    assert pair is not None and pair.extra == {"emoji": "\U0001f600"}


def test_usage_on_a_content_chunk_takes_the_full_path_with_the_same_result() -> None:
    head = '{"id":"x","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]'
    d = both(head + ',"usage":' + json.dumps(OPENAI_USAGE) + "}")
    assert d.content == "hi"
    assert d.usage is not None and d.usage.to_dict() == OPENAI_USAGE


def test_usage_is_hashable_and_compares_by_value() -> None:
    plain = Usage(3, 4, 7, cached_tokens=2)
    detailed = Usage(3, 4, 7, cached_tokens=2, prompt_tokens_details={"cached_tokens": 2})
    assert hash(plain) == hash(detailed)  # the mappings take no part in the hash
    assert plain != detailed
    assert detailed == Usage(3, 4, 7, 2, 0, {"cached_tokens": 2})
    assert len({plain, detailed, Usage(3, 4, 7, 2, 0, {"cached_tokens": 2})}) == 2


def test_to_dict_keeps_counts_set_by_hand_and_totals_win() -> None:
    assert Usage(1, 2, 3, cached_tokens=4, reasoning_tokens=5).to_dict() == {
        "prompt_tokens": 1,
        "completion_tokens": 2,
        "total_tokens": 3,
        "prompt_tokens_details": {"cached_tokens": 4},
        "completion_tokens_details": {"reasoning_tokens": 5},
    }
    hand = Usage(1, 2, 3, cached_tokens=4, prompt_tokens_details={"audio_tokens": 1})
    assert hand.to_dict()["prompt_tokens_details"] == {"audio_tokens": 1, "cached_tokens": 4}
    clash = Usage(1, 2, 3, extra={"total_tokens": 99, "prompt_tokens_details": None, "x": 1})
    assert clash.to_dict() == {
        "prompt_tokens": 1,
        "completion_tokens": 2,
        "total_tokens": 3,
        "x": 1,
    }


def test_usage_event_and_usage_give_the_same_object() -> None:
    usage = usage_of(json.dumps({**OPENAI_USAGE, "cost": 0.5}))
    assert usage is not None
    event = UsageEvent(
        usage.prompt_tokens,
        usage.completion_tokens,
        usage.total_tokens,
        usage.cached_tokens,
        usage.reasoning_tokens,
        usage.prompt_tokens_details,
        usage.completion_tokens_details,
        usage.extra,
    )
    assert event.to_dict() == usage.to_dict() == {**OPENAI_USAGE, "cost": 0.5}
    assert UsageEvent(3, 4, 7).to_dict() == Usage(3, 4, 7).to_dict()


# --- any usage object: decoded and written back, nothing is lost ---------------------------

_COUNT = st.integers(min_value=0, max_value=2**40)
_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
_KNOWN = {
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "prompt_cache_hit_tokens",
    "prompt_cache_miss_tokens",
    "prompt_tokens_details",
    "completion_tokens_details",
    "input_tokens_details",
}
_OTHER_KEY = st.text(min_size=1, max_size=8).filter(lambda k: k.casefold() not in _KNOWN)
_DETAIL_KNOWN = {
    "cached_tokens",
    "reasoning_tokens",
    "audio_tokens",
    "accepted_prediction_tokens",
    "rejected_prediction_tokens",
}


def _details() -> st.SearchStrategy[dict[str, Any]]:
    known = st.dictionaries(st.sampled_from(sorted(_DETAIL_KNOWN)), _COUNT, max_size=3)
    other = st.dictionaries(
        st.text(max_size=6).filter(lambda k: k.casefold() not in _DETAIL_KNOWN), _JSON, max_size=2
    )
    return st.builds(lambda a, b: {**a, **b}, known, other)


usage_objects = st.builds(
    lambda totals, prompt, completion, other: {**totals, **prompt, **completion, **other},
    st.fixed_dictionaries(
        {"prompt_tokens": _COUNT, "completion_tokens": _COUNT, "total_tokens": _COUNT}
    ),
    st.dictionaries(st.just("prompt_tokens_details"), _details(), max_size=1),
    st.dictionaries(st.just("completion_tokens_details"), _details(), max_size=1),
    st.dictionaries(_OTHER_KEY, _JSON, max_size=3),
)


@given(usage_objects, st.booleans())
def test_any_usage_object_round_trips(sent: dict[str, Any], ascii_only: bool) -> None:
    data = json.dumps({"choices": [], "usage": sent}, ensure_ascii=ascii_only)
    usage = both(data).usage
    assert usage is not None
    assert usage.to_dict() == sent
    prompt = sent.get("prompt_tokens_details") or {}
    completion = sent.get("completion_tokens_details") or {}
    assert usage.cached_tokens == prompt.get("cached_tokens", 0)
    assert usage.reasoning_tokens == completion.get("reasoning_tokens", 0)
    # what the proxy writes decodes to the same Usage
    again = decode_chunk(json.dumps({"choices": [], "usage": usage.to_dict()}))
    assert again.usage == usage
