"""gpt-oss Harmony, in its text form: channels, with function calls as JSON messages.

Grammar (openai/harmony ``docs/format.md``; vLLM ``openai``)::

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

Modes: TEXT (outside messages; looking for ``<|start|>`` or ``<|channel|>``) -> HEADER (up
to ``<|message|>``) -> BODY (text or reasoning up to a terminator) | LEAD (a call's body
before its first non-blank character) -> ARGS (the JSON object) -> AFTER (the object
closed; its terminator is due). A terminator always ends the message, even inside a JSON
string: in the token stream it is a special token, never content.

What it holds back: a partial Harmony token at the end of the buffer, and the header
until its ``<|message|>`` (consumed as it comes, at most ``MAX_HEADER`` characters; a
longer one is text). In ARGS, the JSON's last token if it may still grow, and in
``feed``'s shortcut a small member cut by the chunk, whole (at most 64 characters). A call cut off
by a terminator or by the end of the stream ends ``incomplete`` with its JSON closed.

Most chunks of a long call fall inside its arguments. ``feed`` hands such a chunk to the
argument scanner directly when no token can begin in it (no ``<|``), skipping the token
search and the mode dispatch; whole small members are then read with one regex
(``ArgsStreamer.push_more``). Tests prove it equal to the general loop and pin it on (it
measured faster: docs/performance.md).
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

from streamcall.events import Event, Reasoning, Text, ToolCallArgs
from streamcall.formats._base import ToolParser, Tools
from streamcall.formats._scan import ArgsStreamer, MarkerFinder

__all__ = ["HarmonyParser"]

START = "<|start|>"
CHANNEL = "<|channel|>"
MESSAGE = "<|message|>"
TERMINATORS = ("<|end|>", "<|call|>", "<|return|>")
_BODY_MARKERS = (*TERMINATORS, START, CHANNEL)
_TOKEN_LEAD = "<|"  # how every Harmony token starts
_TOKEN_FIRST = "<"
_BUILTIN_TOOLS = frozenset({"python", "browser", "container"})

_CHANNEL_NAME = re.compile(r"<\|channel\|>\s*([^\s<]+)")
_RECIPIENT = re.compile(r"(?:^|\s|>)to=([^\s<]+)")
_WS = re.compile(r"\s*")

_TEXT, _HEADER, _BODY, _LEAD, _ARGS, _AFTER = range(6)
# body kinds
_VISIBLE, _THOUGHT, _RAW = range(3)


def function_name(recipient: str) -> str | None:
    """The function a recipient addresses, or None (vLLM's ``is_function_recipient``)."""
    if not recipient or recipient.startswith("<|") or recipient == "assistant":
        return None
    if recipient.startswith("functions."):
        return recipient[len("functions.") :] or None
    if recipient.split(".", 1)[0] in _BUILTIN_TOOLS:
        return None
    return recipient


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
    MAX_HEADER: ClassVar[int] = 512
    FRAMES = (START, CHANNEL, MESSAGE, *TERMINATORS)

    def __init__(self, tools: Tools | None = None, *, id_prefix: str = "call_") -> None:
        super().__init__(tools, id_prefix=id_prefix)
        self._message_finder = MarkerFinder((START, CHANNEL))
        self._header_end_finder = MarkerFinder((MESSAGE, START))
        self._body_end_finder = MarkerFinder((*TERMINATORS, START, CHANNEL))
        self._mode = _TEXT
        self._raw: list[str] = []  # the header (and a call's leading blanks) as written
        self._raw_len = 0
        self._body_kind = _VISIBLE
        self._name = ""
        self._index = -1
        self._args: ArgsStreamer | None = None

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "".join(
            (START + "assistant" if i else "")
            + f"{CHANNEL}commentary to=functions.{name} <|constrain|>json{MESSAGE}"
            + json.dumps(args, ensure_ascii=False)
            + "<|call|>"
            for i, (name, args) in enumerate(calls)
        )

    def _marker_at(self, buf: str, pos: int, final: bool) -> tuple[str | None, bool]:
        """The body-ending token at ``buf[pos]``, and whether a cut one must be held."""
        if buf[pos] != "<":
            return None, False
        rest = buf[pos : pos + 12]
        for marker in _BODY_MARKERS:
            if rest.startswith(marker):
                return marker, False
        return None, not final and any(m.startswith(rest) for m in _BODY_MARKERS)

    # -- the loop ------------------------------------------------------------------------

    def feed(self, text: str) -> list[Event]:
        """``FeedLoop.feed``, with the chunks of streaming arguments taken directly.

        In ARGS, a buffer (held tail and chunk) without ``<|`` holds no Harmony token, and
        of a cut one at most its ``<``, as its last character: all that ``_arguments``'s
        token search would find. Such a buffer goes straight to the argument scanner, a
        last ``<`` held back, skipping the search and the mode dispatch; any other goes to
        ``_arguments`` (the search), and what follows the arguments in it to the general
        loop.
        """
        if self._mode != _ARGS or not text:
            return super().feed(text)
        buf = self._tail + text if self._tail else text
        if _TOKEN_LEAD in buf:
            out: list[Event] = []
            return self._go_on(buf, self._arguments(buf, 0, out, False), out)
        args = self._args
        assert args is not None
        if buf[-1] != _TOKEN_FIRST:
            delta, pos = args.push_more(buf, 0)
        else:  # the start of a token, maybe: held back
            delta, pos = args.push_more(buf[:-1], 0)
        out = [ToolCallArgs(self._index, delta)] if delta else []
        if args.done or args.error:
            self._arguments_ended(out)
            pos = self._step(buf, pos, out, False)
        self._tail = buf[pos:] if pos < len(buf) else ""
        return out

    def _step(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        n = len(buf)
        while pos < n:
            mode = self._mode
            if mode == _ARGS:  # first: where long arguments spend their chunks
                pos = self._arguments(buf, pos, out, final)
                if pos < 0:
                    return -pos - 1
            elif mode == _TEXT:
                # (blanks after a call's message are a gap: markup unless text follows)
                pos, marker = self._text_until_marker(buf, pos, out, self._message_finder, final)
                if marker is None:
                    return pos
                self._raw = [marker]
                self._raw_len = len(marker)
                self._mode = _HEADER
            elif mode == _HEADER:
                finder = self._header_end_finder
                end, resume, marker = (
                    finder.find_final(buf, pos) if final else finder.find(buf, pos)
                )
                if end > pos:
                    self._raw.append(buf[pos:end])
                    self._raw_len += end - pos
                if marker == MESSAGE and self._raw_len <= self.MAX_HEADER:
                    self._open_message(out)
                    pos = resume
                    continue
                if marker is None and not final and self._raw_len <= self.MAX_HEADER:
                    return end  # hold a partial token; the header so far is kept
                # Too long, cut off, or a new message began: the header is text.
                out.append(Text("".join(self._raw)))
                self._raw = []
                self._mode = _TEXT
                pos = end if marker != MESSAGE else resume
                if marker == MESSAGE:
                    out.append(Text(MESSAGE))
            elif mode == _BODY:
                finder = self._body_end_finder
                end, resume, marker = (
                    finder.find_final(buf, pos) if final else finder.find(buf, pos)
                )
                if end > pos:
                    piece = buf[pos:end]
                    out.append(Reasoning(piece) if self._body_kind == _THOUGHT else Text(piece))
                if marker is None:
                    return end
                pos = self._end_message(marker, end, resume, out)
            elif mode == _LEAD:
                ws = _WS.match(buf, pos).end()  # type: ignore[union-attr]
                if ws > pos:
                    self._raw.append(buf[pos:ws])
                    pos = ws
                if pos == n:
                    return n
                if buf[pos] == "{":
                    self._index = self._start_call(out, self._name)
                    self._args = ArgsStreamer()
                    self._raw = []
                    self._mode = _ARGS
                    continue
                marker, cut = self._marker_at(buf, pos, final)
                if marker is not None:  # an empty body: no arguments
                    self._whole_call(out, self._name, "{}")
                    self._raw = []
                    pos = self._end_message(marker, pos, pos + len(marker), out, call=True)
                    continue
                if cut:
                    return pos  # a token cut at the end of the chunk
                # Not a JSON object: the message is text, markup included.
                out.append(Text("".join(self._raw)))
                self._raw = []
                self._body_kind = _RAW
                self._mode = _BODY
            else:  # _AFTER: the arguments closed
                ws = _WS.match(buf, pos).end()  # type: ignore[union-attr]
                if ws == n:
                    return n  # blanks before the terminator are markup
                marker, cut = self._marker_at(buf, ws, final)
                if marker is not None:
                    pos = self._end_message(marker, ws, ws + len(marker), out, call=True)
                elif cut:
                    return ws
                else:  # text after the arguments, inside the message
                    self._body_kind = _VISIBLE
                    self._mode = _BODY
                    pos = ws
        return pos

    def _open_message(self, out: list[Event]) -> None:
        header = "".join(self._raw)
        self._raw.append(MESSAGE)
        m = _RECIPIENT.search(header)
        recipient = m.group(1) if m is not None else ""
        name = function_name(recipient)
        if name is not None:
            self._name = name
            self._body_kind = _VISIBLE
            self._mode = _LEAD
            return
        self._raw = []
        m = _CHANNEL_NAME.search(header)
        channel = m.group(1) if m is not None else ""
        self._body_kind = _THOUGHT if recipient or channel == "analysis" else _VISIBLE
        self._mode = _BODY

    def _end_message(
        self, marker: str, end: int, resume: int, out: list[Event], *, call: bool = False
    ) -> int:
        """A body reached ``marker`` at ``end``; returns where to go on. A call's message
        that ends at its terminator ends a block: the blanks after it are a gap."""
        if marker in TERMINATORS:
            if self._body_kind == _RAW:
                out.append(Text(marker))
            elif call:
                self._block_ended()
            self._mode = _TEXT
            return resume
        # <|start|> or <|channel|>: the next message began without a terminator.
        self._mode = _TEXT
        return end

    def _arguments(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """Returns the new position, or ``-(pos + 1)`` to stop and hold ``buf[pos:]``."""
        args = self._args
        assert args is not None
        finder = self._body_end_finder
        end, resume, marker = finder.find_final(buf, pos) if final else finder.find(buf, pos)
        closing = final or marker is not None
        if end == len(buf):  # no marker in sight: push the buffer itself, no slice
            delta, used = args.push(buf, pos, closing)
            used -= pos
        else:
            delta, used = args.push(buf[pos:end], 0, closing)
        if delta:
            out.append(ToolCallArgs(self._index, delta))
        if args.done or args.error:
            self._arguments_ended(out)
            return pos + used
        if not closing:
            return -(pos + used + 1)  # a token that may still grow, and a partial marker
        self._close_args(out, buf[pos + used : end])
        if marker is None:
            return len(buf)
        return self._end_message(marker, end, resume, out, call=True)

    def _arguments_ended(self, out: list[Event]) -> None:
        """The arguments closed (``done``) or stopped being JSON (``error``)."""
        args = self._args
        assert args is not None
        if args.done:
            self._end_call(out, self._index, args.text())
            self._args = None
            self._mode = _AFTER
        else:  # not JSON any more: close it; the rest of the body is text
            self._close_args(out, "")
            self._body_kind = _VISIBLE
            self._mode = _BODY

    def _close_args(self, out: list[Event], tail: str) -> None:
        args = self._args
        assert args is not None
        self._emit_args(out, self._index, args.close(tail))
        self._end_call(out, self._index, args.text(), incomplete=True)
        self._args = None

    # -- end of stream -------------------------------------------------------------------

    def _end_of_stream(self, rest: str, out: list[Event]) -> None:
        if self._mode == _HEADER:
            out.append(Text("".join(self._raw) + rest))
        elif self._mode == _LEAD:  # the stream ended before the arguments began
            index = self._start_call(out, self._name)
            self._emit_args(out, index, "{}")
            self._end_call(out, index, "{}", incomplete=True)
        elif self._mode == _ARGS and self._args is not None:
            self._close_args(out, rest)
        elif rest:
            out.append(Text(rest))
        self._raw = []
        self._mode = _TEXT


FORMATS = (HarmonyParser,)
