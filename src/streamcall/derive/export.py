"""A derived syntax as a Hugging Face response template: ``response_template(derived)``.

The shapes are ``response_templates.export_shapes``'s, the ones the built-in formats are
exported with (``hermes`` is ``json_tagged``, ``granite`` ``json_list``, ``lfm2``
``calls_list``, ``qwen3_coder`` and ``glm45`` ``tagged_params``, ``deepseek_v31``
``header_json``), filled with the markers found. The start anchor is what the template's
generation prompt writes after a user's turn and after a tool's result alike (its
assistant header), without a reasoning opener it pre-fills (that belongs to the output,
which the anchor's remainder hands on); with reasoning markers, a pattern that takes a
pre-filled closer too (thinking off), and the markers become a ``thinking`` field.

None where the spec's shapes do not express the syntax: JSON calls with other key names
than the shapes take (a key holding the model's call id is left unread, or the name as the
key), JSON objects in a block with no list, JSON calls with no marker (bare at the output's
start), Python calls with no block markers, Gemma 4's form (the built-in ``gemma4`` export
is its own), a header with a fence, a header that writes a call id or index beside the name
(``CallSyntax.header``; Kimi K3's ``index="{index}"`` after the name too), tagged
parameters with a type flag (DSML's ``string="false"`` makes a value JSON, which no shape's
field says) or a type attribute (Kimi K3's ``type="number"``: the value's type is the
model's word, which no shape's field reads).
"""

from __future__ import annotations

from typing import Any

from streamcall.derive.calls import CallSyntax
from streamcall.derive.probes import marker_after
from streamcall.response_templates.export_shapes import (
    CONTENT_FIELD,
    Exported,
    calls_list,
    esc,
    header_json,
    json_list,
    json_tagged,
    tagged_params,
)

__all__ = ["response_template"]


def response_template(
    calls: CallSyntax, start: str, reasoning: tuple[str, str] | None
) -> dict[str, Any] | None:
    """The response template for ``calls`` after the anchor ``start`` (module docstring)."""
    if not start:
        return None
    exported = _shape(calls, start)
    if exported is None:
        return None
    template = dict(exported.template)
    if reasoning is not None:
        fields = dict(template["fields"])
        fields["thinking"] = {**CONTENT_FIELD, "open": reasoning[0], "close": reasoning[1]}
        template["fields"] = fields
        # a prompt that closes reasoning (thinking off: ``</think>`` pre-filled) ends the
        # anchor there; one that opens it leaves the opener to the output's thinking field
        del template["start_anchor"]
        template["start_anchor_pattern"] = f"{esc(start)}(?:\\s*{esc(reasoning[1])})?"
    return template


def _shape(c: CallSyntax, start: str) -> Exported | None:
    (block_open, block_close), (call_open, call_close) = c.block, c.call
    if c.layout == "json":
        if c.name_as_key or not (block_open or call_open):
            return None
        if c.listed and block_open and not call_open:
            return json_list(start, block_open, block_close or None, c.name_key, c.args_key)
        if call_open and call_close and not block_open and c.name_key == "name":
            return json_tagged(start, call_open, call_close, c.args_key)
        return None
    if c.layout == "pythonic":
        return calls_list(start, block_open, block_close) if block_open and block_close else None
    if c.layout == "header_json":
        if not (call_open and call_close and c.name_end) or c.args_suffix or any(c.header):
            return None
        if marker_after(call_close) != call_close:  # a fence's end before the closer
            return None
        section = ((block_open,), block_close) if block_open and block_close else None
        if section is None:
            return None
        opener = esc(call_open) + r"(?P<name>[^<\n]+?)" + esc(c.name_end)
        return header_json(start, section, opener, esc(call_close), (block_open, call_open))
    if c.layout == "xml_params":
        if c.type_flag[1] or c.type_attr[0] or any(c.header):
            return None
        return _tagged(c, start)
    return None


def _tagged(c: CallSyntax, start: str) -> Exported | None:
    (block_open, block_close), (call_open, call_close) = c.block, c.call
    popen, mid, pclose = c.param
    name = r"(?P<name>[^<>\n\"]+)" + esc(c.name_end) if c.name_end else r"(?P<name>[^<\n]+)\n?"
    newline = r"\n?" if c.value_newlines else ""
    param = (
        esc(popen)
        + r"(?P<key>[^<>\n\"]+)"
        + r"\s*".join(esc(part) for part in mid.split())
        + newline
        + r"(?P<value>.*?)"
        + newline
        + esc(pclose)
    )
    if c.each:
        # a marker around each call (Qwen's <tool_call> around <function=...>)
        wrapped = esc(block_open) + r"\s*" + esc(call_open) + name
        closer = esc(call_close) + r"\s*" + esc(block_close)
        return tagged_params(start, wrapped, closer, esc(block_open), param, markers=(block_open,))
    section = ((block_open,), block_close) if block_open and block_close else None
    if block_open and section is None:
        return None
    return tagged_params(
        start,
        esc(call_open) + name,
        esc(call_close),
        esc(call_open),
        param,
        section=section,
        markers=(block_open or call_open, call_open),
    )
