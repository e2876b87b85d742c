"""The file for ``vllm serve --tool-parser-plugin``: registers streamcall's parsers.

vLLM imports a plugin file under its base name, so this file must not be called
``vllm.py`` (that would shadow vLLM itself). Use it as::

    vllm serve MODEL --enable-auto-tool-choice \\
        --tool-parser-plugin "$(python -c 'import streamcall.integrations.streamcall_vllm_plugin as m; print(m.__file__)')" \\
        --tool-call-parser streamcall_hermes      # or streamcall (routes by model)

It holds no state; importing it registers the parsers once.
"""

from __future__ import annotations

from streamcall.integrations.vllm import register

REGISTERED = register()
