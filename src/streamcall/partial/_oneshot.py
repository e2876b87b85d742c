# One-shot parse_partial_json / repair_json of a cut document: json's C decoder reads the
# well-formed bulk, PartialJSON only the cut tail. Switched by repair._ONESHOT_FAST_ENABLED;
# with it off, repair.py runs the whole text through PartialJSON (the reference).
#
# 1. Real quotes. `plain` is the text with every escaped backslash pair and escaped quote
#    overwritten by two DELs (two str.replace passes, only if there is a backslash): its
#    '"' are then exactly the string delimiters, at the same positions. An odd count means
#    the text ends inside a string that starts at the last one (Q).
# 2. The cut point P: the last ',' '{' '[' '}' ']' before Q outside strings (rfind, then the
#    quote count between it and Q must be even; else step back over that string). P is just
#    after a bracket, or at a comma that follows a complete value.
# 3. The open containers at P: the brackets before P (str.find, then one regex past the
#    first 32), string ones skipped by quote parity, matched with a list: Python runs once
#    per bracket, which is what still costs on bracket-dense documents (lists of objects).
# 4. json decodes text[:P] + the closers. This is also the proof: if it decodes, text[:P]
#    is a grammatical prefix with exactly these containers open, and PartialJSON after
#    text[:P] holds exactly the decoded containers (same grammar: strict=False strings,
#    NaN/Infinity, ASCII numbers, last duplicate key wins in the first one's place).
#    Anything it refuses (junk, a bad escape, a huge integer, nesting past _DEPTH_MAX) goes
#    to the reference, so this path never has to know why.
# 5. A PartialJSON is set up in that state (the open containers found by walking down the
#    decoded value: a list's last entry, popped; an object's entry at the key written
#    before the opener, left in place since attaching it again changes nothing) and is fed
#    text[P:], the short tail: its rules (R1-R6, junk, literals, keys) run unchanged.
#    Shortcut: when the cut is inside a string value, json decodes that string too
#    (closed at the same safe end PartialJSON would keep), and there is no tail at all.
# repair_json also needs the spans of strings holding raw control characters before P;
# they exist only if the strict decoder refuses what the lax one accepts, and are then
# found by one regex over `plain`.

from __future__ import annotations

import json
import re
from typing import Any, Final

from streamcall.partial.incremental import (
    _COMMA,
    _CONTROL,
    _DONE,
    _HIGH_SURROGATE,
    _KEY_OR_END,
    _VALUE_OR_END,
    PartialJSON,
    _escape_control,
    scanstring,
)

__all__ = ["MISS", "fast_parse", "fast_repair"]

MISS: Final = object()  # fast_parse's "not decided here": run the reference

_DEPTH_MAX: Final = 200  # json's C decoder recurses; deeper documents take the reference
_WS: Final = " \t\n\r"
_FIND_MAX: Final = 32  # brackets found one by one with str.find, then by one regex
_BRACKET = re.compile(r"[\[\]{}]")
_CUT_ESCAPE_END = re.compile(r"\\(?:u[0-9a-fA-F]{0,3})?\Z")  # on `plain`: never escaped
# On `plain`: every string, the ones holding a raw control character in group 1.
_PLAIN_STRING = re.compile(r'"[^"\x00-\x1f]*"|("[^"]*")')
_decode_lax = json.JSONDecoder(strict=False).decode
_decode_strict = json.JSONDecoder().decode


class _Cut:
    """Where a cut document splits into a decodable head and a tail (steps 1-3)."""

    __slots__ = ("closers", "openers", "p", "plain", "q")

    def __init__(self, plain: str, q: int, p: int, openers: list[int], closers: str) -> None:
        self.plain = plain
        self.q = q  # start of the string the text ends in, or len(text)
        self.p = p  # the cut point (-1: none)
        self.openers = openers  # positions of the containers open at p, outermost first
        self.closers = closers


def certainly_cut(text: str) -> bool:
    """True when ``json.loads(text)`` must fail: a container that does not end closed."""
    n = len(text)
    i = 0
    while i < n and text[i] in _WS:
        i += 1
    if i == n:
        return False
    first = text[i]
    if first != "{" and first != "[":
        return False
    j = n - 1
    while text[j] in _WS:
        j -= 1
    return text[j] != ("}" if first == "{" else "]")


def _analyse(text: str) -> _Cut | None:
    plain = text.replace("\\\\", "\x7f\x7f").replace('\\"', "\x7f\x7f") if "\\" in text else text
    n = len(text)
    q = plain.rfind('"') if plain.count('"') & 1 else n
    # Step 2: the last ',' or bracket outside strings before q.
    end = q
    rfind = plain.rfind
    while True:
        s = rfind(",", 0, end)
        for c in "{}[]":
            t = rfind(c, s + 1, end)
            if t > s:
                s = t
        if s < 0:
            return _Cut(plain, q, -1, [], "")
        if not plain.count('"', s, end) & 1:
            break
        end = rfind('"', 0, s)  # s is inside this string: look before it
        if end < 0:
            return None
    if plain[s] == ",":
        b = s - 1
        while b >= 0 and plain[b] in _WS:
            b -= 1
        if b < 0 or plain[b] in "[{,:":
            return None  # a comma where a value should be: junk, for the reference
        p = s
    else:
        p = s + 1
    # Step 3: the containers open at p.
    openers = _open_at(plain, p)
    if openers is None:
        return None
    closers = "".join("}" if plain[o] == "{" else "]" for o in reversed(openers))
    return _Cut(plain, q, p, openers, closers)


def _open_at(plain: str, p: int) -> list[int] | None:
    """Positions of the containers open at ``p``, outermost first; None if the brackets do
    not match or nest deeper than _DEPTH_MAX. A bracket inside a string (an odd number of
    real quotes before it) is skipped. The first brackets are found with str.find, which
    skips text at memory speed; past _FIND_MAX of them, with one regex (one C scan, about
    5 ns a character, cheaper than a Python step per bracket)."""
    openers: list[int] = []
    parity = 0
    last = 0
    count = plain.count
    find = plain.find
    # The next '{', '}', '[', ']' (p: none before p).
    nxt = [find(c, 0, p) for c in "{}[]"]
    nxt = [x if x >= 0 else p for x in nxt]
    seen = 0
    while True:
        x = min(nxt)
        if x >= p:
            return openers
        seen += 1
        if seen > _FIND_MAX:
            break
        k = nxt.index(x)
        y = find("{}[]"[k], x + 1, p)
        nxt[k] = y if y >= 0 else p
        parity ^= count('"', last, x) & 1
        last = x
        if parity:
            continue
        if k == 0 or k == 2:
            openers.append(x)
            if len(openers) > _DEPTH_MAX:
                return None
        elif not openers or plain[openers[-1]] != ("{" if k == 1 else "["):
            return None
        else:
            openers.pop()
    for m in _BRACKET.finditer(plain, x, p):
        x = m.start()
        parity ^= count('"', last, x) & 1
        last = x
        if parity:
            continue
        c = plain[x]
        if c == "{" or c == "[":
            openers.append(x)
            if len(openers) > _DEPTH_MAX:
                return None
        elif not openers or plain[openers[-1]] != ("{" if c == "}" else "["):
            return None
        else:
            openers.pop()
    return openers


def _string_value_end(text: str, cut: _Cut) -> int:
    """If the text ends inside a string value, where PartialJSON's kept content ends
    (its cut escape and a trailing high surrogate escape dropped); else -1."""
    q = cut.q
    n = len(text)
    if q >= n:
        return -1
    plain = cut.plain
    b = q - 1
    while b >= 0 and plain[b] in _WS:
        b -= 1
    if b < 0:
        if cut.openers:
            return -1
    else:
        prev = plain[b]
        if prev != ":" and not (
            (prev == "[" or prev == ",") and cut.openers and plain[cut.openers[-1]] == "["
        ):
            return -1  # a key, or junk: the tail path
    m = _CUT_ESCAPE_END.search(plain, max(q + 1, n - 6))
    stop = m.start() if m is not None else n
    if stop - q - 1 >= 6 and _HIGH_SURROGATE.match(text, stop - 6) and plain[stop - 6] == "\\":
        stop -= 6  # its low half may come next
    return stop


def _key_before(text: str, plain: str, opener: int) -> Any:
    """The key written before the container opened at ``opener`` (`"key" : {`), or MISS."""
    b = opener - 1
    while b >= 0 and plain[b] in _WS:
        b -= 1
    if b < 0 or plain[b] != ":":
        return MISS
    b -= 1
    while b >= 0 and plain[b] in _WS:
        b -= 1
    if b < 0 or plain[b] != '"':
        return MISS
    a = plain.rfind('"', 0, b)
    if a < 0:
        return MISS
    key, end = scanstring(text, a + 1, False)
    return key if end == b + 1 else MISS


def _resume(
    text: str, cut: _Cut, head: Any, controls: list[tuple[int, int]] | None
) -> PartialJSON | None:
    """A PartialJSON in the state it has after reading text[:p] (decoded as ``head``), fed
    the rest of the text; None if the decoded value does not have the expected shape."""
    plain = cut.plain
    openers = cut.openers
    p = cut.p
    pj = PartialJSON(live=True)
    stack: list[Any] = []
    keys: list[Any] = []
    if openers:
        node = head
        for i, o in enumerate(openers):
            if type(node) is not (dict if plain[o] == "{" else list):
                return None
            stack.append(node)
            if i + 1 == len(openers):
                keys.append(None)
                break
            if type(node) is list:
                keys.append(None)
                if not node:
                    return None
                node = node.pop()  # still open: PartialJSON appends it when it closes
            else:
                key = _key_before(text, plain, openers[i + 1])
                if key is MISS or key not in node:
                    return None
                keys.append(key)
                node = node[key]
        c = plain[p - 1]
        pj._state = _KEY_OR_END if c == "{" else _VALUE_OR_END if c == "[" else _COMMA
    else:
        pj._state = _DONE
        pj._result = head
    b = p
    while b > 0 and plain[b - 1] in _WS:
        b -= 1
    pj._stack = stack
    pj._keys = keys
    pj._base = p
    pj._tok_end = b
    pj._controls = controls
    pj.feed(text[p:])
    return pj


def _control_spans(plain: str, end: int) -> list[tuple[int, int]]:
    return [m.span(1) for m in _PLAIN_STRING.finditer(plain, 0, end) if m.start(1) >= 0]


def _escaped(out: str, spans: list[tuple[int, int]]) -> str:
    pieces: list[str] = []
    prev = 0
    for a, b in spans:
        pieces.append(out[prev:a])
        pieces.append(_CONTROL.sub(_escape_control, out[a:b]))
        prev = b
    pieces.append(out[prev:])
    return "".join(pieces)


def fast_parse(text: str) -> Any:
    """``parse_partial_json(text)`` for a text json.loads refused, or MISS."""
    cut = _analyse(text)
    if cut is None:
        return MISS
    stop = _string_value_end(text, cut)
    if stop >= 0:
        try:
            return _decode_lax(text[:stop] + '"' + cut.closers)
        except (ValueError, RecursionError):
            pass  # a bad escape in the string, say: the tail path finds it
    if cut.p < 0:
        return MISS
    try:
        head = _decode_lax(text[: cut.p] + cut.closers)
    except (ValueError, RecursionError):
        return MISS
    pj = _resume(text, cut, head, None)
    return MISS if pj is None else pj.value


def fast_repair(text: str) -> str | None:
    """``repair_json(text)`` for a text json.loads refused, or None."""
    cut = _analyse(text)
    if cut is None:
        return None
    stop = _string_value_end(text, cut)
    if stop >= 0:
        closed = text[:stop] + '"' + cut.closers
        try:
            _decode_strict(closed)
        except RecursionError:
            pass
        except ValueError:
            try:
                _decode_lax(closed)
            except (ValueError, RecursionError):
                pass
            else:
                spans = _control_spans(cut.plain, cut.q)
                spans.append((cut.q, stop))
                return _escaped(text[:stop], spans) + '"' + cut.closers
        else:
            return closed
    p = cut.p
    if p < 0:
        return None
    controls: list[tuple[int, int]] = []
    head_text = text[:p] + cut.closers
    try:
        head = _decode_strict(head_text)
    except RecursionError:
        return None
    except ValueError:
        try:
            head = _decode_lax(head_text)
        except (ValueError, RecursionError):
            return None
        controls = _control_spans(cut.plain, p)
    pj = _resume(text, cut, head, controls)
    return None if pj is None else pj._repaired(text)
