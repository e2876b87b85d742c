"""Olmo 3: ``<function_calls>f(a=1)\\ng(b=null)</function_calls>``.

Grammar (allenai Olmo-3 Instruct/Think; vLLM ``olmo3``)::

    text* ( '<function_calls>' call ('\\n' call)* '</function_calls>' text* )*
    call := NAME '(' (IDENT '=' literal (',' IDENT '=' literal)*)? ')'

One call per line, no brackets (a ``[`` ... ``]`` around them is accepted too). Literals
are Python's, and JSON's ``true``/``false``/``null`` are accepted as well (as in every
pythonic format). The block
grammar, the modes and what is held back are the pythonic engine's (``engines/py_calls.py``), the
arguments and their JSON conversion ``streamcall.text.pyargs``'s; this class sets the
markers. A block with no call in it is
text; whitespace between blocks is markup.
"""

from __future__ import annotations

from typing import Any

from streamcall.formats.engines.py_calls import PythonicCallsParser, py_call

__all__ = ["OlmoThreeParser"]


class OlmoThreeParser(PythonicCallsParser):
    names = ("olmo3",)
    family = "AllenAI Olmo 3 Instruct/Think"
    vllm_differences = (
        "Streams the arguments as JSON deltas while they are written with an incremental "
        "literal scanner (vLLM ast.parses the repaired block on every delta). Compact JSON. "
        "A call with a value vLLM cannot convert (b'z', 1e999) is kept instead of dropped. "
        "Positional arguments are named from the schema, or '_0', '_1', ... Text around "
        "the <function_calls> block is kept as content (vLLM returns none once a call is "
        "made)."
    )
    START = ("<function_calls>",)
    END = "</function_calls>"

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "<function_calls>" + "\n".join(py_call(n, a) for n, a in calls) + "</function_calls>"


FORMATS = (OlmoThreeParser,)
