"""What fade.statistics.colour measures to choose green and differences,
and what the whole image gives, per colour image (PNM or BMP, 3 bytes a
pixel).

    PYTHONPATH=. python scripts/green_bands.py [--whole] FILE...

Prints per file the band's bytes coded as it is and as green and
differences (the default's image models, 45 and 49 since models 45 to 52:
fade.kinds.band_sizes), the choice (fade.kinds.colour_choice), and with --whole
the whole file coded with those models (fade.statistics.encode_file, in
this process).
"""

from __future__ import annotations

import argparse

import numpy as np

from fade import statistics
from fade.config import LEVELS
from fade.race import band_sizes
from fade.statistics.colour import GREEN_GAIN, green_layout


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="+")
    parser.add_argument("--whole", action="store_true", help="code the whole files both ways")
    args = parser.parse_args()
    default = LEVELS["default"].statistics
    print("| file | band as it is | band green | | chosen | whole as it is | whole green | |")
    print("|---|---:|---:|---:|---|---:|---:|---:|")
    for name in args.files:
        data = open(name, "rb").read()
        sizes = band_sizes(data, green_layout(np.frombuffer(data, dtype=np.uint8)))
        if sizes is None:
            print(f"| {name} | no colour image | | | | | | |")
            continue
        chosen = "green" if sizes[1] <= GREEN_GAIN * sizes[0] else "as it is"
        row = f"| {name} | {sizes[0]:,} | {sizes[1]:,} | {100 * (sizes[1] / sizes[0] - 1):+.2f}% " \
              f"| {chosen} |"
        if args.whole:
            whole = [len(statistics.encode_file(data, default.for_kind(kind).sized(len(data))))
                     for kind in ("image", "image-green")]
            row += f" {whole[0]:,} | {whole[1]:,} | {100 * (whole[1] / whole[0] - 1):+.2f}% |"
        else:
            row += " | | |"
        print(row)


if __name__ == "__main__":
    main()
