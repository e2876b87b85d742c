"""Response templates streamed: ``response_parser`` against transformers' ``ResponseParser``.

    python -m benchmarks templates [--max-kb N] [--theirs-max-kb N] [--lookahead-max-kb N]

One long region fed in 7-character chunks, then finished, for sizes from 4 KB to 1 MB
(CPU time, which the other load of a shared machine disturbs less than wall time);
each row gives both parsers' best time, their ratio (transformers / streamcall) where
both ran, and each one's growth exponent (the slope of log time over log size: 1.0 is
linear). Every run's result is checked against the one-shot ``parse_response``.

Shapes:

- ``json argument, literal``: a call's JSON between ``<tool_call>`` / ``</tool_call>``
  (transformers' SmolLM fixture template; the call comes whole at its close);
- ``json argument, regex close``: the same with the close ``</tool_call>\\s*`` (TRL's Qwen3);
- ``streamed argument``: the arguments JSON is the region's body, the name an opener
  capture (TRL's Llama 3 shape), so streamcall streams it as ``ToolCallArgs`` deltas;
- ``lookahead reasoning``: reasoning in a field opened by ``(?=[\\s\\S]*?</think>)`` (TRL's
  Nemotron 3), the prompt having written ``<think>\\n``.

transformers is not in the ``bench`` extra (it is 300 MB without torch): run this with the
interpreter of a venv ``scripts/test-transformers VERSION`` makes
(``.venv-transformers-5.24.0/bin/python -m benchmarks templates``). Where transformers is not
importable, only streamcall's rows are measured, and the output says so. transformers'
streaming parser grows faster than linearly (the issue measured an exponent of 2.5 at
1 MB; on the lookahead shape it takes about a second at 4 KB, with an exponent of about
2.7), so its lookahead sizes are capped at 8 KB by default (``--lookahead-max-kb``; the
lookahead shape also runs at 1 and 2 KB), and ``--theirs-max-kb`` caps the others (1 MB by
default: all of them); at bigger sizes only streamcall runs. One run of transformers per
size; streamcall's best of three.
"""

from __future__ import annotations

import copy
import math
import sys
import time
from collections.abc import Callable
from typing import Any

from benchmarks._util import growth_exponent, table
from streamcall.response_templates import parse_response, response_parser

CHUNK = 7
WORDS = "lorem ipsum dolor sit amet, consectetur adipiscing elit; "

SMOLLM_JSON: dict[str, Any] = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "thinking": {"open": "<think>", "close": "</think>"},
        "tool_calls": {
            "open": "<tool_call>",
            "close": "</tool_call>",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": "{content}"},
        },
        "content": {"close": "<|im_end|>"},
    },
}
REGEX_CLOSE: dict[str, Any] = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "reasoning_content": {"open": "<think>", "close_pattern": r"</think>\s*"},
        "tool_calls": {
            "open": "<tool_call>",
            "close_pattern": r"</tool_call>\s*",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": "{content}"},
        },
        "content": {"close_pattern": r"<\|im_end\|>\s*"},
    },
}
STREAMED_ARGS: dict[str, Any] = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|start_header_id|>assistant<|end_header_id|>\n\n",
    "fields": {
        "tool_calls": {
            "open_pattern": r"<tool_call>(?P<name>\w+)\n",
            "close": "</tool_call>",
            "repeats": True,
            "content": "json",
            "transform": {
                "type": "function",
                "function": {"name": "{name}", "arguments": "{content}"},
            },
        },
        "content": {"close_pattern": r"<\|eot_id\|>\s*"},
    },
}
LOOKAHEAD: dict[str, Any] = {
    "defaults": {"role": "assistant"},
    "start_anchor_pattern": r"<\|im_start\|>assistant\n<think>(?:\n|</think>)?",
    "fields": {
        "reasoning_content": {
            "open_pattern": r"(?=[\s\S]*?</think>)",
            "close_pattern": r"</think>\s*",
        },
        "content": {"close_pattern": r"<\|im_end\|>\s*"},
    },
}


def filler(n: int) -> str:
    return (WORDS * (n // len(WORDS) + 1))[:n]


def json_call(n: int) -> str:
    return '<tool_call>{"name": "f", "arguments": {"data": "' + filler(n) + '"}}</tool_call>'


Shape = tuple[dict[str, Any], str, Callable[[int], str]]
SHAPES: dict[str, Shape] = {
    "json argument, literal": (SMOLLM_JSON, "", json_call),
    "json argument, regex close": (REGEX_CLOSE, "", json_call),
    "streamed argument": (
        STREAMED_ARGS,
        "",
        lambda n: '<tool_call>f\n{"data": "' + filler(n) + '"}</tool_call>',
    ),
    "lookahead reasoning": (
        LOOKAHEAD,
        "<|im_start|>assistant\n<think>\n",
        lambda n: filler(n) + "</think>\nok<|im_end|>",
    ),
}


def _chunks(text: str) -> list[str]:
    return [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)]


def ours(template: dict[str, Any], prefix: str, text: str) -> float:
    """Seconds for streamcall's ``response_parser`` (checked against the one-shot dict)."""
    chunks = _chunks(text)
    parser = response_parser(template, prefix=prefix)
    start = time.process_time()
    for chunk in chunks:
        parser.feed(chunk)
    parser.finish()
    elapsed = time.process_time() - start
    assert parser.message() == parse_response(text, template, prefix=prefix)
    return elapsed


def theirs(template: dict[str, Any], prefix: str, text: str) -> float:
    """Seconds for transformers' streaming ``ResponseParser`` (checked the same way)."""
    from transformers.utils.chat_parsing import ResponseParser

    chunks = _chunks(text)
    parser = ResponseParser(copy.deepcopy(template), prefix=prefix)
    start = time.process_time()
    for chunk in chunks:
        parser.feed(chunk)
    message, _ = parser.finalize()
    elapsed = time.process_time() - start
    assert message == parse_response(text, template, prefix=prefix)
    return elapsed


def transformers_version() -> str | None:
    try:
        import transformers
    except Exception:
        return None
    return str(transformers.__version__)


def measure(shape: str, sizes_kb: list[int], theirs_max_kb: int | None) -> list[list[object]]:
    template, prefix, make = SHAPES[shape]
    rows: list[list[object]] = []
    mine: list[tuple[int, float]] = []
    other: list[tuple[int, float]] = []
    for kb in sizes_kb:
        text = make(kb * 1024)
        t_ours = min(ours(template, prefix, text) for _ in range(3))
        mine.append((kb, t_ours))
        t_theirs: float | None = None
        if theirs_max_kb is not None and kb <= theirs_max_kb:
            t_theirs = theirs(template, prefix, text)
            other.append((kb, t_theirs))
        rows.append(
            [
                f"{shape} {kb} KB",
                f"{t_ours * 1e3:.1f}",
                "-" if t_theirs is None else f"{t_theirs * 1e3:.1f}",
                "-" if t_theirs is None else f"{t_theirs / t_ours:.1f}",
            ]
        )
        print(rows[-1], file=sys.stderr, flush=True)
    exp_ours = growth_exponent([s for s, _ in mine], [t for _, t in mine])
    exp_theirs = (
        growth_exponent([s for s, _ in other], [t for _, t in other])
        if len(other) > 1
        else math.nan
    )
    rows.append([f"{shape}: growth exponent", f"{exp_ours:.2f}", f"{exp_theirs:.2f}", ""])
    return rows


def _arg(argv: list[str], name: str, default: int) -> int:
    return int(argv[argv.index(name) + 1]) if name in argv else default


def main(argv: list[str] | None = None) -> None:
    argv = argv or []
    max_kb = _arg(argv, "--max-kb", 1024)
    theirs_kb = _arg(argv, "--theirs-max-kb", 1024)
    look_kb = _arg(argv, "--lookahead-max-kb", 8)
    version = transformers_version()
    sizes = [kb for kb in (4, 16, 64, 256, 1024) if kb <= max_kb]
    if version is None:
        print(
            "transformers is not importable here: streamcall only (run with "
            ".venv-transformers-5.24.0/bin/python, made by scripts/test-transformers)"
        )
    else:
        print(
            f"transformers {version}: its sizes capped at {theirs_kb} KB (lookahead: {look_kb} KB)"
        )
    print(f"{CHUNK}-character chunks; streamcall best of 3, transformers one run")
    rows: list[list[object]] = []
    for shape in ("json argument, literal", "json argument, regex close", "streamed argument"):
        rows += measure(shape, sizes, theirs_kb if version else None)
    look_sizes = [kb for kb in (1, 2, 4, 8, 16, 64, 256, 1024) if kb <= max_kb]
    rows += measure("lookahead reasoning", look_sizes, look_kb if version else None)
    print(table(["shape, size", "streamcall ms", "transformers ms", "ratio"], rows))


if __name__ == "__main__":
    main(sys.argv[1:])
