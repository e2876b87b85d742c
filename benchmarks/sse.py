"""Byte and chunk layers side by side with their peers: ``python -m benchmarks sse``.

One stream of 10,000 realistic OpenAI chunks (CJK, emoji, a reasoning phase, two tool
calls split across chunks, a usage chunk and ``[DONE]``), fed in 1 KB and 64-byte pieces.

- SSE, ns per event: streamcall.SSEDecoder (as shipped, and in lines mode alone) against
  httpx-sse (its SSELineDecoder and SSEDecoder, behind an incremental UTF-8 decoder as
  httpx's ``iter_text`` does) and the openai SDK's ``openai._streaming.SSEDecoder``.
- Chunk decode, ns per chunk: decode_chunk (as shipped, and with the fast path off)
  against a naive ``json.loads`` (and ``orjson.loads``, for scale only).
- Whole stream, ns per chunk: SSEDecoder + decode_chunk + ChatAccumulator against the
  openai SDK's SSEDecoder + ``ChatCompletionChunk`` + ``ChatCompletionStreamState``.

Times are CPU time, best of several rounds. Absolute times on shared machines are noise;
the ratios, measured in one run on the same input, are the figures. Peers that are not
installed are skipped.
"""

from __future__ import annotations

import codecs
import json
import math
import random
import time
from collections.abc import Callable
from typing import Any

from benchmarks._util import table
from streamcall import ChatAccumulator, SSEDecoder, decode_chunk
from streamcall.chunks import decode as decode_module
from streamcall.sse import decoder as sse_decoder_module

N_CHUNKS = 10_000
WORDS = [
    "Hello",
    " 世界",
    "，我们",
    "来看",
    " the",
    " weather",
    " 🌤️",
    " in",
    " 東京",
    "。",
    " ok",
    "😀👍",
    " données",
    "\n",
]


def make_stream(n: int = N_CHUNKS, seed: int = 7) -> bytes:
    rng = random.Random(seed)
    head = {
        "id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
        "object": "chat.completion.chunk",
        "created": 1741570283,
        "model": "gpt-4o-2024-08-06",
        "system_fingerprint": "fp_eb9dce56a8",
    }

    def event(delta: dict[str, Any] | None, finish: str | None = None, usage: Any = None) -> str:
        choices = (
            []
            if delta is None
            else [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
        )
        body = {**head, "choices": choices, "usage": usage}
        return "data: " + json.dumps(body, ensure_ascii=False, separators=(",", ":")) + "\n\n"

    parts = [event({"role": "assistant", "content": "", "refusal": None})]
    n_reasoning = n // 10
    n_calls = 40
    n_content = n - 3 - n_reasoning - n_calls * 2
    for _ in range(n_reasoning):
        parts.append(event({"reasoning_content": rng.choice(WORDS)}))
    for _ in range(n_content):
        parts.append(
            event({"content": "".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3)))})
        )
    for index, city in ((0, "東京"), (1, "Paris")):
        parts.append(
            event(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": f"call_{index}",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": ""},
                        }
                    ]
                }
            )
        )
        args = json.dumps({"city": city, "notes": "晴れ 😀 " * 10}, ensure_ascii=False)
        step = max(1, len(args) // (n_calls - 1))
        pieces = [args[i : i + step] for i in range(0, len(args), step)]
        for piece in pieces:
            parts.append(
                event({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
            )
    parts.append(event({}, finish="tool_calls"))
    parts.append(
        event(None, usage={"prompt_tokens": 80, "completion_tokens": n, "total_tokens": n + 80})
    )
    parts.append("data: [DONE]\n\n")
    return "".join(parts).encode()


def pieces_of(raw: bytes, size: int) -> list[bytes]:
    return [raw[i : i + size] for i in range(0, len(raw), size)]


# --- SSE decoders ----------------------------------------------------------------------


def ours_sse(pieces: list[bytes]) -> int:
    decoder = SSEDecoder()
    count = 0
    for piece in pieces:
        count += len(decoder.feed(piece))
    return count


def httpx_sse_events(pieces: list[bytes]) -> int:
    from httpx_sse._decoders import SSEDecoder as HttpxSSEDecoder
    from httpx_sse._decoders import SSELineDecoder

    utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
    lines = SSELineDecoder()
    decoder = HttpxSSEDecoder()
    count = 0
    for piece in pieces:
        text = utf8.decode(piece)
        if not text:
            continue
        for line in lines.decode(text):
            if decoder.decode(line) is not None:
                count += 1
    return count


def openai_sse_events(pieces: list[bytes]) -> int:
    from openai._streaming import SSEDecoder as OpenAISSEDecoder

    return sum(1 for _ in OpenAISSEDecoder().iter_bytes(iter(pieces)))


# --- whole streams ---------------------------------------------------------------------


def ours_whole(pieces: list[bytes]) -> Any:
    decoder = SSEDecoder()
    acc = ChatAccumulator()
    add = acc.add
    for piece in pieces:
        for event in decoder.feed(piece):
            if event.data != "[DONE]":
                add(decode_chunk(event.data))
    return acc.message


def openai_whole(pieces: list[bytes]) -> Any:
    from openai._streaming import SSEDecoder as OpenAISSEDecoder
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    state: Any = ChatCompletionStreamState()
    for sse in OpenAISSEDecoder().iter_bytes(iter(pieces)):
        if sse.data == "[DONE]":
            break
        state.handle_chunk(ChatCompletionChunk.model_validate(json.loads(sse.data)))
    return state.get_final_completion()


def cpu_best_of(fn: Callable[[], object], repeat: int = 7) -> float:
    """Best CPU time in seconds of one call of ``fn``, over ``repeat`` rounds.

    CPU time rather than wall time: on a shared machine the time this process spends
    waiting for a core is not its own, and it swamps figures of a few hundred ns.
    """
    best = math.inf
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def _try(fn: Callable[[], Any], repeat: int = 7) -> float | None:
    try:
        fn()
    except ImportError:
        return None
    return cpu_best_of(fn, repeat)


def _ratio(peer: float | None, ours: float) -> object:
    return "n/a" if peer is None else peer / ours


def _ns(value: float | None) -> object:
    return "not installed" if value is None else value


def main() -> None:
    raw = make_stream()
    datas = [e.data for e in SSEDecoder().feed(raw) if e.data != "[DONE]"]
    n_events = len(datas) + 1
    content_datas = [d for d in datas if '"content":"' in d and "tool_calls" not in d][:5000]
    print(f"stream: {N_CHUNKS:,} chunks, {len(raw):,} bytes, {n_events:,} events")
    print("(CPU time, best of 7; ratios are the figures)\n")

    rows = []
    block_state = sse_decoder_module._BLOCK_PATH_ENABLED
    for size in (1024, 64):
        pieces = pieces_of(raw, size)
        assert ours_sse(pieces) == n_events
        ours = cpu_best_of(lambda p=pieces: ours_sse(p)) / n_events * 1e9  # type: ignore[misc]
        sse_decoder_module._BLOCK_PATH_ENABLED = False
        assert ours_sse(pieces) == n_events
        lines = cpu_best_of(lambda p=pieces: ours_sse(p)) / n_events * 1e9  # type: ignore[misc]
        sse_decoder_module._BLOCK_PATH_ENABLED = block_state
        httpx = _try(lambda p=pieces: httpx_sse_events(p))  # type: ignore[misc]
        oai = _try(lambda p=pieces: openai_sse_events(p))  # type: ignore[misc]
        httpx_ns = None if httpx is None else httpx / n_events * 1e9
        oai_ns = None if oai is None else oai / n_events * 1e9
        rows.append(
            (
                f"{size} B pieces",
                _ns(httpx_ns),
                _ns(oai_ns),
                lines,
                ours,
                _ratio(httpx_ns, ours),
                _ratio(oai_ns, ours),
                lines / ours,
            )
        )
    print("SSE decode, ns per event")
    print(
        table(
            [
                "input",
                "httpx-sse",
                "openai SSEDecoder",
                "streamcall lines mode",
                "streamcall",
                "vs httpx-sse ×",
                "vs openai ×",
                "blocks vs lines ×",
            ],
            rows,
        )
    )
    print(f"(shipped: blocks mode {'on' if block_state else 'off'}; target >= 2x httpx-sse)")

    print("\nChunk decode, ns per chunk")
    fast_state = decode_module._FAST_PATH_ENABLED
    rows2 = []
    for label, sample in (("content chunks", content_datas), ("all chunks", datas)):
        n = len(sample)
        naive = cpu_best_of(lambda s=sample: [json.loads(d) for d in s]) / n * 1e9  # type: ignore[misc]
        orjson_t = _try(lambda s=sample: _orjson_loads_all(s))  # type: ignore[misc]
        decode_module._FAST_PATH_ENABLED = True
        with_fast = cpu_best_of(lambda s=sample: [decode_chunk(d) for d in s]) / n * 1e9  # type: ignore[misc]
        decode_module._FAST_PATH_ENABLED = False
        full = cpu_best_of(lambda s=sample: [decode_chunk(d) for d in s]) / n * 1e9  # type: ignore[misc]
        decode_module._FAST_PATH_ENABLED = fast_state
        rows2.append(
            (
                label,
                naive,
                _ns(None if orjson_t is None else orjson_t / n * 1e9),
                full,
                with_fast,
                naive / with_fast,
                full / with_fast,
            )
        )
    print(
        table(
            [
                "chunks",
                "naive json.loads",
                "orjson.loads (not used)",
                "full path",
                "fast path on",
                "vs naive ×",
                "fast vs full ×",
            ],
            rows2,
        )
    )
    print(
        f"(shipped: fast path {'on' if fast_state else 'off'}; target <= 1,000 ns per content"
        " chunk; orjson loses duplicate keys, which the chunk semantics merge, so it only"
        " marks what a bare compiled parse costs)"
    )

    print("\nWhole stream (SSE + decode + accumulate), ns per chunk")
    rows3 = []
    for size in (1024, 64):
        pieces = pieces_of(raw, size)
        ours = cpu_best_of(lambda p=pieces: ours_whole(p), repeat=3) / n_events * 1e9  # type: ignore[misc]
        oai = _try(lambda p=pieces: openai_whole(p), repeat=3)  # type: ignore[misc]
        oai_ns = None if oai is None else oai / n_events * 1e9
        rows3.append((f"{size} B pieces", _ns(oai_ns), ours, _ratio(oai_ns, ours)))
    print(
        table(
            ["input", "openai SSE + ChatCompletionStreamState", "streamcall", "speed-up ×"], rows3
        )
    )


def _orjson_loads_all(sample: list[str]) -> list[Any]:
    import orjson

    return [orjson.loads(d) for d in sample]


if __name__ == "__main__":
    main()
