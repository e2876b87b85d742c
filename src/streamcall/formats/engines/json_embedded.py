"""The JSON-call engine embedded in another engine: a block of JSON calls inside another
format's markup (a ``<tool_call>`` with a JSON body among XML calls, a pythonic format's
JSON body, Inkling's tool body, the generic JSON reader's calls).

The host engine recognises the block's opener itself and hands the rest of the block to a
``JsonCallsParser`` of its own: it opens the block (``JsonCallsParser._open_block``, with
the markup read so far), then passes it the text with ``read_embedded_block`` until the
block ends (``_block_open`` turns False) or the stream does (``end_embedded_block``).
Call indices and ids are the host's: both engines count the same calls.

What it holds back: what the JSON engine holds (its module header); the host holds it as
its own tail.
"""

from __future__ import annotations

from streamcall.events import Event
from streamcall.formats.engines.base import ToolParser
from streamcall.formats.engines.json_calls import TEXT, JsonCallsParser
from streamcall.text import Step

__all__ = ["end_embedded_block", "read_embedded_block"]


def read_embedded_block(
    block: JsonCallsParser, host: ToolParser, buf: str, pos: int, out: list[Event], final: bool
) -> Step:
    """Read a block opened by ``block._open_block`` for ``host``, until the block ends or
    text must be held; ``block._block_open`` says which. A block that ends after holding
    calls ends the host's block too (the host's gap rule follows it, with the blanks the
    block read after its calls)."""
    block._calls = host._calls
    block._ids = host._ids
    steps = block._steps
    n = len(buf)
    hold = False
    while pos < n and block._mode != TEXT:
        pos, hold = steps[block._mode](buf, pos, out, final)
        if hold:
            break
    host._calls = block._calls
    if not hold and block._mode == TEXT and block._gap is not None:
        host._block_ended()
        assert host._gap is not None
        host._gap.extend(block._gap)  # the blanks the block read after its calls
    return pos, hold


def end_embedded_block(
    block: JsonCallsParser, host: ToolParser, rest: str, out: list[Event]
) -> None:
    """The end of the stream inside a block ``read_embedded_block`` reads for ``host``:
    the block's end of stream on ``rest`` (what was held), the call count shared with the
    host."""
    block._calls = host._calls
    block._end_of_stream(rest, out)
    host._calls = block._calls
