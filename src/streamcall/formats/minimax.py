"""MiniMax: M1 (JSON lines), M2 and M3 (XML invokes).

M2: ``<minimax:tool_call><invoke name="f"><parameter name="k">v</parameter></invoke>``.

Grammar (vLLM ``minimax_m2``)::

    text* ( '<minimax:tool_call>' ws* invoke* ws* '</minimax:tool_call>' text* )*
    invoke := '<invoke name=' '"'? NAME '"'? '>' param* '</invoke>'
    param  := '<parameter name=' '"'? KEY '"'? '>' value '</parameter>' ws*

Several invokes in one block are parallel calls. Values are typed by the tool schema
(see ``schema.py``); string values stream as they are written. Holds back a partial
``<minimax:tool_call>`` in text, a header until its ``>``, and a partial closer inside a
value (and a short parameter cut by the end of a chunk, whole: see ``engines.xml_params``).

MiniMax-M3 (vLLM ``minimax_m3``) prefixes every tag with ``]<]minimax[>[`` and names each
parameter by its tag, with nested elements as values:
``NS<tool_call>NS<invoke name="f">NS<city>Paris NS</city>NS</invoke>NS</tool_call>``. Its
grammar, conversion and streaming rules are in ``MiniMaxM3Parser``'s docstring below.

MiniMax-M1 (vLLM ``minimax``) writes one JSON call per line, read by the JSON-call engine
(``engines.json_calls``)::

    text* ( '<tool_calls>' ws* body ws* '</tool_calls>' text* )*
    body  := calls | '[' ws* calls? ws* ']'
    calls := call (ws* [,;]? ws* call)*              # M1 writes one call per line
    call  := {"name": string, "arguments" | "parameters": object | string}  # any key order

Its arguments are streamed verbatim; it holds back a partial ``<tool_calls>`` in text and a
partial ``</tool_calls>`` after the calls.
"""

from __future__ import annotations

import json
import re
from typing import Any

from streamcall.events import Event, ToolCallArgs
from streamcall.formats.engines.json_calls import JsonCallsParser
from streamcall.formats.engines.xml_args import HELD_MODE, PARAMS, STRING_MODE, VALUE
from streamcall.formats.engines.xml_params import XmlParamsParser
from streamcall.formats.schema import (
    NULLABLE_STRING,
    STRING,
    Element,
    convert_element,
    value_plan,
)
from streamcall.text import (
    Step,
    StopMarkers,
    any_prefix,
    cut_marker,
    fast,
    header_match,
    json_quote,
)


def invokes(calls: list[tuple[str, dict[str, Any]]]) -> str:
    """Calls as MiniMax-M2's invokes, one tag a line (what its renderer, and dots', put
    in their blocks)."""
    raw = XmlParamsParser.raw_value
    return "".join(
        f'<invoke name="{name}">\n'
        + "".join(f'<parameter name="{k}">{raw(v)}</parameter>\n' for k, v in args.items())
        + "</invoke>\n"
        for name, args in calls
    )


class MiniMaxM2Parser(XmlParamsParser):
    names = ("minimax_m2",)
    family = "MiniMax-M2, M2.1"
    vllm_differences = (
        "Streams string values while they are written and each other value as soon as "
        "its </parameter> arrives (vLLM re-runs its regexes over the whole text each "
        "delta); a string-typed value 'null' stays a string; untyped values (no schema) "
        "follow the documented first-character rule ({, [, - or a digit: JSON; exactly "
        "true, false or null: that literal; anything else: a string) instead of always "
        "being strings; text after the calls is kept as content (vLLM's one-shot path "
        "returns only the text before them)."
    )
    BLOCK_OPEN = "<minimax:tool_call>"
    BLOCK_CLOSE = "</minimax:tool_call>"
    CALL_OPEN = ("<invoke name=",)
    CALL_HEADER = re.compile(r'\s*+"?(?P<name>[^"<>\n]*+)"?\s*+>')
    CALL_CLOSE = "</invoke>"
    PARAM_OPEN = ("<parameter name=",)
    PARAM_HEADER = re.compile(r'\s*+"?(?P<key>[^"<>\n]*+)"?\s*+>')
    PARAM_CLOSE = "</parameter>"

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return f"<minimax:tool_call>\n{invokes(calls)}</minimax:tool_call>"


# --- MiniMax-M3 ---------------------------------------------------------------------------

NS = "]<]minimax[>["
_TAG = re.compile(r"<(/?)([^<>/][^<>]*+)>")
_WS = re.compile(r"\s*")
_NS_STOPS = StopMarkers((NS,))  # NS in a value, a cut one held back
_MAX_DEPTH = 128
_MIXED_TEXT = "$text"


def _parse_body(text: str, pos: int, close: str | None, depth: int) -> tuple[Element, int] | None:
    """Parse an element body up to ``close`` (``None``: the end of ``text``).

    Called once per held value, never per chunk. ``None`` if the markup is malformed.
    """
    if depth > _MAX_DEPTH:
        return None
    texts: list[str] = []
    children: list[tuple[str, Element]] = []
    while True:
        i = text.find(NS, pos)
        if i < 0:
            if close is not None:
                return None
            texts.append(text[pos:])
            pos = len(text)
            break
        texts.append(text[pos:i])
        m = _TAG.match(text, i + len(NS))
        if m is None:
            return None
        if m.group(1):
            if close is None or m.group(2) != close:
                return None
            pos = m.end()
            break
        child = _parse_body(text, m.end(), m.group(2), depth + 1)
        if child is None:
            return None
        children.append((m.group(2), child[0]))
        pos = child[1]
    body = "".join(texts)
    if not children:
        return body, pos
    if body.strip():  # mixed text, kept under a field no child uses (as vLLM does)
        field = _MIXED_TEXT
        while any(name == field for name, _ in children):
            field = "$" + field
        children.append((field, body))
    return children, pos


class MiniMaxM3Parser(XmlParamsParser):
    """MiniMax-M3: namespaced invoke format; parameters are elements named by their key.

    Grammar (vLLM ``minimax_m3``; ``NS`` is ``]<]minimax[>[``, before every tag)::

        text* ( NS '<tool_call>' ws* invoke* ws* ( NS '</tool_call>' )? text* )*
        invoke  := NS '<invoke name=' ('"' NAME '"' | "'" NAME "'" | NAME) '>'
                   ( ws | element )* NS '</invoke>'
        element := NS '<' KEY '>' ( text | element )* NS '</' KEY '>'

    An element holding child elements is an object, or an array when its schema says so
    (the template writes list items as ``<item>``); repeated child names collect into a
    list; text beside children goes under ``$text``. A leaf's text is kept as written
    (no stripping) and typed by the schema; untyped leaves are strings; an empty element
    of an array or object type is ``[]`` or ``{}``. This is vLLM's conversion.

    Streaming: a top-level parameter whose text starts with anything but ``NS`` and that
    is a string (by the schema, or untyped) is streamed as a JSON string while it is
    written; ``NS`` inside it that is not its closer (nor the invoke's) is kept as text.
    Any other parameter (typed scalars, nested elements) is held until its closer and
    then converted whole: a repeated child name turns an already complete value into a
    list, so a nested value is not final before its closer. Parameters are emitted in
    order; a repeated top-level key is written again (``json.loads`` keeps the last).

    What it holds back: a partial ``NS<tool_call>`` in text; the whitespace at the start
    of a value until its kind is known; a partial ``NS``, closer or tag (at most
    ``MAX_HEADER`` characters); held values, as parts, not in the tail; a short parameter
    cut by the end of a chunk, whole (``_member_pattern``; see ``engines.xml_params``). A missing
    parameter closer ends the value at ``NS</invoke>``; a value cut off by the end of
    the stream is converted as it is (only blanks so far: null, the value is missing) and
    the call ends ``incomplete``.

    The engine's fast reads work here through ``_member_pattern`` (a whole parameter
    without ``NS`` in its value, converted by ``_param_json`` as ``_finish_value`` would)
    and through ``StopMarkers`` for ``NS`` in a value (a chunk without ``]<`` holds none,
    and of a cut one at most its ``]``, as its last character).
    """

    names = ("minimax_m3",)
    family = "MiniMax-M3 (namespaced tags, nested element values)"
    vllm_differences = (
        "Streams top-level string parameters while they are written and every other "
        "parameter as soon as its closer arrives (vLLM emits the arguments at </invoke>, "
        "vLLM #47998); keeps text after the tool block (vLLM drops it) and the "
        "]<]minimax[>[<tool_call> marker when the block turns out malformed; a call cut "
        "off by the end of the stream is reported incomplete (vLLM turns it into text); "
        "a repeated top-level parameter is a repeated key, not a list; a string parameter "
        "that starts with text and then holds child elements keeps them as text (vLLM: "
        "an object with $text); markup that does "
        "not parse inside a held value makes it a string instead of dropping it."
    )
    BLOCK_OPEN = NS + "<tool_call>"
    BLOCK_CLOSE = NS + "</tool_call>"
    CALL_OPEN = (NS + "<invoke name=",)
    CALL_HEADER = re.compile(r"""\s*+(["']?)(?P<name>[^"'<>\n]*+)\1\s*+>""")
    CALL_CLOSE = NS + "</invoke>"
    PARAM_OPEN = (NS + "<",)
    PARAM_HEADER = re.compile(r"(?P<key>[^<>/][^<>]*+)>")
    PARAM_CLOSE = NS + "</"  # per key: NS + "</KEY>" (the value steps)
    # NS itself holds a '>': the closer's '/' and the header's '>' are what a chunk must
    # hold to complete a cut parameter
    PARAM_LAST = "/"
    HEADER_LAST = ">"
    KEYED_CLOSER = True
    HEADER_MIN = len(NS) + 3  # NS, "<", a key's first character, ">"

    def _member_pattern(self) -> str | None:
        """A whole parameter is ``NS<KEY>`` text without ``NS`` and ``NS</KEY>`` (see the
        engine for the other branches). A value with ``NS`` in it (child elements, a
        missing closer) is read token by token."""
        ns = re.escape(NS)
        text = rf"(?:[^\]]|(?!{ns})\])"
        return (
            rf"\s*+(?:{ns}<(?!/)(?:(?>{self.PARAM_HEADER.pattern})"
            rf"(?:(?P<member_value>{text}*+){ns}</(?P=key)>"
            rf"|(?P<member_cut>[^\]]*+)(?:{ns}(?:<(?:/[^<>]*)?)?|{any_prefix((NS,))})?\Z)?"
            rf"|{text}*+\Z)"
            rf"|{any_prefix((NS + '<',))}?\Z)"
        )

    def _param_json(self, m: re.Match[str], value: str) -> str:
        # What the value's steps give for a value without NS: a string streams as its
        # JSON string, anything else is converted whole; convert_element does both.
        key = m.group("key")
        return json_quote(key) + ":" + convert_element(value, self._props.get(key))

    def _open_param(self, out: list[Event], m: re.Match[str]) -> None:
        key = m.group("key")
        self._key = key
        self._closer = f"{NS}</{key}>"
        self._schema = self._props.get(key)
        plan, _ = value_plan(self._schema)
        self._streams = self._schema is None or plan in (STRING, NULLABLE_STRING)
        self._stack: list[str] = []
        self._held = []
        self._mode = VALUE
        self._add_args(("," if self._member_count else "") + json_quote(key) + ":")
        self._member_count += 1
        self._key_open = True

    def _read_value_start(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        """Blanks first (kept: a leaf is not stripped), then what starts the value: ``NS``
        (its closer, or child elements: held), or text (a string streams, else held)."""
        n = len(buf)
        ws = _WS.match(buf, pos).end()  # type: ignore[union-attr]
        if ws > pos:
            self._held.append(buf[pos:ws])
            pos = ws
        if pos == n:
            # Blanks only so far: at the end of the stream the value is missing (null),
            # as when the blanks were read before the end.
            return self._hold(out, pos)
        if buf.startswith(NS, pos):
            if buf.startswith(self._closer, pos):  # an empty or blank leaf
                self._finish_value("")
                return self._moved(out, pos + len(self._closer), n)
            if not final and cut_marker(self._closer, buf, pos):
                return self._hold(out, pos)
            self._mode = HELD_MODE  # child elements (or a missing closer)
        elif not final and cut_marker(NS, buf, pos):
            return self._hold(out, pos)
        elif self._streams:
            self._add_args('"' + json_quote("".join(self._held))[1:-1])
            self._held = []
            self._key_open = False
            self._mode = STRING_MODE
        else:
            self._mode = HELD_MODE
        return pos, False

    def _ends_call(self, buf: str, i: int) -> bool:
        return buf.startswith(self.CALL_CLOSE, i) or buf.startswith(NS + "</tool_call>", i)

    def _read_string(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        """A string leaf: text up to its closer (or the invoke's), streamed; ``NS`` that
        closes neither is text.

        The common chunk, with no ``]<`` (the lead of ``NS``) in it, is read by
        ``StopMarkers.find``'s fast read written out here (one call fewer per chunk;
        docs/performance.md)."""
        n = len(buf)
        stops = _NS_STOPS
        if not final and stops.lead not in buf and fast.FAST:
            end = n - 1 if buf[-1] == stops.first else n
            marker = None
        else:
            end, i, marker = stops.find(buf, pos, final)
        if marker is None:
            if end > pos:
                piece = json_quote(buf[pos:end])[1:-1]
                self._parts.append(piece)
                if self._delta or final:
                    self._delta.append(piece)
                else:
                    # The common chunk: this piece is all of the call's arguments in it,
                    # so it is the chunk's one event for the call.
                    out.append(ToolCallArgs(self._index, piece))
                    return end, True
            if final:
                self._finish_value("")
                return self._moved(out, n, n)
            return self._hold(out, end)
        if buf.startswith(self._closer, end) or self._ends_call(buf, end):
            self._finish_value(buf[pos:end])
            closed = buf.startswith(self._closer, end)
            return self._moved(out, end + len(self._closer) if closed else end, n)
        if not final and any(cut_marker(c, buf, end) for c in self._string_closers()):
            if end > pos:
                self._add_args(json_quote(buf[pos:end])[1:-1])
            return self._hold(out, end)
        self._add_args(json_quote(buf[pos:i])[1:-1])  # a namespace token in the text
        return self._moved(out, i, n)

    def _string_closers(self) -> tuple[str, ...]:
        return (self._closer, self.CALL_CLOSE, NS + "</tool_call>")

    def _read_held(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        """A held value: text and child elements up to its closer (a missing one ends at
        the invoke's), kept in parts and converted whole."""
        n = len(buf)
        held = self._held
        stack = self._stack
        while True:
            i, after_ns, marker = _NS_STOPS.find(buf, pos, final)
            if marker is None:
                if i > pos:
                    held.append(buf[pos:i])
                if final:
                    self._finish_value("")
                    return self._moved(out, n, n)
                return self._hold(out, i)
            m = header_match(_TAG, buf, after_ns, self.MAX_HEADER)
            if m is None:
                if not final and n - after_ns <= self.MAX_HEADER and ">" not in buf[after_ns:]:
                    if i > pos:
                        held.append(buf[pos:i])
                    return self._hold(out, i)  # the tag may still be completed
                held.append(buf[pos:after_ns])
                pos = after_ns
                continue
            closing, name = m.group(1), m.group(2)
            if closing and not stack and name == self._key:
                self._finish_value(buf[pos:i])
                return self._moved(out, m.end(), n)
            if closing and name in ("invoke", "tool_call"):
                self._finish_value(buf[pos:i])  # a missing closer
                return self._moved(out, i, n)
            if closing:
                if stack and stack[-1] == name:
                    stack.pop()
            else:
                stack.append(name)
            held.append(buf[pos : m.end()])
            pos = m.end()

    def _finish_value(self, piece: str) -> None:
        if self._mode == STRING_MODE:
            self._add_args(json_quote(piece)[1:] if piece else '"')
        else:
            self._held.append(piece)
            raw = "".join(self._held)
            parsed = _parse_body(raw, 0, None, 1)
            self._add_args(
                json_quote(raw) if parsed is None else convert_element(parsed[0], self._schema)
            )
        self._held = []
        self._key_open = False
        self._mode = PARAMS

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        """Strings raw, other values as JSON text (which M3 and vLLM both read); the
        template's nested-element form is what the fixture tests feed."""
        body = "".join(
            f'{NS}<invoke name="{name}">'
            + "".join(f"{NS}<{k}>{cls.raw_value(v)}{NS}</{k}>" for k, v in args.items())
            + f"{NS}</invoke>\n"
            for name, args in calls
        )
        return f"{NS}<tool_call>\n{body}{NS}</tool_call>"


# --- MiniMax-M1 ---------------------------------------------------------------------------


class MiniMaxParser(JsonCallsParser):
    names = ("minimax",)
    family = "MiniMax-M1"
    vllm_differences = (
        "Streams arguments verbatim without re-parsing the buffer each delta (vLLM: a "
        "regex over the whole text each delta)."
    )
    START = ("<tool_calls>",)
    END = "</tool_calls>"

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        lines = "\n".join(
            json.dumps({"name": n, "arguments": a}, ensure_ascii=False) for n, a in calls
        )
        return f"<tool_calls>\n{lines}\n</tool_calls>"


FORMATS = (MiniMaxParser, MiniMaxM2Parser, MiniMaxM3Parser)
