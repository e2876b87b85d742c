r"""``response_parser``: a response template read as a stream, with streamcall's events.

The reading is ``parse_response``'s (``oneshot``: the same regions, matches and values),
decided as early as the text allows and never differently in any chunking:

- **One decision at a time.** From the reader's position, every watched anchor (the
  current region's closer, or every opener and the implicit field's closer) either has a
  *final* match (one that no further text can move, shorten, lengthen or remove), or is
  *undecided* from some position on (a match could still start there), or neither. The
  best final match by ``oneshot.match_key`` is taken when it starts before every undecided
  position; otherwise the text before the first undecided position goes into the current
  region and the rest is held. At the end of the stream nothing is undecided, so the
  reading ends exactly as the one-shot reading does.
- **Literal anchors** are found with their alternation and held back with the text
  layer's ``PartialMarkers`` (a cut literal at the end, and with ``can_extend`` a whole
  one that may still grow).
- **Pattern anchors** need partial matching: the ``regex`` package (``pip install
  'streamcall[templates]'``, as transformers uses it). A complete match is final when it
  starts before the first position where the pattern, run with every match forced to
  fail (``(?:P)(*F)``) and ``partial=True``, reads past the end of the text (so no path
  of the match depends on what comes next), and it ends at least two characters before
  the end (``$``, ``\Z`` and ``\b`` decide on the end without reading past it). transformers'
  streaming parser asks ``partial=True`` of the pattern itself, which prefers a complete
  match anywhere to a partial one earlier, so a ``$`` alternative or an optional suffix
  can release half a delimiter as content; here the one-shot result holds in every
  chunking.
- **A scan-ahead opener** (``Anchor.ahead``: ``(?=[\s\S]*?</think>)``) matches at the
  reader's position exactly when what it looks for comes later. Until that is found (or
  the stream ends) nothing after the position is decided: the chunks are kept in a list,
  and only the looked-for pattern is searched, from where its own search stopped.
- **Fast reads** (``streamcall.text.fast``; with it off, every chunk takes the general
  look): where every watched anchor must start with one of a few characters
  (``watch.lead_chars``) and none is in the rest of the text, all of it is the region's
  with no search; where one literal is watched (a region's closer) and it is not there,
  the text up to a cut one is the region's, read without the general look.
- **Searches resume.** Each anchor (a ``watch.Watch``) remembers its last final match and
  the position before which it cannot match; a search starts there, never at the start of
  the held text.
  Lookbehind sees up to ``LOOKBEHIND`` characters before the reader's position.

Events: the text of the ``content`` field is ``Text``, of ``thinking`` (or
``reasoning_content``, ``reasoning``) ``Reasoning``, each released as it is read when the
field's content is ``text`` without a transform (stripped at the region's edges as the
parser strips it; a ``join`` separator before every region after the first), else once
at the region's close when its value is a string. Calls are read from the ``tool_calls``
field's value at each region's close (``{"function": {"name", "arguments"}}`` or a list of
them), each as ``ToolCallStart``, one ``ToolCallArgs`` and ``ToolCallEnd``; where the
region's body is the arguments JSON itself (content ``json`` with no dialect knobs and a
transform that places ``{content}`` as the arguments and a capture as the name), the call
starts at the body's ``{`` (a body that is another JSON value is no call) and the arguments stream as JSON deltas as they are read
(``ArgsStreamer``).

``feed`` and ``finish`` never raise. A region whose content parser rejects it, or a
required field missing at the end, gives a ``StreamError`` naming the field and the
offset; a broken ``content``/``tool_calls`` region's markup comes out as ``Text``, and a
streamed call cut short ends ``incomplete`` with arguments that load. ``message()`` gives
the dict ``parse_response`` gives for the whole text, or raises what it raises.

Where the events and the dict differ by design (docs/response-templates.md): a field that
does not repeat keeps only its last region in the dict, while the events show every
region as it was read; ``defaults`` are not events.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from streamcall.events import (
    Event,
    Reasoning,
    StreamError,
    Text,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallStart,
)
from streamcall.response_templates import _patterns
from streamcall.response_templates.control import (
    ControlTokenText,
    TaggedText,
    strip_event_markers,
)
from streamcall.response_templates.field_events import (
    CALL_FIELDS,
    CONTENT_FIELDS,
    REASONING_FIELDS,
    calls_of,
    stream_kind,
    streamed_call_name,
    strips,
)
from streamcall.response_templates.oneshot import (
    MatchKey,
    Message,
    prefix_remainder,
    watched,
)
from streamcall.response_templates.spec import Field, ResponseTemplate, compile_template
from streamcall.response_templates.tooltypes import tool_parameters
from streamcall.response_templates.versions import rules_for
from streamcall.response_templates.watch import (
    LOOKBEHIND,
    Match,
    Watch,
    context_chars,
    lead_chars,
    look,
    partial_search,
    regex_module,
)
from streamcall.text import ArgsStreamer, fast, not_text

__all__ = [
    "CALL_FIELDS",
    "CONTENT_FIELDS",
    "LOOKBEHIND",
    "REASONING_FIELDS",
    "ResponseStream",
    "calls_of",
    "response_parser",
]


class ResponseStream:
    """A response template's reader for one stream: ``feed(text)``, then ``finish()``.

    See the module for the reading and the events. ``message()`` is ``parse_response``'s
    dict for everything fed (it raises what that raises)."""

    def __init__(
        self,
        template: Mapping[str, Any] | ResponseTemplate,
        *,
        tools: Iterable[Any] | None = None,
        prefix: str = "",
        id_prefix: str = "call_",
        reasoning_only: bool = False,
        transformers_version: str | None = None,
        control_tokens: Iterable[str] | None = None,
    ) -> None:
        self.template = compiled = compile_template(template)
        rules = rules_for(transformers_version)
        self._control = None if control_tokens is None else ControlTokenText(control_tokens)
        # Only the thinking fields are read out: everything else is released as written
        # (anchors included), for a tool parser after it (``reasoning_parser("hf")``).
        self._reasoning_only = reasoning_only
        regex = regex_module()
        patterns = [
            (f.name, key)
            for f in compiled.fields
            for key, anchor in (("open_pattern", f.open), ("close_pattern", f.close))
            if anchor is not None and not anchor.is_literal
        ]
        if patterns and regex is None:
            name, key = patterns[0]
            raise ValueError(
                f"Field '{name}': streaming a {key} needs partial matching at the end of the "
                f"text, which the regex package gives: {_patterns.EXTRA_HINT}"
            )
        self._tools = list(tools or [])
        self._message = Message(
            compiled, tool_parameters(self._tools), rules, strip=self._control is not None
        )
        self._error: Exception | None = None
        self._id_prefix = id_prefix
        self._calls = 0
        self._context = context_chars(compiled)
        self._watch_lists: dict[str | None, list[Watch]] = {}
        self._leads: dict[str | None, re.Pattern[str] | None] = {}
        self._watches: dict[tuple[str, str], Watch] = {}
        for f in compiled.fields:
            for kind, anchor in (("open", f.open), ("close", f.close)):
                if anchor is not None:
                    self._watches[(kind, f.name)] = Watch(kind, f, anchor, regex)
        # the text: buf[0] is at stream offset base; the reader is at pos
        self._buf = ""
        self._base = 0
        self._pos = 0
        self._finished = False
        self._dead = False  # the zero-width stop: nothing after it is read
        # chunks held while a scan-ahead opener decides (its search window apart)
        self._more: list[str] | None = None
        self._waiting: Watch | None = None
        self._xwin = ""
        self._xbase = 0
        # the current region
        self._current: Field | None = compiled.implicit
        self._captures: dict[str, str] = {}
        self._parts: list[str] = []
        self._opened = False
        self._open_text = ""
        self._region_start = 0
        # streamed text of the current region
        self._started = False
        self._spaces: list[str] = []  # blanks at the region's end so far, held
        # a call streamed from its opener
        self._args: ArgsStreamer | None = None
        self._args_index = -1  # the call's index once started
        self._args_name = ""
        self._args_tail = ""
        self._args_bad = False
        # the events of the prompt's rest, given with the first call
        self._pending_prefix: list[Event] = []
        if prefix:
            rest = prefix_remainder(compiled, prefix)
            if rest:
                self._pending_prefix = self.feed(rest)

    # -- public --------------------------------------------------------------------------

    def feed(self, text: str) -> list[Event]:
        """Read a chunk; the events it decides. With ``control_tokens``, the chunk is the
        text of ordinary tokens (``feed_tokens``)."""
        if self._control is not None and isinstance(text, str):
            return self.feed_tokens([(text, False)])
        return self._feed(text)

    def feed_tokens(self, pieces: Iterable[TaggedText]) -> list[Event]:
        """Read token-tagged text (``control``): ``(text, True)`` for a control token the
        model generated as its id, ``(text, False)`` for the text of ordinary tokens. A
        control token spelled out in ordinary text is text, never a delimiter."""
        if self._control is None:
            return self._feed("".join(text for text, _ in pieces))
        return strip_event_markers(self._feed(self._control.feed(pieces)))

    def _feed(self, text: str) -> list[Event]:
        out: list[Event] = []
        if self._pending_prefix:
            out, self._pending_prefix = self._pending_prefix, []
        if self._finished or self._dead or not text:
            return out
        try:
            if self._more is not None:
                if not self._wait(text):
                    return out
            else:
                self._buf += text
            self._read(out, False)
        except Exception as exc:  # a bug here must not break the stream
            if not isinstance(text, str):
                raise not_text(text) from None  # the caller's: said, not swallowed
            self._fail(out, exc, "internal error")
        return out

    def finish(self) -> list[Event]:
        """End of the stream: what is held is decided, open regions close."""
        if self._control is not None:
            held = self._feed(self._control.flush())
            return strip_event_markers(held + self._finish())
        return self._finish()

    def _finish(self) -> list[Event]:
        out: list[Event] = []
        if self._pending_prefix:
            out, self._pending_prefix = self._pending_prefix, []
        if self._finished:
            return out
        self._finished = True
        try:
            if self._more is not None:
                self._join()
            if not self._dead:
                self._read(out, True)
            self._close_current(out, self._base + len(self._buf))
            self._message_finish(out)
        except Exception as exc:
            self._fail(out, exc, "internal error")
        return out

    @property
    def in_reasoning(self) -> bool:
        """Whether the reader is in a thinking field's region."""
        current = self._current
        return current is not None and current.name in REASONING_FIELDS

    def message(self) -> dict[str, Any]:
        """``parse_response``'s dict for the text fed so far (call after ``finish``);
        raises the first exception it would raise."""
        if self._error is not None:
            raise self._error
        return self._message.finish()

    # -- the reading -----------------------------------------------------------------------

    def _read(self, out: list[Event], final: bool) -> None:
        buf, base = self._buf, self._base
        n = len(buf)
        waiting: Watch | None = None
        while not self._dead:
            pos = self._pos
            waiting = None
            current = self._current
            watches = self._watch_lists.get(None if current is None else current.name)
            if watches is None:
                watches = self._watching(current)
            lead_re = self._leads[None if current is None else current.name]
            if (
                lead_re is not None
                and not final
                and fast.FAST
                and lead_re.search(buf, pos - base) is None
            ):
                # no watched anchor can start (or start to arrive) in the rest: it is all
                # the region's text, with no search (the common chunk)
                for w in watches:
                    w.match = None
                    w.resume = base + n
                if base + n > pos:
                    self._add(out, buf[pos - base :], pos)
                    self._pos = base + n
                break
            if len(watches) == 1 and not final and fast.FAST:
                w = watches[0]
                partial = w.partial
                if partial is not None and w.reusable and (w.match is None or w.match.start < pos):
                    # one literal to watch (a region's closer): no match means the text up
                    # to a cut one is the region's (the common chunk, read without _look)
                    local = max(pos, w.resume) - base
                    if w.anchor.pattern.search(buf, local) is None:
                        u = partial.start(buf, local)
                        w.match = None
                        w.resume = base + u
                        if base + u > pos:
                            self._add(out, buf[pos - base : u], pos)
                            self._pos = base + u
                        break
            best: Watch | None = None
            best_match: Match | None = None
            best_key: MatchKey | None = None
            undecided = base + n + 1
            for w in watches:
                kind, field = w.kind, w.field
                m, u = look(w, buf, base, pos, final)
                undecided = min(undecided, u)
                if u == pos and w.anchor.ahead is not None:
                    waiting = w
                if m is not None:
                    key = (m.start, m.start - m.end, 0 if kind == "open" else 1, field.name)
                    if best_key is None or key < best_key:
                        best_key, best, best_match = key, w, m  # oneshot.match_key's order
            if best is not None and best_match is not None and best_match.start < undecided:
                self._add(out, buf[pos - base : best_match.start - base], pos)
                self._pos = best_match.end
                self._take(out, best, best_match)
                continue
            stop = min(undecided, base + n)
            if stop > pos:
                self._add(out, buf[pos - base : stop - base], pos)
                self._pos = stop
            if final:
                return
            break
        if final or self._dead:
            return
        keep = max(base, self._pos - self._context)
        if keep > base:
            self._buf = buf[keep - base :]
            self._base = keep
        if waiting is not None:
            self._start_waiting(waiting)

    def _watching(self, current: Field | None) -> list[Watch]:
        """The watches of what can end the current region (``oneshot.watched``), kept per
        region, with the class of characters one of them must start with (``_leads``)."""
        watches = [self._watches[(k, f.name)] for k, f in watched(self.template, current)]
        key = None if current is None else current.name
        self._watch_lists[key] = watches
        leads = [lead_chars(w.anchor) for w in watches]
        lead_re = None
        if watches and all(lead is not None for lead in leads):
            chars = sorted({c for lead in leads if lead for c in lead})
            lead_re = re.compile("[" + "".join(re.escape(c) for c in chars) + "]")
        self._leads[key] = lead_re
        return watches

    def _take(self, out: list[Event], w: Watch, m: Match) -> None:
        """Act on the winning match (the one-shot reader's rules)."""
        if self._reasoning_only and m.text and w.field.name not in REASONING_FIELDS:
            out.append(Text(m.text))
        if w.kind == "open":
            self._close_current(out, m.start)
            self._current = w.field
            self._captures = dict(m.groups)
            self._parts = []
            self._opened = True
            self._open_text = m.text
            self._region_start = m.start
            self._started = False
            self._spaces = []
            self._maybe_stream_call(out, w.field)
            return
        had_content = self._opened
        self._captures.update(m.groups)
        self._close_current(out, m.start, m.text)
        if not had_content and m.start == m.end:
            self._dead = True

    # -- regions ---------------------------------------------------------------------------

    def _add(self, out: list[Event], piece: str, at: int) -> None:
        field = self._current
        if not piece:
            return
        if self._reasoning_only and (field is None or field.name not in REASONING_FIELDS):
            out.append(Text(piece))
            if field is None:
                return
        elif field is None:
            return
        if not self._opened:
            self._opened = True
            self._region_start = at
            self._open_text = ""
            self._started = False
            self._spaces = []
        if not self._parts:
            self._separator(out, field)
        self._parts.append(piece)
        if self._reasoning_only and field.name not in REASONING_FIELDS:
            return
        if self._args is not None:
            self._stream_args(out, piece)
            return
        kind = stream_kind(field)
        if kind is None:
            return
        if strips(field):
            if not self._started:
                piece = piece.lstrip()
                if not piece:
                    return
                self._started = True
            body = piece.rstrip()
            spaces = piece[len(body) :]
            held = self._spaces
            if body:
                out.append(kind("".join(held) + body if held else body))
                self._spaces = [spaces] if spaces else []
            elif spaces:
                held.append(spaces)  # (a list: a long blank run in small chunks stays linear)
        else:
            out.append(kind(piece))

    def _separator(self, out: list[Event], field: Field) -> None:
        """A join field's separator, before the text of every region after the first."""
        kind = stream_kind(field)
        if field.join and kind is not None and self._message.output.get(field.name) is not None:
            out.append(kind(field.join))

    def _close_current(self, out: list[Event], at: int, close_text: str = "") -> None:
        field = self._current
        if field is not None and self._opened:
            body = "".join(self._parts)
            if not self._parts and stream_kind(field) is not None and field.join:
                self._separator(out, field)
            try:
                value = self._message.close(field, body, self._captures)
            except Exception as exc:
                self._region_failed(out, field, body, close_text, exc, at)
            else:
                self._region_closed(out, field, value)
        self._current = self.template.implicit
        self._captures = {}
        self._parts = []
        self._opened = False
        self._open_text = ""
        self._started = False
        self._spaces = []

    def _region_closed(self, out: list[Event], field: Field, value: Any) -> None:
        if self._reasoning_only and field.name not in REASONING_FIELDS:
            return
        if self._args is not None:
            if self._args_index >= 0:
                self._end_streamed_call(out, value)
                return
            self._args = None  # its body did not start with '{': the call comes whole
        if field.name in CALL_FIELDS:
            for name, arguments in calls_of(value):
                index = self._start(out, name)
                out.append(ToolCallArgs(index, arguments))
                out.append(ToolCallEnd(index, arguments))
            return
        kind = stream_kind(field)
        named = field.name in CONTENT_FIELDS or field.name in REASONING_FIELDS
        if kind is None and named and isinstance(value, str) and value:
            out.append((Text if field.name in CONTENT_FIELDS else Reasoning)(value))

    def _region_failed(
        self,
        out: list[Event],
        field: Field,
        body: str,
        close_text: str,
        exc: Exception,
        at: int,
    ) -> None:
        if self._error is None:
            self._error = exc
        if self._reasoning_only and field.name not in REASONING_FIELDS:
            return  # (its text went out as written: the tool parser's to read)
        out.append(
            StreamError(
                f"{type(exc).__name__}: {exc}",
                where=f"offset {self._region_start}",
                data=self._open_text + body + close_text,
            )
        )
        if self._args is not None:
            if self._args_index >= 0:
                self._end_streamed_call(out, None)
                return
            self._args = None
        if field.name in CALL_FIELDS or (
            field.name in CONTENT_FIELDS and stream_kind(field) is None
        ):
            text = self._open_text + body + close_text
            if text:
                out.append(Text(text))

    def _message_finish(self, out: list[Event]) -> None:
        if self._error is not None or self._reasoning_only:
            return
        try:
            self._message.finish()
        except Exception as exc:
            self._error = exc
            out.append(StreamError(f"{type(exc).__name__}: {exc}", where="end of stream"))

    def _fail(self, out: list[Event], exc: Exception, what: str) -> None:
        if self._error is None:
            self._error = exc
        out.append(StreamError(f"{what}: {type(exc).__name__}: {exc}", where=f"offset {self._pos}"))
        self._dead = True

    # -- calls ------------------------------------------------------------------------------

    def _start(self, out: list[Event], name: str) -> int:
        index = self._calls
        self._calls += 1
        out.append(ToolCallStart(index, f"{self._id_prefix}{index}", name))
        return index

    def _maybe_stream_call(self, out: list[Event], field: Field) -> None:
        if self._reasoning_only:
            return
        name = streamed_call_name(field, self._captures, self._tools)
        if name is None:
            return
        # the call starts at the body's '{' (a body that is not an object is no call)
        self._args = ArgsStreamer()
        self._args_name = name
        self._args_index = -1
        self._args_tail = ""
        self._args_bad = False

    def _stream_args(self, out: list[Event], piece: str) -> None:
        args = self._args
        assert args is not None
        if self._args_bad or args.done:
            return
        buf = self._args_tail + piece
        if not args.parts:
            lead = len(buf) - len(buf.lstrip(" \t\r\n"))
            if lead == len(buf):
                self._args_tail = ""
                return
            if buf[lead] != "{":
                self._args_bad = True
                return
            buf = buf[lead:]
            if self._args_index < 0:
                self._args_index = self._start(out, self._args_name)
        delta, resume = args.push_more(buf, 0)
        if args.error:
            self._args_bad = True
            # what the scan took is arguments already; the rest is not
        self._args_tail = "" if args.done or args.error else buf[resume:]
        if delta:
            out.append(ToolCallArgs(self._args_index, delta))

    def _end_streamed_call(self, out: list[Event], value: Any) -> None:
        args = self._args
        assert args is not None
        index = self._args_index
        self._args = None
        calls = list(calls_of(value)) if value is not None else []
        if value is not None and args.done and not self._args_bad and len(calls) == 1:
            text = args.text()
            try:
                same = json.loads(text) == json.loads(calls[0][1])
            except ValueError:
                same = False
            if same:
                out.append(ToolCallEnd(index, text))
                return
        # cut short, broken or typed differently: the arguments close and the call ends
        # incomplete (the message keeps the exact value)
        if not args.parts:
            out.append(ToolCallArgs(index, "{}"))
            out.append(ToolCallEnd(index, "{}", incomplete=True))
            return
        tail = "" if self._args_bad else self._args_tail
        if tail and not args.done:
            # a member held whole by the fast read: read it as the last text there is
            delta, used = args.push(tail, 0, True)
            tail = "" if args.error else tail[used:]
            if delta:
                out.append(ToolCallArgs(index, delta))
        if not args.done:
            closing = args.close(tail)
            if closing:
                out.append(ToolCallArgs(index, closing))
        out.append(ToolCallEnd(index, args.text(), incomplete=True))

    # -- waiting on a scan-ahead opener ------------------------------------------------------

    def _start_waiting(self, w: Watch) -> None:
        """The reader is held at a scan-ahead opener: later chunks go to a list, and only
        what it looks for is searched, in a window of its own."""
        self._waiting = w
        self._more = []
        start = max(w.x_from, self._pos) - self._context
        start = max(start, self._base)
        self._xwin = self._buf[start - self._base :]
        self._xbase = start

    def _wait(self, text: str) -> bool:
        """A chunk while waiting; True once the opener is decided (the text joined)."""
        w = self._waiting
        more = self._more
        assert w is not None and more is not None and w.anchor.ahead is not None
        more.append(text)
        win = self._xwin + text
        start = max(w.x_from, self._pos)
        m, u = partial_search(w.anchor.ahead, w.ahead_failing, win, start - self._xbase, False)
        if m is not None:
            w.x_at = self._xbase + m.start()
            self._join()
            return True
        n = len(win)
        w.x_from = self._xbase + (min(u, n))
        keep = max(self._xbase, w.x_from - self._context)
        self._xwin = win[keep - self._xbase :]
        self._xbase = keep
        return False

    def _join(self) -> None:
        more = self._more
        assert more is not None
        self._buf += "".join(more)
        self._more = None
        self._waiting = None
        self._xwin = ""


def response_parser(
    template: Mapping[str, Any] | ResponseTemplate,
    *,
    tools: Iterable[Any] | None = None,
    prefix: str = "",
    transformers_version: str | None = None,
    control_tokens: Iterable[str] | None = None,
) -> ResponseStream:
    """A streaming reader of ``template``: ``feed(text) -> events``, ``finish()``.

    The coalesced events give ``parse_response``'s ``content``, ``thinking`` (or
    ``reasoning_content``) and ``tool_calls`` for the same text, in every chunking (the
    module says where a field that does not repeat differs); ``message()`` gives its whole
    dict. ``transformers_version`` picks the release whose reading this follows, as for
    ``parse_response``. With ``control_tokens`` (the spellings of the tokenizer's control
    tokens), ``feed_tokens`` takes token-tagged text and a control token the model spelled
    out with ordinary tokens is text (transformers 5.25 with token ids; ``control``).
    Raises ``ValueError`` for an invalid template or version, or for pattern anchors
    without the ``regex`` package (``pip install 'streamcall[templates]'``)."""
    return ResponseStream(
        template,
        tools=tools,
        prefix=prefix,
        transformers_version=transformers_version,
        control_tokens=control_tokens,
    )
