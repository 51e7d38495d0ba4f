"""Write the golden archive that pins format v1: tests/golden/v1-tiny.fade.

Run once per format version (`python scripts/make_golden.py`); never
regenerate an existing version's file, since old archives must keep decoding.
"""

from pathlib import Path

import fade

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "golden"
# Made up here (not corpus data): text with repeats, so the model has something to learn.
INPUT = b"".join(b"fade golden archive, line %d: the quick brown fox jumps over the lazy dog\n"
                 % i for i in range(6))
SETTINGS = dict(preset_name="tiny", batch_size=4, threads=1, seed=0, device="cpu")


def main() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    (GOLDEN / "v1-tiny.input").write_bytes(INPUT)
    (GOLDEN / "v1-tiny.fade").write_bytes(fade.compress(INPUT, **SETTINGS))


if __name__ == "__main__":
    main()
