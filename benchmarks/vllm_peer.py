"""vLLM's own Python tool parsers, fed the same chunks as streamcall (``benchmarks.formats``).

vLLM is not in the bench extra (it pulls a GPU stack), so this module is a no-op unless
``vllm`` is importable: ``available()`` is then False and ``benchmarks.formats`` prints
its usual table. To measure it, build a separate venv outside the repo; nothing of vLLM is
committed. The steps used for the measured table (vLLM 0.33.0, Python 3.11,
x86_64, PyPI only; the wheel was already on disk, ``pip download vllm==0.33.0 --no-deps``
fetches it)::

    python3 -m venv /work/vllm-bench
    /work/vllm-bench/bin/pip install --no-deps vllm-0.33.0-cp38-abi3-manylinux_2_28_x86_64.whl
    # `import vllm` imports torch: take the CPU build (a plain `torch` pulls CUDA, GBs)
    /work/vllm-bench/bin/pip install torch==2.13.0
    # what importing vllm.tool_parsers and every registered parser needs, found by
    # importing them until nothing was missing (`python -m benchmarks vllm_peer` checks):
    /work/vllm-bench/bin/pip install pydantic openai regex partial-json-parser msgspec \\
        cachetools numpy packaging cbor2 psutil pyzmq urllib3 transformers aiohttp \\
        requests openai_harmony fastapi pillow pybase64 prometheus_client cloudpickle \\
        uvloop py-cpuinfo xgrammar ijson mistral_common
    /work/vllm-bench/bin/pip install -e /path/to/streamcall
    cd /path/to/streamcall && /work/vllm-bench/bin/python -m benchmarks formats hermes

pip reports the pins it did not honour (torch 2.14, transformers < 5.21, ...); the tool
parsers import and run all the same.

How a parser is driven, as vLLM's serving layer does (``vllm/parser/abstract_parser.py``:
``Parser.parse_delta`` and ``StreamState``): one ``extract_tool_calls_streaming`` call
per chunk with a ``ChatCompletionRequest`` carrying the tools (after ``adjust_request``).
A legacy parser gets ``previous_text``/``current_text = previous_text + delta`` and the
token-id lists grown the same way; an engine-based one (``engine_based_streaming``) gets
only the delta, as the serving layer gives it. At the end ``finish_streaming()`` (engine
parsers) and ``get_remaining_unstreamed_args()`` are applied, as in ``finalize_generation``.
The deltas are folded into calls and checked against streamcall's parse of the same text:
a parser that streams wrong arguments is reported, not timed.

Token ids: no tokenizer can be downloaded here, so ``_MarkerTokenizer`` stands in. Its
vocabulary holds every string a parser looks up in it, which are the model's special
tokens (``<tool_call>``, ``<｜tool▁calls▁begin｜>``, ``[ARGS]``, ``<|python_tag|>``...).
Each chunk's token ids are one id per stretch of plain text plus a marker's id where the
marker is, which is what the parsers that check token ids look at
(``tool_calls_start_token_id in current_token_ids`` and the like). A special token is one
token, so the detokenizer never splits its text: where a 7-char boundary falls inside a
looked-up marker, vLLM's chunk runs on to the marker's end (a handful of chunks per text;
the token-id scanner of vLLM's engine parsers drops the call otherwise). Markers a parser
only matches as text (InternLM's ``<|action_start|>``, say) are split like any text.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

TIMEOUT = 60.0  # seconds for one run at one size; past it the parser is reported, not timed

# streamcall name -> vLLM ToolParserManager name, where they differ. None: vLLM has none.
_NAMES: dict[str, str | None] = {
    "minimax": None,  # MiniMax-M1's JSON lines: vLLM 0.33 registers only minimax_m2/m3
}


class PeerError(Exception):
    """vLLM's parser failed on this input: the message is the short reason to print."""


def available() -> bool:
    try:
        from vllm.tool_parsers import ToolParserManager  # noqa: F401
    except Exception:
        return False
    return True


def vllm_name(fmt: str) -> str | None:
    """The vLLM parser name for a streamcall format, or None if vLLM registers none."""
    if not available():
        return None
    from vllm.tool_parsers import ToolParserManager

    name = _NAMES.get(fmt, fmt)
    if name is None or name not in ToolParserManager.list_registered():
        return None
    return name


class _MarkerVocab(dict[str, int]):
    """A vocabulary that has every string looked up in it: the parser's special tokens."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def _lookup(self, key: object) -> int | None:
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        if isinstance(key, str) and key:
            dict.__setitem__(self, key, 100_000 + len(self))
            return dict.__getitem__(self, key)
        return None

    def get(self, key: object, default: Any = None) -> Any:  # type: ignore[override]
        found = self._lookup(key)
        return default if found is None else found

    def __getitem__(self, key: str) -> int:
        found = self._lookup(key)
        if found is None:
            raise KeyError(key)
        return found

    def __contains__(self, key: object) -> bool:
        return self._lookup(key) is not None


_PLAIN = 7  # the token id of a stretch of plain text


class _MarkerTokenizer:
    """Stand-in for a model's tokenizer (none can be downloaded here): see the module doc."""

    def __init__(self, text: str) -> None:
        self.vocab = _MarkerVocab(text)
        self.eos_token_id = 2
        self.bos_token_id = 1
        self.pad_token_id = 0
        self.all_special_tokens: list[str] = []
        self.all_special_ids: list[int] = []

    def get_vocab(self) -> dict[str, int]:
        return self.vocab

    def __len__(self) -> int:
        return 200_000

    def convert_tokens_to_ids(self, tokens: str | list[str]) -> int | list[int]:
        if isinstance(tokens, str):
            return self.vocab.get(tokens, _PLAIN)
        return [self.vocab.get(t, _PLAIN) for t in tokens]

    def encode(self, text: str, add_special_tokens: bool = False, **_: Any) -> list[int]:
        return [self.vocab.get(text, _PLAIN)]

    def decode(self, ids: list[int] | int, **_: Any) -> str:
        names = {v: k for k, v in dict.items(self.vocab)}
        seq = [ids] if isinstance(ids, int) else ids
        return "".join(names.get(i, "") for i in seq)

    def cut(self, pieces: list[str]) -> tuple[list[str], list[list[int]]]:
        """The pieces with no marker split, and each piece's token ids.

        A marker is one token, so the detokenizer hands its text out whole: a chunk
        boundary inside one moves to the marker's end. Token ids: one per stretch of
        plain text, and the marker's id in the piece it is in.
        """
        text = self.vocab.text
        spans: list[tuple[int, int, int]] = []  # (start, end, id)
        for marker, tid in dict.items(self.vocab):
            at = text.find(marker)
            while at >= 0:
                spans.append((at, at + len(marker), tid))
                at = text.find(marker, at + len(marker))
        spans.sort()
        bounds: list[int] = []
        total = 0
        k = 0
        for piece in pieces:
            total += len(piece)
            while k < len(spans) and spans[k][1] <= total:
                k += 1
            cut = spans[k][1] if k < len(spans) and spans[k][0] < total else total
            if not bounds or cut > bounds[-1]:
                bounds.append(cut)
        out_pieces: list[str] = []
        out_ids: list[list[int]] = []
        k = 0
        start = 0
        for stop in bounds:
            ids: list[int] = []
            pos = start
            while k < len(spans) and spans[k][1] <= stop:
                at, end, tid = spans[k]
                if at > pos:
                    ids.append(_PLAIN)
                ids.append(tid)
                pos = end
                k += 1
            if pos < stop:
                ids.append(_PLAIN)
            out_pieces.append(text[start:stop])
            out_ids.append(ids)
            start = stop
        assert "".join(out_pieces) == text
        return out_pieces, out_ids


def _fold(deltas: list[Any]) -> tuple[dict[int, list[str]], dict[int, list[str]], list[str]]:
    """Names and argument fragments per call index, and the content, from DeltaMessages."""
    names: dict[int, list[str]] = {}
    args: dict[int, list[str]] = {}
    content: list[str] = []
    for msg in deltas:
        if msg is None:
            continue
        if msg.content:
            content.append(msg.content)
        for tc in msg.tool_calls or ():
            fn = tc.function
            if fn is None:
                continue
            name = fn.get("name") if isinstance(fn, dict) else fn.name
            arguments = fn.get("arguments") if isinstance(fn, dict) else fn.arguments
            if name:
                names.setdefault(tc.index, []).append(name)
            if arguments:
                args.setdefault(tc.index, []).append(arguments)
    return names, args, content


def _check(fmt: str, text: str, tools: list[dict[str, Any]], deltas: list[Any]) -> str | None:
    """Why vLLM's streamed calls differ from streamcall's parse of ``text``, or None."""
    from streamcall.formats.registry import parse_tool_calls

    want = parse_tool_calls(text, fmt, tools=tools).tool_calls
    names, args, _content = _fold(deltas)
    if len(names) != len(want) or len(args) < len(want):
        return f"{len(names)} calls named, {len(args)} with arguments, want {len(want)}"
    for n, call in enumerate(want):
        idx = sorted(names)[n]
        name = "".join(names[idx])
        if name != call.name:
            return f"call {n} named {name[:40]!r}, want {call.name!r}"
        got = "".join(args.get(idx, []))
        try:
            value = json.loads(got)
        except ValueError:
            return f"call {n}: arguments are not JSON ({len(got)} chars, {got[:30]!r}...)"
        if value != call.args:
            return f"call {n}: arguments differ from the text's"
    return None


def _request(tools: list[dict[str, Any]]) -> Any:
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    return ChatCompletionRequest(
        model="bench",
        messages=[{"role": "user", "content": "call f"}],
        tools=tools,
    )


def _run(
    cls: type[Any],
    tokenizer: _MarkerTokenizer,
    pieces: list[str],
    ids: list[list[int]],
    tools: list[dict[str, Any]],
    deadline: float,
) -> tuple[float, list[Any]]:
    """One stream through a fresh parser: (CPU seconds, DeltaMessages); wall-time deadline."""
    request = _request(tools)
    parser = cls(tokenizer, request.tools)
    if hasattr(parser, "skip_reasoning_parsing"):
        parser.skip_reasoning_parsing = True  # no reasoning parser configured
    request = parser.adjust_request(request)
    engine = bool(getattr(parser, "engine_based_streaming", False))
    step = parser.extract_tool_calls_streaming
    out: list[Any] = []
    push = out.append
    prev_text = ""
    prev_ids: list[int] = []
    start = time.process_time()  # CPU time, as benchmarks.formats times streamcall
    for piece, delta_ids in zip(pieces, ids, strict=True):
        if engine:
            push(step("", piece, piece, [], delta_ids, delta_ids, request))
        else:
            cur_text = prev_text + piece
            cur_ids = prev_ids + delta_ids
            push(step(prev_text, cur_text, piece, prev_ids, cur_ids, delta_ids, request))
            prev_text, prev_ids = cur_text, cur_ids
        if time.perf_counter() > deadline:
            raise PeerError(f"timeout >{TIMEOUT:.0f} s")
    if engine:
        push(parser.finish_streaming())
    last = next((m for m in reversed(out) if m is not None and m.tool_calls), None)
    if last is not None and last.tool_calls[-1].function is not None:
        rest = parser.get_remaining_unstreamed_args()
        if rest:
            fn = last.tool_calls[-1].function
            if isinstance(fn, dict):
                fn["arguments"] = (fn.get("arguments") or "") + rest
            else:
                fn.arguments = (fn.arguments or "") + rest
    return time.process_time() - start, out


def stream_time(fmt: str, pieces: list[str], tools: list[dict[str, Any]]) -> float | None:
    """Best-of-N seconds for vLLM's parser of ``fmt`` to stream ``pieces``.

    None when vLLM is missing or has no parser for the format. Raises ``PeerError`` when
    its parser raises, runs past ``TIMEOUT``, or streams calls that differ from the text.
    N is 5 below a second, 3 below ten, else 1, to keep a shared machine usable.
    """
    name = vllm_name(fmt)
    if name is None:
        return None
    import logging

    from vllm.tool_parsers import ToolParserManager

    logging.getLogger("vllm").setLevel(logging.CRITICAL)  # parsers log caught errors
    cls = ToolParserManager.get_tool_parser(name)
    text = "".join(pieces)
    tokenizer = _MarkerTokenizer(text)
    try:
        cls(tokenizer, _request(tools).tools)  # the vocabulary lookups it makes
    except Exception as exc:
        raise PeerError(f"init: {type(exc).__name__}: {str(exc)[:60]}") from exc
    pieces, ids = tokenizer.cut(pieces)
    best = float("inf")
    rounds = 1
    n = 0
    while n < rounds:
        try:
            t, deltas = _run(cls, tokenizer, pieces, ids, tools, time.perf_counter() + TIMEOUT)
        except PeerError:
            raise
        except Exception as exc:
            raise PeerError(f"{type(exc).__name__}: {str(exc)[:60]}") from exc
        if n == 0:
            wrong = _check(fmt, text, tools, deltas)
            if wrong:
                raise PeerError(f"wrong output in {t * 1e3:,.0f} ms: {wrong}")
            rounds = 5 if t < 1 else 3 if t < 10 else 1
        best = min(best, t)
        n += 1
    return best


def main(argv: list[str] | None = None) -> None:
    """``python -m benchmarks vllm_peer``: which vLLM parser each format is compared with."""
    from streamcall.formats.registry import formats

    if not available():
        print("vllm is not importable: see benchmarks/vllm_peer.py for the venv it needs")
        return
    import vllm
    from vllm.tool_parsers import ToolParserManager

    print(f"vLLM {vllm.__version__}: streamcall format -> vLLM tool parser")
    for fmt in argv or formats():
        name = vllm_name(fmt)
        if name is None:
            print(f"  {fmt:16} (none)")
            continue
        try:
            cls = ToolParserManager.get_tool_parser(name)
        except Exception as exc:
            print(f"  {fmt:16} {name}: import failed: {exc}", file=sys.stderr)
            continue
        print(f"  {fmt:16} {name} ({cls.__module__}.{cls.__name__})")


if __name__ == "__main__":
    main(sys.argv[1:])
