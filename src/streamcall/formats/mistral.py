"""Mistral: ``[TOOL_CALLS]``, in the pre-v11 list form or the v11+ header form.

Grammar (vLLM ``mistral``; Mistral-7B-v0.3, Mixtral, Mistral-Small, Devstral)::

    pre-v11 tokenizer:  text* '[TOOL_CALLS]' ws* '[' call (',' call)* ']' text*
                        call := {"name": string, "arguments": object | string}
    v11+ tokenizer:     text* ( '[TOOL_CALLS]' NAME ('[CALL_ID]' ID)? '[ARGS]'? object )+ text*

The form is decided by the first character after ``[TOOL_CALLS]``: ``[`` or ``{`` is the
list form, handed for the rest of the stream to the JSON-call engine (``engines.json_calls``);
anything else is a v11 header, read by the header + JSON engine (``engines.header_json``). A
model uses one tokenizer, so the two forms never mix in one stream.

In the v11 form ``[ARGS]`` and ``[CALL_ID]`` are special tokens that a detokenizer may
skip, so a ``{`` also ends the name (vLLM's own suite feeds ``[TOOL_CALLS]add{...}``).
A model-written ``[CALL_ID]`` is used as the call id. Arguments are streamed verbatim;
``[TOOL_CALLS]`` cannot occur inside them, so one that does cuts the call (ended
``incomplete``) and starts the next. What is held back: a partial ``[TOOL_CALLS]`` /
``[ARGS]`` / ``[CALL_ID]``, the whitespace right after ``[TOOL_CALLS]`` until the form is
known, the name (at most 512 characters) until its end.

Modes: the header + JSON engine's (``engines.header_json.Mode``), and one more, ``LIST``: the
first header of a section that starts with ``[`` or ``{`` switches to it, and from then
on its step hands the text to the JSON-call engine (``_MistralList``, opened on the
``[TOOL_CALLS]`` already read; it shares this parser's call indices and ids)::

    mode    reads                                     next   emits
    HEADER  blanks, then '[' or '{' (a section's      LIST
            first header)
    LIST    the rest of the stream (``engines.json_calls``)   LIST   what that engine emits
"""

from __future__ import annotations

import json
from typing import Any

from streamcall.events import Event
from streamcall.formats.engines.base import call_list_json
from streamcall.formats.engines.header_json import HeaderJsonParser, Mode
from streamcall.formats.engines.json_calls import JsonCallsParser
from streamcall.text import Step, skip_ws

BOT = "[TOOL_CALLS]"
ARGS = "[ARGS]"
CALL_ID = "[CALL_ID]"

#: the mode after the header + JSON engine's: the pre-v11 list form, for the rest of the
#: stream
LIST = len(Mode)


class _MistralList(JsonCallsParser):
    """The pre-v11 form: a JSON list of calls after ``[TOOL_CALLS]``."""

    START = (BOT,)
    END = None
    ARRAY = True


class MistralParser(HeaderJsonParser):
    names = ("mistral",)
    family = "Mistral-7B-v0.3, Mixtral, Mistral-Small, Magistral, Ministral, Devstral"
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
        self._list = _MistralList(self.tools, id_prefix=self.id_prefix)
        self._list._ids = self._ids  # one stream: one set of ids
        # The engine's steps, HEADER read by ``_read_form`` first, and LIST after them.
        steps = list(self._steps)
        steps[Mode.HEADER] = self._read_form
        steps.append(self._read_list)
        assert len(steps) == LIST + 1
        self._steps = tuple(steps)

    def _header(self, text: str) -> tuple[str, str | None] | None:
        name, sep, call_id = text.partition(CALL_ID)
        parsed = super()._header(name)
        if parsed is None:
            return None
        call_id = call_id.strip()
        if sep and not call_id:
            return None
        return parsed[0], call_id or None

    def _read_form(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        """HEADER: at a section's first header, the form is decided by its first
        character: ``[`` or ``{`` is the list form (LIST), anything else a v11 header."""
        if self._section_calls == 0 and self._header_len == 0:
            ws = skip_ws(buf, pos).end()  # type: ignore[union-attr]
            if ws > pos:
                self._raw.append(buf[pos:ws])
                pos = ws
            if pos == len(buf):
                return pos, True
            if buf[pos] in "[{":
                self._list._open_block(self._raw, bare=False)
                self._raw = []
                self._mode = LIST
                return pos, False
        return self._read_header(buf, pos, out, final)

    def _read_list(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        """LIST: the JSON-call engine reads on (its own modes), sharing the call count."""
        lst = self._list
        lst._calls = self._calls
        pos = lst._read(buf, pos, out, final)
        self._calls = lst._calls
        return pos, True  # it stopped where it holds, or at the end

    def _end_of_stream(self, rest: str, out: list[Event]) -> None:
        if self._mode != LIST:
            super()._end_of_stream(rest, out)
            return
        self._list._calls = self._calls
        self._list._end_of_stream(rest, out)

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        """The v11+ form, with its ``[ARGS]`` token."""
        return "".join(f"{BOT}{n}{ARGS}{json.dumps(a, ensure_ascii=False)}" for n, a in calls)

    @classmethod
    def render_pre_v11(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return f"{BOT} {call_list_json(calls)}"


FORMATS = (MistralParser,)
