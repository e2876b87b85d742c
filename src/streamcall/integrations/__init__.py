"""Optional integrations with other servers. Nothing here is imported by the core, and
each integration imports its host (vLLM, ...) lazily, so these modules load without it.

- ``streamcall.integrations.vllm``: streamcall's parsers as vLLM tool parsers.
- ``streamcall_vllm_plugin.py``: the file to hand to ``vllm serve --tool-parser-plugin``.
"""
