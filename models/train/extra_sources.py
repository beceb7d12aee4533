#!/usr/bin/python3
"""Extra English->LANG parallel text from human translations shipped by Debian.

Three sources, each returning ``(pairs, info)``:

* ``description_pairs(lang, cache_dir)``: apt's translated package descriptions
  (``Translation-en`` / ``Translation-LANG`` of bookworm), paired by
  ``Description-md5``; short descriptions together, long descriptions paragraph
  by paragraph when both sides have the same number of paragraphs.
* ``libreoffice_help_pairs(lang, cache_dir)``: the HTML help of LibreOffice
  (``libreoffice-help-en-us`` / ``libreoffice-help-LANG``), paragraphs paired by
  file path + ``par_id``/``hd_id`` element id.
* ``gimp_help_pairs(lang, cache_dir)``: the GIMP manual
  (``gimp-help-en`` / ``gimp-help-LANG``), block elements paired by position
  on pages whose block-tag sequence is identical in both languages.

``pairs`` is a deterministic list of ``(english, translation)`` plain-text
paragraphs (markup removed, entities decoded, whitespace collapsed); pairs with
an empty side or an untranslated (identical) translation are dropped, and exact
duplicates are kept once (first occurrence).  ``info`` is a JSON-able dict of
package versions and raw counts.  Failures raise ``RuntimeError``.

Downloads and extractions are cached under ``cache_dir`` (``debs/``,
``extract/``, ``apt/``).  The parsing of already-extracted files is done by
``parse_description_files``, ``pair_libreoffice_trees`` and ``pair_gimp_trees``,
which need no apt (see tests/support/extra_sources_check.py).

Stdlib only.  Command line (for a quick look):
  /usr/bin/python3 models/train/extra_sources.py --lang fr [--source desc|lo|gimp]
"""

import bz2
import gzip
import hashlib
import html.parser
import lzma
import os
import re
import subprocess
import tarfile

DEFAULT_CACHE = os.path.expanduser("~/.cache/alignscope/corpus-cache")
SUITE = "bookworm"
APT_MIRROR = "http://deb.debian.org/debian"
APT_COMPONENTS = ("main", "contrib", "non-free")
DESCRIPTION_LANGS = ("en", "fr", "de", "es")

_SPACES = re.compile(r"\s+")


def clean_text(text):
    """Collapse all (unicode) whitespace to single spaces and strip."""
    return _SPACES.sub(" ", text).strip()


def _finish_pairs(candidates, stats):
    """Drop empty / untranslated / duplicate pairs, keeping first-occurrence order."""
    pairs, seen = [], set()
    for english, translation in candidates:
        english, translation = clean_text(english), clean_text(translation)
        if not english or not translation:
            stats["dropped_empty"] = stats.get("dropped_empty", 0) + 1
            continue
        if english == translation:
            stats["dropped_identical"] = stats.get("dropped_identical", 0) + 1
            continue
        if (english, translation) in seen:
            stats["dropped_duplicate"] = stats.get("dropped_duplicate", 0) + 1
            continue
        seen.add((english, translation))
        pairs.append((english, translation))
    stats["pairs"] = len(pairs)
    return pairs


# --------------------------------------------------------------------------
# Fetching and extracting packages
# --------------------------------------------------------------------------

def _cached_deb(deb_dir, name):
    prefix = f"{name}_"
    matches = sorted(f for f in os.listdir(deb_dir) if f.startswith(prefix) and f.endswith(".deb"))
    return os.path.join(deb_dir, matches[-1]) if matches else None


def fetch_deb(name, cache_dir):
    """Path of the cached .deb of package `name`, downloading it with apt-get if needed."""
    deb_dir = os.path.join(cache_dir, "debs")
    os.makedirs(deb_dir, exist_ok=True)
    path = _cached_deb(deb_dir, name)
    if path:
        return path
    try:
        result = subprocess.run(
            ["apt-get", "download", "-q", "-o", "APT::Sandbox::User=root", name],
            cwd=deb_dir, capture_output=True, text=True)
    except OSError as error:
        raise RuntimeError(f"apt-get download {name} failed: {error}") from error
    path = _cached_deb(deb_dir, name)
    if result.returncode != 0 or not path:
        message = (result.stderr.strip().splitlines() or ["unknown error"])[-1]
        raise RuntimeError(f"apt-get download {name} failed: {message}")
    return path


def deb_version(deb_path):
    """The exact version recorded in the .deb control file."""
    result = subprocess.run(["dpkg-deb", "-f", deb_path, "Version"], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"dpkg-deb -f {deb_path} failed: {result.stderr.strip()}")
    return result.stdout.strip()


def extract_tree(deb_path, cache_dir, prefix, suffixes=(".html",)):
    """Extract the deb's files under `prefix` ending in `suffixes`, once; return the local root.

    The returned directory corresponds to `prefix` (e.g. usr/share/gimp/2.0/help/en/).
    """
    prefix = prefix.strip("/") + "/"
    target = os.path.join(cache_dir, "extract", os.path.basename(deb_path)[:-4])
    root = os.path.join(target, prefix)
    marker = os.path.join(target, ".complete")
    if os.path.exists(marker):
        return root
    os.makedirs(target, exist_ok=True)
    count = 0
    try:
        with subprocess.Popen(["dpkg-deb", "--fsys-tarfile", deb_path], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE) as proc:
            with tarfile.open(fileobj=proc.stdout, mode="r|") as archive:
                for member in archive:
                    name = member.name.lstrip("./")
                    if not (member.isfile() and name.startswith(prefix) and name.endswith(suffixes)):
                        continue
                    parts = name.split("/")
                    if ".." in parts:
                        continue
                    data = archive.extractfile(member).read()
                    out_path = os.path.join(target, *parts)
                    os.makedirs(os.path.dirname(out_path), exist_ok=True)
                    with open(out_path, "wb") as handle:
                        handle.write(data)
                    count += 1
            proc.stdout.read()
            stderr = proc.stderr.read().decode("utf-8", "replace")
    except (OSError, tarfile.TarError) as error:
        raise RuntimeError(f"extracting {deb_path} failed: {error}") from error
    if proc.returncode != 0:
        raise RuntimeError(f"dpkg-deb --fsys-tarfile {deb_path} failed: {stderr.strip()}")
    if count == 0:
        raise RuntimeError(f"{deb_path} has no {'/'.join(suffixes)} files under /{prefix}")
    with open(marker, "w", encoding="utf-8") as handle:
        handle.write(f"{count}\n")
    return root


def _list_files(root, suffix=".html"):
    """Relative paths of the files under root ending in suffix, sorted."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for filename in filenames:
            if filename.endswith(suffix):
                found.append(os.path.relpath(os.path.join(dirpath, filename), root))
    return sorted(found)


def _read_text(path):
    with open(path, "rb") as handle:
        return handle.read().decode("utf-8", "replace")


# --------------------------------------------------------------------------
# HTML block extraction (shared by LibreOffice and GIMP)
# --------------------------------------------------------------------------

VOID_TAGS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
             "param", "source", "track", "wbr"}
INLINE_TAGS = {"a", "abbr", "acronym", "b", "bdi", "bdo", "big", "cite", "code", "dfn", "em",
               "font", "i", "kbd", "mark", "q", "s", "samp", "small", "span", "strong", "sub",
               "sup", "tt", "u", "var", "strike", "del", "ins", "label"}
RAW_SKIP_TAGS = {"script", "style", "noscript", "head", "title", "svg", "math", "template"}


class BlockCollector(html.parser.HTMLParser):
    """Collects 'units' (block elements) with their own text, in document order.

    `is_unit(tag, attrs)` says whether an element is a unit; `is_skipped(tag, attrs)`
    whether its whole subtree (text included) is ignored.  The text of a unit is
    its own text: text of nested units goes to them, not to the enclosing unit.
    Each unit is [tag, attrs_dict, text_parts].
    """

    def __init__(self, is_unit, is_skipped):
        super().__init__(convert_charrefs=True)
        self.is_unit, self.is_skipped = is_unit, is_skipped
        self.units = []
        self.stack = []  # (tag, unit or None, skipped)
        self.skip_depth = 0

    def _current_unit(self):
        for _tag, unit, _skipped in reversed(self.stack):
            if unit is not None:
                return unit
        return None

    def _space(self):
        unit = self._current_unit()
        if unit is not None and not self.skip_depth:
            unit[2].append(" ")

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in VOID_TAGS:
            if tag in ("br", "hr", "img"):
                self._space()
            return
        skipped = tag in RAW_SKIP_TAGS or self.is_skipped(tag, attrs)
        unit = None
        if not skipped and not self.skip_depth and self.is_unit(tag, attrs):
            unit = [tag, attrs, []]
            self.units.append(unit)
        elif tag not in INLINE_TAGS:
            self._space()
        self.stack.append((tag, unit, skipped))
        if skipped:
            self.skip_depth += 1

    def handle_startendtag(self, tag, attrs):
        if tag in VOID_TAGS:
            self.handle_starttag(tag, attrs)
        # other self-closed elements (e.g. <a id="x"/>) carry no text

    def handle_endtag(self, tag):
        if not any(open_tag == tag for open_tag, _u, _s in self.stack):
            return  # stray end tag
        while self.stack:
            open_tag, unit, skipped = self.stack.pop()
            if skipped:
                self.skip_depth -= 1
            if open_tag not in INLINE_TAGS and unit is None:
                self._space()
            if open_tag == tag:
                break

    def handle_data(self, data):
        if self.skip_depth:
            return
        unit = self._current_unit()
        if unit is not None:
            unit[2].append(data)


def collect_units(text, is_unit, is_skipped):
    """[(tag, attrs, clean_text)] of the units of an HTML document."""
    parser = BlockCollector(is_unit, is_skipped)
    parser.feed(text)
    parser.close()
    return [(tag, attrs, clean_text("".join(parts))) for tag, attrs, parts in parser.units]


# --------------------------------------------------------------------------
# 1. Debian package descriptions
# --------------------------------------------------------------------------

_LIST_LINE = re.compile(r"^(?:\s|[*+-](?:\s|$)|o\s)")


def _open_index(path):
    """Text of an apt index file, plain or compressed."""
    if path.endswith(".xz") or path.endswith(".lzma"):
        data = lzma.open(path).read()
    elif path.endswith(".gz"):
        data = gzip.open(path).read()
    elif path.endswith(".bz2"):
        data = bz2.open(path).read()
    elif path.endswith((".lz4", ".zst")):
        result = subprocess.run(["/usr/lib/apt/apt-helper", "cat-file", path], capture_output=True)
        if result.returncode != 0:
            raise RuntimeError(f"cannot decompress {path}: {result.stderr.decode(errors='replace')}")
        data = result.stdout
    else:
        with open(path, "rb") as handle:
            data = handle.read()
    return data.decode("utf-8", "replace")


def parse_translation_index(text, lang):
    """{md5: (short, [paragraph line lists])} from a Translation-LANG file, first record wins."""
    records = {}
    field = f"Description-{lang}:"
    for block in text.split("\n\n"):
        md5, description, in_description = None, None, False
        for line in block.split("\n"):
            if line.startswith(field):
                description, in_description = [line[len(field):].strip()], True
            elif line[:1] in (" ", "\t"):
                if in_description:
                    description.append(line[1:])
            else:
                in_description = False
                if line.startswith("Description-md5:"):
                    md5 = line.split(":", 1)[1].strip()
        if md5 and description is not None and md5 not in records:
            records[md5] = description
    parsed = {}
    for md5, lines in records.items():
        paragraphs, current = [], []
        for line in lines[1:]:
            if line.strip() == ".":
                paragraphs.append(current)
                current = []
            else:
                current.append(line)
        paragraphs.append(current)
        paragraphs = [p for p in paragraphs if any(l.strip() for l in p)]
        parsed[md5] = (lines[0], paragraphs)
    return parsed


def _is_list_paragraph(lines):
    return any(_LIST_LINE.match(line) for line in lines if line.strip())


def pair_descriptions(english, translated, stats=None):
    """Candidate pairs from parsed English and LANG indexes (translated order)."""
    stats = {} if stats is None else stats
    candidates = []
    for key in ("records_matched", "records_unmatched", "paragraph_count_mismatch",
                "paragraphs_paired", "paragraphs_skipped_list"):
        stats.setdefault(key, 0)
    for md5, (short, paragraphs) in translated.items():
        if md5 not in english:
            stats["records_unmatched"] += 1
            continue
        stats["records_matched"] += 1
        en_short, en_paragraphs = english[md5]
        candidates.append((en_short, short))
        if len(en_paragraphs) != len(paragraphs):
            stats["paragraph_count_mismatch"] += 1
            continue
        for en_lines, lines in zip(en_paragraphs, paragraphs):
            if _is_list_paragraph(en_lines) or _is_list_paragraph(lines):
                stats["paragraphs_skipped_list"] += 1
                continue
            stats["paragraphs_paired"] += 1
            candidates.append((" ".join(en_lines), " ".join(lines)))
    return candidates


def parse_description_files(english_paths, translated_paths, lang, stats=None):
    """Pairs from already-downloaded Translation-en / Translation-LANG files."""
    stats = {} if stats is None else stats
    english = {}
    for path in english_paths:
        for md5, record in parse_translation_index(_open_index(path), "en").items():
            english.setdefault(md5, record)
    translated = {}
    for path in translated_paths:
        for md5, record in parse_translation_index(_open_index(path), lang).items():
            translated.setdefault(md5, record)
    stats["english_records"] = len(english)
    stats["translated_records"] = len(translated)
    return _finish_pairs(pair_descriptions(english, translated, stats), stats)


def _translation_files(lists_dir, lang):
    """The bookworm Translation-LANG files (any component, any compression) in a lists dir."""
    pattern = re.compile(rf"_dists_{SUITE}_([a-z-]+)_i18n_Translation-{re.escape(lang)}"
                         rf"(\.(?:xz|gz|bz2|lzma|lz4|zst))?$")
    found = []
    if os.path.isdir(lists_dir):
        for name in sorted(os.listdir(lists_dir)):
            match = pattern.search(name)
            if match:
                order = APT_COMPONENTS.index(match.group(1)) if match.group(1) in APT_COMPONENTS else 99
                found.append((order, name))
    return [os.path.join(lists_dir, name) for _order, name in sorted(found)]


def update_description_lists(cache_dir, refresh=False):
    """Run apt-get update into a private lists folder (once); return that folder."""
    apt_dir = os.path.join(cache_dir, "apt")
    lists_dir = os.path.join(apt_dir, "lists")
    if not refresh and all(_translation_files(lists_dir, lang) for lang in DESCRIPTION_LANGS):
        return lists_dir
    for sub in ("lists/partial", "cache/archives/partial", "parts"):
        os.makedirs(os.path.join(apt_dir, sub), exist_ok=True)
    sources = os.path.join(apt_dir, "sources.list")
    with open(sources, "w", encoding="utf-8") as handle:
        handle.write(f"deb {APT_MIRROR} {SUITE} {' '.join(APT_COMPONENTS)}\n")
    conf = os.path.join(apt_dir, "apt.conf")
    with open(conf, "w", encoding="utf-8") as handle:
        handle.write("#clear Acquire::Languages;\nAcquire::Languages { "
                     + " ".join(f'"{lang}";' for lang in DESCRIPTION_LANGS) + " };\n")
    command = [
        "apt-get", "update", "-q", "-c", conf,
        "-o", f"Dir::Etc::SourceList={sources}",
        "-o", f"Dir::Etc::SourceParts={os.path.join(apt_dir, 'parts')}",
        "-o", f"Dir::State::Lists={lists_dir}",
        "-o", f"Dir::Cache={os.path.join(apt_dir, 'cache')}",
        "-o", "APT::Sandbox::User=root",
        "-o", "Acquire::GzipIndexes=false",
        "-o", "Acquire::IndexTargets::deb::Packages::DefaultEnabled=false",
        "-o", "Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled=false",
    ]
    try:
        result = subprocess.run(command, capture_output=True, text=True)
    except OSError as error:
        raise RuntimeError(f"apt-get update failed: {error}") from error
    output = (result.stdout + result.stderr).strip().splitlines()
    if result.returncode != 0 or any(line.startswith(("E:", "Err:")) for line in output):
        raise RuntimeError("apt-get update (private lists) failed: "
                           + " | ".join(l for l in output if l.startswith(("E:", "Err:", "W:")))[:500])
    for lang in DESCRIPTION_LANGS:
        if not _translation_files(lists_dir, lang):
            raise RuntimeError(f"apt-get update did not fetch Translation-{lang} for {SUITE}")
    return lists_dir


def _file_info(path):
    with open(path, "rb") as handle:
        digest = hashlib.sha256(handle.read()).hexdigest()
    return {"file": os.path.basename(path), "sha256": digest}


def _release_info(lists_dir):
    info = {}
    release = os.path.join(lists_dir, f"deb.debian.org_debian_dists_{SUITE}_InRelease")
    if os.path.exists(release):
        lines = _read_text(release).splitlines()
        if lines and lines[0].startswith("-----BEGIN PGP SIGNED MESSAGE"):
            lines = lines[lines.index("") + 1:] if "" in lines else []
        for line in lines:
            key, _, value = line.partition(":")
            if key in ("Suite", "Codename", "Version", "Date"):
                info[key.lower()] = value.strip()
            if not line.strip():
                break
    return info


def description_pairs(lang, cache_dir=DEFAULT_CACHE):
    """Pairs from Debian's translated package descriptions (bookworm)."""
    lists_dir = update_description_lists(cache_dir)
    english_paths = _translation_files(lists_dir, "en")
    translated_paths = _translation_files(lists_dir, lang)
    if not translated_paths:
        raise RuntimeError(f"no Translation-{lang} index for {SUITE} in {lists_dir}")
    stats = {}
    pairs = parse_description_files(english_paths, translated_paths, lang, stats)
    info = {
        "source": "debian-package-descriptions",
        "release": _release_info(lists_dir),
        "english_files": [_file_info(p) for p in english_paths],
        "translated_files": [_file_info(p) for p in translated_paths],
        "counts": stats,
    }
    return pairs, info


# --------------------------------------------------------------------------
# 2. LibreOffice help
# --------------------------------------------------------------------------

LO_HELP_ROOT = "usr/share/libreoffice/help/{dir}/"
LO_ID = re.compile(r"^(?:par|hd)_id")
LO_UNIT_TAGS = {"p", "h1", "h2", "h3", "h4", "h5", "h6"}
LO_CODE_CLASSES = {"code", "codeintable", "smathcode", "bascode", "pycode"}


def _lo_is_unit(tag, attrs):
    return tag in LO_UNIT_TAGS and LO_ID.match(attrs.get("id") or "") is not None


def _lo_is_skipped(tag, attrs):
    classes = set((attrs.get("class") or "").split())
    if classes & LO_CODE_CLASSES:
        return True
    # switchinline: the non-default variants (MAC, WIN, CALC...) are hidden spans with a
    # class; the default variant is a hidden span without one.
    if "hidden" in attrs and attrs.get("class"):
        return True
    return False


def libreoffice_units(text):
    """{(id, occurrence): text} of the id-carrying paragraphs/headings of a help page."""
    units, seen = {}, {}
    for _tag, attrs, content in collect_units(text, _lo_is_unit, _lo_is_skipped):
        ident = attrs["id"]
        occurrence = seen.get(ident, 0)
        seen[ident] = occurrence + 1
        units[(ident, occurrence)] = content
    return units


def _page_pairs(english_root, translated_root, stats):
    """(English text, translated text) of every page both trees have, in English file
    order; counts the files of each tree into stats."""
    english_files = _list_files(english_root)
    translated_files = set(_list_files(translated_root))
    stats.update(english_files=len(english_files), translated_files=len(translated_files))
    for rel in english_files:
        if rel in translated_files:
            yield _read_text(os.path.join(english_root, rel)), _read_text(os.path.join(translated_root, rel))


def pair_libreoffice_trees(english_root, translated_root, stats=None):
    """Pairs from extracted help trees (e.g. .../help/en-US and .../help/fr)."""
    stats = {} if stats is None else stats
    stats.update(english_files=0, translated_files=0)  # first, whatever order the counting takes
    stats.update(files_paired=0, english_units=0, units_matched=0)
    candidates = []
    for english_text, translated_text in _page_pairs(english_root, translated_root, stats):
        stats["files_paired"] += 1
        english = libreoffice_units(english_text)
        translated = libreoffice_units(translated_text)
        stats["english_units"] += len(english)
        for key, en_text in english.items():  # English document order
            if key in translated:
                stats["units_matched"] += 1
                candidates.append((en_text, translated[key]))
    return _finish_pairs(candidates, stats)


def _package_pair(english_pkg, translated_pkg, cache_dir, english_prefix, translated_prefix):
    en_deb = fetch_deb(english_pkg, cache_dir)
    tr_deb = fetch_deb(translated_pkg, cache_dir)
    en_root = extract_tree(en_deb, cache_dir, english_prefix)
    tr_root = extract_tree(tr_deb, cache_dir, translated_prefix)
    packages = {english_pkg: deb_version(en_deb), translated_pkg: deb_version(tr_deb)}
    return en_root, tr_root, packages


def libreoffice_help_pairs(lang, cache_dir=DEFAULT_CACHE):
    """Pairs from the LibreOffice help (bookworm packages)."""
    en_root, tr_root, packages = _package_pair(
        "libreoffice-help-en-us", f"libreoffice-help-{lang}", cache_dir,
        LO_HELP_ROOT.format(dir="en-US"), LO_HELP_ROOT.format(dir=lang))
    stats = {}
    pairs = pair_libreoffice_trees(en_root, tr_root, stats)
    return pairs, {"source": "libreoffice-help", "packages": packages, "counts": stats}


# --------------------------------------------------------------------------
# 3. GIMP help
# --------------------------------------------------------------------------

GIMP_HELP_ROOT = "usr/share/gimp/2.0/help/{dir}/"
GIMP_UNIT_TAGS = {"p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "dt", "dd", "td", "th",
                  "caption"}
GIMP_SECTION_NUMBER = re.compile(r"^(?:[0-9]+(?:\.[0-9]+)*\.?|[A-Z](?:\.[0-9]+)*\.) (?=\S)")
GIMP_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
GIMP_SKIP_CLASSES = {"navheader", "navfooter", "toc", "list-of-figures", "list-of-tables",
                     "list-of-examples", "programlisting", "screen", "literallayout"}


def _gimp_is_unit(tag, attrs):
    return tag in GIMP_UNIT_TAGS


def _gimp_is_skipped(tag, attrs):
    if tag == "pre":
        return True
    return bool(set((attrs.get("class") or "").split()) & GIMP_SKIP_CLASSES)


def gimp_units(text):
    """[(tag, text)] of the block units of a GIMP help page, in document order."""
    return [(tag, content) for tag, _attrs, content in collect_units(text, _gimp_is_unit,
                                                                     _gimp_is_skipped)]


def pair_gimp_trees(english_root, translated_root, stats=None):
    """Pairs from extracted GIMP help trees, only on pages with identical block structure."""
    stats = {} if stats is None else stats
    stats.update(english_files=0, translated_files=0)  # first, whatever order the counting takes
    stats.update(pages_compared=0, pages_same_structure=0, units_paired=0)
    candidates = []
    for english_text, translated_text in _page_pairs(english_root, translated_root, stats):
        stats["pages_compared"] += 1
        english = gimp_units(english_text)
        translated = gimp_units(translated_text)
        if [tag for tag, _ in english] != [tag for tag, _ in translated]:
            continue
        stats["pages_same_structure"] += 1
        stats["units_paired"] += len(english)
        for (tag, en), (_tag, tr) in zip(english, translated):
            if tag in GIMP_HEADINGS:  # drop a shared section number "5.5.1. "
                number = GIMP_SECTION_NUMBER.match(en)
                if number and tr.startswith(number.group(0)):
                    en, tr = en[number.end():], tr[number.end():]
            candidates.append((en, tr))
    return _finish_pairs(candidates, stats)


def gimp_help_pairs(lang, cache_dir=DEFAULT_CACHE):
    """Pairs from the GIMP manual (bookworm packages)."""
    en_root, tr_root, packages = _package_pair(
        "gimp-help-en", f"gimp-help-{lang}", cache_dir,
        GIMP_HELP_ROOT.format(dir="en"), GIMP_HELP_ROOT.format(dir=lang))
    stats = {}
    pairs = pair_gimp_trees(en_root, tr_root, stats)
    return pairs, {"source": "gimp-help", "packages": packages, "counts": stats}


SOURCES = {"desc": description_pairs, "lo": libreoffice_help_pairs, "gimp": gimp_help_pairs}


def main():
    import argparse
    import json
    import random
    import time
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lang", required=True)
    parser.add_argument("--source", choices=sorted(SOURCES), action="append")
    parser.add_argument("--cache", default=DEFAULT_CACHE)
    parser.add_argument("--examples", type=int, default=5)
    args = parser.parse_args()
    for source in args.source or ["desc", "lo", "gimp"]:
        start = time.time()
        pairs, info = SOURCES[source](args.lang, args.cache)
        info["seconds"] = round(time.time() - start, 1)
        print(json.dumps({source: info}, ensure_ascii=False))
        for english, translation in random.Random(0).sample(pairs, min(args.examples, len(pairs))):
            print(f"  EN: {english}\n  {args.lang.upper()}: {translation}\n")


if __name__ == "__main__":
    main()
