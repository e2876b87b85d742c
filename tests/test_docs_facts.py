"""Numbers and names the docs state about the code, checked against the code: the count of
formats ``response_template_for`` writes, the Python path the docs give for the routing
table, and the install line of an extra (streamcall is installed from a clone)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from streamcall.formats.registry import formats
from streamcall.response_templates.export import UNEXPRESSIBLE, response_template_for

ROOT = Path(__file__).resolve().parents[1]


def _read(name: str) -> str:
    return " ".join((ROOT / name).read_text(encoding="utf-8").split())  # lines joined


def test_the_count_of_exported_response_templates() -> None:
    names = formats()
    written = [n for n in names if response_template_for(n) is not None]
    said = re.findall(r"writes one for (\d+) of the formats above", _read("README.md"))
    assert said == [str(len(written))], "README.md: the count of response_template_for"
    doc = _read("docs/response-templates.md")
    found = re.search(
        r"a response template for (\d+) of the (\d+) built-in tool-call formats .*? `None` "
        r"for the (\d+) it cannot give",
        doc,
    )
    assert found is not None
    assert found.groups() == (str(len(written)), str(len(names)), str(len(UNEXPRESSIBLE)))
    assert len(UNEXPRESSIBLE) == len(names) - len(written)


def test_the_python_paths_the_docs_name_are_reachable() -> None:
    # `streamcall.formats` is a function: the table is reached by importing from the module
    doc = _read("docs/formats.md")
    assert "`from streamcall.formats.registry import ROUTES`" in doc
    assert "`streamcall.formats.registry.ROUTES`" not in doc
    assert importlib.import_module("streamcall.formats.registry").ROUTES


def test_no_doc_installs_streamcall_from_an_index() -> None:
    # streamcall is not published: an extra is `pip install -e '.[NAME]'` in a clone
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"pip install +['\"]?streamcall\b", text), path.name
