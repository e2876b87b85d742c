"""Hugging Face response templates: read a checkpoint's declared output format.

transformers (5.13 and later) reads a declarative ``response_template`` from a checkpoint's
``tokenizer_config.json``; its ``parse_response`` turns a model's raw output into the
assistant message ``{role, content, thinking, tool_calls}``. This package reads the same
spec (version 1), as transformers 5.24 and 5.25 read it:

- ``compiled``: the compiled, frozen template (``Anchor``, ``Field``, ``ResponseTemplate``);
- ``spec``: validation, compilation and loading (``load_response_template``);
- ``content``: the content parsers and transforms a region's body goes through;
- ``tooltypes``: tool-call arguments typed by the request's tools;
- ``versions``: the rules of transformers 5.24 and 5.25 (``transformers_version=``);
- ``control``: token-tagged text, where a control token spelled out is text (5.25's
  reading of token ids; ``control_tokens=``);
- ``oneshot``: ``parse_response``, the drop-in for transformers' one;
- ``stream``: ``response_parser``, the same reading as a stream of streamcall's events, with
  ``watch`` (one anchor's search) and ``field_events`` (what each field's text becomes);
- ``export``: response templates for streamcall's own formats (``response_template_for``),
  built from the shapes in ``export_shapes``.

docs/response-templates.md is the user's guide, with the differences from transformers.
"""

from __future__ import annotations

from streamcall.response_templates.export import response_template_for
from streamcall.response_templates.oneshot import parse_response
from streamcall.response_templates.spec import (
    Anchor,
    Field,
    ResponseTemplate,
    compile_template,
    load_response_template,
)
from streamcall.response_templates.stream import ResponseStream, response_parser

__all__ = [
    "Anchor",
    "Field",
    "ResponseStream",
    "ResponseTemplate",
    "compile_template",
    "load_response_template",
    "parse_response",
    "response_parser",
    "response_template_for",
]
