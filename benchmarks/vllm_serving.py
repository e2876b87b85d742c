"""The plugin against vLLM's own parser, through vLLM's own streaming chat generator.

``vllm_peer`` calls vLLM's parsers directly; this goes through all of vLLM's serving code
(``OpenAIServingChat.create_chat_completion``, its ``Parser.parse_delta``, the chunk
models and their JSON), driven by the scripted engine of the integration tests
(``tests/integrations/vllm_harness.py``: a locally trained byte-level BPE tokenizer, one
token per delta, the output decoded ahead of time so the engine costs nothing per delta
beyond building vLLM's ``RequestOutput``). The same output is served three ways in one
run, interleaved: with no tool parser (vLLM's serving cost per delta, for scale), with
``--tool-call-parser streamcall_<format>`` and with vLLM's ``<format>``. Two figures per
delta, both CPU time, best of ``REPEAT``: the whole request, and the time inside the tool
parser's per-delta and end-of-stream calls alone; each with the ratio vLLM ÷ streamcall and
the growth exponent over the sizes (1.0 is linear, 2.0 quadratic). A parser can cost less
than no parser at all on the whole request: it holds pieces back and vLLM then sends fewer
chunks. The streamed calls of both parsers are folded and checked against the arguments
rendered; a wrong one is marked in the table.

Needs vLLM 0.33 or 0.34 (``scripts/test-vllm VERSION`` makes a venv with it, named
``.venv-vllm-VERSION``); run from the repository::

    VLLM_TARGET_DEVICE=cpu .venv-vllm-0.34.0/bin/python -m benchmarks vllm_serving [format ...]
"""

from __future__ import annotations

import importlib.metadata
import json
import os
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
SIZES = (2048, 8192, 32768)
REPEAT = 3
#: a tool parser's per-delta and end-of-stream methods
VLLM_METHODS = ("extract_tool_calls_streaming", "finish_streaming")
#: the model directory (the tokenizer's name) and the markers made special tokens
MODELS: dict[str, tuple[str, tuple[str, ...]]] = {
    "hermes": ("Hermes-3-Llama-3.1-8B", ("<tool_call>", "</tool_call>")),
    "llama3_json": ("Llama-3.1-8B-Instruct", ("<|python_tag|>", "<|eot_id|>", "<|eom_id|>")),
    "qwen3_coder": ("Qwen3-Coder-30B-A3B-Instruct", ("<tool_call>", "</tool_call>")),
    "gemma4": ("gemma-4-31b-it", ("<|tool_call>", "<tool_call|>", '<|"|>')),
}


def available() -> str | None:
    """None when vLLM 0.33 or 0.34 is importable, else why not."""
    try:
        version = importlib.metadata.version("vllm")
    except importlib.metadata.PackageNotFoundError:
        return "vllm is not installed (scripts/test-vllm 0.34.0 makes a venv with it)"
    if not version.startswith(("0.33.", "0.34.")):
        return f"needs vLLM 0.33 or 0.34, found {version}"
    return None


def _harness() -> Any:
    os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "integrations"))
    import vllm_harness

    return vllm_harness


async def _stream(serving: Any, body: dict[str, Any]) -> list[dict[str, Any]]:
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    result = await serving.create_chat_completion(ChatCompletionRequest(**body))
    return [json.loads(line[6:-2]) async for line in result if line != "data: [DONE]\n\n"]


def measure(fmt: str, shape: str, root: Path) -> list[list[object]]:
    h = _harness()
    from vllm.tool_parsers import ToolParserManager

    model, specials = MODELS[fmt]
    args_list = [string_args(n) if shape == "str" else object_args(n) for n in SIZES]
    texts = [parser_class(fmt).render([("f", args)]) for args in args_list]
    directory = h.make_tokenizer(root / f"{fmt}-{shape}" / model, specials, texts)
    engine = h.ScriptedEngine(h.model_config(directory))
    engine.tokens_per_delta = 1
    servings = {
        "none": h.make_serving(engine, tool_parser=None),
        "streamcall": h.make_serving(engine, tool_parser=f"streamcall_{fmt}"),
        "vllm": h.make_serving(engine, tool_parser=fmt),
    }
    clocks = {
        "streamcall": ParserClock(
            ToolParserManager.get_tool_parser(f"streamcall_{fmt}"), VLLM_METHODS
        ),
        "vllm": ParserClock(ToolParserManager.get_tool_parser(fmt), VLLM_METHODS),
    }

    def load(text: str) -> int:
        engine.text = text
        return len(engine.output_token_ids())

    outputs = list(zip(texts, args_list, strict=True))
    label = f"{fmt} {shape}"
    return serving_rows(
        label, "vllm", SIZES, outputs, servings, clocks, _stream, load, str(directory), REPEAT
    )


def main(argv: list[str] | None = None) -> None:
    why = available()
    if why is not None:
        print(f"vllm_serving: skipped: {why}")
        return
    names = argv or list(FORMATS)
    rows: list[list[object]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in names:
            for shape in ("str", "obj"):
                rows.extend(measure(fmt, shape, Path(tmp)))
    print(
        "through vLLM's streaming chat generator, 1 token per delta; µs per delta, best of "
        f"{REPEAT}. Whole request (CPU time): vLLM serving with no tool parser, with "
        "streamcall_<format>, with vLLM's <format>, and the ratio vLLM ÷ streamcall. Inside "
        "the parser (CPU time in its per-delta and end-of-stream calls): the same."
    )
    print(
        table(
            [
                "output",
                "deltas",
                "no parser",
                "streamcall",
                "vLLM",
                "ratio",
                "parser: streamcall",
                "parser: vLLM",
                "ratio",
            ],
            rows,
        )
    )
