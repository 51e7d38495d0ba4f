"""The archive format in bytes (docs/format.md is its specification).

- `headers`: what an archive says: the header dataclasses, the field tables
  of the current version, the codes of their enumerated fields;
- `archive`: a single archive packed and unpacked, every field checked;
- `legacy`: what versions 1 to 7 lack, so they still decode;
- `container`: the frames container (head, records, index, footer);
- `binary`: the struct, CRC-32 and read helpers they share.

Nothing here codes data: the modules above it (fade.single, fade.frames)
fill and read the payloads.
"""
