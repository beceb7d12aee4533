#!/usr/bin/python3
"""Bible verses English -> Spanish from Debian's SWORD modules (issue 28, on trial).

The pair the translator issue surveyed: the World English Bible
(`sword-text-web`, module engWEB2015eb) and the Reina-Valera 1909
(`sword-text-sparv`, module spaRV1909eb), verse by verse. Both are public
domain. The packages are fetched as .deb files into the corpus cache (not
installed) and read with libsword-utils' `mod2imp`, which writes a module as
IMP text: a line `$$$Book C:V`, then the verse's OSIS markup.

  sword_bible_pairs(lang, cache_dir) -> (pairs, info)   the corpus's `@sword-bible`
  read_module_pair(english_root, english_module, target_root, target_module, lang)
                                      -> (pairs, counts)   the same from module folders
  parse_imp(text) -> {key: raw}       verse_text(raw) -> plain text

Cleaning, and why:
- footnotes (`<note>`) and editors' section headings (`<title>` without
  canonical="true") are not the verse; a canonical title (a psalm's
  superscription) is, and Reina-Valera prints it as the verse's first words;
- the 1909 spelling is brought to today's where it is mechanical: the lone
  accented vowels á é ó ú (the words a, e, o, u), and fué fuí dió vió (fue fui
  dio vio since 1959); small capitals printed as capitals (JEHOVÁ, a chapter's
  first word "EN el principio") become capitalised words. Archaic verb forms
  (crió) stay: they cannot be changed mechanically.
- the two versifications differ (NRSVA and KJV), so verses are paired by key
  and a key only one module has is counted, not guessed.

Failures raise RuntimeError naming the module or the tool. Stdlib only.
  /usr/bin/python3 models/train/bible_sources.py --lang es   (counts and a few pairs)
"""
import html
import os
import re
import subprocess

import extra_sources

# English module first, then the target language's, as (package, module, its path in the package).
SWORD_BIBLES = {"es": (("sword-text-web", "engWEB2015eb"), ("sword-text-sparv", "spaRV1909eb"))}
SWORD_PREFIX = "usr/share/sword"
SWORD_SUFFIXES = (".conf", ".bzs", ".bzv", ".bzz")
# A module that yields fewer verses than this is damaged or not a Bible.
MIN_VERSES = 100

_KEY = re.compile(r"^(.+) (\d+):(\d+)$")
_NOTE = re.compile(r"<note\b[^>]*?(?:/>|>.*?</note>)", re.S)
_TITLE = re.compile(r"<title\b([^>]*)>(.*?)</title>", re.S)
_BLOCK_TAG = re.compile(r"</?(?:l|lb|lg|p|div|milestone|chapter|verse|br|list|item)\b[^>]*>")
_TAG = re.compile(r"<[^>]*>")
_SPACE_BEFORE_PUNCTUATION = re.compile(r"\s+([,.;:!?)\]»”’])")
_SPACE_AFTER_OPENING = re.compile(r"([(\[«“])\s+")
_CAPITALS = re.compile(r"\b([^\W\d_])([^\W\d_]+)\b")
# 1909 -> today's spelling, whole words only (lower and capitalised forms).
_SPANISH_SPELLING = {"á": "a", "é": "e", "ó": "o", "ú": "u", "fué": "fue", "fuí": "fui", "dió": "dio", "vió": "vio"}
_SPANISH_WORD = re.compile(r"(?<![^\W\d_])(" + "|".join(
    sorted({w for k in _SPANISH_SPELLING for w in (k, k.capitalize())}, key=len, reverse=True)) + r")(?![^\W\d_])")


def parse_imp(text):
    """IMP text -> {key: raw markup} of the verses ('Book C:V', V >= 1), in order.
    Introductions (verse 0), the module's and testaments' headings and the empty
    verses mod2imp lists for every key of the versification are skipped."""
    verses, key, lines = {}, None, []

    def flush():
        if key is not None:
            match = _KEY.match(key)
            text = " ".join(lines).strip()
            if match and int(match.group(3)) >= 1 and text:
                verses[key] = text

    for line in text.splitlines():
        if line.startswith("$$$"):
            flush()
            key, lines = line[3:].strip(), []
        elif key is not None:
            lines.append(line)
    flush()
    return verses


def verse_text(raw):
    """One verse's OSIS markup -> plain text (module docstring: what is dropped)."""
    text = _NOTE.sub(" ", raw)
    text = _TITLE.sub(lambda m: f" {m.group(2)} " if 'canonical="true"' in m.group(1) else " ", text)
    text = _TAG.sub("", _BLOCK_TAG.sub(" ", text))
    text = extra_sources.clean_text(html.unescape(text))
    text = _SPACE_AFTER_OPENING.sub(r"\1", _SPACE_BEFORE_PUNCTUATION.sub(r"\1", text))
    return text


def modernise_spanish(text):
    """Reina-Valera 1909's mechanical spelling differences -> today's (module docstring)."""
    text = _CAPITALS.sub(lambda m: m.group(1) + m.group(2).lower() if m.group(2).isupper() else m.group(0), text)
    return _SPANISH_WORD.sub(lambda m: (_SPANISH_SPELLING.get(m.group(1))
                                        or _SPANISH_SPELLING[m.group(1).lower()].capitalize()), text)


def export_module(sword_root, module):
    """mod2imp's IMP text of MODULE from the SWORD library at sword_root (its mods.d/ and modules/)."""
    environment = {**os.environ, "SWORD_PATH": sword_root, "HOME": sword_root}
    try:
        printed = subprocess.run(["mod2imp", module], cwd=sword_root, env=environment, capture_output=True, text=True)
    except OSError as error:
        raise RuntimeError(f"mod2imp (libsword-utils) is needed to read the SWORD module {module}: {error}; "
                           "run ./build.sh deps") from error
    if printed.returncode != 0:
        raise RuntimeError(f"{module} in {sword_root}: mod2imp failed ({printed.stderr.strip()[:200]}); skipped")
    return printed.stdout


def read_module(sword_root, module):
    """-> {key: plain text} of a module's verses (RuntimeError when it has too few to be a Bible)."""
    raw = parse_imp(export_module(sword_root, module))
    if len(raw) < MIN_VERSES:
        raise RuntimeError(f"{module} in {sword_root}: {len(raw)} verses read: a damaged or missing module, "
                           "or not a Bible; skipped")
    return {key: verse_text(markup) for key, markup in raw.items()}


def pair_verses(english, target, lang):
    """Two {key: text} -> (pairs in the English module's order, counts)."""
    counts = {"entries": len(target), "english_verses": len(english), "only_english": 0, "only_target": 0,
              "empty": 0, "paired": 0}
    pairs = []
    for key, source in english.items():
        if key not in target:
            counts["only_english"] += 1
            continue
        translation = modernise_spanish(target[key]) if lang == "es" else target[key]
        if not source or not translation:
            counts["empty"] += 1
            continue
        pairs.append((source, translation))
    counts["only_target"] = sum(1 for key in target if key not in english)
    counts["paired"] = len(pairs)
    return pairs, counts


def read_module_pair(english_root, english_module, target_root, target_module, lang):
    """-> (pairs, counts) of two SWORD libraries' modules, verse by verse."""
    pairs, counts = pair_verses(read_module(english_root, english_module), read_module(target_root, target_module), lang)
    if not pairs:
        raise RuntimeError(f"{english_module} and {target_module} share no verse: not the same book's keys; skipped")
    return extra_sources._finish_pairs(pairs, counts), counts


def sword_bible_pairs(lang, cache_dir=extra_sources.DEFAULT_CACHE):
    """The corpus's @sword-bible source: SWORD_BIBLES[lang] verse by verse."""
    if lang not in SWORD_BIBLES:
        raise RuntimeError(f"no SWORD Bible pair for '{lang}' here (only {', '.join(sorted(SWORD_BIBLES))})")
    roots, versions = [], []
    for package, _module in SWORD_BIBLES[lang]:
        deb = extra_sources.fetch_deb(package, cache_dir)
        roots.append(extra_sources.extract_tree(deb, cache_dir, SWORD_PREFIX, suffixes=SWORD_SUFFIXES))
        versions.append(f"{package} {extra_sources.deb_version(deb)}")
    (_, english_module), (_, target_module) = SWORD_BIBLES[lang]
    pairs, counts = read_module_pair(roots[0], english_module, roots[1], target_module, lang)
    return pairs, {"package": " + ".join(p for p, _ in SWORD_BIBLES[lang]), "version": ", ".join(versions),
                   "counts": counts}


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lang", default="es")
    ap.add_argument("--cache", default=extra_sources.DEFAULT_CACHE)
    ap.add_argument("--show", type=int, default=5)
    options = ap.parse_args()
    found, info = sword_bible_pairs(options.lang, options.cache)
    print(info)
    for english_text, translation_text in found[:options.show]:
        print(f"{english_text}\n  {translation_text}")
