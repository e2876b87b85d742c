"""LFM2: ``<|tool_call_start|>[f(a=1), g()]<|tool_call_end|>``.

Grammar (LiquidAI LFM2 / LFM2.5; vLLM ``lfm2``)::

    text* ( '<|tool_call_start|>' ws* '[' calls ']' ws* '<|tool_call_end|>' text* )*
    calls := call (',' call)*        call := NAME '(' (IDENT '=' literal, ...)? ')'

Dotted names (``grocery.orderIngredients``), sets (read as arrays), zero-padded integers
(``07``) and messy agentic strings (raw newlines, a NUL, unescaped nested quotes) are
handled by the arguments reader (``streamcall.text.pyargs``); the pythonic engine
(``engines/py_calls.py``) owns the blocks, the modes and what is held back. A block with no call in it is text. Asked for JSON
by its system prompt, LFM2 writes ``<|tool_call_start|>[{"name": "f", "arguments": {...}}]
<|tool_call_end|>``: a block whose first call opens with ``{`` is read by the JSON-call
engine (``engines.json_calls``), its arguments streamed verbatim (as SGLang's detector accepts).
"""

from __future__ import annotations

from typing import Any

from streamcall.formats.engines.py_calls import PythonicCallsParser, py_call

__all__ = ["LfmTwoParser"]


class LfmTwoParser(PythonicCallsParser):
    names = ("lfm2",)
    family = "LiquidAI LFM2 / LFM2.5"
    vllm_differences = (
        "Streams the arguments as JSON deltas while they are written with an incremental "
        "literal scanner (vLLM rewrites and ast.parses the block on every delta). Compact "
        "JSON. Nested same-style quotes are resolved while streaming, by what follows the "
        "quote (vLLM only once the end marker arrived). A call with a value vLLM cannot "
        "convert (b'z') is kept. The body LFM2 sometimes echoes after <|tool_call_end|> "
        "is text here (vLLM suppresses it heuristically). A JSON body "
        '([{"name": ..., "arguments": ...}]) is read too, as in SGLang.'
    )
    START = ("<|tool_call_start|>",)
    END = "<|tool_call_end|>"
    JSON_BODY = True

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        body = ", ".join(py_call(n, a) for n, a in calls)
        return f"<|tool_call_start|>[{body}]<|tool_call_end|>"


FORMATS = (LfmTwoParser,)
