"""Llama 3.1/3.2/4 JSON tool calls: ``{"name": ..., "parameters": {...}}``, bare.

Grammar (vLLM ``llama3_json`` and ``llama4_json``)::

    text* ( ('<|python_tag|>' | <a bare '{'>) call (ws* ';'? ws* call)* text* )*
    call := {"name": string, "parameters" | "arguments": object}    # any key order

The model writes the JSON with no marker, or after ``<|python_tag|>``; parallel calls are
separated by ``;`` (``; ``, ``;\\n``) or a newline, or written as one JSON list
(``[{...}, {...}]``, as SGLang's Llama32Detector reads them); a ``[`` that does not open
such a list is text. A configuration of the JSON-call engine
in ``BARE_ANYWHERE`` mode: any ``{`` in text opens a tentative call, which must start with
a name or arguments key and must carry arguments, or it stays text (``{x}`` in prose, a
quoted ``{"query": ...}``, ``{"name": "Bob"}``). After ``<|python_tag|>`` a call without
arguments gets ``{}``. Arguments are streamed verbatim as the model writes them, so every
chunking gives the same valid JSON (vLLM #51577: valid in only 52/250 runs at 5 tokens
per delta). Held back: a partial ``<|python_tag|>``, a key not yet closed, a growing
token of the arguments.

Llama 3.1 / 3.3 built-in tools (llama.cpp ``common_chat_parse_llama_3_1``)::

    '<|python_tag|>' NAME '.call(' (KEY '=' VALUE (',' KEY '=' VALUE)*)? ')'

(``brave_search.call(query="x")``, ``wolfram_alpha.call(query="2+2")``,
``code_interpreter.call(code="...")``): after ``<|python_tag|>`` a ``NAME.call(`` head
opens one call to NAME, whose keyword arguments (JSON values, read as Python literals by
``PythonArgs``, which takes JSON's ``true``/``false``/``null`` too) stream as one JSON
object; its ``)`` ends it, complete. A ``{`` after the tag is a JSON call as before; the
head is held while it may still be one (at most ``MAX_HEAD`` characters), and anything
else after the tag is text, as before.
"""

from __future__ import annotations

import json
import re
from typing import Any

from streamcall.events import Event, Text
from streamcall.formats.engines.base import Tools
from streamcall.formats.engines.json_calls import BARE_ANYWHERE, TEXT, JsonCallsParser, Mode
from streamcall.text import PythonArgs, Step

# A built-in tool's call head, and one cut by the end of the text (``fullmatch``).
_BUILTIN_HEAD = re.compile(r"([^\W\d]\w*)\.call\s*\(")
_BUILTIN_CUT = re.compile(r"[^\W\d]\w*(?:\.(?:c(?:a(?:l(?:l\s*)?)?)?)?)?")
BUILTIN = len(Mode)  # the mode of a built-in call's arguments, after the engine's own


class Llama3JsonParser(JsonCallsParser):
    names = ("llama3_json",)
    family = "Llama 3.1 / 3.2 JSON tool calling"
    vllm_differences = (
        "Streams the arguments verbatim instead of re-serialising partial_json_parser "
        "output each delta (vLLM #51577); keeps the text around the calls as content "
        "(vLLM drops it); only objects that start like a call are calls."
    )
    START = ("<|python_tag|>",)
    END = None
    ARRAY = True  # Llama 3.2 also writes the calls as one list: [{...}, {...}]
    BARE = BARE_ANYWHERE
    SEPARATORS = ";"

    def __init__(self, tools: Tools | None = None, *, id_prefix: str = "call_") -> None:
        super().__init__(tools, id_prefix=id_prefix)
        self._builtin = PythonArgs(self._builtin_ended, max_keyword=self.MAX_HEAD)
        self._steps = [*self._steps, self._builtin.read]

    def _other_body(self, buf: str, pos: int, out: list[Event], final: bool) -> Step | None:
        """``NAME.call(`` after ``<|python_tag|>``: a built-in tool's call."""
        m = _BUILTIN_HEAD.match(buf, pos)
        if m is None:
            if (
                not final
                and len(buf) - pos <= self.MAX_HEAD
                and _BUILTIN_CUT.fullmatch(buf, pos) is not None
            ):
                return pos, True  # a head still being written
            return None
        name = m.group(1)
        index = self._start_call(out, name)
        self._raw = []
        self._builtin.start(index, list(self._param_types(name)))
        self._mode = BUILTIN
        return self._builtin.read(buf, m.end(), out, final)

    def _builtin_ended(self, out: list[Event]) -> None:
        """The built-in call's ')' (complete), or malformed text (incomplete; the rest is
        text)."""
        args = self._builtin
        if args.error:
            self._end_call(out, args.index, args, True)
        else:
            self._end_call(out, args.index, args.text())
            self._block_ended()  # the blanks after it: a gap, as after any block
        self._mode = TEXT

    def _end_of_stream(self, rest: str, out: list[Event]) -> None:
        if self._mode == BUILTIN:
            self._end_call(out, self._builtin.index, self._builtin, True)
            if rest:
                out.append(Text(rest))
            return
        super()._end_of_stream(rest, out)

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "; ".join(
            json.dumps({"name": n, "parameters": a}, ensure_ascii=False) for n, a in calls
        )


class Llama4JsonParser(Llama3JsonParser):
    names = ("llama4_json",)
    family = "Llama 4 Scout/Maverick JSON tool calling"

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "<|python_tag|>" + "; ".join(
            json.dumps({"name": n, "arguments": a}, ensure_ascii=False) for n, a in calls
        )


FORMATS = (Llama3JsonParser, Llama4JsonParser)
