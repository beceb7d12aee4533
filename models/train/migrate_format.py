"""Rewrite .alsc files of format version 1 ... 4 as version 5 (models/FORMAT.md)
without touching a byte of their vocabularies or weights.

Version 5 changed what the CRC-32 covers (the whole file, with the crc32
field read as zero, instead of only the bytes after the header) and
tightened two header rules (language tags [a-z]{2,3}; trained_score_scale
within 0.001 ... 1000). So an old file needs only two header fields
rewritten: format_version and crc32. Before rewriting, the old file is
checked as its own version defined it (magic, version, header size, the
rules that version had for arch_flags and int8, the file length, the old
CRC over the bytes after the header), so damage is never blessed with a
fresh checksum; after, the new file is checked as version 5 by
alsc_to_torch.parse_header and the new CRC, and only bytes 8 ... 11 and
72 ... 75 may differ.

  /usr/bin/python3 models/train/migrate_format.py models/*.alsc models/snapshots/*.alsc \\
      [--manifest models/snapshots/en-fr-int8.json] [--fixture models/fixtures/en-fr.parity.json ...]

A version 5 file is left as it is (after checking its CRC). --manifest
rewrites the "bytes" and "sha256" a training-film manifest records for each
file it lists that was migrated; --fixture rewrites a parity fixture's
"format_version" (it records the version its model file was written in).
Exits 1 with a message for a file it cannot migrate; nothing is written for
that file.
"""
import argparse
import hashlib
import json
import os
import re
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import alsc_to_torch  # noqa: E402
import export  # noqa: E402

VERSION_OFFSET = 8
FLAGS_OFFSET = 92
# What versions 1 ... 4 allowed that 5 no longer tells apart: arch_flags bits
# (version 3 added bits 0-5, version 4 bit 6) and int8 weights (version 2).
OLD_KNOWN_FLAGS = {1: 0, 2: 0, 3: 0x3F, 4: 0x7F}
INT8_SINCE = 2


class MigrationError(ValueError):
    pass


def migrate_bytes(data):
    """Old .alsc bytes -> version 5 bytes (the same bytes for a version 5 file)."""
    data = bytes(data)
    if len(data) < export.HEADER_SIZE:
        raise MigrationError("too short to be an alignscope model")
    h = dict(zip(alsc_to_torch.HEADER_FIELDS, struct.unpack_from(export.HEADER_FORMAT, data)))
    if h["magic"] != alsc_to_torch.MAGIC:
        raise MigrationError("not an alignscope model file (wrong magic bytes)")
    version = h["format_version"]
    if version == export.FORMAT_VERSION:
        if export.file_crc32(data) != h["crc32"]:
            raise MigrationError("a version 5 file whose CRC-32 does not match: damaged")
        return data
    if version not in OLD_KNOWN_FLAGS:
        raise MigrationError(f"format version {version}: only versions 1 ... 4 can be migrated")
    if h["header_size"] != export.HEADER_SIZE:
        raise MigrationError("header_size is not 96")
    if h["arch_flags"] & ~OLD_KNOWN_FLAGS[version]:
        raise MigrationError(f"arch_flags {h['arch_flags']:#x} are not allowed in a version {version} file")
    if h["weight_type"] == export.WEIGHT_TYPES["int8"] and version < INT8_SINCE:
        raise MigrationError("int8 weights in a version 1 file")
    tensor_offset = (export.HEADER_SIZE + h["vocab_bytes"] + 3) & ~3
    if len(data) != tensor_offset + h["tensor_bytes"]:
        raise MigrationError("the file length does not match its header (truncated or has extra bytes)")
    if zlib.crc32(data[export.HEADER_SIZE:]) != h["crc32"]:
        raise MigrationError("the old CRC-32 (of the bytes after the header) does not match: damaged")
    out = bytearray(data)
    struct.pack_into("<I", out, VERSION_OFFSET, export.FORMAT_VERSION)
    out = export.with_file_crc(bytes(out))
    changed = [i for i in range(export.HEADER_SIZE) if out[i] != data[i]]
    assert all(VERSION_OFFSET <= i < VERSION_OFFSET + 4 or export.CRC_OFFSET <= i < export.CRC_OFFSET + 4
               for i in changed), changed
    assert out[export.HEADER_SIZE:] == data[export.HEADER_SIZE:]
    try:
        alsc_to_torch.parse_header(out)  # the version 5 rules: language tags, the score scale's range
    except alsc_to_torch.AlscError as e:
        raise MigrationError(f"{e} (version 5 is stricter here: re-export the model with models/train/export.py)")
    if export.file_crc32(out) != struct.unpack_from("<I", out, export.CRC_OFFSET)[0]:
        raise MigrationError("internal error: the new CRC does not verify")
    return out


def update_manifest(path, migrated):
    """Rewrites bytes and sha256 of every entry {"file", "bytes", "sha256"} in
    the JSON at path whose file (relative to the manifest) is in migrated."""
    with open(path, encoding="utf-8") as f:
        manifest = json.load(f)
    base = os.path.dirname(os.path.abspath(path))
    count = 0

    def visit(node):
        nonlocal count
        if isinstance(node, dict):
            target = node.get("file")
            if isinstance(target, str) and "sha256" in node:
                full = os.path.normpath(os.path.join(base, target))
                if full in migrated:
                    node["bytes"], node["sha256"] = migrated[full]
                    count += 1
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(manifest)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2)  # as snapshots.py writes it
        f.write("\n")
    print(f"{path}: {count} entries updated")


def update_fixture(path):
    """A parity fixture's "format_version" -> 5 (the rest of its text as it was)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    new, n = re.subn(r'"format_version":\s*[1-4]\b', f'"format_version":{export.FORMAT_VERSION}', text, count=1)
    if n:
        with open(path, "w", encoding="utf-8") as f:
            f.write(new)
    print(f"{path}: format_version {'updated' if n else 'already current'}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", help=".alsc files, rewritten in place")
    ap.add_argument("--manifest", action="append", default=[], help="a training-film manifest to update")
    ap.add_argument("--fixture", action="append", default=[], help="a parity fixture to update")
    args = ap.parse_args()
    migrated, failed = {}, 0
    for path in args.files:
        with open(path, "rb") as f:
            data = f.read()
        try:
            out = migrate_bytes(data)
        except MigrationError as e:
            print(f"migrate_format: {path}: {e}", file=sys.stderr)
            failed += 1
            continue
        if out != data:
            with open(path, "wb") as f:
                f.write(out)
            print(f"{path}: version {struct.unpack_from('<I', data, VERSION_OFFSET)[0]} -> "
                  f"{export.FORMAT_VERSION}, {len(out)} bytes, body unchanged")
        else:
            print(f"{path}: already version {export.FORMAT_VERSION}")
        migrated[os.path.normpath(os.path.abspath(path))] = (len(out), hashlib.sha256(out).hexdigest())
    for path in args.manifest:
        update_manifest(path, migrated)
    for path in args.fixture:
        update_fixture(path)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
