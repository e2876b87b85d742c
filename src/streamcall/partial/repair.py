# repair_json and parse_partial_json: any prefix of a JSON document to JSON that parses.
#
# Grammar, modes and what is held back: see incremental.py. This is that scanner run to
# the end of one text. One forward scan keeps a container stack, an expect-state
# (value|key|colon|comma) and the end of the last complete token; only the unfinished tail
# after that point is repaired:
#   R0 empty or whitespace-only input gives {}      R4 a dangling comma is dropped
#   R1 an unclosed string value is closed with "    R5 a missing value after ':' is null
#   R2 an unclosed key is closed and given :null    R6 open containers close in stack order
#   R3 a half keyword (tru, fal, nul) becomes null
# A half number keeps its complete part (12. -> 12) or becomes null; junk after a complete
# value is dropped; a cut escape or a lone high surrogate at the cut is dropped. Raw control
# characters inside strings are kept, escaped, so the output always loads.
#
# Valid JSON comes back unchanged (json.loads is tried first: it is C and usually wins).
#
# A cut document (the usual case: a tool call's arguments still streaming) would go whole
# through the Python scanner. With _ONESHOT_FAST_ENABLED, _oneshot.py has json's C decoder
# read the well-formed bulk and the scanner only the cut tail; whatever it cannot prove it
# leaves to the scanner run over the whole text, the reference (_scan_repair, _scan_parse).
# json.loads is not tried first on a text that cannot be complete (it opens a container
# and does not end with its closer).
#
# Nesting is limited to MAX_DEPTH open containers (incremental.py says why): a text that may
# go deeper (too_deep, C work only) skips json.loads and the fast path, and the scanner cuts
# it at the opener that goes past the limit, as if the document broke there. The fast path
# asks too_deep only about the part json decodes (before the open string, or before the
# cut point): a long string being written is not counted on every call.

from __future__ import annotations

import json
from typing import Any

from streamcall.partial._oneshot import MISS, certainly_cut, fast_parse, fast_repair
from streamcall.partial.incremental import PartialJSON, too_deep

__all__ = ["parse_partial_json", "repair_json"]

# The one-shot fast path: a test pins it on; another switches it off and requires
# identical results (docs/performance.md has what it buys).
_ONESHOT_FAST_ENABLED = True
# Below this length the scanner alone is faster (docs/performance.md).
_ONESHOT_MIN_LEN = 48


def repair_json(text: str) -> str:
    """Repair any prefix of a JSON document into JSON text that ``json.loads`` accepts.

    Valid JSON comes back unchanged, so ``repair_json(repair_json(x)) == repair_json(x)``.
    Only the unfinished tail is changed: what is complete in a prefix stays as it is in
    every longer prefix. Never raises. At most ``MAX_DEPTH`` (256) containers may be open at
    once: the opener that would go deeper is junk, so ``'[' * 10**6`` gives 256 ``[`` closed
    by 256 ``]``, which ``json.loads`` reads.
    """
    fast = _ONESHOT_FAST_ENABLED and len(text) >= _ONESHOT_MIN_LEN
    if not (fast and certainly_cut(text)):
        if too_deep(text):
            return _scan_repair(text)
        try:
            json.loads(text)
        except (ValueError, RecursionError):
            pass
        else:
            return text
    if fast:
        out = fast_repair(text)
        if out is not None:
            return out
    return _scan_repair(text)


def parse_partial_json(text: str) -> Any:
    """The value of a JSON prefix: ``json.loads(repair_json(text))``, in one scan.

    Never raises. Unlike ``json.loads``, deep nesting (a million ``[``) does not raise
    ``RecursionError``: the value is cut at ``MAX_DEPTH`` open containers, as
    ``repair_json`` cuts the text.
    """
    fast = _ONESHOT_FAST_ENABLED and len(text) >= _ONESHOT_MIN_LEN
    if not (fast and certainly_cut(text)):
        if too_deep(text):
            return _scan_parse(text)
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            pass
    if fast:
        value = fast_parse(text)
        if value is not MISS:
            return value
    return _scan_parse(text)


def _scan_repair(text: str) -> str:
    """The reference: the whole text through PartialJSON."""
    scanner = PartialJSON()
    scanner._controls = []
    scanner.feed(text)
    return scanner._repaired(text)


def _scan_parse(text: str) -> Any:
    """The reference: the whole text through PartialJSON."""
    scanner = PartialJSON()
    scanner.feed(text)
    return scanner.value
