"""FunctionGemma: ``<start_function_call>call:NAME{key:<escape>value<escape>}<end_function_call>``.

Grammar (google/functiongemma-270m-it; vLLM ``functiongemma``): Gemma 4's, with other
markup. The chat template writes strings between ``<escape>`` delimiters and numbers,
booleans, objects and arrays bare, exactly as Gemma 4 does with ``<|"|>``::

    text* ( '<start_function_call>' 'call:' NAME '{' members? '}' '<end_function_call>' text* )*
    members := member (','? member)* ','?               # the ',' between members may be
    member  := KEY ':' value                            #   left out (vLLM's tests do)
    value   := '<escape>' any-text '<escape>' | '{' members? '}' | '[' values? ']' | scalar

Modes, streaming and what is held back are Gemma 4's (``gemma4.py``): this class only sets
the markers. A bare scalar is held until its terminator; a ``<escape>`` string streams as
it arrives; ``<end_function_call>`` inside an ``<escape>`` string is content; an end
marker (or the end of the stream) reached with containers open closes them and ends the
call ``incomplete``; malformed markup closes a started call and the rest is text.
"""

from __future__ import annotations

from streamcall.formats.gemma4 import GemmaFourParser

__all__ = ["FunctionGemmaParser"]


class FunctionGemmaParser(GemmaFourParser):
    names = ("functiongemma",)
    family = "Google FunctionGemma (functiongemma-270m-it)"
    vllm_differences = (
        "Streams the arguments as JSON deltas while they are written (vLLM re-parses the "
        "whole argument string with a regex and diffs json.dumps each delta). An "
        "<escape>-quoted value stays a string: vLLM json.loads it, so '42' or a zip code "
        "'02134' turns into a number and 'true' into a boolean. Bare scalars, nested "
        "objects and arrays are typed as in Gemma 4 (vLLM's regex reads only "
        "<escape>-quoted values and drops the rest). Text after the calls is kept as "
        "content (vLLM's one-shot path returns only the text before them, stripped)."
    )

    START = "<start_function_call>"
    END = "<end_function_call>"
    QUOTE = "<escape>"
    IMPLIED_COMMA = True


FORMATS = (FunctionGemmaParser,)
