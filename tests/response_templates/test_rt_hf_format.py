"""The ``hf`` format: ``tool_parser("hf", template=...)`` reads a checkpoint's response template."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import rt_corpus
import streamcall
from reference import transformers_ref as ref
from streamcall.formats.hf import HfToolParser
from streamcall.testing import check_chunkings, chunk_every, coalesce, released_in_order, run

pytestmark = pytest.mark.skipif(
    not streamcall.response_templates._patterns.REGEX_INSTALLED,
    reason="the regex package (the templates extra) is missing",
)

QWEN3 = ref.load_ecosystem()["trl"]["qwen3"]
TEXT = (
    "<think>\nLet me check.\n</think>\n\nSure.<tool_call>\n"
    '{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n<|im_end|>'
)


def test_without_a_template_it_names_the_missing_argument() -> None:
    with pytest.raises(ValueError, match="template="):
        streamcall.tool_parser("hf")


def test_a_template_is_for_hf_only() -> None:
    with pytest.raises(ValueError, match="hf and beam formats only"):
        streamcall.tool_parser("hermes", template=QWEN3)


def test_it_is_not_among_the_fixed_formats() -> None:
    assert "hf" not in streamcall.formats()
    assert "beam" not in streamcall.formats()


def test_beam_is_the_hf_reading_of_its_checkpoint_template() -> None:
    """vLLM 0.34's ``beam`` parses with the checkpoint's response template as ``hf`` does
    (``vllm/parser/beam.py``: ``BeamParser`` subclasses ``ResponseTemplateParser`` and only
    adds a sampling grammar), so streamcall's ``beam`` is ``hf`` under that name."""
    with pytest.raises(ValueError, match=r'the beam format reads a response template.*"beam"'):
        streamcall.tool_parser("beam")
    with pytest.raises(ValueError, match=r'the beam format reads a response template.*"beam"'):
        streamcall.reasoning_parser("beam")
    beam = check_chunkings(lambda: streamcall.tool_parser("beam", template=QWEN3), TEXT)
    hf = check_chunkings(lambda: streamcall.tool_parser("hf", template=QWEN3), TEXT)
    assert beam == hf
    assert [kind for kind, _ in beam] == ["reasoning", "text", "call"]
    reasoning = streamcall.reasoning_parser("beam", template=QWEN3)
    assert reasoning.name == "beam"
    items = check_chunkings(lambda: streamcall.reasoning_parser("beam", template=QWEN3), TEXT)
    assert items == check_chunkings(lambda: streamcall.reasoning_parser("hf", template=QWEN3), TEXT)


def test_reads_the_template_in_every_chunking() -> None:
    items = check_chunkings(lambda: streamcall.tool_parser("hf", template=QWEN3), TEXT)
    assert [kind for kind, _ in items] == ["reasoning", "text", "call"]
    parser = streamcall.tool_parser("hf", template=QWEN3, id_prefix="x_")
    assert isinstance(parser, HfToolParser)
    events = parser.feed(TEXT) + parser.finish()
    starts = [e for e in events if isinstance(e, streamcall.ToolCallStart)]
    assert [(s.id, s.name) for s in starts] == [("x_0", "get_weather")]
    assert parser.message()["tool_calls"][0]["function"]["arguments"] == {"city": "Paris"}


def test_takes_a_model_directory(tmp_path: Path) -> None:
    config = {"response_template": QWEN3, "chat_template": "{{ messages }}"}
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    parser = streamcall.tool_parser("hf", template=tmp_path)
    events = parser.feed(TEXT) + parser.finish()
    assert any(isinstance(e, streamcall.ToolCallEnd) for e in events)


# --- reasoning_parser("hf") ----------------------------------------------------------------

ECOSYSTEM = ref.load_ecosystem()
TRL_SAMPLES = [
    (name, sample)
    for name, samples in rt_corpus.ECOSYSTEM_SAMPLES.items()
    if name.startswith("trl:")
    for sample in samples
]


def test_reasoning_without_a_template_names_the_missing_argument() -> None:
    with pytest.raises(ValueError, match="template="):
        streamcall.reasoning_parser("hf")
    with pytest.raises(ValueError, match="hf and beam formats only"):
        streamcall.reasoning_parser("qwen3", template=QWEN3)


def _reasoning_then_tools(template: Any, chunks: list[str]) -> list[Any]:
    """``reasoning_parser("hf")`` with ``tool_parser("hf")`` reading its text."""
    reasoning = streamcall.reasoning_parser("hf", template=template)
    tools = streamcall.tool_parser("hf", template=template)
    out: list[Any] = []

    def route(events: list[Any], last: bool) -> None:
        for e in events:
            if isinstance(e, streamcall.Text):
                out.extend(tools.feed(e.text))
            else:
                out.append(e)
        if last:
            out.extend(tools.finish())

    for chunk in chunks:
        route(reasoning.feed(chunk), False)
    route(reasoning.finish(), True)
    return out


@pytest.mark.parametrize(("name", "sample"), TRL_SAMPLES)
def test_reasoning_parser_splits_thinking_off(name: str, sample: str) -> None:
    """In every chunking: the text it releases is the input as written, less the thinking
    regions and their delimiters; the hf tool parser reading that text after it gives
    what the hf tool parser alone gives."""
    template = ECOSYSTEM["trl"][name.split(":", 1)[1]]
    items = check_chunkings(lambda: streamcall.reasoning_parser("hf", template=template), sample)
    released_in_order(sample, [streamcall.Text(v) for k, v in items if k == "text"])
    alone = coalesce(run(streamcall.tool_parser("hf", template=template), [sample]))
    for chunks in ([sample], chunk_every(sample, 1), chunk_every(sample, 7)):
        assert coalesce(_reasoning_then_tools(template, chunks)) == alone
