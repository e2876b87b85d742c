"""Upstage Solar Open: a tool-calls turn of calls, each with a model-written id.

Grammar (the Solar Open parsers of the ``oesni/vllm`` fork; ``upstage/Solar-Open-100B``)::

    text* ( '<|tool_calls|>' call+ '<|calls|>'? text* )*
    call := '<|tool_call:begin|>' ID '<|tool_call:name|>' NAME '<|tool_call:args|>' object
            '<|tool_call:end|>'
    ID   := 10 characters of [a-z0-9]

A configuration of the header + JSON engine (``engines.header_json``, as Kimi K2: the model's id
in the header). A well-formed ``ID`` is the call id (``ToolCallStart.id``; a repeat is
made unique, ``id~2``); any other id is replaced by a generated one. The arguments stream
verbatim; a call is complete at its ``<|tool_call:end|>``. ``<|calls|>`` (the turn's end)
closes the section; a call with no ``<|tool_calls|>`` before it opens one. A content turn
may come first (``TEXT<|end|><|begin|>assistant<|tool_calls|>...``): the turn framing
before ``<|tool_calls|>`` is part of the opener. Reasoning (``<|think|>...<|end|>``) and
the content turn's framing (``<|begin|>assistant``, ``<|content|>``, ``<|flush|>``) are
the ``solar_open`` reasoning format's. Held back: a partial marker, the header until
``<|tool_call:args|>`` (at most ``MAX_HEADER`` characters), a growing token of the
arguments; the markers are special tokens, so arguments cut by one end ``incomplete``.

Bodies that are not JSON (``LITERAL_ARGS``, ``JUNK_TO_CALL_END``): a body whose first key
is single-quoted (``{'city': 'Seoul'}``, after at most 64 blanks; the ``{`` and those
blanks are held until the next character shows) is a Python literal, the fork's one-shot
fallback: held whole up to the next marker, and at its ``<|tool_call:end|>`` read once
with ``ast.literal_eval``; a dict is the call's arguments, as JSON, else (or cut) the
call ends incomplete with ``{}`` and the body is text. A JSON body that breaks ends the
call incomplete with what parsed; the rest of the body is text up to the next marker,
and a ``<|tool_call:end|>`` there is the broken call's closer, dropped.

Solar Open 2 (``<|tool_call:start|>``, ``<|tool_arg:start|>``...) is another syntax and is
not read here.
"""

from __future__ import annotations

import json
import re
from typing import Any

from streamcall.formats.engines.header_json import _NAME, HeaderJsonParser

# Bound once: CPython 3.11 calls a method of an imported name through a bound method
# made on every call (it gives such a call no LOAD_METHOD)
_name_fullmatch = _NAME.fullmatch

TOOL_CALLS = "<|tool_calls|>"
CALL_BEGIN = "<|tool_call:begin|>"
CALL_NAME = "<|tool_call:name|>"
CALL_ARGS = "<|tool_call:args|>"
CALL_END = "<|tool_call:end|>"
TURN_END = "<|calls|>"
# the content turn before a tool-calls turn, with its framing
_AFTER_CONTENT = ("<|begin|>assistant" + TOOL_CALLS, "<|end|><|begin|>assistant" + TOOL_CALLS)

_ID = re.compile(r"[a-z0-9]{10}")


class SolarOpenParser(HeaderJsonParser):
    names = ("solar_open",)
    family = "Upstage Solar Open (not Solar Open 2)"
    vllm_differences = (
        "Not a vLLM 0.33 name (from the oesni/vllm fork). Streams JSON arguments verbatim "
        "as they are written. A Python-literal dict (its first key single-quoted) is held "
        "to its <|tool_call:end|> and given as its JSON equivalent (ast.literal_eval), "
        "streaming and one-shot alike (the fork converts it one-shot only and streams the "
        "raw text); a literal that does not read as a dict, or is cut off, ends the call "
        "incomplete with {} and is text. A JSON body that breaks ends the call incomplete "
        "with what parsed; the rest of the body is text and its <|tool_call:end|> is "
        "dropped as the call's closer (the fork passes the broken text on as the "
        "arguments). A body that is not an object starts no call: its markup is text as "
        "written, <|tool_call:end|> included, like the markers that opened it. A repeated "
        "model id is made unique with a ~2 suffix, and an invalid one replaced by a call_N "
        "id (the fork generates random 10-character ids)."
    )
    SECTION_START = (TOOL_CALLS, *_AFTER_CONTENT)
    SECTION_END = TURN_END
    CALL_START = CALL_BEGIN
    CALL_OPENS_SECTION = True
    HEADER_END = (CALL_ARGS,)
    CALL_END = CALL_END
    LITERAL_ARGS = True
    JUNK_TO_CALL_END = True

    def _header(self, text: str) -> tuple[str, str | None] | None:
        call_id, sep, name = text.partition(CALL_NAME)
        name = name.strip()
        if not sep or _name_fullmatch(name) is None:
            return None
        call_id = call_id.strip()
        return name, call_id if _ID.fullmatch(call_id) else None

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        body = "".join(
            f"{CALL_BEGIN}{i:010d}{CALL_NAME}{n}{CALL_ARGS}"
            f"{json.dumps(a, ensure_ascii=False)}{CALL_END}"
            for i, (n, a) in enumerate(calls)
        )
        return f"{TOOL_CALLS}{body}"


FORMATS = (SolarOpenParser,)
