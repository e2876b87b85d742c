"""Meta Muse Spark and Muse Glimmer: Harmony-like messages, ATEM calls in tool channels.

Grammar (vLLM ``muse``, ``musespark`` (0.34's alias of ``muse``), ``musespark1x`` (0.33's),
``muse_glimmer``; SGLang ``muse``): messages
framed by ``<|start|>``, ``<|message|>``, ``<|eom|>`` and ``<|eot|>``, read by
``framing.muse`` (shared with the reasoning parsers of the same names)::

    stream  := (text | message)*
    message := ('<|start|>assistant')? (' to=' RECIPIENT)? '<|message|>' body
               ('<|eom|>' | '<|eot|>')?
    body    := text | atem                              # by the channel table
    atem    := (text | '<atem:function_calls>' invoke* '</atem:function_calls>' | invoke)*
    invoke  := '<atem:invoke name="' NAME '">' param* '</atem:invoke>'
    param   := '<atem:parameter name="' KEY '">' VALUE '</atem:parameter>'

For example ``' to=self<|message|>Need the weather.<|eom|><|start|>assistant
to=get_weather<|message|><atem:function_calls>\\n<atem:invoke name="get_weather">\\n
<atem:parameter name="city">Paris</atem:parameter>\\n</atem:invoke>\\n
</atem:function_calls><|eom|>'``.

What a message becomes, by its recipient and the format's channel table
(``framing.muse.Channels``):

====================  ==========================  ===============
recipient             ``muse``, ``musespark1x``   ``muse_glimmer``
====================  ==========================  ===============
none                  reasoning                   text
``self``              reasoning                   reasoning
``user``              text                        text
``commentary``        text                        a tool channel
``developer``         dropped                     a tool channel
any other             a tool channel              a tool channel
====================  ==========================  ===============

A tool channel's body is read by the XML-parameter engine (``_AtemCalls``: ``engines.xml_params``
with ``atem:`` tags; one per stream, read anew at each tool channel): its steps read the
body in this parser's buffer as it arrives, and it is finished at the body's end. Calls
stream while they are written; what is not ATEM (prose, junk after a call) is text. ATEM anywhere else (unframed, or echoed in reasoning or in the answer) is
that message's text. Headers and terminators are markup and dropped; so is a stray
terminator outside a message. Text before the first header is text. The blanks after a
message that held calls are a gap: markup before the next header and at the end of the
stream, text with the text that follows (``ToolParser._skip_gap``).

Values are JSON when they load, else the raw string (the checkpoint's ``x-parser: json``
with ``allow_non_json``), kept byte-exact (no newline is stripped): untyped values
(``schema.AUTO``, plus ``QUOTED_STRINGS``: ``"x"`` is ``x``). The schema types nothing but,
for Spark, a key it types as a string, which stays the raw text (``STRING_KEYS``). The
chat template writes a tool without a namespace as the recipient ``NAME.*``, so the model
writes ``NAME.NAME``: a doubled name whose halves are equal and name a tool of the request
is that tool's name (``get_weather.get_weather`` is ``get_weather``); any other name is
kept (``weather.get``).

Modes (``Mode``) and what each step reads::

    mode    reads                                          next     emits
    BODY    the body (or text outside messages), to a      BODY     Text, Reasoning, calls
            terminator or a bare header                             (by the body's kind)
            ... to a '<|start|>'                           HEADER   the body so far
    HEADER  a framed header, to its '<|message|>'          BODY     (a new body)
            not a header (too long, cut off)               BODY     the text it was, in the
                                                                    body it interrupted

What it holds back: a partial frame token, the end of a body that may still become a bare
header, a framed header until it is decided (``framing.muse``); inside a tool channel,
what the XML-parameter engine holds, kept in this parser's tail (the engine keeps one of
its own only when a body is cut by a ``<|start|>`` that may open a header). The common
chunk of a body is read with one test (``framing.muse.body_text_end``'s, written out). A
call cut off by the end of its message (or of the stream) ends ``incomplete``, its JSON
closed.

With the reasoning parser of the same name in front (``output_parser``), this parser reads
what that one hands on: every frame and every body but reasoning's (``reasoning/muse.py``),
so the pair gives what this parser gives alone.
"""

from __future__ import annotations

import json
import re
from enum import IntEnum
from typing import Any, ClassVar

from streamcall.events import Event, Reasoning, Text
from streamcall.formats.engines.base import ToolParser, Tools
from streamcall.formats.engines.xml_params import XmlParamsParser
from streamcall.formats.schema import (
    AUTO_JSON_START,
    LITERALS,
    NULLABLE_STRING,
    STRING,
    tool_properties,
    value_plan,
)
from streamcall.framing.muse import (
    FRAMES,
    GLIMMER,
    HOLD_LAST,
    LEAD,
    MESSAGE,
    REASONING,
    SPARK,
    START,
    TEXT,
    TO,
    TOOL,
    Channels,
    body_end,
    body_text_end,
    header_reader,
)
from streamcall.text import Step, fast

__all__ = ["Mode", "MuseGlimmerParser", "MuseParser"]


class Mode(IntEnum):
    """Where the parser is (the table in the module header)."""

    BODY = 0
    HEADER = 1


BODY, HEADER = map(int, Mode)


class MuseParser(ToolParser):
    names: ClassVar[tuple[str, ...]] = ("muse", "musespark", "musespark1x")
    family = "Meta Muse Spark (messages with to= recipients, ATEM calls)"
    vllm_differences = (
        "Streams each call while it is written, string values as they arrive (vLLM "
        "re-segments the whole text each delta and emits a call whole at its "
        "</atem:invoke>). A call cut off by the end of its message or of the stream is "
        "reported incomplete (vLLM and SGLang drop it; vLLM 0.33's one-shot path returns "
        "the framing as content). ATEM with no message framing is text, as SGLang has it "
        "(vLLM 0.33 makes a call of it); unframed text, and text between messages, is kept "
        "(vLLM skips text between messages, and 0.33's streaming path loses unframed "
        "text); blanks after a message of calls are markup, as after any call. <|message|> always begins a message, its bare header the to=NAME before "
        "it (vLLM ends a body at a bare header only when ATEM follows it). Text in a tool "
        "channel that is not ATEM (junk after a call, a body of prose) is text, not "
        'dropped. An untyped value is JSON when it starts as JSON does ({, [, ", - or a '
        "digit) and loads, or is exactly true, false or null; with blanks before it "
        "(' 42') it is the string (vLLM's json.loads skips them), and a list or object "
        "in Python syntax is read as one. Names are not checked against the request's "
        "tools: a doubled name is collapsed when that tool exists, any other is kept "
        "(SGLang drops unknown tools and maps a name to the one tool with its last "
        "dotted part)."
    )
    FRAMES = FRAMES
    #: the format's channel table
    CHANNELS: ClassVar[Channels] = SPARK
    #: keys the schema types as strings stay raw text (Spark); else the schema types nothing
    STRING_KEYS: ClassVar[bool] = True

    def __init__(self, tools: Tools | None = None, *, id_prefix: str = "call_") -> None:
        super().__init__(tools, id_prefix=id_prefix)
        self._headers = header_reader()
        self._mode = BODY
        self._kind = TEXT  # what the body being read is (outside messages: text)
        self._atem: _AtemCalls | None = None  # the calls of the tool channel being read
        self._atem_engine: _AtemCalls | None = None  # (built once, read anew per message)
        self._registered = frozenset(
            fn["name"]
            for tool in self.tools
            if isinstance(tool, dict)
            and isinstance(fn := tool.get("function", tool), dict)
            and isinstance(fn.get("name"), str)
        )
        self._steps = (self._read_body, self._read_header)

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        """One tool message per call (the template's parallel calls), values as the
        template writes them (``_render_value``)."""
        return "".join(
            f"<|start|>assistant to={name}<|message|><atem:function_calls>\n"
            f'<atem:invoke name="{name}">\n'
            + "".join(
                f'<atem:parameter name="{k}">{cls._render_value(v)}</atem:parameter>\n'
                for k, v in args.items()
            )
            + "</atem:invoke>\n</atem:function_calls><|eom|>"
            for name, args in calls
        )

    @classmethod
    def _render_value(cls, value: Any) -> str:
        """Strings raw, everything else as JSON (Spark reads a string-typed key raw)."""
        return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)

    # -- messages ----------------------------------------------------------------------------

    def _read_body(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        atem = self._atem
        if atem is not None and not final and not atem._tail:
            # A tool channel's body that goes on past this chunk: the engine reads it here,
            # and what the engine holds is held here too, as this parser's tail (so the
            # engine keeps no tail of its own, and the next chunk may take this path again).
            if fast.FAST and LEAD not in buf:
                # (``body_end``'s fast read, its common chunk's test written out: a call
                # fewer per chunk)
                n = len(buf)
                if buf[-1] in HOLD_LAST or TO in buf:
                    n = body_text_end(buf, pos)  # the end may have to be held
                    if n < len(buf):
                        if n > pos:
                            n = pos + atem._read(buf[pos:n], 0, out, False)
                        return n, True
                # the body's text to ``n``: read in this buffer, the engine's loop written out
                steps = atem._steps
                while pos < n:
                    pos, hold = steps[atem._mode](buf, pos, out, False)
                    if hold:
                        break
                return pos, True
            end, resume, marker, recipient = body_end(buf, pos, final)
            if marker is None:
                if end > pos:
                    end = pos + atem._read(buf[pos:end], 0, out, False)
                return end, True
        else:
            if self._gap is not None:  # blanks after a tool message: markup unless text follows
                pos = self._skip_gap(buf, pos, out, _NEXT_MESSAGE, final)
                if pos == len(buf):
                    return pos, True
            end, resume, marker, recipient = body_end(buf, pos, final)
        if end > pos:
            self._body_text(buf[pos:end] if pos or end < len(buf) else buf, out)
        if marker is None:
            return end, True
        if marker == START:
            self._mode = HEADER
            return end, False  # the header starts at its opener
        self._end_body(out)
        if marker == MESSAGE:
            self._begin_body(recipient)
        return resume, False

    def _read_header(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        end, header = self._headers.read(buf, pos, final)
        if header is None:
            if end == pos:
                return pos, True
            self._body_text(buf[pos:end], out)  # not a header: the body goes on
        else:
            self._end_body(out)  # the message before it was cut short
            self._begin_body(header.recipient)
        self._mode = BODY
        return end, False

    def _begin_body(self, recipient: str) -> None:
        self._gap = None  # another message: its frames are markup, and the gap before them
        self._lead = ""
        kind = self.CHANNELS.kind(recipient)
        self._kind = kind
        if kind == TOOL:
            atem = self._atem_engine
            if atem is None:
                atem = self._atem_engine = _AtemCalls(self)
            else:
                atem._reset_reading()
            atem._calls = self._calls
            self._atem = atem

    def _body_text(self, text: str, out: list[Event]) -> None:
        kind = self._kind
        if kind == TEXT:
            if self._lead:  # the blanks after a tool message, before what is text after all
                text = self._lead + text
                self._lead = ""
            out.append(Text(text))
        elif kind == REASONING:
            out.append(Reasoning(text))
        elif kind == TOOL:
            atem = self._atem
            assert atem is not None
            out.extend(atem.feed(text))
        # (DROPPED: nothing)

    def _end_body(self, out: list[Event]) -> None:
        """The body ends (its terminator, the next header, the end of the stream); what
        follows is text until a header says otherwise."""
        atem = self._atem
        if atem is not None:
            out.extend(atem.finish())
            if atem._calls > self._calls:
                self._block_ended()  # a message of calls: the blanks after it are a gap
            self._calls = atem._calls
            self._atem = None
        self._kind = TEXT

    def _end_of_stream(self, rest: str, out: list[Event]) -> None:
        if rest:
            self._body_text(rest, out)
        self._end_body(out)

    # -- the calls of a tool channel ---------------------------------------------------------

    def _collapse(self, name: str) -> str:
        """``NAME.NAME`` is ``NAME`` when that is a tool of the request."""
        registered = self._registered
        if name in registered or "." not in name:
            return name
        head, _, tail = name.partition(".")
        return head if head == tail and head in registered else name

    def _value_schemas(self, function: str) -> dict[str, Any]:
        """The property schemas that type a call's values: for Spark, the keys typed as
        strings (raw text, not JSON); else none."""
        if not self.STRING_KEYS:
            return {}
        return {
            key: schema
            for key, schema in tool_properties(self.tools, function).items()
            if value_plan(schema)[0] in (STRING, NULLABLE_STRING)
        }


#: what may begin the next message after the blanks that follow a tool message (a header
#: may also be bare: its recipient's ``to=``)
_NEXT_MESSAGE = (START, MESSAGE, TO)

#: the first characters of an untyped value that is read as JSON when it loads
_READ_AS_JSON = AUTO_JSON_START | {'"'}


class MuseGlimmerParser(MuseParser):
    names = ("muse_glimmer",)
    family = "Meta Muse Glimmer (messages with to= recipients, ATEM calls)"
    vllm_differences = MuseParser.vllm_differences
    CHANNELS = GLIMMER
    STRING_KEYS = False

    @classmethod
    def _render_value(cls, value: Any) -> str:
        """As the template writes them, but a string that would read as JSON (``12``,
        ``true``, ``[x``) is written as a JSON string, which reads back as the string."""
        if isinstance(value, str) and (value[:1] in _READ_AS_JSON or value in LITERALS):
            return json.dumps(value, ensure_ascii=False)
        return super()._render_value(value)


class _AtemCalls(XmlParamsParser):
    """The ATEM calls of a tool channel's body (``MuseParser``): its steps read the body
    in the host's buffer, it is finished at the body's end and read anew
    (``_reset_reading``) at the next tool channel; call indices and ids are the host's."""

    BLOCK_OPEN = "<atem:function_calls>"
    BLOCK_CLOSE = "</atem:function_calls>"
    BARE_CALLS = True  # an invoke without <atem:function_calls> around it
    CALL_OPEN = ("<atem:invoke name=",)
    CALL_HEADER = re.compile(r'\s*+"?(?P<name>[^"<>\n]*+)"?\s*+>')
    CALL_CLOSE = "</atem:invoke>"
    PARAM_OPEN = ("<atem:parameter name=",)
    PARAM_HEADER = re.compile(r'\s*+"?(?P<key>[^"<>\n]*+)"?\s*+>')
    PARAM_CLOSE = "</atem:parameter>"
    STRIP_NEWLINES = False  # values are byte-exact
    QUOTED_STRINGS = True

    def __init__(self, host: MuseParser) -> None:
        super().__init__(host.tools, id_prefix=host.id_prefix)
        self._host = host
        self._ids = host._ids

    def _call_name(self, m: re.Match[str]) -> str:
        return self._host._collapse(super()._call_name(m))

    def _param_types(self, function: str) -> dict[str, Any]:
        return self._host._value_schemas(function)


FORMATS = (MuseParser, MuseGlimmerParser)
