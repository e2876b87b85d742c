"""The fast path of ``decode_chunk``: the common content or reasoning chunk, without a tree.

``fast_decode`` gives the ``ChunkDelta`` of a chunk of this shape, or None, and then the
full path (``full``) reads the chunk; ``decode.decode_chunk`` chooses.

    HEAD   {"id":...,"object":...,"choices":[{"index":0,"delta":{"role":"assistant","content":"
    STRING the string itself, read by json's own C scanner (strict, escapes decoded)
    TAIL   "},"logprobs":null,"finish_reason":null}],"usage":null}

It accepts only text that the full path accepts, with the same result: compact JSON (an
optional single space after ":" and ","), known metadata keys spelt exactly, each of them
ignored by the full path (a repeated one or ``"usage":null`` changes nothing), one
choice, a delta with an optional role, one string field (content, reasoning_content or
reasoning) and an optional ``"refusal":null``, and a string or null finish_reason.
Anything else falls back to the full path.

Within one stream, HEAD and TAIL repeat on every chunk: each distinct one is checked by
its regex once, and the verdicts are kept (``_heads``, ``_tails``; bounded, and pure
memos of the regexes, so decode_chunk stays a function of its input alone). The last
head and tail of this shape are also kept, so that a chunk of the same stream is
recognised by two slice compares instead of a search.
"""

from __future__ import annotations

import re
from _json import scanstring as _scanstring

from streamcall.chunks.delta import ChunkDelta
from streamcall.chunks.gojson import fix_surrogates

__all__ = ["fast_decode"]

# ChunkDelta built without NamedTuple.__new__'s argument handling (the hot path)
_new_delta = tuple.__new__

_CHARS = r'[^"\\\x00-\x1f]*+(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*+)*+'
_SIMPLE = rf'(?:"{_CHARS}"|-?(?:0|[1-9][0-9]{{0,15}})|null|true|false)'
_META = r'"(?:id|object|created|model|system_fingerprint|service_tier|provider)"'
_FIELD = r'"(content|reasoning_content|reasoning)": ?"'
_DELTA_START = r'"delta": ?\{(?:"role": ?"(assistant)", ?)?+'
_HEAD = re.compile(
    rf'\{{(?:{_META}: ?{_SIMPLE}, ?)*+"choices": ?\[\{{"index": ?(0|[1-9][0-9]{{0,8}}), ?'
    rf"{_DELTA_START}{_FIELD}"
)
_FIND_FIELD = re.compile(_DELTA_START + _FIELD).search
_TAIL = re.compile(
    r'(?:, ?"refusal": ?null)?+\}(?:, ?"logprobs": ?null)?+'
    r'(?:, ?"finish_reason": ?(?:null|"([a-z_]*+)"))?+\}\]'
    rf'(?:, ?(?:{_META}: ?{_SIMPLE}|"usage": ?null))*+\}}'
)
_MEMO_SIZE = 256


# A head: (text, index, role, is_content, has_u); index -1 when the text is not this shape.
# A tail: (text, finish_reason or None, done, has_u, ok). has_u: the text holds a \u
# escape, and the full path then replaces lone surrogates in every string it returns.
_Head = tuple[str, int, str | None, bool, bool]
_Tail = tuple[str, str | None, bool, bool, bool]
_heads: dict[str, _Head] = {}
_tails: dict[str, _Tail] = {}


def fast_decode(text: str) -> ChunkDelta | None:
    global _last_head, _last_tail
    head, index, role, is_content, has_u = _last_head
    start = len(head)
    if text[:start] != head:
        found = _FIND_FIELD(text)
        if found is None:
            return None
        start = found.end()
        key = text[:start]
        found_head = _heads.get(key) or _check_head(key)
        head, index, role, is_content, has_u = found_head
        if index < 0:
            return None
        _last_head = found_head  # only a head of this shape is ever the last one
    try:
        value, end = _scanstring(text, start)
    except ValueError:
        return None
    tail, reason, done, tail_has_u, ok = _last_tail
    if text[end:] != tail:
        key = text[end:]
        found_tail = _tails.get(key) or _check_tail(key)
        tail, reason, done, tail_has_u, ok = found_tail
        if not ok:
            return None
        _last_tail = found_tail
    # As the full path: a \\u escape anywhere in the text has lone surrogates replaced.
    # The value holds an escape only if it is shorter than its span.
    if has_u or tail_has_u or (len(value) != end - 1 - start and text.find("\\u", start, end) >= 0):
        value = fix_surrogates(value)
    if is_content:
        return _new_delta(ChunkDelta, (value, "", (), reason, done, None, index, role, ()))
    return _new_delta(ChunkDelta, ("", value, (), reason, done, None, index, role, ()))


def _check_head(key: str) -> _Head:
    match = _HEAD.fullmatch(key)
    if match is None:
        head: _Head = (key, -1, None, False, False)
    else:
        is_content = match.group(3) == "content"
        head = (key, int(match.group(1)), match.group(2), is_content, "\\u" in key)
    if len(_heads) >= _MEMO_SIZE:
        _heads.clear()
    _heads[key] = head
    return head


def _check_tail(key: str) -> _Tail:
    match = _TAIL.fullmatch(key)
    reason = None if match is None else match.group(1)
    tail = (key, reason or None, bool(reason), "\\u" in key, match is not None)
    if len(_tails) >= _MEMO_SIZE:
        _tails.clear()
    _tails[key] = tail
    return tail


_last_head = _check_head('{"choices":[{"index":0,"delta":{"content":"')
_last_tail = _check_tail("}}]}")
