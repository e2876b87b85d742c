"""How transformers' streaming ResponseParser grows with the length of one region.

    python tests/reference/measure_transformers_stream.py [--max-kb N] [--lookahead-max-kb N]

Feeds one long region in 7-character chunks (the project's benchmark chunking) and prints
the time per size, the cost per chunk and the growth exponent between successive sizes
(log t2/t1 over log n2/n1: 1.0 is linear, 2.0 quadratic). One run per size: the figures are
for exponents and ratios, not absolute times. Needs only transformers.

Shapes:
- ``json-arg literal``: a tool call's JSON argument between literal ``<tool_call>`` /
  ``</tool_call>`` (transformers' smollm fixture template).
- ``json-arg regex``: the same between ``<tool_call>`` and the regex close ``</tool_call>\\s*``
  (TRL's qwen3 template).
- ``content literal``: plain content in the implicit field closed by ``<|im_end|>``.
- ``lookahead reasoning``: reasoning in a field opened by ``(?=[\\s\\S]*?</think>)`` (TRL's
  nemotron_3 template), the prompt having written ``<think>\\n``.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reference import transformers_ref as ref

CHUNK = 7
WORDS = "lorem ipsum dolor sit amet, consectetur adipiscing elit; "

SMOLLM_JSON = {
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
REGEX_CLOSE = {
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
LOOKAHEAD = {
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


SHAPES: dict[str, tuple[dict[str, Any], str, Any]] = {
    "json-arg literal": (SMOLLM_JSON, "", json_call),
    "json-arg regex": (REGEX_CLOSE, "", json_call),
    "content literal": (SMOLLM_JSON, "", lambda n: filler(n) + "<|im_end|>"),
    "lookahead reasoning": (
        LOOKAHEAD,
        "<|im_start|>assistant\n<think>\n",
        lambda n: filler(n) + "</think>\nok<|im_end|>",
    ),
}


def time_stream(template: dict[str, Any], prefix: str, text: str) -> float:
    """Seconds to feed ``text`` in 7-character chunks and finalize (checked against one-shot)."""
    chunks = ref.chunk_fixed(text, CHUNK)
    start = time.perf_counter()
    out = ref.parse_chunks(template, chunks, prefix=prefix)
    elapsed = time.perf_counter() - start
    one_shot = ref.parse(template, text, prefix=prefix)
    assert (out.value, out.error) == (one_shot.value, one_shot.error), out.describe()
    return elapsed


def measure(shape: str, sizes_kb: list[int]) -> None:
    template, prefix, make = SHAPES[shape]
    print(f"{shape}:")
    previous: tuple[int, float] | None = None
    for kb in sizes_kb:
        n = kb * 1024
        t = time_stream(template, prefix, make(n))
        chunks = math.ceil(n / CHUNK)
        growth = ""
        if previous is not None:
            growth = f"  exponent {math.log(t / previous[1]) / math.log(n / previous[0]):.2f}"
        print(f"  {kb:>5} KB  {t:9.3f} s  {t / chunks * 1e6:8.2f} us/chunk{growth}", flush=True)
        previous = (n, t)


def _arg(argv: list[str], name: str, default: int) -> int:
    return int(argv[argv.index(name) + 1]) if name in argv else default


def main(argv: list[str]) -> int:
    reason = ref.skip_reason()
    if reason is not None:
        print(reason, file=sys.stderr)
        return 2
    print(f"transformers {ref.version()}, {CHUNK}-character chunks, one run per size")
    max_kb = _arg(argv, "--max-kb", 1024)
    sizes = [kb for kb in (4, 16, 64, 256, 1024) if kb <= max_kb]
    for shape in ("json-arg literal", "json-arg regex", "content literal"):
        measure(shape, sizes)
    look_max = _arg(argv, "--lookahead-max-kb", 8)
    measure("lookahead reasoning", [kb for kb in (1, 2, 4, 8, 16) if kb <= look_max])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
