"""Token-tagged text against transformers 5.25's token ids.

transformers 5.25 parses generated token ids (``parse_response(ids, ..., tokenizer=)``): a
control token generated as its id is a delimiter, the same characters generated as
ordinary tokens are text. streamcall has no tokenizer; it reads token-tagged text,
``(text, is_control)`` pieces, with the control tokens' spellings (``control_tokens=``).
The inputs are comparable when the pieces are what the ids decode to: here a byte-level
tokenizer built in the test (no download), whose control tokens are the ECOSYSTEM
templates' markers (special tokens), encodes each output with every control token either
as its id or spelled out byte by byte, chosen at random; streamcall gets the same text,
tagged. Both must give the same dict (or the same exception type), one shot and streamed
(``feed_tokens`` in 1- and 7-character pieces, each control token a piece of its own).

Not comparable, and not tested: a tokenizer whose ordinary tokens do not decode to the text
they encode (a decoder that cleans up spaces), and a prompt given as ids (streamcall takes
the prompt as text, which transformers encodes, control tokens as their ids).

Needs transformers 5.25 (``scripts/test-transformers 5.25.0``); with 5.24, which reads text
only, and without transformers, it skips and says why. The reading of token-tagged text
itself is tested everywhere (``test_control_token_text_*``).
"""

from __future__ import annotations

import copy
import json
import re
from functools import cache
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference import transformers_ref as ref
from rt_corpus import WEATHER_TOOLS, Collected, collect, pieces
from streamcall.response_templates import parse_response, response_parser
from streamcall.response_templates.control import MARKER, ControlTokenText, strip_markers
from streamcall.testing import chunk_every

CONTROL = re.compile(r"<\|[^|<>\s]+\|>|</?[a-z_]+>")


def _why_not() -> str | None:
    if ref.skip_reason() is not None:
        return f"{ref.skip_reason()} (run scripts/test-transformers 5.25.0)"
    if not ref.version().startswith("5.25"):
        return f"transformers {ref.version()} reads text only; token ids are 5.25's"
    return None


needs_token_ids = pytest.mark.skipif(_why_not() is not None, reason=f"{_why_not()}")

ENTRIES = [
    e
    for e in collect()
    if e.id.startswith(("trl:", "transformers_serve:"))
    and any(CONTROL.search(s) for s in e.samples)
]


def _controls(entry: Collected) -> list[str]:
    return sorted({m.group() for s in entry.samples for m in CONTROL.finditer(s)})


@cache
def _tokenizer(controls: tuple[str, ...]) -> Any:
    """A byte-level tokenizer with ``controls`` as its special tokens."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    backend = Tokenizer(models.BPE(vocab={c: i for i, c in enumerate(alphabet)}, merges=[]))
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    backend.add_special_tokens([AddedToken(c, special=True, normalized=False) for c in controls])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend)
    # the control tokens transformers derives are the ones streamcall is given
    assert sorted(tokenizer._get_control_tokens("")) == sorted(controls)
    return tokenizer


def _encode(
    tokenizer: Any, text: str, controls: list[str], as_id: list[bool]
) -> tuple[list[int], list[tuple[str, bool]]]:
    """The ids of ``text``, each control token as its id or spelled out (``as_id`` in
    turn), and the same as token-tagged text."""
    spelling = re.compile("|".join(map(re.escape, sorted(controls, key=len, reverse=True))))
    ids: list[int] = []
    tagged: list[tuple[str, bool]] = []

    def ordinary(piece: str) -> None:
        if piece:
            ids.extend(tokenizer.encode(piece, add_special_tokens=False, split_special_tokens=True))
            tagged.append((piece, False))

    pos = 0
    for i, m in enumerate(spelling.finditer(text)):
        ordinary(text[pos : m.start()])
        if as_id[i % len(as_id)]:
            ids.append(tokenizer.convert_tokens_to_ids(m.group()))
            tagged.append((m.group(), True))
        else:
            ordinary(m.group())
        pos = m.end()
    ordinary(text[pos:])
    assert tokenizer.backend_tokenizer.decode(ids, skip_special_tokens=False) == text
    return ids, tagged


def _outcome(call: Any) -> tuple[str, Any]:
    try:
        return "value", json.dumps(call(), ensure_ascii=False)
    except Exception as exc:
        return "raises", type(exc)


def check(entry: Collected, text: str, as_id: list[bool], prefix: str, tools: Any) -> None:
    from transformers.utils.chat_parsing import parse_response as transformers_parse

    controls = _controls(entry)
    tokenizer = _tokenizer(tuple(controls))
    ids, tagged = _encode(tokenizer, text, controls, as_id)
    template = entry.template
    theirs = _outcome(
        lambda: transformers_parse(
            ids,
            copy.deepcopy(template),
            prefix=prefix,
            tools=copy.deepcopy(tools),
            tokenizer=tokenizer,
        )
    )
    ours = _outcome(
        lambda: parse_response(
            tagged,
            copy.deepcopy(template),
            prefix=prefix,
            tools=copy.deepcopy(tools),
            control_tokens=controls,
        )
    )
    context = f"{entry.id} tagged={tagged!r} prefix={prefix!r} tools={tools is not None}"
    assert ours == theirs, context
    for size in (1, 7):
        parser = response_parser(
            copy.deepcopy(template),
            tools=copy.deepcopy(tools),
            prefix=prefix,
            control_tokens=controls,
        )
        for piece, control in tagged:
            chunks = [piece] if control else chunk_every(piece, size)
            parser.feed_tokens([(chunk, control) for chunk in chunks])
        parser.finish()
        assert _outcome(parser.message) == theirs, f"{context} size={size}"


@needs_token_ids
@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.id)
def test_samples_every_choice(entry: Collected) -> None:
    """Each sample, with its control tokens all ids, all spelled out, and alternating."""
    for text in entry.samples:
        for as_id in ([True], [False], [True, False], [False, True]):
            for prefix in ["", *entry.prompts[:1]]:
                check(entry, text, as_id, prefix, WEATHER_TOOLS)


@needs_token_ids
@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.id)
@given(data=st.data())
def test_generated_outputs(entry: Collected, data: st.DataObject) -> None:
    vocabulary = pieces(entry)
    text = data.draw(st.lists(st.sampled_from(vocabulary), max_size=14).map("".join), "text")
    as_id = data.draw(st.lists(st.booleans(), min_size=1, max_size=6), "as_id")
    prefix = data.draw(st.sampled_from(["", *entry.prompts]), "prefix")
    tools = data.draw(st.sampled_from([None, WEATHER_TOOLS]), "tools")
    check(entry, text, as_id, prefix, tools)


@needs_token_ids
def test_a_spelled_out_token_is_text() -> None:
    """The change itself: Qwen3's <|im_end|> spelled out does not end the message, and a
    spelled-out <tool_call> is no call."""
    entry = next(e for e in ENTRIES if e.id == "trl:qwen3")
    text = 'Say <|im_end|> or <tool_call>{"name": "f", "arguments": {}}</tool_call> as text.'
    check(entry, text + "<|im_end|>", [False, False, False, True], "", None)
    controls = _controls(entry)
    tagged = [(text, False), ("<|im_end|>", True)]
    got = parse_response(tagged, entry.template, prefix="", control_tokens=controls)
    assert got["content"] == text
    assert "tool_calls" not in got
    # the same characters as text (no token ids): the call is read, the message ends early
    as_text = parse_response(text + "<|im_end|>", entry.template, prefix="")
    assert as_text["content"] != text


# --- the reading of token-tagged text, everywhere ---------------------------------------

TOKENS = ["<|im_end|>", "<tool_call>", "</tool_call>", "<|im"]


@given(
    text=st.lists(st.sampled_from([*TOKENS, "<", "|", "im", "_end", ">", "a", "</", "x"])).map(
        "".join
    ),
    cuts=st.lists(st.integers(0, 40)),
)
def test_control_token_text_any_chunking(text: str, cuts: list[int]) -> None:
    """Ordinary text cut anywhere reads the same, and no control token survives whole."""
    whole = ControlTokenText(TOKENS)
    want = whole.feed([(text, False)]) + whole.flush()
    bounds = sorted({c for c in cuts if c < len(text)})
    parts = [text[a:b] for a, b in zip([0, *bounds], [*bounds, len(text)], strict=True)]
    split = ControlTokenText(TOKENS)
    got = "".join(split.feed([(p, False)]) for p in parts) + split.flush()
    assert got == want
    assert strip_markers(got) == text
    assert not any(t in got for t in TOKENS)


def test_control_token_text_ids_stay_tokens() -> None:
    reader = ControlTokenText(TOKENS)
    out = reader.feed([("a<|i", False), ("m", False), ("<|im_end|>", True), ("_end|>b", False)])
    out += reader.flush()
    assert out == f"a<{MARKER}|{MARKER}i{MARKER}m<|im_end|>_end|>b"


def test_stream_without_control_tokens_reads_the_text() -> None:
    template = {"start_anchor": "<s>", "fields": {"content": {"close": "<|end|>"}}}
    parser = response_parser(template)
    parser.feed_tokens([("hi<|end|>", False)])
    parser.finish()
    assert parser.message() == {"content": "hi"}
    tagged = response_parser(template, control_tokens=["<|end|>"])
    events = tagged.feed_tokens([("hi<|end|>", False), ("<|end|>", True)])
    events += tagged.finish()
    assert tagged.message() == {"content": "hi<|end|>"}
    assert not any(MARKER in str(e) for e in events)
