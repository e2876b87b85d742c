"""The chunk layer's results: ``ChunkDelta``, ``ToolCallFragment``, ``Usage``, ``ChunkError``.

``decode_chunk`` gives one ``ChunkDelta`` per chunk; the accumulator, the stream and the
proxy read them. Rules: immutable and slotted (``ChunkDelta`` is a NamedTuple because it
is built once per chunk on the hot path, where a frozen dataclass costs more to
construct); a field the server left out has its default; ``EMPTY`` is the delta of a
chunk that says nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from streamcall.events import usage_dict

__all__ = ["EMPTY", "ChunkDelta", "ChunkError", "ToolCallFragment", "Usage"]


class ChunkError(ValueError):
    """The chunk was rejected: its message says which field, and why."""


@dataclass(frozen=True, slots=True)
class ToolCallFragment:
    """One piece of a structured tool call, as the server sent it.

    ``index`` is the server's ``index``; when the server left it out, ``index_given`` is
    false and ``index`` is the fragment's position in ``tool_calls`` (the accumulator then
    matches the fragment by id, or continues the last call).
    """

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""
    type: str | None = None
    index_given: bool = True


@dataclass(frozen=True, slots=True)
class Usage:
    """Token usage, with everything else the server said about it.

    - ``prompt_tokens``, ``completion_tokens``, ``total_tokens``: the totals; a count the
      server left out is 0.
    - ``cached_tokens``, ``reasoning_tokens``: ``prompt_tokens_details.cached_tokens`` (or
      ``input_tokens_details.cached_tokens``) and ``completion_tokens_details.reasoning_tokens``
      read out as plain ints (0 when absent), for cost accounting without a lookup.
    - ``prompt_tokens_details``, ``completion_tokens_details``: those objects as the server
      sent them (``{"cached_tokens": 1920, "audio_tokens": 0}``), ``None`` when it sent
      none. Their known counts (``cached_tokens``, ``audio_tokens``, ``reasoning_tokens``,
      ``accepted_prediction_tokens``, ``rejected_prediction_tokens``) are checked to be
      integers; any other member is kept as sent, whatever its JSON value.
    - ``extra``: every other member of the usage object, as sent (``prompt_cache_hit_tokens``,
      ``input_tokens_details``, a provider's ``cost``, ...), ``None`` when there was none.

    The mappings are plain JSON values (dicts, lists, str, int, float, bool, None); treat
    them as read-only, they are shared with the events built from this usage. They take no
    part in the hash, so a ``Usage`` stays hashable; ``==`` compares them. ``to_dict()``
    gives the usage object back, as an OpenAI-compatible server would send it.
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    prompt_tokens_details: Mapping[str, Any] | None = field(default=None, hash=False)
    completion_tokens_details: Mapping[str, Any] | None = field(default=None, hash=False)
    extra: Mapping[str, Any] | None = field(default=None, hash=False)

    def to_dict(self) -> dict[str, Any]:
        """The usage object: totals, details, then the other members as sent."""
        return usage_dict(self)


class ChunkDelta(NamedTuple):
    """What one chunk says about one choice.

    The flat fields describe the chunk's first choice (``choice`` is its index); any
    further choices (``n > 1``) are in ``others``, one ``ChunkDelta`` each. ``usage`` is
    the chunk's, ``None`` when it carried no token totals. A NamedTuple, not a frozen
    dataclass, because it is built once per chunk on the hot path, where the frozen
    dataclass costs more to construct; it is just as immutable and slotted.
    """

    content: str = ""
    reasoning: str = ""
    tool_calls: tuple[ToolCallFragment, ...] = ()
    finish_reason: str | None = None
    done: bool = False
    usage: Usage | None = None
    choice: int = 0
    role: str | None = None
    others: tuple[ChunkDelta, ...] = ()


EMPTY = ChunkDelta()
