"""gpt-oss Harmony, in its text form: channels, with function calls as JSON messages.

Grammar (openai/harmony ``docs/format.md``; vLLM ``openai``): messages framed by
Harmony's tokens, read by ``framing.harmony`` (shared with the ``openai_gptoss`` reasoning
parser)::

    stream  := text? message*
    message := ('<|start|>' ROLE)? header '<|message|>' body terminator?
    header  := any order of  '<|channel|>' CHANNEL,  ' to=' RECIPIENT,
               '<|constrain|>' TYPE  (or a bare TYPE word)          # up to <|message|>
    terminator := '<|end|>' | '<|call|>' | '<|return|>'
                | the next '<|start|>' or '<|channel|>' (a message cut short)

For example ``<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant
<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"SF"}
<|call|>``. The recipient may come before the channel (``<|start|>assistant
to=functions.f<|channel|>commentary json<|message|>``).

What a message becomes, by its header:

- a function recipient (vLLM's rule: ``functions.NAME``, or a bare ``NAME`` other than
  ``assistant`` and the built-in ``python``/``browser``/``container`` tools): a call to
  ``NAME``. Its body is JSON arguments, streamed verbatim through ``ArgsStreamer``. An
  empty body is ``{}``. A body that is not a JSON object (vLLM passes ``foo`` through as
  the arguments) is text, header and terminator included.
- any other recipient (a built-in tool, ``assistant``): ``Reasoning`` (tool use is part
  of the chain of thought).
- channel ``analysis``: ``Reasoning``; ``final``, ``commentary`` (a preamble), no channel
  or another channel: ``Text``. Headers and terminators are markup and dropped.

Modes (``Mode``) and what each step reads::

    mode    reads                                     next     emits
    TEXT    text up to an opener                      HEADER   Text
    HEADER  the header, to its '<|message|>'          BODY     (a message of text or
                                                               reasoning)
                                                      LEAD     (a call's message)
            not a header (too long, cut off)          TEXT     Text (the text it was)
    BODY    the body, to a terminator or an opener    TEXT     Text or Reasoning
    LEAD    blanks, then '{'                          ARGS     ToolCallStart
            a terminator at once (an empty body)      TEXT     the whole call, '{}'
            anything else                             BODY     Text (header and body)
    ARGS    the JSON object, verbatim                 AFTER    ToolCallArgs; ToolCallEnd
            ... cut by a terminator or an opener      TEXT     ToolCallEnd incomplete
            ... no longer JSON                        BODY     ToolCallEnd incomplete
    AFTER   blanks, then the terminator               TEXT
            anything else (text in the message)       BODY     Text
    PROMPT  the rest of the header the prompt began   as HEADER
            not a header (a '<|start|>' first, too    TEXT     (nothing: the output is
            long, cut off)                                     read as text from there)

Where the output starts (``start_after``, given the generation prompt: the rendered
prompt's tail, ``framing.harmony.prompt_framing``): gpt-oss's template ends with
``<|start|>assistant``, so the output starts in PROMPT, inside that header
(`` to=functions.f<|channel|>commentary <|constrain|>json<|message|>{...}<|call|>``); a
prompt that ends with a header's ``<|message|>`` starts it in that message's body; with no
prompt, or one that ends before a message, it starts in TEXT.

A terminator always ends the message, even inside a JSON string: in the token stream it
is a special token, never content. The blanks after a call's message are a gap: markup
if another message follows (its header whole), text if other text does, or a header that
turns out to be text (``ToolParser._skip_gap``, ``_lead``).

What it holds back: a partial Harmony token at the end of the buffer, and the header
until it is decided (whole, at most ``MAX_HEADER`` characters: ``HeaderReader``). In
ARGS, the JSON's last token if it may still grow, and a small member cut by the chunk,
whole (at most 64 characters: ``ArgsStreamer.push_more``); arguments are read through
``ArgsStep`` (the ARGS step), whose fast read answers a buffer without ``<|`` (no Harmony
token can begin in it) with one test. A call cut off by a terminator or by the end of the
stream ends ``incomplete`` with its JSON closed.
"""

from __future__ import annotations

import json
import re
from enum import IntEnum
from typing import Any

from streamcall.events import Event, Reasoning, Text
from streamcall.formats.engines.base import ToolParser, Tools
from streamcall.framing.harmony import (
    BODY_ENDS,
    CHANNEL,
    FRAMES,
    MESSAGE,
    OPENERS,
    START,
    TERMINATORS,
    Header,
    HeaderReader,
    function_name,
    prompt_framing,
)
from streamcall.text import ArgsStep, ArgsStreamer, Step, cut_marker

# Bound once: CPython 3.11 calls a method of an imported name through a bound method
# made on every call (it gives such a call no LOAD_METHOD)
_body_ends_find = BODY_ENDS.find

__all__ = ["HarmonyParser", "Mode", "function_name"]


class Mode(IntEnum):
    """Where the parser is (the table in the module header)."""

    TEXT = 0
    HEADER = 1
    BODY = 2
    LEAD = 3  # a call's body before its first non-blank character
    ARGS = 4
    AFTER = 5  # the arguments closed: the terminator is due
    PROMPT = 6  # the rest of a header the generation prompt began


TEXT, HEADER, BODY, LEAD, ARGS, AFTER, PROMPT = map(int, Mode)

# Blanks before a call's arguments and after them (any Unicode blank, as a tokenizer may
# write one).
_BLANKS = re.compile(r"\s*")

# what a body is (``_body_kind``)
_VISIBLE, _THOUGHT, _RAW = range(3)


class HarmonyParser(ToolParser):
    names = ("openai",)
    family = "OpenAI gpt-oss-20b/120b (Harmony, text form)"
    vllm_differences = (
        "Parses Harmony's text form (vLLM needs the token ids and the openai-harmony "
        "package). Streams each call's JSON arguments verbatim as they arrive (vLLM's "
        "0.23 parser raises NotImplementedError for streaming). An empty body is '{}' "
        "(vLLM: ''); a body that is not a JSON object is text (vLLM passes 'foo' through "
        "as the arguments). Messages to built-in tools or to 'assistant' are reasoning "
        "(vLLM drops them)."
    )
    FRAMES = FRAMES

    def __init__(self, tools: Tools | None = None, *, id_prefix: str = "call_") -> None:
        super().__init__(tools, id_prefix=id_prefix)
        self._headers = HeaderReader()
        self._mode = TEXT
        self._body_kind = _VISIBLE
        self._name = ""
        self._prompt_header = ""  # in PROMPT: the header's text the prompt wrote
        self._index = -1
        self._args: ArgsStreamer | None = None
        self._arg_step = ArgsStep(BODY_ENDS, self._args_ended)  # the ARGS step
        self._steps = (
            self._read_text,
            self._read_header,
            self._read_body,
            self._read_lead,
            self._arg_step.step,
            self._read_after,
            self._read_prompt_header,
        )

    def start_after(self, generation_prompt: str) -> None:
        """The output starts where the prompt left Harmony's framing (``prompt_framing``):
        inside a header (gpt-oss's ``<|start|>assistant``), in a message's body, or before
        a message."""
        header_text, header = prompt_framing(generation_prompt)
        if header_text:
            self._prompt_header = header_text
            self._mode = PROMPT
        elif header is not None:
            self._open_message(header, "")

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "".join(
            (START + "assistant" if i else "")
            + f"{CHANNEL}commentary to=functions.{name} <|constrain|>json{MESSAGE}"
            + json.dumps(args, ensure_ascii=False)
            + "<|call|>"
            for i, (name, args) in enumerate(calls)
        )

    # -- messages --------------------------------------------------------------------------

    def _read_text(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        # (blanks after a call's message are a gap: markup unless text follows)
        pos, marker = self._text_until_marker(buf, pos, out, OPENERS, final)
        if marker is None:
            return pos, True
        self._mode = HEADER
        return pos - len(marker), False  # the header starts at its opener

    def _read_header(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        end, header = self._headers.read(buf, pos, final)
        if header is None:
            if end == pos:
                return pos, True
            self._raw = [buf[pos:end]]  # not a header after all: text (and the gap before it)
            self._release_raw(out)
            self._mode = TEXT
            return end, False
        self._open_message(header, buf[pos:end])
        return end, False

    def _read_prompt_header(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        got = self._headers.read_rest(self._prompt_header, buf, pos, final)
        if got is None:
            return pos, True
        end, header = got
        if header is None:  # not a header: the output is read as text from its start
            self._mode = TEXT
        else:
            self._open_message(header, buf[pos:end])
        return end, False

    def _open_message(self, header: Header, written: str) -> None:
        """A message's header was read (``written``: its text in the output)."""
        name = header.function
        if name is not None:
            self._name = name
            self._raw = [written] if written else []  # text if the body is not JSON
            self._body_kind = _VISIBLE
            self._mode = LEAD
        else:
            self._lead = ""  # a message's frames are markup: so is the gap before them
            thought = header.recipient or header.channel == "analysis"
            self._body_kind = _THOUGHT if thought else _VISIBLE
            self._mode = BODY

    def _read_body(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        end, resume, marker = _body_ends_find(buf, pos, final)
        if end > pos:
            piece = buf[pos:end]
            out.append(Reasoning(piece) if self._body_kind == _THOUGHT else Text(piece))
        if marker is None:
            return end, True
        return self._end_message(marker, end, resume, out), False

    def _end_message(
        self, marker: str, end: int, resume: int, out: list[Event], *, call: bool = False
    ) -> int:
        """A body reached ``marker`` at ``end``; returns where to go on. A call's message
        that ends at its terminator ends a block: the blanks after it are a gap."""
        self._mode = TEXT
        if marker in TERMINATORS:
            if self._body_kind == _RAW:
                out.append(Text(marker))
            elif call:
                self._block_ended()
            return resume
        return end  # an opener: the next message began without a terminator

    def _token_at(self, buf: str, pos: int, final: bool) -> tuple[str | None, bool]:
        """The body-ending token at ``buf[pos]``, and whether a cut one must be held."""
        if buf[pos] != "<":
            return None, False
        for marker in BODY_ENDS.markers:
            if buf.startswith(marker, pos):
                return marker, False
        return None, not final and any(cut_marker(m, buf, pos) for m in BODY_ENDS.markers)

    # -- a call's message --------------------------------------------------------------------

    def _read_lead(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        ws = _BLANKS.match(buf, pos).end()  # type: ignore[union-attr]
        if ws > pos:
            self._raw.append(buf[pos:ws])
            pos = ws
        if pos == len(buf):
            return pos, True
        if buf[pos] == "{":
            self._index = self._start_call(out, self._name)
            self._args = self._arg_step.open(self._index)
            self._raw = []
            self._mode = ARGS
            return pos, False
        marker, cut = self._token_at(buf, pos, final)
        if marker is not None:  # an empty body: no arguments
            self._whole_call(out, self._name, "{}")
            self._raw = []
            return self._end_message(marker, pos, pos + len(marker), out, call=True), False
        if cut:
            return pos, True  # a token cut at the end of the chunk
        # Not a JSON object: the message is text, markup included.
        self._release_raw(out)
        self._body_kind = _RAW
        self._mode = BODY
        return pos, False

    def _args_ended(
        self, buf: str, out: list[Event], resume: int, stop: int, marker: str | None, final: bool
    ) -> Step:
        """``ArgsStep``'s call back: the arguments are done, broken, cut by a token or by
        the end of the stream (``ArgsStreamer.push_until``'s values)."""
        args = self._args
        assert args is not None
        if args.done:
            self._end_call(out, self._index, args.text())
            self._args = None
            self._mode = AFTER
            return resume, False
        if args.error:  # not JSON any more: closed; the rest of the body is text
            self._end_call(out, self._index, args, True)
            self._args = None
            self._body_kind = _VISIBLE
            self._mode = BODY
            return resume, False
        if marker is None and not final:
            return resume, True  # a token that may still grow, a partial token
        # cut off by a token, or by the end of the stream
        self._end_call(out, self._index, args, True, tail=buf[resume:stop])
        self._args = None
        if marker is None:
            self._mode = TEXT
            return stop, False
        return self._end_message(marker, stop, stop + len(marker), out, call=True), False

    def _read_after(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        ws = _BLANKS.match(buf, pos).end()  # type: ignore[union-attr]
        if ws == len(buf):
            return ws, True  # blanks before the terminator are markup
        marker, cut = self._token_at(buf, ws, final)
        if marker is not None:
            return self._end_message(marker, ws, ws + len(marker), out, call=True), False
        if cut:
            return ws, True
        self._body_kind = _VISIBLE  # text after the arguments, inside the message
        self._mode = BODY
        return ws, False

    # -- end of stream -----------------------------------------------------------------------

    def _end_of_stream(self, rest: str, out: list[Event]) -> None:
        mode = self._mode
        if mode == LEAD:  # the stream ended before the arguments began
            index = self._start_call(out, self._name)
            self._emit_args(out, index, "{}")
            self._end_call(out, index, "{}", incomplete=True)
        elif mode == ARGS and self._args is not None:
            self._end_call(out, self._index, self._args, True, tail=rest)
            self._args = None
        elif rest:
            self._raw = [rest]
            self._release_raw(out)  # (in a header: the gap before it too)
        self._raw = []
        self._mode = TEXT


FORMATS = (HarmonyParser,)
