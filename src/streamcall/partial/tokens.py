"""The partial-JSON scanner's modes and token reads (``PartialJSON`` and the one-shot path).

Rules: the modes are ints, the expect-states between tokens below ``_STRING`` (see
``incremental``'s header); a literal is a run of ``[A-Za-z0-9+-.]`` read whole by
``_LIT`` and then classified once (``_classify``): a keyword or a number (as ``json``
converts it: an int unless there is a fraction or an exponent), a number followed by junk,
a proper prefix of a keyword (a cut ``tru``), or nothing. ``scanstring`` is json's own C
string decoder.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from json import decoder as _json_decoder
from typing import Any, Final

from streamcall.text import NUMBER

# Bound once: CPython 3.11 calls a method of an imported name through a bound method
# made on every call (it gives such a call no LOAD_METHOD)
_number_match = NUMBER.match

# Expect-states and token modes.
_VALUE: Final = 0
_VALUE_OR_END: Final = 1
_KEY: Final = 2
_KEY_OR_END: Final = 3
_COLON: Final = 4
_COMMA: Final = 5
_DONE: Final = 6
_STRING: Final = 7
_LITERAL: Final = 8

# json's own C string decoder (typeshed does not declare it): (text, start, strict).
scanstring: Callable[[str, int, bool], tuple[str, int]] = _json_decoder.scanstring  # type: ignore[attr-defined]

# The text layer's patterns (``streamcall.text``): blanks (``WS``), string content made of
# whole escapes only (``STRING_RUN``: stops at '"', at a cut or invalid escape, or at the
# chunk's end), a cut escape, a high surrogate's escape, a raw control character, a number.
# The starred ones always match, so their `.match(...)` is never None.
_LIT = re.compile(r"[A-Za-z0-9+\-.]*")
_LIT_START: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.")

_KEYWORDS: Final[dict[str, Any]] = {
    "true": True,
    "false": False,
    "null": None,
    "NaN": float("nan"),
    "Infinity": float("inf"),
    "-Infinity": float("-inf"),
}
_KEYWORD_PREFIXES: Final = frozenset(k[:i] for k in _KEYWORDS for i in range(1, len(k)))


# What a literal turned out to be (_classify).
_WHOLE: Final = 0  # the whole run is one value
_HEAD: Final = 1  # a number is complete in the run's first `size` characters
_HALF_KEYWORD: Final = 2  # a proper prefix of a keyword (R3)
_NOTHING: Final = 3  # no value at all: junk


def _classify(run: str) -> tuple[int, Any, int]:
    """Classify a literal run as (kind, value, size of the valid part)."""
    if run in _KEYWORDS:
        return _WHOLE, _KEYWORDS[run], len(run)
    m = _number_match(run)
    if m is None:
        if run in _KEYWORD_PREFIXES:
            return _HALF_KEYWORD, None, 0
        return _NOTHING, None, 0
    size = m.end()
    text = run if size == len(run) else run[:size]
    # Exactly json's conversion: int unless there is a fraction or an exponent.
    if "." in text or "e" in text or "E" in text:
        number: Any = float(text)
    else:
        try:
            number = int(text)
        except ValueError:  # longer than sys.get_int_max_str_digits(): json.loads fails too
            return _NOTHING, None, 0
    return (_WHOLE if size == len(run) else _HEAD), number, size
