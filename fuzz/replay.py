"""Run saved failures again: ``python -m fuzz.replay [CRASHES_DIR]``.

Every ``*.input`` and ``*.min`` under the folder (one sub-folder per target) goes through its
target once more; each line says whether it still fails, and how. The exit status is 1
if one still fails; with no folder yet (no campaign has run here) there is nothing to
replay, and it is 0.
"""

from __future__ import annotations

import sys
from pathlib import Path

from fuzz.targets import failure_of, get_target, target_names

#: where ``python -m fuzz`` saves failures, beside each campaign's logs and summary (absent
#: until a campaign has run: a fresh clone has none)
CRASHES = Path(__file__).resolve().parent / "crashes"


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else CRASHES
    if not root.is_dir():
        if argv:
            print(f"python -m fuzz.replay: no such folder: {root}", file=sys.stderr)
            return 2
        # a fresh clone: no campaign has saved a failure yet
        print(f"nothing to replay: {root} does not exist (python -m fuzz writes failures there)")
        return 0
    by_slug = {name.replace(":", "-"): name for name in target_names()}
    failing = 0
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and p.name in by_slug):
        target = get_target(by_slug[folder.name])
        for path in sorted([*folder.glob("*.min"), *folder.glob("*.input")]):
            data = path.read_bytes()
            found = failure_of(target, data)
            text = data.decode("utf-8", "replace")
            status = "FAILS " + found[0] if found else "ok"
            failing += found is not None
            print(f"{folder.name:<28} {path.name:<20} {status[:90]:<90} {text[:70]!r}")
    print(f"{failing} still failing")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
