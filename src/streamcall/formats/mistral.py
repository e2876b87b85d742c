"""Mistral: ``[TOOL_CALLS]``, in the pre-v11 list form or the v11+ header form.

Grammar (vLLM ``mistral``; Mistral-7B-v0.3, Mixtral, Mistral-Small, Devstral)::

    pre-v11 tokenizer:  text* '[TOOL_CALLS]' ws* '[' call (',' call)* ']' text*
                        call := {"name": string, "arguments": object | string}
    v11+ tokenizer:     text* ( '[TOOL_CALLS]' NAME ('[CALL_ID]' ID)? '[ARGS]'? object )+ text*

The form is decided by the first character after ``[TOOL_CALLS]``: ``[`` or ``{`` is the
list form, handed for the rest of the stream to the JSON-call engine (``_jsoncalls``);
anything else is a v11 header, read by the header + JSON engine (``_headerjson``). A
model uses one tokenizer, so the two forms never mix in one stream.

In the v11 form ``[ARGS]`` and ``[CALL_ID]`` are special tokens that a detokenizer may
skip, so a ``{`` also ends the name (vLLM's own suite feeds ``[TOOL_CALLS]add{...}``).
A model-written ``[CALL_ID]`` is used as the call id. Arguments are streamed verbatim;
``[TOOL_CALLS]`` cannot occur inside them, so one that does cuts the call (ended
``incomplete``) and starts the next. What is held back: a partial ``[TOOL_CALLS]`` /
``[ARGS]`` / ``[CALL_ID]``, the whitespace right after ``[TOOL_CALLS]`` until the form is
known, the name (at most 512 characters) until its end.
"""

from __future__ import annotations

import json
import re
from typing import Any

from streamcall.events import Event
from streamcall.formats._headerjson import HANDOFF, HeaderJsonParser
from streamcall.formats._jsoncalls import JsonCallsParser

BOT = "[TOOL_CALLS]"
ARGS = "[ARGS]"
CALL_ID = "[CALL_ID]"

_WS = re.compile(r"[ \t\n\r]*")


class _MistralList(JsonCallsParser):
    """The pre-v11 form: a JSON list of calls after ``[TOOL_CALLS]``."""

    START = (BOT,)
    END = None
    ARRAY = True


class MistralParser(HeaderJsonParser):
    names = ("mistral",)
    family = "Mistral-7B-v0.3, Mixtral, Mistral-Small, Devstral"
    vllm_differences = (
        "Reads both tokenizer generations from text alone (vLLM needs token ids and "
        "mistral_common); keeps text after the calls (vLLM drops it in non-streaming "
        "mode); junk between [TOOL_CALLS] and the list is text, not searched for JSON by "
        "regex; several [TOOL_CALLS] in the pre-v11 form are parsed, not an error; ids are "
        "call_N or the model's [CALL_ID], not random 9-character strings."
    )
    SECTION_START = (BOT,)
    REPEAT_SECTION = True
    HEADER_END = (ARGS,)
    HEADER_BRACE = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._legacy: _MistralList | None = None

    def _header(self, text: str) -> tuple[str, str | None] | None:
        name, sep, call_id = text.partition(CALL_ID)
        parsed = super()._header(name)
        if parsed is None:
            return None
        call_id = call_id.strip()
        if sep and not call_id:
            return None
        return parsed[0], call_id or None

    def _read_header(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        if self._section_calls == 0 and self._header_len == 0:
            ws = _WS.match(buf, pos).end()  # type: ignore[union-attr]
            if ws > pos:
                self._raw.append(buf[pos:ws])
                pos = ws
            if pos == len(buf):
                return pos
            if buf[pos] in "[{":
                legacy = _MistralList(self.tools, id_prefix=self.id_prefix)
                legacy._open_block(self._raw, bare=False)
                self._raw = []
                self._legacy = legacy
                self._mode = HANDOFF
                return pos
        return super()._read_header(buf, pos, out, final)

    def _step(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        if self._legacy is None:
            pos = super()._step(buf, pos, out, final)
            if self._legacy is None:
                return pos
        legacy = self._legacy
        legacy._calls = self._calls
        legacy._ids = self._ids
        pos = legacy._read(buf, pos, out, final)
        self._calls = legacy._calls
        return pos

    def _end_of_stream(self, rest: str, out: list[Event]) -> None:
        if self._legacy is None:
            super()._end_of_stream(rest, out)
            return
        self._legacy._calls = self._calls
        self._legacy._end_of_stream(rest, out)

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        """The v11+ form, with its ``[ARGS]`` token."""
        return "".join(f"{BOT}{n}{ARGS}{json.dumps(a, ensure_ascii=False)}" for n, a in calls)

    @classmethod
    def render_pre_v11(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        body = [{"name": n, "arguments": a} for n, a in calls]
        return f"{BOT} {json.dumps(body, ensure_ascii=False)}"


FORMATS = (MistralParser,)
