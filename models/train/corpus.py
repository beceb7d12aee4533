#!/usr/bin/python3
"""Build an English->LANG parallel corpus from human translations that Debian ships.

Usage:
  /usr/bin/python3 models/train/corpus.py --lang fr
      [--packages models/train/packages.txt] [--sources models/train/sources.txt]
      [--cache ~/.cache/alignscope/corpus-cache] [--out models/train/data]
      [--pack FILE.tar.xz] [--stats OUT/en-LANG/corpus_stats.json]

Two lists say what goes in, each pair tagged with a domain:
- packages.txt: software-interface catalogues (domain "ui"). Each package
  (``name=version``; ``{lang}`` in a name is replaced by the target language)
  is fetched with ``apt-get download`` into the cache and its
  ``*/LANG/LC_MESSAGES/*.mo`` catalogues are extracted (cached too).
- sources.txt: sentence-level sources (games' dialogue, manuals, package
  descriptions; extra_sources.py reads the ones that are not gettext), and the
  held-out general-domain sources.

Every msgid (English) / msgstr (LANG) entry is split into sentences, cleaned,
deduplicated and split deterministically into train/dev/test by a hash of a
normalised key (dev and test are today's "ui" held-out sets, plus the other
domains' pairs that hash there). The held-out sources become general_dev.tsv
and general_test.tsv, and every pair whose key occurs in them is dropped from
the other splits. Our own test sentences (models/testsets/: the teacher's set
and the everyday sentences, read by testsets.py) are dropped from every split,
and counted. Rows are ``english<TAB>translation<TAB>domain<TAB>source``.
Stdlib only; the output depends only on the lists and the package versions.
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
DEFAULT_CACHE = os.path.join(os.path.expanduser("~"), ".cache", "alignscope", "corpus-cache")
MO_MAGIC = 0x950412DE
SPLIT_BUCKETS = {"test": range(0, 2), "dev": range(2, 4)}  # everything else: train
# The held-out general-domain sources: a fifth of their keys is the dev set.
GENERAL_DEV_BUCKETS = range(0, 20)
DOMAINS = ("ui", "dialogue", "docs", "descriptions", "bible", "dict_sentences", "dictionary")  # tie order
# Dictionary entries (dictionary_sources.py) only add vocabulary: a source that
# another domain already has keeps that domain's translation, and they are
# trained on, never dev or test (the dev and test sets stay those of the
# sentence sources, so a run with them compares with one without).
DICTIONARY_DOMAINS = ("dict_sentences", "dictionary")
# Trained on only, never dev or test: the dictionaries, and the Bible (on trial,
# bible_sources.py): the dev and test sets stay those of the sentence sources,
# so a run with either compares with one without.
TRAIN_ONLY_DOMAINS = DICTIONARY_DOMAINS + ("bible",)
HELDOUT = "heldout"
# Catalogue folders read for a language, in order of preference: the plain
# code, else the country variant (cataclysm-dda-data has es_ES and es_AR, no es).
LANGUAGE_FOLDERS = {"fr": ("fr", "fr_FR"), "de": ("de", "de_DE"), "es": ("es", "es_ES")}
MAX_SOURCE_WORDS = 60
SEGMENT_RATIO_SLACK = 1.5
# The general test measures sentences: held-out entries of fewer words (unit
# names, menu items) are left out of it.
MIN_HELDOUT_WORDS = 3
LENGTH_RATIO = 3
LENGTH_SLACK = 2

# Cleaning rules in the order they are applied; each one is counted in the stats.
DROP_RULES = (
    "undecodable",
    "empty_translation",
    "translator_credits",
    "sentence_count_mismatch",
    "multiline",
    "format_specifier",
    "markup",
    "no_letters",
    "code_or_identifier",
    "source_length",
    "length_ratio",
    "identical",
    "untranslated_english",
    "dictionary_known_source",
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
WESNOTH_QUALIFIER = re.compile(r"^[a-z_ ]{1,30}\^")  # 'female^Hello': gettext context Wesnoth's way
# A sentence ends at . ! ? … (and a closing quote or bracket) before a space
# and a capital, a digit or an opening quote. Used only to pair multi-sentence
# entries whose two sides have the same number of sentences.
SENTENCE_BREAK = re.compile(
    r"(?:(?<=[.!?\u2026])|(?<=[.!?\u2026][\"\u00bb\u201d\u2019')\]]))\s+"
    r"(?=[\"\u00ab\u201c\u201e\u00bf\u00a1(]?\s?[A-Z\u00c0-\u00de0-9])")
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
    parser.add_argument("--sources", default=os.path.join(HERE, "sources.txt"))
    parser.add_argument("--cache", default=DEFAULT_CACHE, help="downloads and extracts (outside the work tree)")
    parser.add_argument("--out", default=os.path.join(HERE, "data"))
    parser.add_argument("--pack", default=None,
                        help="also write the corpus folder as one .tar.xz (to train on another machine)")
    parser.add_argument("--stats", default=None,
                        help="stats JSON path (default: OUT/en-LANG/corpus_stats.json, beside the corpus; "
                             "./build.sh model copies it to models/train/corpus_stats.LANG.json when it exports)")
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


def read_source_list(path, lang=None):
    """(domain, source) pairs in file order: source is a (name, version) package or '@extractor'.
    A third column lists the target languages a source is for ('de' or 'fr,es'); with
    `lang`, sources for other languages are left out."""
    sources = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            entry = line.split("#", 1)[0].split()
            if not entry:
                continue
            if len(entry) not in (2, 3) or entry[0] not in DOMAINS + (HELDOUT,):
                raise ValueError(f"{path}:{number}: expected 'DOMAIN SOURCE [LANGS]' with DOMAIN one of "
                                 f"{', '.join(DOMAINS + (HELDOUT,))}, got {line.strip()!r}")
            domain, source = entry[:2]
            if lang is not None and len(entry) == 3 and lang not in entry[2].split(","):
                continue  # a source for other languages only
            if source.startswith("@"):
                sources.append((domain, source))
            else:
                name, _, version = source.partition("=")
                sources.append((domain, (name, version or None)))
    return sources


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
    """Extract */FOLDER/LC_MESSAGES/*.mo once into target_dir (flattened names), FOLDER one of
    LANGUAGE_FOLDERS[lang]; return the paths, one per catalogue: a catalogue that exists in
    several folders (es and es_ES) is read from the first folder of the list only."""
    done_marker = os.path.join(target_dir, ".complete")
    folders = LANGUAGE_FOLDERS.get(lang, (lang,))
    if not os.path.exists(done_marker):
        os.makedirs(target_dir, exist_ok=True)
        alternatives = "|".join(re.escape(folder) for folder in folders)
        member_pattern = re.compile(rf"(?:^|/)(?:{alternatives})/LC_MESSAGES/[^/]+\.mo$")
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
    return preferred_catalogues(sorted(f for f in os.listdir(target_dir) if f.endswith(".mo")), folders, target_dir)


def preferred_catalogues(flat_names, folders, target_dir):
    """Flattened member names -> paths, keeping for each catalogue (its path with the language
    folder taken out) only the copy in the earliest folder of `folders`."""
    best = {}
    for flat_name in flat_names:
        parts = flat_name.split("__")
        where = next((i for i in range(len(parts) - 1, -1, -1) if parts[i] in folders), None)
        if where is None:
            continue
        catalogue = "__".join(parts[:where] + ["*"] + parts[where + 1:])
        rank = folders.index(parts[where])
        if catalogue not in best or rank < best[catalogue][0]:
            best[catalogue] = (rank, flat_name)
    return sorted(os.path.join(target_dir, name) for _, name in best.values())


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
    """Uniform spaces, ASCII apostrophes and double quotes, ... for the ellipsis, so equal
    sentences compare equal. French guillemets stay (the model learns to write them), with
    one plain space inside: « x »."""
    text = ODD_SPACES.sub(" ", text).translate(QUOTE_MAP).replace("\u2026", "...")
    text = GUILLEMET_INNER_SPACE.sub(lambda m: "« " if m.group(0).startswith("«") else " »", text)
    return SPACE_RUNS.sub(" ", text).strip()


def sentences(text):
    """An entry's sentences: its non-empty lines, each split at SENTENCE_BREAK."""
    out = []
    for line in text.replace("\r", "\n").split("\n"):
        line = ODD_SPACES.sub(" ", line).strip()
        if line:
            out.extend(part for part in SENTENCE_BREAK.split(line) if part.strip())
    return out


def segment_pairs(source, target):
    """An entry -> (rule, None) if it cannot be paired, else (None, [(source, target), ...]).

    One sentence (or several on one line whose counts differ, which a translator may
    join or split): the entry itself. Several lines or sentences with the same count on
    both sides: one pair per sentence. Several lines with different counts: dropped."""
    if source is None:
        return "undecodable", None
    source_parts, target_parts = sentences(source), sentences(target)
    if len(source_parts) == len(target_parts) and len(source_parts) > 1:
        # Equal counts can still pair the wrong sentences (a translator who moved
        # one, an abbreviation's full stop): each pair's length ratio must stay
        # near the entry's, as in length-based sentence alignment.
        overall = len(target) / max(len(source), 1)
        for part_source, part_target in zip(source_parts, target_parts):
            ratio = len(part_target) / max(len(part_source), 1)
            if not overall / SEGMENT_RATIO_SLACK <= ratio <= overall * SEGMENT_RATIO_SLACK:
                return "sentence_count_mismatch", None
        return None, list(zip(source_parts, target_parts))
    if "\n" in source.strip() or "\n" in target.strip():
        return "sentence_count_mismatch", None
    return None, [(source.strip(), target.strip())]


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
    qualifier = WESNOTH_QUALIFIER.match(source)
    if qualifier:
        source = source[qualifier.end():]
        if target.startswith(qualifier.group(0)):
            target = target[qualifier.end():]
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


class PairCollector:
    """Every kept (source, translation) with where it came from, for one role
    (training material or held-out). Deduplicates by source text."""

    def __init__(self):
        self.translations = collections.defaultdict(collections.Counter)
        self.domains = collections.defaultdict(collections.Counter)
        self.origins = {}

    def add(self, source, target, domain, origin):
        """Counts one occurrence; returns True if the source was new."""
        new = source not in self.translations
        self.translations[source][target] += 1
        self.domains[source][domain] += 1
        self.origins.setdefault(source, origin)
        return new

    def rows(self):
        """{source: (translation, domain, origin)}: the most frequent translation, the domain
        the source occurs in most (ties in DOMAINS order), the first source it came from."""
        chosen = choose_translations(self.translations)
        order = {d: i for i, d in enumerate(DOMAINS + (HELDOUT,))}
        return {source: (chosen[source],
                         min(self.domains[source].items(), key=lambda item: (-item[1], order[item[0]]))[0],
                         self.origins[source])
                for source in chosen}


def write_tsv(path, rows):
    """rows: (key, source, target, domain, origin), written sorted by key."""
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.writelines(f"{source}\t{target}\t{domain}\t{origin}\n"
                          for _, source, target, domain, origin in sorted(rows))


def write_splits(pairs, out_dir, heldout=None, ours=None):
    """Write train/dev/test (hash split) and general_dev/general_test (the held-out
    sources) TSVs; verify that no key crosses splits. pairs / heldout:
    {source: (translation, domain, origin)} (a bare translation string is read as
    domain 'ui'). A pair whose key is also held out is dropped: returns its count
    as 'dropped_heldout_key'. A pair whose English is one of our own test
    sentences (ours: testsets.english_key set; default: models/testsets/'s
    teacher and everyday sentences) is dropped from every split, never trained
    on: returns its count as 'dropped_our_testsets'."""
    import testsets  # noqa: E402 (stdlib only, next to this file)
    os.makedirs(out_dir, exist_ok=True)
    heldout = heldout or {}
    ours = testsets.held_out_keys() if ours is None else ours
    splits = {"train": [], "dev": [], "test": [], "general_dev": [], "general_test": []}
    split_by_key = {}
    for source, row in heldout.items():
        if len(source.split()) < MIN_HELDOUT_WORDS:
            continue
        key = split_key(source)
        bucket = int(hashlib.sha1(key.encode("utf-8")).hexdigest(), 16) % 100
        name = "general_dev" if bucket in GENERAL_DEV_BUCKETS else "general_test"
        if split_by_key.setdefault(key, name) != name:
            raise AssertionError(f"split key {key!r} in two splits")
        splits[name].append((key, source, *row))
    dropped = dropped_dictionary = dropped_ours = 0
    for source, row in pairs.items():
        if isinstance(row, str):
            row = (row, "ui", "")
        if testsets.english_key(source) in ours:
            dropped_ours += 1
            continue
        key = split_key(source)
        if split_by_key.get(key, "").startswith("general_"):
            dropped += 1
            continue
        name = split_of(key)
        if row[1] in TRAIN_ONLY_DOMAINS and name != "train":  # counted as dropped_dictionary_not_train
            dropped_dictionary += 1
            continue
        if split_by_key.setdefault(key, name) != name:
            raise AssertionError(f"split key {key!r} in two splits")
        splits[name].append((key, source, *row))
    for name, rows in splits.items():
        write_tsv(os.path.join(out_dir, f"{name}.tsv"), rows)
    sizes = {name: len(rows) for name, rows in splits.items()}
    sizes["dropped_heldout_key"] = dropped
    sizes["dropped_dictionary_not_train"] = dropped_dictionary
    sizes["dropped_our_testsets"] = dropped_ours
    by_domain = collections.Counter((name, row[3]) for name, rows in splits.items() for row in rows)
    return sizes, {f"{name}/{domain}": count for (name, domain), count in sorted(by_domain.items())}


def collect(entries, domain, origin, collector, drops):
    """Split, clean and add one catalogue's (or extractor's) entries; -> (raw, kept, new)."""
    raw_entries = kept = new_sources = 0
    for source, target in entries:
        raw_entries += 1
        rule, segments = segment_pairs(source, target)
        if rule:
            drops[rule] += 1
            continue
        for segment_source, segment_target in segments:
            rule, pair = clean_pair(segment_source, segment_target)
            if rule:
                drops[rule] += 1
                continue
            if domain in DICTIONARY_DOMAINS and pair[0] in collector.translations:
                drops["dictionary_known_source"] += 1
                continue
            kept += 1
            new_sources += collector.add(pair[0], pair[1], domain, origin)
    return raw_entries, kept, new_sources


def gettext_entries(args, deb_dir, name, pinned_version):
    """-> (version, number of catalogues, iterator over (msgid, msgstr)) of one package."""
    deb_path = fetch_deb(deb_dir, name, pinned_version)
    version = deb_version(deb_path)
    catalogues = extract_catalogues(
        deb_path, os.path.join(args.cache, "mo", f"{name}_{version}", args.lang), args.lang)
    entries = (entry for catalogue in catalogues for entry in catalogue_entries(catalogue))
    return version, len(catalogues), entries


def build(args):
    """Fetch, extract, split, clean, dedupe and split; returns the stats dictionary."""
    import extra_sources  # noqa: E402 (stdlib only, next to this file)
    import dictionary_sources  # noqa: E402 (the same)
    import bible_sources  # noqa: E402 (the same)
    deb_dir = os.path.join(args.cache, "debs")
    os.makedirs(deb_dir, exist_ok=True)
    drops = collections.Counter({rule: 0 for rule in DROP_RULES})
    training, heldout = PairCollector(), PairCollector()
    package_stats, failures = {}, {}
    work = [("ui", package) for package in read_package_list(args.packages, args.lang)]
    work += read_source_list(args.sources, args.lang)
    for domain, source in work:
        collector = heldout if domain == HELDOUT else training
        try:
            if isinstance(source, str):  # '@name': an extractor of extra_sources.py
                name = source[1:]
                extractor = {"descriptions": extra_sources.description_pairs,
                             "libreoffice-help": extra_sources.libreoffice_help_pairs,
                             "gimp-help": extra_sources.gimp_help_pairs,
                             "sword-bible": bible_sources.sword_bible_pairs,
                             **dictionary_sources.EXTRACTORS}.get(name)
                if extractor is None:
                    raise RuntimeError(f"no extractor '{name}' in extra_sources.py")
                entries, info = extractor(args.lang, args.cache)
                stats = {"extractor": name, **info}
            else:
                name, pinned_version = source
                version, catalogues, entries = gettext_entries(args, deb_dir, name, pinned_version)
                stats = {"version": version, "catalogues": catalogues}
        except (RuntimeError, OSError, subprocess.CalledProcessError, tarfile.TarError) as error:
            print(f"ERROR {source}: {error}", file=sys.stderr)
            failures[name] = str(error)
            continue
        raw_entries, kept, new_sources = collect(entries, domain, name, collector, drops)
        package_stats[name] = {"domain": domain, **stats, "raw_entries": raw_entries,
                               "pairs_kept": kept, "new_sources": new_sources}
    split_sizes, by_domain = write_splits(training.rows(), os.path.join(args.out, f"en-{args.lang}"),
                                          heldout.rows())
    total_kept = sum(p["pairs_kept"] for p in package_stats.values())
    domain_totals = collections.Counter()
    for p in package_stats.values():
        domain_totals[p["domain"]] += p["new_sources"]
    return {
        "lang": args.lang,
        "packages": package_stats,
        "failed_packages": failures,
        "raw_entries": sum(p["raw_entries"] for p in package_stats.values()),
        "dropped": dict(drops),
        "pairs_after_cleaning": total_kept,
        "dropped_duplicate_source": total_kept - len(training.translations) - len(heldout.translations),
        "new_sources_by_domain": dict(domain_totals),
        "splits": split_sizes,
        "splits_by_domain": by_domain,
        "total": sum(v for k, v in split_sizes.items() if not k.startswith("dropped_")),
    }


def pack(folder, path):
    """The corpus folder as one .tar.xz with fixed metadata (same bytes for the same corpus)."""
    def fixed(info):
        info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
        return info
    with tarfile.open(path, "w:xz") as archive:
        for name in sorted(os.listdir(folder)):
            archive.add(os.path.join(folder, name), arcname=f"{os.path.basename(folder)}/{name}", filter=fixed)


def print_summary(stats, seconds):
    """Short human summary: totals, splits, top contributors and failures."""
    print(f"en-{stats['lang']}: {stats['total']} pairs from {len(stats['packages'])} packages "
          f"({stats['raw_entries']} raw entries) in {seconds:.0f}s")
    print("splits:", ", ".join(f"{k}={v}" for k, v in stats["splits"].items()))
    print("by domain:", ", ".join(f"{k}={v}" for k, v in stats["splits_by_domain"].items()))
    print("dropped:", ", ".join(f"{k}={v}" for k, v in stats["dropped"].items()),
          f"duplicate_source={stats['dropped_duplicate_source']}")
    top = sorted(stats["packages"].items(), key=lambda item: -item[1]["new_sources"])[:10]
    print("top packages (new sources):", ", ".join(f"{n}={p['new_sources']}" for n, p in top))
    if stats["failed_packages"]:
        print("FAILED:", ", ".join(sorted(stats["failed_packages"])), file=sys.stderr)


def main():
    """Build the corpus, write the stats JSON, exit non-zero if any package failed or nothing is left to train on."""
    args = parse_args()
    started = time.monotonic()
    stats = build(args)
    # Beside the corpus, not in the tracked models/train/corpus_stats.LANG.json:
    # a resumed training rebuilds the corpus, and the tracked copy must keep
    # describing the corpus of the model that is shipped until the next export.
    stats_path = args.stats or os.path.join(args.out, f"en-{args.lang}", "corpus_stats.json")
    with open(stats_path, "w", encoding="utf-8") as handle:
        json.dump(stats, handle, indent=1, ensure_ascii=False, sort_keys=False)
        handle.write("\n")
    print_summary(stats, time.monotonic() - started)
    if not stats["splits"].get("train") or not stats["splits"].get("dev"):
        # Training would otherwise start on an empty file and fail far from the cause.
        print(f"ERROR en-{args.lang}: the corpus has {stats['splits'].get('train', 0)} training and "
              f"{stats['splits'].get('dev', 0)} dev pairs; check {args.packages} and {args.sources} "
              f"(counts in {stats_path})", file=sys.stderr)
        return 1
    if args.pack:
        pack(os.path.join(args.out, f"en-{args.lang}"), args.pack)
        print(f"packed {args.pack}: {os.path.getsize(args.pack)} bytes")
    return 1 if stats["failed_packages"] else 0


if __name__ == "__main__":
    sys.exit(main())
