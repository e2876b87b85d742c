"""llama.cpp's generic JSON answer: the whole output is one JSON object, an envelope.

For templates with no tool syntax of their own, llama.cpp (``COMMON_CHAT_FORMAT_GENERIC``)
asks the model, in the system prompt and with a grammar, to answer with one object::

    output   := ws* envelope text*
    envelope := '{' member (',' member)* '}'                 # any order
    member   := '"tool_call"'  ':' call                     # parallel tool calls off
              | '"tool_calls"' ':' '[' call (',' call)* ']'   # on; a call may carry "id"
              | '"response"'   ':' value                    # the answer
              | other-key ':' value                         # skipped
    call     := {"name": string, "arguments": object, "id"?: string}

Chosen by name only (no model routes here): the format depends on the template, not the
model. The calls are read by the JSON-call engine (``engines.json_calls``), embedded for the
value of ``tool_call`` and ``tool_calls``, so arguments stream verbatim. A call's ``id``
is the call id (made unique within the stream, ``UniqueIds``) when it is written before
the call starts, that is before whichever of its name and its arguments' ``{`` comes
second; one written later comes too late, and the generated id stays. The decision is the
text's (where the key stands in the object), never where a chunk ends. llama.cpp's grammar
for parallel calls writes ``name``, ``arguments``, then a required ``id`` (at least four
characters), and llama.cpp, re-parsing the whole text each time, reports that late id;
a stream of events cannot rename a call it has started, so here it is not used. A ``response`` string streams as ``Text``,
decoded, as it arrives; any other ``response`` value is text as written. A call in the
list is complete at the list's ``,`` or ``]``; a lone ``tool_call`` at its object's end.

Modes (``Mode``)::

    mode    reads                                          next     emits
    START   blanks, then '{'                               KEY      Text (the blanks)
            anything else                                  PASS
    KEY     blanks, then '"key"' ':' (held whole while     COLON
            it is cut, at most _MAX_KEY + 8 characters)
            '}'                                            PASS     (the envelope's end)
    COLON   blanks, then the value's first character       CALLS, RESPONSE, VALUE, SKIP
    CALLS   the calls (the JSON-call engine)               AFTER    its events
    RESPONSE  a string's body, decoded                     AFTER    Text
    VALUE   a non-string response, as written              AFTER    Text
    SKIP    another member's value                         AFTER
    AFTER   blanks, then ',' or '}'                        KEY, PASS
    PASS    everything                                              Text
    (any)   malformed markup                               PASS     Text (the markup held)

The markup read since the last thing the envelope gave out (a call, response text) is
held (``_raw``): if the envelope breaks, or closes having given nothing, it is text, as
written. After the envelope the blanks are a gap, then everything is text.
"""

from __future__ import annotations

import json
import re
from enum import IntEnum
from typing import Any, ClassVar

from streamcall.events import Event, Text
from streamcall.formats.engines.base import ToolParser, Tools
from streamcall.formats.engines.json_calls import JsonCallsParser
from streamcall.formats.engines.json_embedded import end_embedded_block, read_embedded_block
from streamcall.text import WS, JsonScan, Step, decode_json_string, header_match


class Mode(IntEnum):
    """Where the parser is (the table in the module header)."""

    START = 0
    KEY = 1
    CALLS = 2
    RESPONSE = 3
    VALUE = 4
    SKIP = 5
    AFTER = 6
    PASS = 7
    COLON = 8


START, KEY, CALLS, RESPONSE, VALUE, SKIP, AFTER, PASS, COLON = map(int, Mode)

_MAX_KEY = 256
# A member's key and its colon, and one cut by the end of the text (``fullmatch``), held
# while at most _HELD_KEY characters (``header_match``: a longer one is no key).
# (Possessive: a run of backslashes has one reading, and no match backtracks through it.)
_KEY = re.compile(r'"((?:[^"\\]|\\.){0,256}+)"[ \t\n\r]*+:')
_KEY_CUT = re.compile(r'"(?:[^"\\]|\\.){0,256}+\\?(?:"[ \t\n\r]*+)?')
_HELD_KEY = _MAX_KEY + 8


class _Calls(JsonCallsParser):
    """The value of ``tool_call`` (one object) or ``tool_calls`` (a list): the block ends
    at the first character that is neither (the envelope's ``,`` or ``}``)."""

    ID_KEYS = ("id",)
    SEPARATORS = ""


class GenericJsonParser(ToolParser):
    names = ("generic_json",)
    family = "llama.cpp's generic JSON answer (templates with no tool syntax)"
    vllm_differences = (
        "Not a vLLM name (llama.cpp's COMMON_CHAT_FORMAT_GENERIC). Streams arguments "
        "verbatim and the response text decoded as they are written; a non-string response "
        "is text as written (llama.cpp re-indents it); at the end of the stream a call cut "
        "short is reported incomplete with its arguments closed, and a cut envelope that "
        "gave nothing is text (llama.cpp's partial parse shows a call once its name is "
        "complete). A call's id is used when written before the call starts (before its "
        "arguments, or before its name when the name follows them); llama.cpp's grammar "
        "writes the id last (name, arguments, id) and llama.cpp reports it, but a call "
        "already streaming cannot be renamed, so such an id is not used."
    )
    #: the envelope is the whole output (text after it is kept as text)
    WHOLE_OUTPUT: ClassVar[bool] = True
    #: markup after which text is given out decoded, not as written (the answer is a JSON
    #: string): an input holding it is exempt from ``testing.check_contract``'s verbatim
    #: checks (the answer is not text that degraded; its envelope is markup)
    DECODES: ClassVar[tuple[str, ...]] = ('"response"',)

    def __init__(self, tools: Tools | None = None, *, id_prefix: str = "call_") -> None:
        super().__init__(tools, id_prefix=id_prefix)
        self._mode = START
        self._gave = False  # the envelope gave out a call or response text
        self._calls_reader: _Calls | None = None
        self._key = ""  # the member's key, from its ':' to its value's first character
        self._scan: JsonScan | None = None
        self._steps = (
            self._read_start,
            self._read_key,
            self._read_calls,
            self._read_response,
            self._read_value,
            self._read_skip,
            self._read_after,
            self._read_pass,
            self._read_colon,
        )

    # -- the envelope ------------------------------------------------------------------------

    def _read_start(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        ws = WS.match(buf, pos).end()  # type: ignore[union-attr]
        if ws > pos:
            out.append(Text(buf[pos:ws]))
        if ws == len(buf):
            return ws, False
        if buf[ws] == "{":
            self._raw = ["{"]
            self._mode = KEY
            return ws + 1, False
        self._mode = PASS
        return ws, False

    def _read_key(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        n = len(buf)
        ws = WS.match(buf, pos).end()  # type: ignore[union-attr]
        if ws > pos:
            self._raw.append(buf[pos:ws])
        if ws == n:
            return ws, False
        if buf[ws] == "}":  # '{}', or '}' after a ','
            self._raw.append("}")
            return self._closed(out, ws + 1)
        m = header_match(_KEY, buf, ws, _HELD_KEY)
        if m is None:
            if not final and n - ws <= _HELD_KEY and _KEY_CUT.fullmatch(buf, ws) is not None:
                return ws, True
            return self._broken(out, ws)
        self._raw.append(buf[ws : m.end()])
        self._key = m.group(1)
        self._mode = COLON
        return m.end(), False

    def _read_colon(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        ws = WS.match(buf, pos).end()  # type: ignore[union-attr]
        if ws > pos:
            self._raw.append(buf[pos:ws])
        if ws == len(buf):  # the value's first character decides
            return ws, False
        key, c = self._key, buf[ws]
        pos = ws
        if key in ("tool_call", "tool_calls") and c == ("{" if key == "tool_call" else "["):
            reader = _Calls(self.tools, id_prefix=self.id_prefix)
            reader._open_block(self._raw, bare=False)
            self._raw = []
            self._calls_reader = reader
            self._mode = CALLS
            return pos, False
        if key == "response":
            self._raw = []  # the envelope gives its answer: its markup is markup
            self._gave = True
            if c == '"':
                self._mode = RESPONSE
                return pos + 1, False
            self._scan = JsonScan()
            self._mode = VALUE
            return pos, False
        self._scan = JsonScan()
        self._mode = SKIP
        return pos, False

    def _read_calls(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        reader = self._calls_reader
        assert reader is not None
        pos, hold = read_embedded_block(reader, self, buf, pos, out, final)
        if reader._block_open:
            return pos, hold
        self._calls_reader = None
        if self._gap is None:  # the block broke before its first call: text from here
            self._mode = PASS
            return pos, False
        self._raw, self._gap = self._gap, None  # the blanks after the calls: markup
        self._gave = True
        self._mode = AFTER
        return pos, False

    def _read_response(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        decoded, end, status = decode_json_string(buf, pos, final)
        if decoded:
            out.append(Text(decoded))
        if status == 1:
            self._mode = AFTER
            return end, False
        if status < 0:  # an invalid escape: the rest is text
            self._mode = PASS
            return end, False
        return end, True

    def _read_value(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        scan = self._scan
        assert scan is not None
        end = scan.feed(buf, pos, final)
        if end > pos:
            out.append(Text(buf[pos:end]))
        if scan.error or scan.control:
            self._mode = PASS
            return end, False
        if not scan.done:
            return end, True
        self._mode = AFTER
        return end, False

    def _read_skip(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        scan = self._scan
        assert scan is not None
        end = scan.feed(buf, pos, final)
        self._raw.append(buf[pos:end])
        if scan.error or scan.control:
            return self._broken(out, end)
        if not scan.done:
            return end, True
        self._mode = AFTER
        return end, False

    def _read_after(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        ws = WS.match(buf, pos).end()  # type: ignore[union-attr]
        if ws > pos:
            self._raw.append(buf[pos:ws])
        if ws == len(buf):
            return ws, False
        c = buf[ws]
        if c == ",":
            self._raw.append(c)
            self._mode = KEY
            return ws + 1, False
        if c == "}":
            self._raw.append(c)
            return self._closed(out, ws + 1)
        return self._broken(out, ws)

    def _closed(self, out: list[Event], pos: int) -> Step:
        """The envelope's '}': markup if it gave something, else text."""
        if self._gave:
            self._raw = []
            self._block_ended()
        else:
            self._release_raw(out)
        self._mode = PASS
        return pos, False

    def _broken(self, out: list[Event], pos: int) -> Step:
        """Malformed markup at ``pos``: what was held is text, and everything after."""
        self._release_raw(out)
        self._mode = PASS
        return pos, False

    def _read_pass(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        if self._gap is not None:
            pos = self._skip_gap(buf, pos, out, (), final)
            if pos == len(buf):
                return pos, False
        out.append(Text(buf[pos:] if pos else buf))
        return len(buf), False

    # -- the end -----------------------------------------------------------------------------

    def _end_of_stream(self, rest: str, out: list[Event]) -> None:
        mode = self._mode
        if mode == CALLS:
            assert self._calls_reader is not None
            end_embedded_block(self._calls_reader, self, rest, out)
            return
        self._raw.append(rest)
        self._release_raw(out)

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        body = [{"name": n, "arguments": a} for n, a in calls]
        return json.dumps({"tool_calls": body}, ensure_ascii=False)


FORMATS = (GenericJsonParser,)
