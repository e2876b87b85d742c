"""Collect every format's own test strings into tests/fixtures/response_templates/format_texts.json.

    python tests/reference/harvest_format_texts.py [--records FILE]
    python tests/reference/harvest_format_texts.py [--records FILE] --add [TEST...]
    python tests/reference/harvest_format_texts.py --markdown

Runs tests/formats under pytest with ``parse_tool_calls`` wrapped, recording every text
(with its format and tools) that a test reads one-shot: the strings of streamcall's
format tests, many of them ported from vLLM, SGLang and llama.cpp (each test file names
its sources). Texts a hypothesis test generates (a test that read more than three
different texts) are left out; a property test over one fixed text keeps it. Each text is
then classified against the format's exported response template (``rt_formats.classify``)
and written with its category, so that tests/response_templates/test_rt_export.py can
check that every text still reads the same way. ``--records FILE`` reuses the records of
an earlier run (the run takes about 15 minutes) and writes them to FILE otherwise.
``--add [TEST...]`` runs only those tests (paths, node ids or other pytest arguments such
as ``-k``; all of tests/formats when none are named, or the records of ``--records FILE``
when it exists) and adds the texts of the exported formats the fixture does not have yet,
leaving every other entry, its category and the tool lists' indices as they are (new tool
lists go at the end of the list): a new format's texts without rewriting the others. ``--markdown`` prints the per-format table of
docs/response-templates.md from the fixture.
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))

OUT = TESTS / "fixtures" / "response_templates" / "format_texts.json"
MAX_GENERATED = 3
# test_incomplete_rule cuts rendered outputs at every position; one cut in CUT_STEP is kept.
CUT_STEP = 10


class Recorder:
    """A pytest plugin: every ``parse_tool_calls`` call of the session."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self.test = ""

    def pytest_configure(self, config: Any) -> None:
        import streamcall
        from streamcall.formats import registry

        original = registry.parse_tool_calls

        def recording(text: str, format: str | None = None, **kwargs: Any) -> Any:
            fmt = format
            if fmt is None and kwargs.get("model") is not None:
                fmt = registry.format_for_model(kwargs["model"])
            tools = kwargs.get("tools")
            try:
                json.dumps(tools)
            except TypeError:
                tools = "unserialisable"
            self.records.append({"format": fmt, "text": text, "tools": tools, "test": self.test})
            return original(text, format, **kwargs)

        registry.parse_tool_calls = recording  # type: ignore[assignment]
        streamcall.parse_tool_calls = recording  # type: ignore[assignment]

    def pytest_runtest_setup(self, item: Any) -> None:
        self.test = item.nodeid


def record(tests: list[str] | None = None) -> list[dict[str, Any]]:
    import pytest

    recorder = Recorder()
    pytest.main(
        [*(tests or [str(TESTS / "formats")]), "-q", "-p", "no:randomly", "-p", "no:cacheprovider"],
        plugins=[recorder],
    )
    return recorder.records


def records_of(tests: list[str] | None, records_file: Path | None) -> list[dict[str, Any]]:
    """The records of ``records_file`` when it exists, else of a run of ``tests`` (all of
    tests/formats by default), written to ``records_file`` when one is named."""
    if records_file is not None and records_file.exists():
        records: list[dict[str, Any]] = json.loads(records_file.read_text(encoding="utf-8"))
        return records
    records = record(tests)
    if records_file is not None:
        records_file.write_text(json.dumps(records), encoding="utf-8")
    return records


def add(tests: list[str], records_file: Path | None = None) -> int:
    """``--add``: the texts of exported formats the fixture lacks, from these tests only."""
    from rt_formats import classify
    from streamcall.response_templates.export import EXPORTED

    data = json.loads(OUT.read_text(encoding="utf-8"))
    tool_lists: list[Any] = data["tools"]
    added = 0
    for fmt, entries in select(records_of(tests or None, records_file)).items():
        if fmt not in EXPORTED or fmt in data["formats"]:
            continue
        for entry in entries:
            entry["category"] = classify(fmt, entry["text"], entry["tools"])[0]
            if entry["tools"] is not None:
                if entry["tools"] not in tool_lists:
                    tool_lists.append(entry["tools"])
                entry["tools"] = tool_lists.index(entry["tools"])
        data["formats"][fmt] = entries
        added += len(entries)
        print(fmt, dict(collections.Counter(e["category"] for e in entries)))
    data["formats"] = dict(sorted(data["formats"].items()))
    OUT.write_text(_dump(data), encoding="utf-8")
    print(f"added {added} texts to {OUT}")
    return 0


def select(records: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Each format's distinct (text, tools), fixed-text tests only."""
    texts_by_test: dict[str, set[str]] = collections.defaultdict(set)
    for r in records:
        texts_by_test[r["test"]].add(r["text"])
    out: dict[str, dict[tuple[str, str], dict[str, Any]]] = collections.defaultdict(dict)
    for r in records:
        if r["format"] is None or r["tools"] == "unserialisable":
            continue
        if (
            len(texts_by_test[r["test"]]) > MAX_GENERATED
            and "test_incomplete_rule" not in r["test"]
        ):
            continue
        key = (r["text"], json.dumps(r["tools"], sort_keys=True))
        out[r["format"]].setdefault(
            key, {"text": r["text"], "tools": r["tools"], "test": r["test"].split("[")[0]}
        )
    selected = {}
    for fmt, entries in sorted(out.items()):
        cuts = [e for e in entries.values() if "test_incomplete_rule" in e["test"]]
        kept = [e for e in entries.values() if "test_incomplete_rule" not in e["test"]]
        selected[fmt] = kept + cuts[::CUT_STEP]
    return selected


def _dump(data: dict[str, Any]) -> str:
    """One text a line, so that a change to the fixture reads as a diff of its texts."""
    lines = ["{", f'"source": {json.dumps(data["source"])},', '"tools": [']
    lists = [json.dumps(t, ensure_ascii=False, sort_keys=True) for t in data["tools"]]
    lines += [row + ("," if j < len(lists) - 1 else "") for j, row in enumerate(lists)]
    lines += ["],", '"formats": {']
    formats = list(data["formats"].items())
    for i, (fmt, entries) in enumerate(formats):
        lines.append(f"{json.dumps(fmt)}: [")
        rows = [json.dumps(e, ensure_ascii=False, sort_keys=True) for e in entries]
        lines += [row + ("," if j < len(rows) - 1 else "") for j, row in enumerate(rows)]
        lines.append("]" + ("," if i < len(formats) - 1 else ""))
    lines += ["}", "}"]
    return "\n".join(lines) + "\n"


def markdown() -> str:
    """The per-format table of docs/response-templates.md, from the committed fixture."""
    from rt_formats import CATEGORIES
    from streamcall.response_templates.export import EXPORTED, UNEXPRESSIBLE

    data = json.loads(OUT.read_text(encoding="utf-8"))["formats"]
    head = ["format", "texts", *CATEGORIES, "what the template does not read as streamcall does"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for fmt in sorted(EXPORTED):
        counts = collections.Counter(e["category"] for e in data.get(fmt, []))
        cells = [f"`{fmt}`", str(sum(counts.values())), *(str(counts[c]) for c in CATEGORIES)]
        lines.append("| " + " | ".join([*cells, EXPORTED[fmt].limits.replace("|", "\\|")]) + " |")
    lines += ["", "| format | why the spec cannot express it |", "|---|---|"]
    lines += [f"| `{fmt}` | {why} |" for fmt, why in sorted(UNEXPRESSIBLE.items())]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if "--markdown" in argv:
        sys.stdout.write(markdown())
        return 0
    records_file = None
    if "--records" in argv:
        i = argv.index("--records")
        records_file = Path(argv[i + 1])
        argv = argv[:i] + argv[i + 2 :]
    if "--add" in argv:
        return add(argv[argv.index("--add") + 1 :], records_file)
    from rt_formats import classify
    from streamcall.response_templates.export import EXPORTED

    selected = select(records_of(None, records_file))
    counts: dict[str, collections.Counter[str]] = {}
    for fmt, entries in selected.items():
        if fmt not in EXPORTED:
            continue
        for entry in entries:
            entry["category"] = classify(fmt, entry["text"], entry["tools"])[0]
        counts[fmt] = collections.Counter(e["category"] for e in entries)
    tool_lists: list[Any] = []
    for entries in selected.values():
        for entry in entries:
            if entry["tools"] is not None:
                if entry["tools"] not in tool_lists:
                    tool_lists.append(entry["tools"])
                entry["tools"] = tool_lists.index(entry["tools"])
    data = {
        "tools": tool_lists,
        "source": (
            "The one-shot texts of streamcall's tests/formats, recorded by "
            "tests/reference/harvest_format_texts.py; upstream attributions are in those test files."
        ),
        "formats": {fmt: entries for fmt, entries in selected.items() if fmt in EXPORTED},
    }
    OUT.write_text(_dump(data), encoding="utf-8")
    for fmt, c in counts.items():
        print(fmt, dict(c))
    print(f"wrote {OUT} ({sum(len(v) for v in data['formats'].values())} texts)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
