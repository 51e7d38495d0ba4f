"""Write the golden archives that pin the current format version.

    python scripts/make_golden.py

Writes tests/golden/v<VERSION>-tiny.fade (learned) and v<VERSION>-stored.fade
(compact), each beside the input it encodes. Run once per format version and
never regenerate an older version's files: old archives must keep decoding.
"""

from pathlib import Path

import fade
from fade.archive import VERSION

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "golden"
# Made up here (not corpus data): text with repeats, so the model has something to learn.
INPUT = b"".join(b"fade golden archive, line %d: the quick brown fox jumps over the lazy dog\n"
                 % i for i in range(6))
SETTINGS = dict(preset_name="tiny", batch_size=4, threads=1, seed=0, device="cpu")
ARCHIVES = {"tiny": dict(SETTINGS, method="fade"), "stored": dict(method="stored")}


def main() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for name, settings in ARCHIVES.items():
        stem = GOLDEN / f"v{VERSION}-{name}"
        stem.with_suffix(".input").write_bytes(INPUT)
        stem.with_suffix(".fade").write_bytes(fade.compress(INPUT, **settings))


if __name__ == "__main__":
    main()
