"""Syntax layer: partial JSON (README, "The layers").

``repair_json`` and ``parse_partial_json`` for one text; ``PartialJSON`` for a stream.
"""

from __future__ import annotations

from streamcall.partial.incremental import (
    MAX_DEPTH,
    PartialJSON,
    PathKey,
    StringAppend,
    ValueComplete,
)
from streamcall.partial.repair import parse_partial_json, repair_json

__all__ = [
    "MAX_DEPTH",
    "PartialJSON",
    "PathKey",
    "StringAppend",
    "ValueComplete",
    "parse_partial_json",
    "repair_json",
]
