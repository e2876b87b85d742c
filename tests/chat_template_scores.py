"""``detect`` on the collected chat templates, scored against their manifest.

Each template in ``tests/fixtures/chat_templates/manifest.json`` is detected two ways:

- ``template``: the ``.jinja`` file alone (the fingerprints and nothing else), scored
  against ``tool_format`` / ``reasoning_format``;
- ``checkpoint``: a model directory holding the template in ``tokenizer_config.json``, with
  the model id as ``name_or_path`` (the manifest's ``model``) and as the directory's name
  (or the file's name where the manifest has no ``model``), scored against
  ``model_tool_format`` / ``model_reasoning_format`` where the manifest gives them, else
  the same values. This is what ``detect(model_dir)`` sees on a real checkpoint.

``unknown`` and ``none`` expect None. The report ends with each template derived by
rendering it with the fingerprint tables off (``streamcall.derive``): its layout, or why it
was refused. Run it as a report::

    python tests/chat_template_scores.py [tests/fixtures/chat_templates]

``tests/test_detect.py`` asserts the same outcomes, miss by miss.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from streamcall.detect import Detected, detect

ROOT = Path(__file__).parent / "fixtures" / "chat_templates"
MODES = ("template", "checkpoint")
FIELDS = ("tool", "reasoning")


@dataclass(frozen=True)
class Outcome:
    file: str
    source: str
    mode: str
    field: str
    expected: str | None
    got: str | None
    why: str

    @property
    def right(self) -> bool:
        return self.expected == self.got


def _expected(value: str) -> str | None:
    return None if value in ("unknown", "none") else value


def manifest(root: Path = ROOT) -> dict[str, Any]:
    value: dict[str, Any] = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    return value


def checkpoint_dir(entry: dict[str, Any], text: str, parent: Path) -> Path:
    """A model directory for this template, as a downloaded checkpoint has it."""
    model = entry.get("model")
    name = model.rsplit("/", 1)[-1] if model else Path(entry["file"]).stem
    directory = parent / entry["file"].replace("/", "__") / name
    directory.mkdir(parents=True)
    config: dict[str, Any] = {"chat_template": text}
    if model:
        config["name_or_path"] = model
    (directory / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return directory


def outcomes(root: Path = ROOT) -> list[Outcome]:
    out: list[Outcome] = []
    with tempfile.TemporaryDirectory() as tmp:
        for entry in manifest(root)["templates"]:
            path = root / entry["file"]
            source = entry["file"].split("/", 1)[0]
            text = path.read_bytes().decode("utf-8")
            found: dict[str, Detected] = {
                "template": detect(path),
                "checkpoint": detect(checkpoint_dir(entry, text, Path(tmp))),
            }
            expected = {
                "template": (entry["tool_format"], entry["reasoning_format"]),
                "checkpoint": (
                    entry.get("model_tool_format", entry["tool_format"]),
                    entry.get("model_reasoning_format", entry["reasoning_format"]),
                ),
            }
            for mode in MODES:
                d = found[mode]
                tool, reasoning = expected[mode]
                out.append(
                    Outcome(entry["file"], source, mode, "tool", _expected(tool), d.format, d.why)
                )
                out.append(
                    Outcome(
                        entry["file"],
                        source,
                        mode,
                        "reasoning",
                        _expected(reasoning),
                        d.reasoning,
                        d.why,
                    )
                )
    return out


def counts(results: list[Outcome]) -> dict[tuple[str, str, str], tuple[int, int]]:
    """(source or 'all', mode, field) -> (right, total)."""
    tally: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
    for r in results:
        for source in (r.source, "all"):
            cell = tally[(source, r.mode, r.field)]
            cell[0] += r.right
            cell[1] += 1
    return {k: (v[0], v[1]) for k, v in tally.items()}


def report(results: list[Outcome]) -> str:
    table = counts(results)
    sources = [*sorted({r.source for r in results}), "all"]
    lines = [
        "detect on the collected chat templates: right / total",
        "",
        f"{'source':<12} {'templates':>9}  {'template alone':^21}  {'checkpoint (+ model id)':^23}",
        f"{'':<12} {'':>9}  {'tool':>10} {'reasoning':>10}  {'tool':>11} {'reasoning':>11}",
    ]
    for source in sources:
        row = [table[(source, mode, field)] for mode in MODES for field in FIELDS]
        cells = [f"{right}/{total}" for right, total in row]
        lines.append(
            f"{source:<12} {row[0][1]:>9}  {cells[0]:>10} {cells[1]:>10}  {cells[2]:>11} {cells[3]:>11}"
        )
    misses = [r for r in results if not r.right]
    lines += ["", f"misses ({len(misses)}):"]
    for r in misses:
        lines.append(f"  {r.mode:<10} {r.field:<9} {r.file}: expected {r.expected}, got {r.got}")
        lines.append(f"      {r.why}")
    return "\n".join(lines) + "\n"


def derivation(root: Path = ROOT) -> str:
    """Each template derived with the fingerprint tables off (``detect_template(...,
    fingerprints=False)``): which layout, or why it was refused."""
    from streamcall.detect import detect_template

    rows: list[tuple[str, str]] = []
    for entry in manifest(root)["templates"]:
        text = (root / entry["file"]).read_bytes().decode("utf-8")
        d = detect_template(text, fingerprints=False).derived
        if d is not None and d.calls is not None:
            rows.append((entry["file"], f"derived: {d.calls.layout}"))
        elif d is not None and d.refusal is not None:
            rows.append((entry["file"], f"{d.refusal.kind}: {d.refusal.why}"))
    tally: dict[str, int] = defaultdict(int)
    for _, said in rows:
        tally[said.split(":", 1)[0]] += 1
    lines = [
        "",
        "derived by rendering, with the fingerprint tables off: "
        + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())),
    ]
    lines += [f"  {file}: {said}" for file, said in rows]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else ROOT
    sys.stdout.write(report(outcomes(root)))
    sys.stdout.write(derivation(root))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
