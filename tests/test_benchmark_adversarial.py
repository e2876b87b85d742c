"""The adversarial benchmark's reasoning samples exercise each format's markup: a sample
that a parser read as plain text would time nothing but the text path."""

from __future__ import annotations

import pytest
from benchmarks.adversarial import reasoning_sample

from streamcall import testing
from streamcall.reasoning import reasoning_formats, reasoning_parser, reasoning_spec

#: formats that have no reasoning of their own to find in a sample
TEXT_ONLY = {"identity", "minimax_m2_append_think"}


@pytest.mark.parametrize("name", reasoning_formats())
def test_sample_holds_reasoning_then_text(name: str) -> None:
    sample = reasoning_sample(name)
    parser = reasoning_parser(name)
    items = testing.coalesce(parser.feed(sample) + parser.finish())
    kinds = [kind for kind, _ in items]
    if name in TEXT_ONLY:
        assert kinds == ["text"]
        return
    assert kinds[:2] == ["reasoning", "text"], items
    assert items[0][1].startswith("plan a, b.")
    spec = reasoning_spec(name)
    if spec is not None and spec.implicit_end:
        # the implicit end is confirmed: it (unless the format drops it from the text,
        # by its spec or as framing the parser alone drops: Inkling's <|message_model|>)
        # and the call after it are text
        marker = spec.implicit_end[0]
        dropped = marker in spec.text_drop or marker in getattr(parser, "FRAMES", ())
        kept = "" if dropped else marker
        assert any(items[1][1].startswith(kept + c) for c in ("{", "f<", "f\n<")), items
