# One-shot parse_partial_json / repair_json of a cut document: json's C decoder reads the
# well-formed bulk, PartialJSON only the cut tail. Switched by repair._ONESHOT_FAST_ENABLED;
# with it off, repair.py runs the whole text through PartialJSON (the reference).
#
# 1. Real quotes. `plain` is the text with every escaped backslash pair and escaped quote
#    overwritten by two DELs (two str.replace passes, only if there is a backslash): its
#    '"' are then exactly the string delimiters, at the same positions. An odd count means
#    the text ends inside a string that starts at the last one (Q). A text cut inside a long
#    string (a file being written: the usual case) needs no pass over that string: its last
#    quote, if real with an even count of real quotes before it, is Q, and `plain` is made
#    of the text before Q only; if that quote is escaped, the strings are read from the
#    first on by json's C scanner, the open one's content decoded on the way (or, past a
#    few strings, json's decoder reports where the unterminated one starts). _quotes.
# 2. The cut point P: the last ',' '{' '[' '}' ']' before Q outside strings (rfind, then the
#    quote count between it and Q must be even; else step back over that string). P is just
#    after a bracket, or at a comma that follows a complete value.
# 3. The open containers at P: the first 32 brackets found with str.find, string ones
#    skipped by quote parity; past them, all the brackets before P become bytes at once
#    (encode and translate; with no bracket inside a string, which taking out quote pairs
#    proves), matched pairs are taken out by bytes.replace, and the open ones' ranks are
#    read from both ends and turned into positions by regexes that skip brackets in C
#    (_open_at_dense). Only where a string holds a bracket does Python step per bracket.
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
#    Shortcut: when the cut is inside a string, json decodes the text before it (a value
#    emptied, a key left out), and the string's content (kept up to the same safe end
#    PartialJSON keeps) is put in its place: the text itself if it holds no backslash, else
#    json's scanner's decoding; a key is added with null unless its object has it (R2).
# repair_json also needs the spans of strings holding raw control characters before P;
# they exist only if the strict decoder refuses what the lax one accepts, and are then
# found by one regex over `plain`.

from __future__ import annotations

import json
import re
from typing import Any, Final

from streamcall.partial.incremental import PartialJSON, _escape_control, too_deep
from streamcall.partial.tokens import _COMMA, _DONE, _KEY_OR_END, _VALUE_OR_END, scanstring
from streamcall.text import CONTROL, HIGH_SURROGATE_TAIL
from streamcall.text.jsonstring import (
    COMPILED_MIN,
    compiled_string_reads,
    decode_string_literal,
)

# Bound once: CPython 3.11 calls a method of an imported name through a bound method
# made on every call (it gives such a call no LOAD_METHOD)
_high_surrogate_tail_match = HIGH_SURROGATE_TAIL.match
_control_sub = CONTROL.sub

__all__ = ["MISS", "fast_parse", "fast_repair"]

MISS: Final = object()  # fast_parse's "not decided here": run the reference

_DEPTH_MAX: Final = 200  # json's C decoder recurses; deeper documents take the reference
_WS: Final = " \t\n\r"
_FIND_MAX: Final = 32  # brackets found one by one with str.find, then by one regex
_BRACKET = re.compile(r"[\[\]{}]")
_NEXT_BRACKET = re.compile(r"[^\[\]{}]*+[\[\]{}]").match
# Skip n brackets at once (with no bracket inside a string, each is a real one).
_SKIP = [
    (n, re.compile(rf"(?:[^\[\]{{}}]*+[\[\]{{}}]){{{n}}}").match) for n in (4096, 512, 64, 8, 1)
]
_NOT_STRUCTURE: Final = bytes(b for b in range(256) if b not in b'"[]{}')
_PASS_MAX: Final = 64  # replace passes of _reduced
_WINDOW: Final = 512  # the first backward window of _backward_positions
_NEAR: Final = 256  # farther back than this many brackets, _skip_brackets finds one
_TRIES_MAX: Final = 8  # outer-run proofs _open_at_dense attempts
_WALK_MAX: Final = 16  # strings _walk_strings reads before it leaves it to the decoder
_LONG: Final = 2048  # from this length on, _quotes finds q before making `plain`
_CUT_ESCAPE_END = re.compile(r"\\(?:u[0-9a-fA-F]{0,3})?\Z")  # on `plain`: never escaped
# On `plain`: every string, the ones holding a raw control character in group 1.
_PLAIN_STRING = re.compile(r'"[^"\x00-\x1f]*"|("[^"]*")')
_decode_lax = json.JSONDecoder(strict=False).decode
_decode_strict = json.JSONDecoder().decode


class _Cut:
    """Where a cut document splits into a decodable head and a tail (steps 1-3)."""

    __slots__ = ("closers", "openers", "p", "plain", "q")

    def __init__(self, plain: str, q: int, p: int, openers: list[int], closers: str) -> None:
        self.plain = plain  # step 1's text, at least up to q
        self.q = q  # start of the string the text ends in, or len(text)
        self.p = p  # the cut point (-1: none)
        self.openers = openers  # positions of the containers open at p, outermost first
        self.closers = closers


def certainly_cut(text: str) -> bool:
    """True when ``json.loads(text)`` must fail: a container that does not end closed, or a
    string that does not end with a quote of its own."""
    n = len(text)
    i = 0
    while i < n and text[i] in _WS:
        i += 1
    if i == n:
        return False
    first = text[i]
    j = n - 1
    while text[j] in _WS:
        j -= 1
    if first == '"':  # a string: whole only if it ends with a real quote of its own
        return j == i or text[j] != '"' or _escaped_at(text, j, i + 1)
    if first != "{" and first != "[":
        return False
    return text[j] != ("}" if first == "{" else "]")


def _plain(text: str) -> str:
    """``text`` with escaped backslashes and escaped quotes overwritten (step 1)."""
    return text.replace("\\\\", "\x7f\x7f").replace('\\"', "\x7f\x7f") if "\\" in text else text


def _escaped_at(text: str, i: int, lo: int = 0) -> bool:
    """Is ``text[i]`` escaped: an odd run of backslashes (from ``lo`` on) just before it?"""
    j = i
    while j > lo and text[j - 1] == "\\":
        j -= 1
    return (i - j) & 1 == 1


def _unterminated(text: str) -> int:
    """Where the string that the text ends inside starts, as json's C scanner reports it
    ("Unterminated string starting at"), or -1 if it stops for any other reason."""
    try:
        _decode_lax(text)
    except json.JSONDecodeError as error:
        if error.msg == "Unterminated string starting at" and text.startswith('"', error.pos):
            return error.pos
    except (ValueError, RecursionError):
        pass
    return -1


def _kept_end(text: str, q: int) -> int:
    """For a text that ends inside the string opened at ``q``: where PartialJSON's kept
    content ends (a cut escape and a trailing high surrogate escape dropped)."""
    n = len(text)
    stop = n
    m = _CUT_ESCAPE_END.search(text, max(q + 1, n - 6))
    if m is not None and not _escaped_at(text, m.start(), q + 1):
        stop = m.start()
    if (
        stop - q - 1 >= 6
        and _high_surrogate_tail_match(text, stop - 6)
        and not _escaped_at(text, stop - 6, q + 1)
    ):
        stop -= 6  # its low half may come next
    return stop


def _walk_strings(text: str) -> tuple[int, str] | None:
    """Find the string the text ends inside by reading the strings from the first one on,
    each with json's C scanner (the text between two strings holds no quote), at most
    _WALK_MAX of them: ``(q, content)``, the open one's content decoded on the way (the
    text is closed with a quote where its kept content ends). None: not found that way."""
    stop = _kept_end(text, 0)
    closed = text[:stop] + '"'
    i = text.find('"')
    for _ in range(_WALK_MAX):
        if i < 0 or i >= stop:
            return None
        try:
            if len(closed) - i >= COMPILED_MIN and compiled_string_reads() and closed.isascii():
                # the open one, if the string at i runs to the end: read by the compiled
                # library (a closed string is read again by json's scanner below)
                content = decode_string_literal(closed[i:])
                if content is not None:
                    return i, content
            content, end = scanstring(closed, i + 1, False)
        except ValueError:
            return None
        if end == len(closed):
            return i, content
        i = text.find('"', end)
    return None


def _quotes(text: str) -> tuple[str, int, str | None]:
    """``plain``, ``q`` (steps 1 and 2's start) and, if it was read on the way, the open
    string's decoded content. ``plain`` covers ``[0, q)`` at least.

    A text without a backslash is its own ``plain``. From _LONG characters on, the last
    quote is tried first (below, the replace passes cost less). A real one with an even
    number of real quotes before it opens the string the text ends inside, and only the
    text before it needs ``plain``: a long string being written costs a ``rfind``, not a
    pass over it. An escaped one is inside that string (outside a string it is junk): the
    strings are read from the start with json's scanner (``_walk_strings``), or json's
    decoder says where that string opens; whichever finds it, the quotes before it are
    checked to be even.
    """
    n = len(text)
    x = text.rfind('"')
    if x < 0:
        return _plain(text), n, None
    if "\\" not in text:  # no escape: plain is the text, and only the quotes before x count
        return text, x if not text.count('"', 0, x) & 1 else n, None
    if n < _LONG:  # two replace passes over a short text cost less than finding q first
        plain = _plain(text)
        return plain, plain.rfind('"') if plain.count('"') & 1 else n, None
    if _escaped_at(text, x):
        content = None
        found = _walk_strings(text)
        if found is not None:
            q, content = found
        else:
            q = _unterminated(text)
        if q >= 0:
            head = _plain(text[:q])
            if not head.count('"') & 1:
                return head, q, content
        plain = _plain(text)
        return plain, plain.rfind('"') if plain.count('"') & 1 else n, None
    head = _plain(text[:x])
    if not head.count('"') & 1:
        return head, x, None
    return head + _plain(text[x:]), n, None  # x closes a string; none opens after it


def _analyse(text: str, plain: str, q: int) -> _Cut | None:
    """Steps 2 and 3, given step 1's ``plain`` and ``q`` (``_quotes``)."""
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
        if not _after_value(plain, s):
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
    skips text at memory speed; past _FIND_MAX of them, ``_open_at_dense`` reads them all
    at C speed, and only where a string holds a bracket does one regex walk them with a
    Python step per bracket."""
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
    seq = _brackets(plain, p)
    if seq is not None:
        return _open_at_dense(plain, p, seq)
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


def _brackets(plain: str, p: int) -> bytes | None:
    """The brackets of ``plain[:p]`` in order, as bytes, or None if a string holds one.

    UTF-8 keeps every ASCII character a byte of its own, so ``translate`` keeps exactly
    the quotes and brackets. Taking out adjacent quote pairs never changes which side of a
    string any other character is on; with no quote left, no bracket was inside a string.
    """
    data = plain[:p].encode("utf-8", "surrogatepass").translate(None, _NOT_STRUCTURE)
    if b'"' in data:
        data = data.replace(b'""', b"")
        if b'"' in data:
            return None
    return data


def _reduced(seq: bytes) -> bytes | None:
    """``seq`` with every matched pair taken out (what stays open); None past _PASS_MAX
    passes (deep nesting: the caller's walk decides)."""
    for _ in range(_PASS_MAX):
        shorter = seq.replace(b"{}", b"").replace(b"[]", b"")
        if len(shorter) == len(seq):
            return seq
        seq = shorter
    return None


def _open_at_dense(plain: str, p: int, seq: bytes) -> list[int] | None:
    """``_open_at`` for a text with many brackets: the same answer, at C speed.

    ``seq`` is the brackets before ``p`` (``_brackets``: none inside a string). Matched
    pairs taken out by ``bytes.replace`` leave the open ones (the skeleton). Their ranks
    among the brackets: the innermost are found walking back from the end over the last,
    open container's content only, the outermost at the start, where a run of openers
    followed by a balanced stretch is proved open by the same replace. The ranks become
    positions by regexes that skip a counted number of brackets (forward) or by the
    brackets of a window before ``p`` (backward).
    """
    skeleton = _reduced(seq)
    if skeleton is not None and (b"}" in skeleton or b"]" in skeleton):
        return None  # a closer with no opener, or of the other kind
    total = len(seq)
    inner: list[int] = []  # ranks found walking back, innermost first
    outer = 0  # ranks 0 .. outer - 1 are open too
    pending: list[int] = []
    i = total
    while i:
        i -= 1
        c = seq[i]
        if c == 125 or c == 93:  # '}' ']'
            pending.append(c)
            continue
        if pending:
            if pending.pop() != c + 2:  # '{' + 2 == '}', '[' + 2 == ']'
                return None
            continue
        inner.append(i)
        if len(inner) > _DEPTH_MAX:
            return None
        if skeleton is None:
            continue
        left = len(skeleton) - len(inner)
        if left == 0:
            break
        if (
            len(inner) <= _TRIES_MAX
            and left <= i
            and seq.startswith(skeleton[:left])
            and _reduced(seq[left:i]) == b""
        ):
            outer = left
            break
    else:
        if pending:
            return None
    if outer + len(inner) > _DEPTH_MAX:
        return None
    positions = _forward_positions(plain, outer)
    inner.reverse()
    positions.extend(_backward_positions(plain, p, [total - r for r in inner]))
    return positions


def _forward_positions(plain: str, count: int) -> list[int]:
    """Positions of the first ``count`` brackets of ``plain``."""
    out: list[int] = []
    pos = 0
    for _ in range(count):
        pos = _NEXT_BRACKET(plain, pos).end()  # type: ignore[union-attr]
        out.append(pos - 1)
    return out


def _backward_positions(plain: str, p: int, back: list[int]) -> list[int]:
    """Positions of the brackets before ``p`` that are ``back[i]``-th from the last (1: the
    last one), ``back`` decreasing: from the brackets of a window before ``p``, widened
    until it holds them, or, for one far back, by skipping brackets from the start."""
    out: list[int] = []
    if not back:
        return out
    far = [b for b in back if b > _NEAR]
    if far:
        total = _count_brackets(plain, p)
        out = [_skip_brackets(plain, total - b) for b in far]
        back = back[len(far) :]
        if not back:
            return out
    size = _WINDOW
    while True:
        start = max(0, p - size)
        found = [m.start() for m in _BRACKET.finditer(plain, start, p)]
        if len(found) >= back[0] or start == 0:
            break
        size *= 4
    out.extend(found[len(found) - b] for b in back)
    return out


def _count_brackets(plain: str, end: int) -> int:
    count = plain.count
    return count("{", 0, end) + count("}", 0, end) + count("[", 0, end) + count("]", 0, end)


def _skip_brackets(plain: str, rank: int) -> int:
    """The position of the bracket of ``plain`` of this rank (0: the first)."""
    pos = 0
    left = rank + 1
    for n, match in _SKIP:
        while left >= n:
            pos = match(plain, pos).end()  # type: ignore[union-attr]
            left -= n
    return pos - 1


def _string_value_end(text: str, cut: _Cut) -> int:
    """If the text ends inside a string value, where PartialJSON's kept content ends (its
    cut escape and a trailing high surrogate escape dropped); else -1."""
    q = cut.q
    if q >= len(text):
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
    return _kept_end(text, q)


def _after_value(plain: str, comma: int) -> bool:
    """Does the comma at ``comma`` follow a complete value (not an opener, a colon, another
    comma or nothing)?"""
    b = comma - 1
    while b >= 0 and plain[b] in _WS:
        b -= 1
    return b >= 0 and plain[b] not in "[{,:"


def _content(text: str, start: int, stop: int) -> str:
    """The decoded body ``text[start:stop]`` of a string (json's lax scanner; raises
    ValueError on a bad escape). With no backslash it is the text itself: no scan."""
    if text.find("\\", start, stop) < 0:
        return text[start:stop]
    decoded = decode_string_literal(text[start - 1 : stop] + '"')
    assert decoded is not None  # the body holds no real quote
    return decoded


def _in_string(text: str, plain: str, q: int, content: str | None) -> Any:
    """The value of a text that ends inside the string opened at ``q``, or MISS.

    The containers open there are those open at the cut point (no bracket or comma comes
    between), so step 2 is not needed. json decodes what comes before the string (a value
    emptied, a key left out) and the string's content, decoded by ``_content`` unless it
    was read already, is put in its place; a key is added with null unless its object has
    it already (R2: the repaired text drops a key it repeats). MISS if json refuses, or if
    what precedes the string is junk: the tail path decides then.
    """
    openers = _open_at(plain, q)
    if openers is None:
        return MISS
    b = q - 1
    while b >= 0 and plain[b] in _WS:
        b -= 1
    key = -1  # for a key: the cut point before it (just past the '{', or at the ',')
    if b < 0:
        if openers:
            return MISS
    else:
        prev = plain[b]
        inner = plain[openers[-1]] if openers else ""
        if prev == "," and not _after_value(plain, b):
            return MISS  # a comma where a value should be: junk, for the tail path
        if prev == "{":
            key = b + 1
        elif prev == "," and inner == "{":
            key = b
        elif prev != ":" and not ((prev == "[" or prev == ",") and inner == "["):
            return MISS
    closers = "".join("}" if plain[o] == "{" else "]" for o in reversed(openers))
    if too_deep(text, end=q):
        return MISS
    try:
        if content is None:
            content = _content(text, q + 1, _kept_end(text, q))
        if key >= 0:
            head = _decode_lax(text[:key] + closers)
        else:
            head = _decode_lax(text[:q] + '""' + closers)
    except (ValueError, RecursionError):
        return MISS
    if not openers:
        return content
    node = head
    last = len(openers) - 1
    for i, o in enumerate(openers):
        if type(node) is not (dict if plain[o] == "{" else list):
            return MISS
        if i < last:
            if type(node) is list:
                if not node:
                    return MISS
                node = node[-1]
            else:
                k = _key_before(text, plain, openers[i + 1])
                if k is MISS or k not in node:
                    return MISS
                node = node[k]
    if key >= 0:
        if type(node) is not dict:
            return MISS
        if content not in node:
            node[content] = None
    elif type(node) is list:
        if not node or node[-1] != "":
            return MISS
        node[-1] = content
    else:
        k = _key_before(text, plain, q)
        if k is MISS or node.get(k, None) != "":
            return MISS
        node[k] = content
    return head


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
        pieces.append(_control_sub(_escape_control, out[a:b]))
        prev = b
    pieces.append(out[prev:])
    return "".join(pieces)


def fast_parse(text: str) -> Any:
    """``parse_partial_json(text)`` for a text json.loads refused, or MISS."""
    plain, q, content = _quotes(text)
    if q < len(text):
        value = _in_string(text, plain, q, content)
        if value is not MISS:
            return value  # else a bad escape in the string, say: the tail path finds it
    cut = _analyse(text, plain, q)
    if cut is None or cut.p < 0 or too_deep(text, end=cut.p):
        return MISS
    try:
        head = _decode_lax(text[: cut.p] + cut.closers)
    except (ValueError, RecursionError):
        return MISS
    pj = _resume(text, cut, head, None)
    return MISS if pj is None else pj.value


def fast_repair(text: str) -> str | None:
    """``repair_json(text)`` for a text json.loads refused, or None."""
    plain, q, _ = _quotes(text)
    cut = _analyse(text, plain, q)
    if cut is None:
        return None
    stop = _string_value_end(text, cut)
    if stop >= 0 and too_deep(text, end=cut.q):
        return None
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
    if p < 0 or too_deep(text, end=p):
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
