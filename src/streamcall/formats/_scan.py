"""Temporary re-export: the scanning primitives live in ``streamcall.text`` now.

Engines not yet moved onto the text layer (issue 15) still import them from here; this
module goes when the last of them does.
"""

from __future__ import annotations

from streamcall.text.args import MAX_MEMBER, ArgsStreamer
from streamcall.text.jsonscan import KEY_EXPECTED, KEY_OR_CLOSE_EXPECTED, JsonScan
from streamcall.text.jsonstring import (
    decode_json_string,
    decode_string_run,
    json_quote,
    nested_member_cut,
    nested_members,
    nested_plain_run,
    nested_string_cut,
    nested_string_run,
    raw_offset,
)
from streamcall.text.markers import (
    MarkerFinder,
    PartialMarkers,
    cut_marker,
    partial_marker_len,
)

__all__ = [
    "KEY_EXPECTED",
    "KEY_OR_CLOSE_EXPECTED",
    "MAX_MEMBER",
    "ArgsStreamer",
    "JsonScan",
    "MarkerFinder",
    "PartialMarkers",
    "cut_marker",
    "decode_json_string",
    "decode_string_run",
    "json_quote",
    "nested_member_cut",
    "nested_members",
    "nested_plain_run",
    "nested_string_cut",
    "nested_string_run",
    "partial_marker_len",
    "raw_offset",
]
