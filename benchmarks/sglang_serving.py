"""The SGLang plugin against SGLang's own detectors, through SGLang's own streaming chat
generator.

This goes through all of SGLang's serving code (``OpenAIServingChat``: its
``_process_tool_call_stream`` with ``FunctionCallParser``, ``_check_for_unstreamed_tool_args``,
the chunk models and their JSON), driven by the scripted tokenizer manager of the
integration tests (``tests/integrations/sglang_harness.py``: a locally trained byte-level
BPE tokenizer, one token per step, the text of every step decoded ahead of time so the
engine side costs nothing per step beyond building the dict SGLang reads). The same output
is served three ways in one run, interleaved: with no tool parser (SGLang's serving cost
per step, for scale), with ``--tool-call-parser streamcall_<format>`` and with SGLang's
detector of the same wire (``hermes``, ``llama3``, ``qwen3_coder``). Two figures per step,
both CPU time, best of ``REPEAT``: the whole request, and the time inside the detector's
``parse_streaming_increment`` and ``finish`` alone; each with the ratio SGLang ÷ streamcall
and the growth exponent over the sizes (1.0 is linear, 2.0 quadratic). The streamed calls
of both are folded and checked against the arguments rendered; a wrong one is marked in
the table.

Needs SGLang 0.5 (``scripts/test-sglang 0.5.23`` makes a venv with it, named
``.venv-sglang-0.5.23``); run from the repository::

    .venv-sglang-0.5.23/bin/python -m benchmarks sglang_serving [format ...]
"""

from __future__ import annotations

import importlib.metadata
import json
import logging
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks._serving import (
    ParserClock,
    serving_rows,
)
from benchmarks._util import table
from benchmarks.formats import object_args, string_args
from streamcall.formats.registry import parser_class

FORMATS = ("hermes", "llama3_json", "qwen3_coder")
SIZES = (1024, 2048, 4096)
REPEAT = 3
#: a detector's per-step and end-of-stream methods
SGLANG_METHODS = ("parse_streaming_increment", "finish")
#: the model directory (the tokenizer's name), the markers made special tokens, and
#: SGLang's detector of the same wire
MODELS: dict[str, tuple[str, tuple[str, ...], str]] = {
    "hermes": ("Hermes-3-Llama-3.1-8B", ("<tool_call>", "</tool_call>"), "hermes"),
    "llama3_json": (
        "Llama-3.1-8B-Instruct",
        ("<|python_tag|>", "<|eot_id|>", "<|eom_id|>"),
        "llama3",
    ),
    "qwen3_coder": (
        "Qwen3-Coder-30B-A3B-Instruct",
        ("<tool_call>", "</tool_call>"),
        "qwen3_coder",
    ),
}


def available() -> str | None:
    """None when SGLang 0.5 is importable, else why not."""
    try:
        version = importlib.metadata.version("sglang")
    except importlib.metadata.PackageNotFoundError:
        return "sglang is not installed (scripts/test-sglang 0.5.23 makes a venv with it)"
    if not version.startswith("0.5."):
        return f"needs SGLang 0.5, found {version}"
    return None


def _harness() -> Any:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "integrations"))
    import sglang_harness

    return sglang_harness


async def _stream(serving: Any, body: dict[str, Any]) -> list[dict[str, Any]]:
    from unittest.mock import Mock

    from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest

    result = await serving.handle_request(ChatCompletionRequest(**body), Mock(headers={}))
    lines = [line async for line in result.body_iterator]
    return [json.loads(line[6:-2]) for line in lines if line != "data: [DONE]\n\n"]


def measure(fmt: str, shape: str, root: Path) -> list[list[object]]:
    h = _harness()
    from sglang.srt.function_call.function_call_parser import FunctionCallParser

    model, specials, own = MODELS[fmt]
    args_list = [string_args(n) if shape == "str" else object_args(n) for n in SIZES]
    texts = [parser_class(fmt).render([("f", args)]) for args in args_list]
    directory = h.make_tokenizer(root / f"{fmt}-{shape}" / model, specials, texts)
    made = {
        "none": h.make_serving(directory, tool_call_parser=None),
        "streamcall": h.make_serving(directory, tool_call_parser=f"streamcall_{fmt}"),
        "sglang": h.make_serving(directory, tool_call_parser=own),
    }
    enum = FunctionCallParser.ToolCallParserEnum
    clocks = {
        "streamcall": ParserClock(enum[f"streamcall_{fmt}"], SGLANG_METHODS),
        "sglang": ParserClock(enum[own], SGLANG_METHODS),
    }

    def load(text: str) -> int:
        for _, manager in made.values():
            manager.text = text
            manager.tokens_per_step = 1
            manager.steps(1, False)  # decoded ahead of time, outside the clock
            manager.steps(1, True)
        return len(made["none"][1].steps(1, False))

    servings = {name: serving for name, (serving, _) in made.items()}
    outputs = list(zip(texts, args_list, strict=True))
    label = f"{fmt} {shape}"
    return serving_rows(
        label, "sglang", SIZES, outputs, servings, clocks, _stream, load, str(directory), REPEAT
    )


def main(argv: list[str] | None = None) -> None:
    why = available()
    if why is not None:
        print(f"sglang_serving: skipped: {why}")
        return
    logging.getLogger("sglang").setLevel(logging.ERROR)
    names = argv or list(FORMATS)
    rows: list[list[object]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in names:
            for shape in ("str", "obj"):
                rows.extend(measure(fmt, shape, Path(tmp)))
    print(
        "through SGLang's streaming chat generator, 1 token per step; µs per step, best of "
        f"{REPEAT}. Whole request (CPU time): SGLang serving with no tool parser, with "
        "streamcall_<format>, with SGLang's detector, and the ratio SGLang ÷ streamcall. "
        "Inside the detector (CPU time in parse_streaming_increment and finish): the same."
    )
    print(
        table(
            [
                "output",
                "steps",
                "no parser",
                "streamcall",
                "SGLang",
                "ratio",
                "detector: streamcall",
                "detector: SGLang",
                "ratio",
            ],
            rows,
        )
    )
