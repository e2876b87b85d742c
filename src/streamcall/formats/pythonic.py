"""Pythonic tool calls: ``pythonic`` and ``llama4_pythonic``.

Grammar (Llama 3.2 / ToolACE ``pythonic``; Llama 4 ``llama4_pythonic``)::

    pythonic        := ws* '[' call (',' call)* ']' text*      # must open the output
    llama4_pythonic := ws* '[' calls ']' ('<|python_end|>')? text*
                     | text* ('<|python_start|>' '['? calls ']'? '<|python_end|>'? text*)*
                     | ws* '{' ...                        # llama4_json's, whole
    call            := NAME '(' (IDENT '=' literal (',' IDENT '=' literal)*)? ')'

The block grammar, the modes and what is held back are the pythonic engine's
(``engines/py_calls.py``); the arguments and their JSON conversion are
``streamcall.text.pyargs``'s. ``pythonic`` has no markers: a first non-blank character
other than ``[`` makes the whole output text, and so does a ``[`` that does not start a
call (``[1]``, ``[Note]``). Text after the closing ``]`` is text.

Llama 4 writes pythonic calls with Meta's prompt format (and the templates vLLM and SGLang
ship), and a bare JSON call (``{"name": ..., "parameters": {...}}``) with vLLM's JSON
template; which one a server gets depends on the template it runs, so the model id routes
here and ``llama4_pythonic`` reads both: an output whose first non-blank character is
``{`` is ``llama4_json``'s, whole (``JSON_OUTPUT``: the decision is that one character).
"""

from __future__ import annotations

from typing import Any

from streamcall.formats.engines.py_calls import PythonicCallsParser, py_call
from streamcall.formats.llama import Llama4JsonParser

__all__ = ["LlamaFourPythonicParser", "PythonicParser"]

_DIFFERENCES = (
    "Converts the Python literals to JSON with an incremental scanner and streams the "
    "arguments while they are written (vLLM repairs the growing text and ast.parses it on "
    "every delta: quadratic, 19 s at 64 KB). Compact JSON instead of json.dumps spacing. "
    "A call with a value vLLM cannot convert (b'z', 1e999) is kept (bytes as a string, "
    "the number as written) instead of being dropped. Positional arguments are named from "
    "the schema, or '_0', '_1', ... Malformed markup after a call started ends that call "
    "incomplete and the rest is text (vLLM drops the block). Text after the list is kept "
    "as content (vLLM returns none once a call is made)."
)


class PythonicParser(PythonicCallsParser):
    names = ("pythonic",)
    family = "Llama 3.2, ToolACE-8B (pythonic list of calls as the whole output)"
    vllm_differences = _DIFFERENCES
    LIST_AT_START = True
    WHOLE_OUTPUT = True

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "[" + ", ".join(py_call(n, a) for n, a in calls) + "]"


class LlamaFourPythonicParser(PythonicCallsParser):
    names = ("llama4_pythonic",)
    family = "Llama 4 Scout/Maverick (pythonic, optional <|python_start|>)"
    vllm_differences = _DIFFERENCES + (
        " <|python_start|> is recognised after text too (vLLM only at the very start)."
        " An output whose first non-blank character is '{' is read as llama4_json reads it"
        " (Llama 4's JSON template; vLLM's llama4_pythonic makes it text), so that the model"
        " id is right whichever template the server runs."
    )
    START = ("<|python_start|>",)
    END = "<|python_end|>"
    END_OPTIONAL = True
    LIST_AT_START = True
    JSON_OUTPUT = Llama4JsonParser

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        body = ", ".join(py_call(n, a) for n, a in calls)
        return f"<|python_start|>[{body}]<|python_end|>"


FORMATS = (PythonicParser, LlamaFourPythonicParser)
