"""Seed corpora: calls rendered by each format's own ``render``, and the repository's
fixtures (the bundled examples, the SSE captures, and the string literals of the test
suite that the target's parser reads a call from, or that hold the format's markers)."""

from __future__ import annotations

import ast
import functools
import json
from pathlib import Path
from typing import Any

import streamcall
from streamcall.formats.registry import parser_class, tool_parser
from streamcall.reasoning import reasoning_spec

ROOT = Path(__file__).resolve().parent.parent

#: Calls every renderable format writes, with the values that stress each grammar.
CALLS: list[list[tuple[str, dict[str, Any]]]] = [
    [("f", {})],
    [("f", {"a": 1})],
    [("get_weather", {"city": "Oslo", "days": 3})],
    [("f", {"s": 'say "hi"\\n\tthere', "b": -1.5e3, "c": True, "n": None})],
    [("f", {"d": [1, 2, [3]], "e": {"k": {"v": "é中😀"}}})],
    [("f", {"a": 1}), ("search", {"s": "<tool_call> </tool_call> {}[]"})],
    [("get_weather", {"city": "SF"}), ("get_weather", {"city": "NYC"}), ("f", {"x": "7"})],
]
AROUND = [("", ""), ("Let me check. ", ""), ("", "\nDone."), ("<think>hm</think>\n", " ok")]


@functools.lru_cache(maxsize=1)
def test_literals() -> tuple[str, ...]:
    """Every string constant of 4 to 1,024 characters in the test suite, once each."""
    seen: dict[str, None] = {}
    for path in sorted((ROOT / "tests").rglob("*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            value = node.value if isinstance(node, ast.Constant) else None
            if isinstance(value, str) and 4 <= len(value) <= 1024:
                seen.setdefault(value, None)
    return tuple(seen)


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")  # (a test literal may hold a lone one)


def _examples() -> list[Path]:
    return sorted((ROOT / "src" / "streamcall" / "examples").glob("*"))


def _sse_seeds() -> list[bytes]:
    out = [p.read_bytes() for p in _examples() if p.suffix == ".sse"]
    out += [p.read_bytes() for p in sorted((ROOT / "tests" / "fixtures").glob("*.sse"))]
    out += [
        b'data: {"a":1}\n\n',
        b"\xef\xbb\xbfdata: x\r\n\r\nid: 7\nretry: 100\nevent: e\ndata: y\ndata\n\n",
        b": comment\ndata:no space\r\rdata: \xff\xfe\n\ndata: [DONE]\n\n",
        b"id: a\x00b\nretry: 1x\ndata: z\n",
    ]
    return out


def _chunk_seeds() -> list[bytes]:
    out: list[bytes] = []
    for raw in _sse_seeds():
        for line in raw.splitlines():
            if line.startswith(b"data: {"):
                out.append(line[6:])
    out += [
        b'{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}',
        b'{"choices":[{"DELTA":{"CONTENT":[{"type":"text","text":"a"},{"text":1}]}}]}',
        b'{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{}"}}]}}]}',
        b'{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3,"prompt_tokens_details":{"cached_tokens":1}}}',
        b'{"choices":[{"delta":{"reasoning_content":"r","content":{"b":1,"a":[1e2,1.0]}},"finish_reason":"stop"}]}',
    ]
    return out[:200]


def _partial_seeds() -> list[bytes]:
    docs = [json.dumps(args) for calls in CALLS for _, args in calls]
    docs += [
        '{"name": "f", "arguments": {"a": [1, 2.5e-3, "x\\u00e9\\ud83d\\ude00"]}}',
        "[]",
        '"s',
        "tru",
    ]
    docs += [lit for lit in test_literals() if lit.lstrip()[:1] in ("{", "[")][:300]
    out: list[bytes] = []
    for doc in docs:
        out.append(_utf8(doc))
        out.append(_utf8(doc[: len(doc) * 2 // 3]))
    return out


def _yields_call(name: str, text: str) -> bool:
    try:
        parsed = streamcall.parse_tool_calls(text, name)
    except Exception:  # a crash is a good seed too: keep it
        return True
    return bool(parsed.tool_calls)


def _tool_seeds(name: str) -> list[bytes]:
    cls = parser_class(name)
    texts: list[str] = []
    for calls in CALLS:
        try:
            rendered = cls.render(calls)
        except NotImplementedError:
            break
        for before, after in AROUND:
            texts.append(before + rendered + after)
    texts += [p.read_text() for p in _examples() if p.suffix == ".txt"]
    texts += [lit for lit in test_literals() if _yields_call(name, lit)]
    tool_parser(name)
    return [_utf8(t) for t in dict.fromkeys(texts)]


def _reasoning_seeds(name: str) -> list[bytes]:
    spec = reasoning_spec(name)
    if spec is None:
        starts, ends = ["<|channel|>analysis<|message|>", "<think>"], ["<|end|>", "</think>"]
    else:
        starts, ends = list(spec.start), list(spec.end)
    texts = []
    for start in starts:
        for end in ends:
            texts += [
                f"{start}Thinking about it.{end}The answer.",
                f"Pre {start}\nsteps\n{end}\n\nAnswer <tool_call>{{}}</tool_call>",
                f"cut {start}half",
            ]
    for end in ends:
        texts.append(f"opened reasoning{end}text")
    if spec is not None:
        texts += [f"x{m}y" for m in (*spec.implicit_end, *spec.text_drop)]
        markers = (*spec.start, *spec.end, *spec.implicit_end)
        texts += [lit for lit in test_literals() if any(m in lit for m in markers)][:200]
    texts.append("<|start|>assistant<|channel|>final<|message|>Hi<|return|>")
    return [_utf8(t) for t in dict.fromkeys(texts)]


def seeds(target: str) -> list[bytes]:
    if target == "sse":
        return _sse_seeds()
    if target == "chunk":
        return _chunk_seeds()
    if target == "partial":
        return _partial_seeds()
    kind, _, name = target.partition(":")
    if kind == "tool":
        return _tool_seeds(name)
    return _reasoning_seeds(name)
