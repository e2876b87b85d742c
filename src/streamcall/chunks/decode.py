"""Chunk layer: one OpenAI-compatible ``chat.completion.chunk`` into a ``ChunkDelta``.

The semantics are those of Go's ``encoding/json`` unmarshalling into structs of these
shapes (``tests/chunks/test_chunk_truth_table.py`` pins them case by case):

    chunk    = {choices: [choice], usage: usage|null, *: ignored}
    choice   = {index: int, delta: delta, finish_reason: string|null, *: ignored}
    delta    = {content: ANY, reasoning_content: string, reasoning: string, role: string,
                tool_calls: [call], *: ignored}
    call     = {index: int, id: string, type: string, function: {name: string, arguments: ANY}}
    usage    = {prompt_tokens, completion_tokens, total_tokens, prompt_cache_hit_tokens,
                prompt_cache_miss_tokens: int64, *_tokens_details: details|null, *: kept}
    details  = {cached_tokens, reasoning_tokens, audio_tokens, accepted_prediction_tokens,
                rejected_prediction_tokens: int64, *: kept}

- Struct keys match case-insensitively; keys inside a content part are a Go map's keys and
  match exactly (``{"TEXT": ...}`` is not text). Do not "unify" the two.
- A value of the wrong type rejects the whole chunk (``ChunkError`` names the field).
- A key given twice merges field by field: a struct is decoded on top of the earlier one,
  an array element on top of the earlier element (Go slice semantics), and a scalar or an
  ``ANY`` value is replaced. ``null`` leaves a string or int as it was and clears the rest.
- ``content`` is loosely typed: string as is, ``null`` as "", a list of parts as the
  concatenation of their string ``text``, anything else re-encoded as Go's
  ``json.Marshal(interface{})`` would (``_go_marshal``).
- ``usage`` loses nothing: Go ignores a member it has no field for, but ``Usage`` keeps
  each one as sent (in ``extra``, or in its details object), so that the proxy can pass
  the whole usage object on. Those members are never checked. A usage object without any
  of the three totals (a heartbeat) gives no ``Usage`` at all.
- Invalid UTF-8 in ``bytes`` input becomes one U+FFFD per bad byte (Go's rule, not
  Python's one-per-maximal-subpart); an escaped lone surrogate becomes U+FFFD too.

The full path (``full``) splits scan and extract: the C scanner of ``json`` checks the
grammar and builds the tree with objects kept as pair lists (``_Obj``) so that duplicates
survive; the extract then walks only the fields it needs (Go's own behaviours it needs are
in ``gojson``). There is no state between calls. The results are in ``delta``.

A fast path (``fast``; on while ``_FAST_PATH_ENABLED``) reads the common content or reasoning chunk without
building a tree: memoised checks of the chunk's head and tail around one string read by
json's C scanner. It is proved equal to the full path by tests and is on because it
measures faster (``python -m benchmarks sse``; figures in docs/performance.md). orjson is
not used: it keeps only the last of duplicate keys, which these semantics merge field by
field.
"""

from __future__ import annotations

import codecs

from streamcall.chunks.delta import ChunkDelta, ChunkError, ToolCallFragment, Usage
from streamcall.chunks.fast import fast_decode as _fast_decode
from streamcall.chunks.full import full_decode as _full_decode

__all__ = ["ChunkDelta", "ChunkError", "ToolCallFragment", "Usage", "decode_chunk"]


def _go_utf8_errors(exc: UnicodeError) -> tuple[str, int]:
    # Go replaces each invalid byte by its own U+FFFD; Python's "replace" gives one per
    # maximal invalid subpart (b"\xe4\xbd" -> 1, Go -> 2).
    assert isinstance(exc, UnicodeDecodeError)
    return "\ufffd" * (exc.end - exc.start), exc.end


codecs.register_error("streamcall.go-utf8", _go_utf8_errors)


def decode_chunk(data: str | bytes) -> ChunkDelta:
    """Decode one chunk's JSON. Raises ``ChunkError`` (a ``ValueError``) when rejected."""
    if type(data) is not str:
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise ChunkError(f"chunk: expected str or bytes, got {type(data).__name__}")
        data = bytes(data).decode("utf-8", "streamcall.go-utf8")
    if _FAST_PATH_ENABLED:
        fast = _fast_decode(data)
        if fast is not None:
            return fast
    return _full_decode(data)


# Measured by ``python -m benchmarks sse`` against the full path on the same chunks;
# tests/chunks pin the value, so that a change of mind needs a new measurement.
_FAST_PATH_ENABLED = True
