"""A response template's thinking fields read as a stream: the ``hf`` (and ``beam``)
reasoning format.

Grammar: the checkpoint's ``response_template`` (``response_templates/spec.py``), read by
``ResponseStream`` with ``reasoning_only``: its thinking fields are ``Reasoning``, the rest
is released as ``Text`` with its delimiters dropped (the text a tool parser after it
reads). What it holds back is ``ResponseStream``'s: a possible opener or closer at the end
of the buffer. Built by ``reasoning_parser("hf", template=...)``; the tool side is
``formats/hf.py``.
"""

from __future__ import annotations

from typing import Any

from streamcall.events import Event
from streamcall.reasoning._engine import ReasoningParser
from streamcall.response_templates.spec import (
    MISSING_TEMPLATE,
    TEMPLATE_FORMAT,
    load_response_template,
)
from streamcall.response_templates.stream import ResponseStream

__all__ = ["HfReasoningParser"]


class HfReasoningParser(ReasoningParser):
    """A response template's thinking fields read as a stream, the rest released as text."""

    def __init__(self, template: Any = None, *, name: str = TEMPLATE_FORMAT) -> None:
        if template is None:
            raise ValueError(MISSING_TEMPLATE.format(name=name, api="reasoning_parser"))
        super().__init__(name)
        self.template = load_response_template(template)
        self._stream = ResponseStream(self.template, reasoning_only=True)

    @property
    def in_reasoning(self) -> bool:
        return self._stream.in_reasoning

    def feed(self, text: str) -> list[Event]:
        return self._stream.feed(text)

    def finish(self) -> list[Event]:
        return self._stream.finish()
