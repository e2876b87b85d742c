"""Muse's message framing (Meta Muse Spark, Muse Glimmer), read in one place for both of
its parsers: the tool calls (``formats/muse.py``) and the reasoning
(``reasoning/muse.py``), each registered as ``muse``, ``musespark``, ``musespark1x`` and ``muse_glimmer``.

Grammar (vLLM ``muse`` / ``muse_glimmer``, SGLang ``muse``; the chat template
``examples/tool_chat_template_muse_glimmer.jinja``)::

    stream     := (text | message)*
    message    := header body terminator?
    header     := '<|start|>' ROLE (' to=' RECIPIENT)? '<|message|>'       # framed
                | BLANKS ('to=' RECIPIENT)? '<|message|>'                   # bare
    terminator := '<|eom|>' | '<|eot|>'
                | the next header (a message cut short; not consumed)

For example ``' to=self<|message|>Need the weather.<|eom|><|start|>assistant
to=get_weather<|message|><atem:function_calls>...</atem:function_calls><|eom|>``: the
generation prompt ends with ``<|start|>assistant``, so the first message's header is bare.

- A framed header is read by Harmony's reader (``framing.harmony.HeaderReader``, made by
  ``header_reader``): from ``<|start|>`` up to ``<|message|>``, at most ``MAX_HEADER``
  characters and no other frame token in between, held whole until decided; its
  recipient is the word ``to=NAME`` after a blank. A ``<|start|>`` that opens no header is
  text of the body it interrupts.
- ``<|message|>`` is a special token, so wherever it stands it begins a message. Its
  bare header is the ``to=RECIPIENT`` right before it (the last ``to=`` within
  ``MAX_RECIPIENT`` characters of it, followed only by characters other than blanks and
  ``<``: a model that leaves a message without ``<|eom|>`` writes ``... to=f<|message|>``)
  and the blanks (space, tab) before that, at most ``MAX_BLANKS`` of them; ``to=`` with
  no name is not a recipient.
- A body ends at a terminator, at a ``<|start|>`` that opens a header, or at a bare
  header (``BODY_ENDS``, then ``body_end``). Text outside messages (before the first, or
  after a terminator) is text; a terminator there is dropped as markup.

What a body is depends on its recipient and on the format (``Channels``: ``SPARK`` for
``muse``, ``musespark`` and ``musespark1x``, ``GLIMMER`` for ``muse_glimmer``): reasoning, text, dropped,
or a tool channel, whose body holds the ATEM calls.

What it holds back: a partial frame token at the end of the buffer (``StopMarkers``:
every token starts with ``<|``, so a buffer without it holds none; ``body_text_end`` is
the fast read of such a chunk); the end of a body
that may still become a bare header (``to=`` and its name so far, ``t`` or ``to``, and
the blanks before them: ``held_from``, at most ``MAX_BLANKS + MAX_RECIPIENT + 3``
characters); a framed header until it is decided. Each decision is a position in the
text, so the result is the same however the text is cut.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from streamcall.framing.harmony import MAX_HEADER, HeaderReader
from streamcall.text import StopMarkers, fast

__all__ = [
    "BODY_ENDS",
    "CHANNELS",
    "DROPPED",
    "EOM",
    "EOT",
    "FRAMES",
    "GLIMMER",
    "HOLD_LAST",
    "LEAD",
    "MAX_BLANKS",
    "MAX_HEADER",
    "MAX_RECIPIENT",
    "MESSAGE",
    "REASONING",
    "SPARK",
    "START",
    "TERMINATORS",
    "TEXT",
    "TO",
    "TOOL",
    "Channels",
    "HeaderReader",
    "bare_header",
    "body_end",
    "body_text_end",
    "header_reader",
    "held_from",
]

START = "<|start|>"
MESSAGE = "<|message|>"
EOM = "<|eom|>"
EOT = "<|eot|>"
TERMINATORS = (EOM, EOT)
#: every token that frames a message: markup wherever it is read as such
FRAMES = (START, MESSAGE, EOM, EOT)
#: what ends a body: a terminator, a header's opener, a bare header's ``<|message|>``
BODY_ENDS = StopMarkers((EOM, EOT, START, MESSAGE))
MAX_RECIPIENT = 256
MAX_BLANKS = 16
#: what every frame token starts with
LEAD = "<|"
#: what a bare header's recipient follows
TO = "to="
#: the last characters after which a body's end may have to be held (``body_text_end``)
HOLD_LAST = frozenset("t \t<o")
_TO = TO
_NAME_REACH = MAX_RECIPIENT + len(_TO)
_NAME = re.compile(r"[^\s<]*")
_BLANKS_AT_END = re.compile(r"[ \t]*\Z")

# What a body is (its kind), by its recipient.
TEXT, REASONING, DROPPED, TOOL = range(4)


@dataclass(frozen=True, slots=True)
class Channels:
    """A format's channel table: the kind of a message's body, by its recipient."""

    #: a header with no recipient (``<|message|>`` alone, or ``<|start|>assistant``)
    unaddressed: int
    #: recipients that are not tool channels; any other recipient is one
    named: Mapping[str, int]

    def kind(self, recipient: str) -> int:
        if not recipient:
            return self.unaddressed
        return self.named.get(recipient, TOOL)


#: Muse Spark (vLLM ``muse``'s reasoning parser, ``_classify_bodies``)
SPARK = Channels(
    REASONING, {"self": REASONING, "user": TEXT, "commentary": TEXT, "developer": DROPPED}
)
#: Muse Glimmer (vLLM ``muse_glimmer``: every recipient but ``self`` and ``user`` is a tool)
GLIMMER = Channels(TEXT, {"self": REASONING, "user": TEXT})
CHANNELS: dict[str, Channels] = {
    "muse": SPARK,
    "musespark": SPARK,
    "musespark1x": SPARK,
    "muse_glimmer": GLIMMER,
}


def header_reader() -> HeaderReader:
    """A reader of framed headers: Harmony's, with Muse's terminators as breaks."""
    return HeaderReader(breaks=TERMINATORS)


def _blanks_before(buf: str, pos: int, end: int) -> int:
    """Where the blanks (at most ``MAX_BLANKS``) that end ``buf[pos:end]`` begin."""
    if end > pos and buf[end - 1] in " \t":
        m = _BLANKS_AT_END.search(buf, max(pos, end - MAX_BLANKS), end)
        assert m is not None  # (it matches the empty string at ``end``)
        return m.start()
    return end


def held_from(buf: str, pos: int, end: int) -> int:
    """Where the end of a body's text ``buf[pos:end]`` may still become a bare header,
    which must be held: ``to=`` and a name so far, ``to`` or ``t``, and the blanks
    before them (or blanks alone). ``end`` if nothing is held."""
    if end <= pos:
        return end
    i = buf.rfind(_TO, max(pos, end - _NAME_REACH), end)
    if i >= 0 and _NAME.fullmatch(buf, i + 3, end) is not None:
        start = i
    else:
        last = buf[end - 1]
        if last == "t":
            start = end - 1
        elif last == "o" and end - 2 >= pos and buf[end - 2] == "t":
            start = end - 2
        elif last == " " or last == "\t":
            start = end
        else:
            return end  # (the common chunk: one rfind, one character)
    return _blanks_before(buf, pos, start)


def bare_header(buf: str, pos: int, end: int) -> tuple[int, str]:
    """The bare header that ends at ``end`` (where ``<|message|>`` stands), in a body
    read from ``pos``: where it begins, and its recipient ('' for none)."""
    start = end
    recipient = ""
    i = buf.rfind(_TO, max(pos, end - _NAME_REACH), end)  # the last, as ``held_from``
    if 0 <= i < end - 3 and _NAME.fullmatch(buf, i + 3, end) is not None:
        start = i
        recipient = buf[i + 3 : end]
    return _blanks_before(buf, pos, start), recipient


def body_text_end(buf: str, pos: int) -> int:
    """The fast read of a body in a buffer with no frame token's lead (``LEAD``, ``<|``,
    not in ``buf``): where its text ends, the rest held (a cut token's ``<``, what may
    still become a bare header: ``held_from``), so that ``body_end(buf, pos, False)`` is
    ``(end, end, None, '')``. The common chunk is all text (``len(buf)``): one with no
    ``to=`` (``TO``) and a last character not in ``HOLD_LAST``, a test that a reader
    may write out."""
    n = len(buf)
    last = buf[-1]
    if last not in HOLD_LAST and TO not in buf:
        return n
    if last == "<" and pos < n:
        n -= 1  # (a cut frame token, as ``BODY_ENDS`` holds it)
    return held_from(buf, pos, n)


def body_end(buf: str, pos: int, final: bool) -> tuple[int, int, str | None, str]:
    """Where a body read from ``pos`` stops: ``(end, resume, marker, recipient)``.

    - ``marker`` None: ``buf[pos:end]`` is the body's; ``buf[end:]`` is held (nothing at
      the end of the stream);
    - a terminator: the body is ``buf[pos:end]``; reading goes on at ``resume``;
    - ``START``: the body is ``buf[pos:end]`` so far; a framed header may begin at ``end``
      (``header_reader``), else the body goes on;
    - ``MESSAGE``: a bare header ``buf[end:resume]`` with ``recipient`` ends the body.
    """
    if not final and fast.FAST and LEAD not in buf:
        end = body_text_end(buf, pos)
        return end, end, None, ""
    end, resume, marker = BODY_ENDS.find(buf, pos, final)
    if marker is None:
        if not final:
            end = held_from(buf, pos, end)
        return end, end, None, ""
    if marker == MESSAGE:
        start, recipient = bare_header(buf, pos, end)
        return start, resume, marker, recipient
    return end, resume, marker, ""
