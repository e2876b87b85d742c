# repair_json and parse_partial_json: any prefix of a JSON document to JSON that parses.
#
# Grammar, modes and what is held back: see incremental.py. This is that scanner run to
# the end of one text. One forward scan keeps a container stack, an expect-state
# (value|key|colon|comma) and the end of the last complete token; only the unfinished tail
# after that point is repaired (SPEC.md §4):
#   R0 empty or whitespace-only input gives {}      R4 a dangling comma is dropped
#   R1 an unclosed string value is closed with "    R5 a missing value after ':' is null
#   R2 an unclosed key is closed and given :null    R6 open containers close in stack order
#   R3 a half keyword (tru, fal, nul) becomes null
# A half number keeps its complete part (12. -> 12) or becomes null; junk after a complete
# value is dropped; a cut escape or a lone high surrogate at the cut is dropped. Raw control
# characters inside strings are kept, escaped, so the output always loads.
#
# Valid JSON comes back unchanged (json.loads is tried first: it is C and usually wins).

from __future__ import annotations

import json
from typing import Any

from streamcall.partial.incremental import PartialJSON

__all__ = ["parse_partial_json", "repair_json"]


def repair_json(text: str) -> str:
    """Repair any prefix of a JSON document into JSON text that ``json.loads`` accepts.

    Valid JSON comes back unchanged, so ``repair_json(repair_json(x)) == repair_json(x)``.
    Only the unfinished tail is changed: what is complete in a prefix stays as it is in
    every longer prefix. Never raises; nesting depth is limited only by memory.
    """
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        pass
    else:
        return text
    scanner = PartialJSON()
    scanner._controls = []
    scanner.feed(text)
    return scanner._repaired(text)


def parse_partial_json(text: str) -> Any:
    """The value of a JSON prefix: ``json.loads(repair_json(text))``, in one scan.

    Never raises. Unlike ``json.loads``, deep nesting (a million ``[``) does not raise
    ``RecursionError``: the scanner's stack is a list.
    """
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        pass
    scanner = PartialJSON()
    scanner.feed(text)
    return scanner.value
