"""Assemble the held-out files of issue 37's kinds: tables, a log, markup,
genomes, machine code and binary records, 1-1.7 MB each, none of them in
the shared corpus or in scripts/heldout.py's set, for judging ratio ideas
on data they were not tuned on.

    python scripts/kinds_heldout.py OUT_DIR [--mirror DIR] [--wheels DIR]

Each file is one slice of a real file (offset and length below; text slices
end at a line end), checked against its SHA-256. The sources: two wheels
of this machine's package cache (--wheels, /opt/pypi/files by default),
read as zip files; system files of a Debian 12 machine; and four GitHub
repositories at pinned commits, read from snapshots that the `fetch` tool
brings under --mirror (/work/.mirror by default: `<owner>+<name>/repo`,
read with `git show`). A source that is missing or differs is skipped with
a note, so the set is whatever this machine can rebuild exactly.

- tbl_randhie.csv: the RAND Health Insurance Experiment's data (45 numeric
  columns, comma separated), statsmodels 0.15.0's randhie.csv, from 0;
- tbl_joback.tsv: Joback property estimates (CAS number and 14 numeric
  columns, tab separated, many empty), chemicals 1.5.2, from 0;
- log_apache.log: an Apache combined access log, elastic/examples;
- xml_mime.xml: the freedesktop shared-mime-info database (Debian's
  shared-mime-info 2.2-1);
- xml_chemsep.xml: the ChemSep 8.32 pure-component database, chemicals
  1.5.2;
- dna_mruminantium.fa: the genome of Methanobrevibacter ruminantium M1
  (FASTA, 80-column lines), GTDBTk's test data;
- dna_ecoli_o157.fa: the last 1.6 MB of E. coli O157:H7 Sakai's assembly
  (its chromosome's tail and two plasmids; FASTA), bakta's test data,
  gunzipped;
- elf_libpython311.bin, elf_gdb.bin: 1 MiB of x86-64 code from the .text
  of Debian's libpython3.11.so.1.0 and /usr/bin/gdb;
- rec_ip2location_db1.bin: 200,000 8-byte records (IPv4 range start, record
  offset) of IP2Location LITE DB1, from IP2Location-Python's data.

docs/bench/kinds-anchors.md has xz, zstd, lpaq1, PPMd and paq8px -8 on
each file.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import subprocess
import sys
import zipfile
from pathlib import Path

STATSMODELS = "statsmodels-0.15.0-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl"
CHEMICALS = "chemicals-1.5.2-py3-none-any.whl"
# name: (source, offset, length, the slice's sha256)
FILES = {
    "tbl_randhie.csv": (("wheel", STATSMODELS, "statsmodels/datasets/randhie/src/randhie.csv"),
                        0, 1_499_868,
                        "616cf153f06c6f1fabe4aed78de051b2ebc9f7ab6b28cd61a0f2ef1cbff08608"),
    "tbl_joback.tsv": (("wheel", CHEMICALS, "chemicals/Misc/joback_predictions.tsv"),
                       0, 1_699_913,
                       "f8e0757330b3e8325db56cf2442db95d32ce2c6e8ae405c624357abe4961b910"),
    "log_apache.log": (("git", "elastic+examples", "6d86454ebb7a850bcd7e80abe86fe683370018a6",
                        "Common Data Formats/apache_logs/apache_logs"), 0, 1_399_816,
                       "1f0687e28f413b861a810c907c5e53c0451685693b747f75c9f5185126d7d36b"),
    "xml_mime.xml": (("file", "/usr/share/mime/packages/freedesktop.org.xml"), 0, 1_499_978,
                     "71581fbbadbd2a38e64a4d304e2fa6d182861dbc93d6d8a5c38818bf220e9dea"),
    "xml_chemsep.xml": (("wheel", CHEMICALS, "chemicals/Misc/ChemSep8.32.xml"), 0, 1_599_975,
                        "f0922d98677f844e10263123ca83e95a9b99e7ce3a6b1b70ee931fa9c889b84d"),
    "dna_mruminantium.fa": (("git", "Ecogenomics+GTDBTk",
                             "f17decef1f9d9cf5b4d31fd21f5c9d32d813abdc",
                             "gtdbtk/tests/data/genomes/genome_1.fna"), 0, 1_499_941,
                            "59e2b67f311f437a5f036dcc541226443f359cbf99ce8071fcd9aac37ac2c8aa"),
    "dna_ecoli_o157.fa": (("git", "oschwengers+bakta",
                           "7ac663f78dd722a19be63b8da810ef03bad80346",
                           "test/data/GCF_000008865.2.fna.gz"), 4_064_812, 1_599_963,
                          "bc88f8e839ef58913241f75b8cd805a427517a6ddf63362237a7a5e257318c75"),
    "elf_libpython311.bin": (("file", "/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0"),
                             0x105000, 1 << 20,
                             "8589325f8940883028bfebce87912d1a258aa9e02e9149f65a981685294fea25"),
    "elf_gdb.bin": (("file", "/usr/bin/gdb"), 0x200000, 1 << 20,
                    "e2f6e0723d6f88265f0be5fe3d851f531392810d5be3fc02fb82fbd5eb86f4b5"),
    "rec_ip2location_db1.bin": (
        ("git", "chrislim2888+IP2Location-Python", "dbb2af0488b2865fc6a2106c8250460a292a7aaf",
         "data/IP2LOCATION-LITE-DB1.BIN"), 524_352, 1_600_000,
        "2c1b8317c92119309d7b8d99d723d7be3970db9b9e3d0c949b834b1230b61c81"),
}


def source_bytes(source: tuple, mirror: Path, wheels: Path) -> bytes:
    """The whole source file (OSError or CalledProcessError where missing)."""
    kind = source[0]
    if kind == "file":
        return Path(source[1]).read_bytes()
    if kind == "wheel":
        with zipfile.ZipFile(wheels / source[1]) as wheel:
            return wheel.read(source[2])
    _, repository, commit, path = source
    git = mirror / repository / "repo"
    data = subprocess.run(["git", f"--git-dir={git}", "show", f"{commit}:{path}"],
                          capture_output=True, check=True).stdout
    return gzip.decompress(data) if path.endswith(".gz") else data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--wheels", type=Path, default=Path("/opt/pypi/files"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    made = 0
    for name, (source, offset, length, digest) in FILES.items():
        try:
            data = source_bytes(source, args.mirror, args.wheels)
        except (OSError, KeyError, subprocess.CalledProcessError, zipfile.BadZipFile) as error:
            print(f"kinds_heldout: {name}: skipped, its source is missing ({error})",
                  file=sys.stderr)
            continue
        piece = data[offset:offset + length]
        if hashlib.sha256(piece).hexdigest() != digest:
            print(f"kinds_heldout: {name}: skipped, its source differs from the one pinned",
                  file=sys.stderr)
            continue
        (args.out / name).write_bytes(piece)
        made += 1
    print(f"{made} of {len(FILES)} files in {args.out}")
    return 0 if made else 1


if __name__ == "__main__":
    sys.exit(main())
