"""The ``hf`` format: a checkpoint's own response template, as vLLM's ``hf`` parser reads it.

``tool_parser("hf", template=T)`` is ``response_parser(T, tools=...)`` behind the tool
parser's interface: ``Text`` for the ``content`` field, ``Reasoning`` for a thinking field,
calls from ``tool_calls`` (docs/response-templates.md). ``T`` is anything
``load_response_template`` takes (a dict, a compiled template, a model directory, a
``tokenizer_config.json``). The name is not among ``formats()``: every other format reads
a fixed syntax, this one reads the template it is given, and fails without it.

``reasoning_parser("hf", template=T)`` reads only the thinking fields (``thinking``,
``reasoning_content``, ``reasoning``) out as ``Reasoning``, and releases everything else as
written, their delimiters dropped: the text a tool parser after it reads (``hf`` again, or
any format).

``beam`` (vLLM 0.34's parser for Beam checkpoints, ``vllm/parser/beam.py``) is the same
reading under another name: vLLM's ``BeamParser`` is its ``hf`` parser with a grammar derived
from the template added to the request (a sampling constraint: arguments sorted by name,
reasoning required unless ``enable_thinking`` is off), and parses the output exactly as
``hf`` does. streamcall does not constrain sampling, so ``tool_parser("beam", template=T)``
and ``reasoning_parser("beam", template=T)`` are ``hf``'s parsers of ``T``. Beam has no wire
syntax of its own to read without its checkpoint's template.

Neither name is registered through ``FORMATS`` or the reasoning table (``TEMPLATE_FORMATS``
lists them); ``registry.tool_parser`` and ``reasoning.reasoning_parser`` build them by name.
"""

from __future__ import annotations

from typing import Any, ClassVar

from streamcall.events import Event
from streamcall.formats.engines.base import ToolParser, Tools
from streamcall.reasoning.hf import HfReasoningParser
from streamcall.response_templates.spec import (
    MISSING_TEMPLATE,
    TEMPLATE_FORMATS,
    load_response_template,
)
from streamcall.response_templates.spec import (
    TEMPLATE_FORMAT as NAME,
)
from streamcall.response_templates.stream import ResponseStream

__all__ = ["NAME", "TEMPLATE_FORMATS", "HfReasoningParser", "HfToolParser"]


class HfToolParser(ToolParser):
    """A response template read as a stream (``ResponseStream``), as a tool parser."""

    names: ClassVar[tuple[str, ...]] = TEMPLATE_FORMATS
    family: ClassVar[str] = "a checkpoint's response_template (transformers, vLLM's hf)"

    def __init__(
        self,
        tools: Tools | None = None,
        *,
        id_prefix: str = "call_",
        template: Any = None,
        name: str = NAME,
    ) -> None:
        if template is None:
            raise ValueError(MISSING_TEMPLATE.format(name=name, api="tool_parser"))
        super().__init__(tools, id_prefix=id_prefix)
        self.template = load_response_template(template)
        self._stream = ResponseStream(self.template, tools=self.tools, id_prefix=id_prefix)

    # An adapter: the reading is ResponseStream's, with its own hold-back (a scan-ahead
    # opener keeps its chunks in a list, which FeedLoop's one tail does not allow).
    def feed(self, text: str) -> list[Event]:
        return self._stream.feed(text)

    def finish(self) -> list[Event]:
        return self._stream.finish()

    def message(self) -> dict[str, Any]:
        """``parse_response``'s dict for the text read (after ``finish``)."""
        return self._stream.message()
