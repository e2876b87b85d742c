"""Harmony's framing, read in one place for both of its parsers: gpt-oss's tool calls
(``formats/harmony.py``, ``openai``) and its reasoning (``reasoning/harmony.py``,
``openai_gptoss``).

Grammar (openai/harmony ``docs/format.md``; the header as openai-harmony's own parser
reads it, ``parse_header_from_tokens`` in its ``src/encoding.rs``)::

    stream     := text? message*
    message    := opener header '<|message|>' body terminator?
    opener     := '<|start|>' | '<|channel|>'       # the role may be left implicit
    header     := any text up to '<|message|>', e.g.
                  'assistant<|channel|>commentary to=functions.f <|constrain|>json'
    terminator := '<|end|>' | '<|call|>' | '<|return|>'
                | the next '<|start|>' or '<|channel|>' (a message cut short; it is
                  the next message's opener, not consumed)

The words of a header (``parse_header``):

- the channel: right after ``<|channel|>`` (blanks skipped), up to a blank or ``<``;
- the recipient: a word ``to=NAME`` that follows a blank or starts the header's text
  (right after ``<|start|>``), NAME up to a blank or ``<`` (``to=functions.f<|constrain|>``
  names ``functions.f``);
- the content type (``<|constrain|>json``, or a bare ``json``): read by neither parser,
  since arguments are JSON whatever it says.

A header is at most ``MAX_HEADER`` characters, from its opener to the end of its
``<|message|>``, and is held whole in the buffer until it is decided (``HeaderReader``):
nothing of it is released while it may still be a header, and nothing is searched twice.
It is not a header when a ``<|start|>`` comes before its ``<|message|>`` (the text up to
that ``<|start|>`` is text), or when no ``<|message|>`` ends within the bound or before
the end of the stream (its opener is text, and reading goes on right after it, so an
opener inside it may still start a message). A reader made with ``breaks`` (Muse's
terminators, ``framing.muse``) treats those tokens as it treats ``<|start|>``. Every decision is a position in the text,
never the size of a chunk, so the result is the same however the text is cut.

A header may have begun in the prompt: gpt-oss's template ends the prompt with
``<|start|>assistant``, and the output goes on with the rest of that header
(``prompt_framing`` reads where a generation prompt leaves the framing;
``HeaderReader.read_rest`` reads the rest, under the same bound, counted from the prompt's
opener). When the rest is no header, there is no opener in the output to release: the
output is read as text from its start.

A body ends at the first terminator or opener (``BODY_ENDS``): in the token stream these
are special tokens, never content, so one inside a JSON string ends the body too. Every
Harmony token starts with ``<|``, so a buffer without it holds none (``StopMarkers``: one
``str.find`` in place of the marker search, a fast read of ``streamcall.text.fast``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from streamcall.text import MarkerFinder, StopMarkers

__all__ = [
    "BODY_ENDS",
    "CHANNEL",
    "FRAMES",
    "MAX_HEADER",
    "MESSAGE",
    "OPENERS",
    "START",
    "TERMINATORS",
    "Header",
    "HeaderReader",
    "function_name",
    "parse_header",
    "prompt_framing",
]

START = "<|start|>"
CHANNEL = "<|channel|>"
MESSAGE = "<|message|>"
TERMINATORS = ("<|end|>", "<|call|>", "<|return|>")
#: every token that frames a message: markup wherever it is read as such
FRAMES = (START, CHANNEL, MESSAGE, *TERMINATORS)
MAX_HEADER = 512

#: what starts a message in text
OPENERS = MarkerFinder((START, CHANNEL))
#: what ends a body: a terminator, or the next message's opener
BODY_ENDS = StopMarkers((*TERMINATORS, START, CHANNEL))
_HEADER_ENDS = MarkerFinder((MESSAGE, START))

_CHANNEL_NAME = re.compile(r"<\|channel\|>\s*([^\s<]+)")
_RECIPIENT = re.compile(r"(?:\s|^<\|start\|>)to=([^\s<]+)")
_BUILTIN_TOOLS = frozenset({"python", "browser", "container"})


@dataclass(frozen=True, slots=True)
class Header:
    """What a message's header says (empty where it says nothing)."""

    channel: str
    recipient: str

    @property
    def function(self) -> str | None:
        """The function the message calls, or None (``function_name``)."""
        return function_name(self.recipient)


def function_name(recipient: str) -> str | None:
    """The function a recipient addresses, or None (vLLM's ``is_function_recipient``):
    ``functions.NAME``, or a bare ``NAME`` other than ``assistant`` and the built-in
    ``python``/``browser``/``container`` tools."""
    if not recipient or recipient == "assistant":
        return None
    if recipient.startswith("functions."):
        return recipient[len("functions.") :] or None
    if recipient.split(".", 1)[0] in _BUILTIN_TOOLS:
        return None
    return recipient


def parse_header(text: str) -> Header:
    """The channel and recipient of a header (``text``: from its opener up to, not
    including, its ``<|message|>``)."""
    m = _CHANNEL_NAME.search(text)
    channel = m.group(1) if m is not None else ""
    m = _RECIPIENT.search(text)
    return Header(channel, m.group(1) if m is not None else "")


class HeaderReader:
    """Reads one header at a time, held whole in the buffer until it is decided.

    ``read(buf, pos, final) -> (end, header)``, where ``buf[pos:]`` starts with an opener:

    - a ``Header``: the message's body starts at ``end`` (just past ``<|message|>``), and
      ``buf[pos:end]`` is the header as written;
    - None, ``end > pos``: not a header; ``buf[pos:end]`` is text, and text goes on at
      ``end``;
    - None, ``end == pos``: not decided yet; ``buf[pos:]`` must be held (never when
      ``final``).

    While it holds, it remembers how far it searched, so the next chunk is searched only
    where a marker may still begin. ``breaks``: tokens that, like ``<|start|>``, end the
    text before ``<|message|>`` and make it no header (none for Harmony).
    """

    __slots__ = ("_ends", "_searched")

    def __init__(self, breaks: tuple[str, ...] = ()) -> None:
        self._searched = 0  # how far past ``pos`` the held header was searched
        self._ends = MarkerFinder((MESSAGE, START, *breaks)) if breaks else _HEADER_ENDS

    def read(self, buf: str, pos: int, final: bool) -> tuple[int, Header | None]:
        opener = len(START) if buf.startswith(START, pos) else len(CHANNEL)
        searched = pos + self._searched if self._searched else 0
        end, resume, marker = self._ends.find(buf, pos + opener, searched)
        self._searched = 0
        if marker is not None and marker != MESSAGE:
            return end, None  # a new message (or a break) came before this header ended
        if marker is not None:
            if resume - pos <= MAX_HEADER:
                return resume, parse_header(buf[pos:end])
        elif not final and len(buf) - pos < MAX_HEADER:
            self._searched = len(buf) - pos
            return pos, None
        return pos + opener, None  # never a header: its opener is text

    def read_rest(
        self, prefix: str, buf: str, pos: int, final: bool
    ) -> tuple[int, Header | None] | None:
        """``read`` for a header the prompt began (``prefix``: its text from the opener on),
        continued at ``buf[pos]``: ``(end, Header)`` as ``read`` has it; ``(pos, None)``:
        not a header (there is no opener in the output to release: ``buf[pos:]`` is read
        as text, openers included); None: not decided yet, ``buf[pos:]`` must be held."""
        searched = pos + self._searched if self._searched else 0
        end, resume, marker = self._ends.find(buf, pos, searched)
        self._searched = 0
        if marker == MESSAGE and len(prefix) + resume - pos <= MAX_HEADER:
            return resume, parse_header(prefix + buf[pos:end])
        if marker is None and not final and len(prefix) + len(buf) - pos < MAX_HEADER:
            self._searched = len(buf) - pos
            return None
        return pos, None


def prompt_framing(generation_prompt: str | None) -> tuple[str, Header | None]:
    """Where a generation prompt (the rendered prompt's tail) leaves Harmony's framing:

    - ``(text, None)``, ``text`` not empty: inside a message's header, whose text so far
      (from its opener) is ``text``; gpt-oss's template ends with ``<|start|>assistant``,
      so the output starts with the rest of the header (`` to=functions.f<|channel|>...``,
      ``<|channel|>analysis<|message|>...``);
    - ``("", Header)``: inside the body of a message with that header (the prompt ended
      with its ``<|message|>``);
    - ``("", None)``: before a message (no prompt, or its last message ended).
    """
    if not generation_prompt:
        return "", None
    last = max(generation_prompt.rfind(token) for token in FRAMES)
    if last < 0 or generation_prompt.startswith(TERMINATORS, last):
        return "", None
    cut = max(generation_prompt.rfind(token) for token in TERMINATORS)  # all before last
    begin = generation_prompt.rfind(START, cut + 1)
    if begin < 0:
        begin = generation_prompt.find(CHANNEL, cut + 1)
    if generation_prompt.startswith(MESSAGE, last):
        if begin < 0 or begin > last:
            return "", None
        return "", parse_header(generation_prompt[begin:last])
    return generation_prompt[begin:], None
