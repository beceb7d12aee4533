#!/usr/bin/python3
"""Build an English->LANG parallel corpus from Debian gettext catalogues.

Usage:
  /usr/bin/python3 models/train/corpus.py --lang fr
      [--packages models/train/packages.txt] [--cache models/train/cache]
      [--out models/train/data]

Each package listed in packages.txt (``name=version``; ``{lang}`` in a name is
replaced by the target language) is fetched with ``apt-get download`` into the
cache, its ``*/LANG/LC_MESSAGES/*.mo`` catalogues are extracted (cached too),
and every msgid (English) / msgstr (LANG) pair is cleaned, deduplicated and
split deterministically into train/dev/test by a hash of a normalised key.
Stdlib only; the output depends only on the package list and its versions.
"""

import argparse
import collections
import hashlib
import json
import os
import re
import struct
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MO_MAGIC = 0x950412DE
SPLIT_BUCKETS = {"test": range(0, 2), "dev": range(2, 4)}  # everything else: train
MAX_SOURCE_WORDS = 60
LENGTH_RATIO = 3
LENGTH_SLACK = 2

# Cleaning rules in the order they are applied; each one is counted in the stats.
DROP_RULES = (
    "undecodable",
    "empty_translation",
    "translator_credits",
    "multiline",
    "format_specifier",
    "markup",
    "no_letters",
    "code_or_identifier",
    "source_length",
    "length_ratio",
    "identical",
    "untranslated_english",
)

TRANSLATOR_CREDIT_IDS = {
    "NAME OF TRANSLATORS", "EMAIL OF TRANSLATORS", "Your names", "Your emails",
    "translator-credits", "translator_credits", "translator credits",
}

FORMAT_SPECIFIER = re.compile(
    r"%(?:\d+\$)?[-+#0']*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|ll|I64|[hlLqjzt])?[diouxXeEfFgGaAcspn%]"
    r"|%\([^)]*\)"            # python %(name)s
    r"|%L?\d"                 # Qt %1, %L1
    r"|%[A-Za-z_]+%"          # windows-style %NAME%
    r"|%[A-Z][A-Z_]+"         # LibreOffice %PRODUCTNAME
    r"|\{[\w.:!\[\]-]*\}"     # brace {0} {name} {}
    r"|\$(?:[A-Za-z_{(]|\d)"  # shell / LibreOffice $VAR ${VAR} $(ARG1) $1
    r"|#\{"                   # ruby interpolation
    r"|\\"                    # C escapes and LaTeX commands
)
LYX_ACCELERATOR = re.compile(r"\|[^|\s]{1,2}$")  # LyX 'Comment|C'
PAREN_ACCELERATOR = re.compile(r"\s*\([_&][^\W_]\)")
WORD_START_UNDERSCORE = re.compile(r"(?<!\w)_(?=[^\W_])")
UNDERSCORE_ACCELERATOR = re.compile(r"_(?=[^\W_])")
AMPERSAND_ACCELERATOR = re.compile(r"&(?=[^\W_])(?![A-Za-z]+;)")
MARKUP = re.compile(r"<[A-Za-z/!?][^>]*>|&(?:[A-Za-z]+|#\d+|#x[0-9A-Fa-f]+);|\|")  # tags, entities, filter lists
ODD_SPACES = re.compile("[\u00a0\u202f\u2009\u2007\t]")
SPACE_RUNS = re.compile(r"\s+")
GUILLEMET_INNER_SPACE = re.compile(r"«\s*|\s*»")
QUOTE_MAP = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201a": "'", "\u201c": '"',
                           "\u201d": '"', "\u201e": '"'})
ENGLISH_FUNCTION_WORDS = {
    "the", "and", "of", "you", "your", "is", "are", "this", "that", "with",
    "from", "which", "have", "been", "would", "should",
}
WORD = re.compile(r"[^\W\d_]+")
CODE_OR_IDENTIFIER = re.compile(r"^[^\sa-z]+$|\w_\w")  # 'DZ', 'FILE_NAME', 'a_b_c'


def parse_args():
    """Command line, with defaults relative to this file so it runs from anywhere."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lang", required=True, help="target language code, e.g. fr")
    parser.add_argument("--packages", default=os.path.join(HERE, "packages.txt"))
    parser.add_argument("--cache", default=os.path.join(HERE, "cache"))
    parser.add_argument("--out", default=os.path.join(HERE, "data"))
    parser.add_argument("--stats", default=None,
                        help="stats JSON path (default: models/train/corpus_stats.LANG.json)")
    return parser.parse_args()


def read_package_list(path, lang):
    """Pinned (name, version) pairs in file order; version None when unpinned."""
    packages = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            entry = line.split("#", 1)[0].strip()
            if not entry:
                continue
            name, _, version = entry.partition("=")
            packages.append((name.strip().replace("{lang}", lang), version.strip() or None))
    return packages


def cached_deb(deb_dir, name, version):
    """Path of the cached .deb for this package/version, or None; apt quotes ':' as %3a."""
    prefix = f"{name}_{version.replace(':', '%3a')}_" if version else f"{name}_"
    matches = sorted(f for f in os.listdir(deb_dir) if f.startswith(prefix) and f.endswith(".deb"))
    return os.path.join(deb_dir, matches[-1]) if matches else None


def fetch_deb(deb_dir, name, version):
    """Reuse the cached .deb or download it with apt-get; raises RuntimeError on failure."""
    path = cached_deb(deb_dir, name, version)
    if path:
        return path
    spec = f"{name}={version}" if version else name
    result = subprocess.run(
        ["apt-get", "download", "-q", "-o", "APT::Sandbox::User=root", spec],
        cwd=deb_dir, capture_output=True, text=True)
    path = cached_deb(deb_dir, name, version)
    if result.returncode != 0 or not path:
        message = (result.stderr.strip().splitlines() or ["unknown error"])[-1]
        raise RuntimeError(f"apt-get download {spec} failed: {message}")
    return path


def deb_version(deb_path):
    """The exact version recorded inside the .deb control file."""
    return subprocess.run(["dpkg-deb", "-f", deb_path, "Version"],
                          check=True, capture_output=True, text=True).stdout.strip()


def extract_catalogues(deb_path, target_dir, lang):
    """Extract */LANG/LC_MESSAGES/*.mo once into target_dir (flattened names); return their paths."""
    done_marker = os.path.join(target_dir, ".complete")
    if not os.path.exists(done_marker):
        os.makedirs(target_dir, exist_ok=True)
        member_pattern = re.compile(rf"(?:^|/){re.escape(lang)}/LC_MESSAGES/[^/]+\.mo$")
        with subprocess.Popen(["dpkg-deb", "--fsys-tarfile", deb_path],
                              stdout=subprocess.PIPE) as proc:
            with tarfile.open(fileobj=proc.stdout, mode="r|") as archive:
                for member in archive:
                    if member.isfile() and member_pattern.search(member.name):
                        flat_name = member.name.lstrip("./").replace("/", "__")
                        with open(os.path.join(target_dir, flat_name), "wb") as out:
                            out.write(archive.extractfile(member).read())
        if proc.returncode != 0:
            raise RuntimeError(f"dpkg-deb could not read {deb_path}")
        open(done_marker, "w").close()
    return sorted(os.path.join(target_dir, f) for f in os.listdir(target_dir) if f.endswith(".mo"))


def read_mo(path):
    """Parse a GNU .mo file into (msgid, msgstr) byte pairs plus its header charset."""
    with open(path, "rb") as handle:
        data = handle.read()
    for endian in ("<", ">"):
        if struct.unpack(endian + "I", data[:4])[0] == MO_MAGIC:
            break
    else:
        raise ValueError(f"{path}: not a gettext .mo file")
    _, _, count, ids_offset, strs_offset = struct.unpack(endian + "5I", data[:20])
    entries = []
    for index in range(count):
        id_len, id_pos = struct.unpack_from(endian + "2I", data, ids_offset + 8 * index)
        str_len, str_pos = struct.unpack_from(endian + "2I", data, strs_offset + 8 * index)
        entries.append((data[id_pos:id_pos + id_len], data[str_pos:str_pos + str_len]))
    charset = "utf-8"
    for msgid, msgstr in entries:
        if msgid == b"":
            found = re.search(rb"charset=([-\w]+)", msgstr)
            if found and found.group(1).upper() != b"CHARSET":
                charset = found.group(1).decode("ascii")
    return entries, charset


def catalogue_entries(path):
    """(english, translation) strings of one catalogue: context dropped, plural -> singular/first form."""
    raw, charset = read_mo(path)
    for msgid, msgstr in raw:
        if msgid == b"":
            continue  # header
        msgid = msgid.split(b"\x04", 1)[-1].split(b"\x00", 1)[0]
        msgstr = msgstr.split(b"\x00", 1)[0]
        try:
            yield msgid.decode(charset), msgstr.decode(charset)
        except (UnicodeDecodeError, LookupError):
            yield None, None


def strip_accelerators(text):
    """Remove keyboard accelerator markers: '(_F)', '_File', 'Ou_vrir', '&Open', 'Open|O'; Qt '&&' -> '&'."""
    text = PAREN_ACCELERATOR.sub("", LYX_ACCELERATOR.sub("", text))
    text = WORD_START_UNDERSCORE.sub("", text)
    if len(UNDERSCORE_ACCELERATOR.findall(text)) == 1:  # several mid-word '_' means an identifier
        text = UNDERSCORE_ACCELERATOR.sub("", text)
    text = AMPERSAND_ACCELERATOR.sub("", text.replace("&&", "\x00"), count=1)
    return text.replace("\x00", "&")


def normalise(text):
    """Uniform spaces and ASCII quotes/ellipsis so equal sentences compare equal."""
    text = ODD_SPACES.sub(" ", text).translate(QUOTE_MAP).replace("\u2026", "...")
    text = GUILLEMET_INNER_SPACE.sub(lambda m: '"', text)
    return SPACE_RUNS.sub(" ", text).strip()


def clean_pair(source, target):
    """Return (rule_name, None) if the pair is dropped, else (None, (source, target)) cleaned."""
    if source is None:
        return "undecodable", None
    if not target.strip():
        return "empty_translation", None
    if source.strip() in TRANSLATOR_CREDIT_IDS:
        return "translator_credits", None
    if "\n" in source or "\n" in target or "\r" in source or "\r" in target:
        return "multiline", None
    if "|" in source and "|" not in target:
        source = source.split("|", 1)[1]  # old gettext Q_() 'qualifier|text' msgids
    if FORMAT_SPECIFIER.search(source) or FORMAT_SPECIFIER.search(target):
        return "format_specifier", None
    source, target = strip_accelerators(source), strip_accelerators(target)
    if MARKUP.search(source) or MARKUP.search(target):
        return "markup", None
    source, target = normalise(source), normalise(target)
    if not WORD.search(source):
        return "no_letters", None
    if CODE_OR_IDENTIFIER.search(source):
        return "code_or_identifier", None
    source_words, target_words = len(source.split()), len(target.split())
    if not 1 <= source_words <= MAX_SOURCE_WORDS:
        return "source_length", None
    if (target_words > LENGTH_RATIO * source_words + LENGTH_SLACK
            or source_words > LENGTH_RATIO * target_words + LENGTH_SLACK):
        return "length_ratio", None
    if source.casefold() == target.casefold():
        return "identical", None
    if len(ENGLISH_FUNCTION_WORDS.intersection(target.lower().split())) >= 2:
        return "untranslated_english", None
    return None, (source, target)


def split_key(source):
    """Lowercased alphanumerics only, so near-duplicates like 'Open File…'/'open file' share a split."""
    return "".join(ch for ch in source.lower() if ch.isalnum())


def split_of(key):
    """Hash bucket -> split name; never depends on input order."""
    bucket = int(hashlib.sha1(key.encode("utf-8")).hexdigest(), 16) % 100
    for name, buckets in SPLIT_BUCKETS.items():
        if bucket in buckets:
            return name
    return "train"


def choose_translations(translation_counts):
    """One translation per source: most frequent, ties broken by the lexicographically smallest."""
    return {source: min(counts.items(), key=lambda item: (-item[1], item[0]))[0]
            for source, counts in translation_counts.items()}


def write_splits(pairs, out_dir):
    """Write train/dev/test TSVs sorted by split key; verify no key crosses splits."""
    os.makedirs(out_dir, exist_ok=True)
    splits = {"train": [], "dev": [], "test": []}
    split_by_key = {}
    for source, target in pairs.items():
        key = split_key(source)
        name = split_of(key)
        if split_by_key.setdefault(key, name) != name:
            raise AssertionError(f"split key {key!r} in two splits")
        splits[name].append((key, source, target))
    for name, rows in splits.items():
        rows.sort()
        with open(os.path.join(out_dir, f"{name}.tsv"), "w", encoding="utf-8", newline="\n") as handle:
            handle.writelines(f"{source}\t{target}\n" for _, source, target in rows)
    return {name: len(rows) for name, rows in splits.items()}


def build(args):
    """Fetch, extract, clean, dedupe and split; returns the stats dictionary."""
    deb_dir = os.path.join(args.cache, "debs")
    os.makedirs(deb_dir, exist_ok=True)
    drops = collections.Counter({rule: 0 for rule in DROP_RULES})
    translation_counts = collections.defaultdict(collections.Counter)
    package_stats, failures = {}, {}
    for name, pinned_version in read_package_list(args.packages, args.lang):
        try:
            deb_path = fetch_deb(deb_dir, name, pinned_version)
            version = deb_version(deb_path)
            catalogues = extract_catalogues(
                deb_path, os.path.join(args.cache, "mo", f"{name}_{version}", args.lang), args.lang)
        except (RuntimeError, subprocess.CalledProcessError, tarfile.TarError) as error:
            print(f"ERROR {name}: {error}", file=sys.stderr)
            failures[name] = str(error)
            continue
        raw_entries = kept = new_sources = 0
        for catalogue in catalogues:
            for source, target in catalogue_entries(catalogue):
                raw_entries += 1
                rule, pair = clean_pair(source, target)
                if rule:
                    drops[rule] += 1
                    continue
                kept += 1
                new_sources += pair[0] not in translation_counts
                translation_counts[pair[0]][pair[1]] += 1
        package_stats[name] = {"version": version, "catalogues": len(catalogues),
                               "raw_entries": raw_entries, "pairs_kept": kept,
                               "new_sources": new_sources}
    pairs = choose_translations(translation_counts)
    split_sizes = write_splits(pairs, os.path.join(args.out, f"en-{args.lang}"))
    total_kept = sum(p["pairs_kept"] for p in package_stats.values())
    return {
        "lang": args.lang,
        "packages": package_stats,
        "failed_packages": failures,
        "raw_entries": sum(p["raw_entries"] for p in package_stats.values()),
        "dropped": dict(drops),
        "pairs_after_cleaning": total_kept,
        "dropped_duplicate_source": total_kept - len(pairs),
        "splits": split_sizes,
        "total": len(pairs),
    }


def print_summary(stats, seconds):
    """Short human summary: totals, splits, top contributors and failures."""
    print(f"en-{stats['lang']}: {stats['total']} pairs from {len(stats['packages'])} packages "
          f"({stats['raw_entries']} raw entries) in {seconds:.0f}s")
    print("splits:", ", ".join(f"{k}={v}" for k, v in stats["splits"].items()))
    print("dropped:", ", ".join(f"{k}={v}" for k, v in stats["dropped"].items()),
          f"duplicate_source={stats['dropped_duplicate_source']}")
    top = sorted(stats["packages"].items(), key=lambda item: -item[1]["new_sources"])[:10]
    print("top packages (new sources):", ", ".join(f"{n}={p['new_sources']}" for n, p in top))
    if stats["failed_packages"]:
        print("FAILED:", ", ".join(sorted(stats["failed_packages"])), file=sys.stderr)


def main():
    """Build the corpus, write the stats JSON, exit non-zero if any package failed."""
    args = parse_args()
    started = time.monotonic()
    stats = build(args)
    stats_path = args.stats or os.path.join(HERE, f"corpus_stats.{args.lang}.json")
    with open(stats_path, "w", encoding="utf-8") as handle:
        json.dump(stats, handle, indent=1, ensure_ascii=False, sort_keys=False)
        handle.write("\n")
    print_summary(stats, time.monotonic() - started)
    return 1 if stats["failed_packages"] else 0


if __name__ == "__main__":
    sys.exit(main())
