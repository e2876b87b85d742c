"""The entry point SGLang loads from the group ``sglang.srt.plugins``: registers streamcall's
detectors (``integrations/sglang.py``).

``pyproject.toml`` declares ``streamcall = "streamcall.integrations.streamcall_sglang_plugin:load"``,
so installing streamcall into SGLang's environment is enough; SGLang's ``load_plugins()`` calls
``load()`` in every process before it reads its arguments. Then::

    sglang serve --model-path Qwen/Qwen3-8B --tool-call-parser streamcall_qwen3_xml \\
        --reasoning-parser streamcall_qwen3

``SGLANG_PLUGINS=streamcall`` restricts SGLang to this plugin. Importing this module does
nothing; ``load()`` is idempotent.
"""

from __future__ import annotations

from streamcall.integrations.sglang import register

__all__ = ["load"]


def load() -> None:
    """Register the detectors (SGLang ignores what a plugin returns)."""
    register()
