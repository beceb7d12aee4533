"""Everyday vocabulary from Debian's bilingual dictionaries, as corpus pairs.

The gettext, manual and description sources (corpus.py, extra_sources.py) are
software and game text: they rarely say "cat", "weather" or "brother". Two
dictionary families in Debian fill that gap; both are human-made:

- FreeDict (dict-freedict-eng-fra, -eng-spa, -eng-deu): dictd files, an index
  of 'headword TAB offset TAB length' (base64 numbers) into a gzip'd body where
  each entry is 'headword /ipa/' then one line per sense ('1. a, b' when there
  are several). Only entries with a single sense are kept, as (headword, its
  first translation): an entry with several senses ("cat: 1. mégère… 2. chat")
  cannot say which one a sentence means.
- Apertium's bilingual dictionaries (apertium-eng-spa; for French its English
  -> Spanish, then apertium-fr-es's Spanish -> French): the packages ship
  them compiled, as lttoolbox transducers (eng-spa.autobil.bin); lttoolbox's
  `lt-print` writes one as text (AT&T format: 'from TAB to TAB in TAB out TAB
  weight' arcs, a final state alone on its line, '--' between sections), and
  every path from state 0 to a final state is one entry, 'cat<n>' ->
  'gato<n><GD>'. Only nouns, adjectives, verbs and adverbs whose English lemma
  has a single translation, whatever its part of speech, are kept ("station"
  has four and is left out, like a FreeDict entry with several senses; so is
  "book", a noun and a verb), as (lemma, lemma): a verb as its infinitive.
  Through the pivot a lemma is kept only where Spanish -> French gives its
  translation one translation of the same part of speech.
- Ding (trans-de-en, German only): one line per entry, 'German :: English',
  sub-entries joined by ' | ' on both sides (the same count on each side),
  alternatives by '; ', with annotations in {} [] () and /abbreviations/. About
  19k of its sub-entries are whole example sentences ("Es war purer Zufall." ::
  "It was pure coincidence."): `ding_sentence_pairs` gives those, and
  `ding_phrase_pairs` the words and short phrases (at most PHRASE_WORDS words).

Every extractor returns (pairs, info) like extra_sources.py's, pairs as
(english, translation). A damaged or foreign file raises RuntimeError naming
the file and how many of its entries could not be read; corpus.py prints it,
records it under failed_packages and goes on without that source, so a broken
dictionary never turns into a silently empty domain.
"""

import gzip
import os
import re
import subprocess
import zlib

import extra_sources

FREEDICT_CODES = {"fr": "fra", "es": "spa", "de": "deu"}
PHRASE_WORDS = 4
# Share of unreadable entries above which a file is taken to be damaged or foreign.
MAX_BAD_SHARE = 0.02

_ANNOTATIONS = re.compile(r"\{[^}]*\}|\[[^\]]*\]|<[^>]*>|\([^)]*\)|(?:^|\s)/[^/\s][^/]*/(?=\s|$)")
_SPACES = re.compile(r"\s+")
_SENSE_NUMBER = re.compile(r"^\d+\.\s+")
# Placeholders of dictionary grammar, not text anyone writes ("to give sb. sth.").
_PLACEHOLDERS = re.compile(r"\b(?:sb|sth|etw|jdn|jdm|jds|jd)\b\.?|…|\.\.\.")
_SENTENCE_END = re.compile(r"[.!?]$")
_DICTD_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def strip_annotations(text):
    """'Aal {m} (auf der Speisekarte) [cook.]' -> 'Aal'."""
    return _SPACES.sub(" ", _ANNOTATIONS.sub(" ", text)).strip(" ;,")


def _usable(text):
    return bool(text) and not _PLACEHOLDERS.search(text) and any(ch.isalpha() for ch in text)


def _dictd_number(text):
    """dictd's base64 numbers ('b6r' -> offset): digits of _DICTD_B64, most significant first."""
    value = 0
    for ch in text:
        digit = _DICTD_B64.find(ch)
        if digit < 0:
            raise ValueError(f"not a dictd number: {text!r}")
        value = value * 64 + digit
    return value


def parse_freedict(index_text, body):
    """-> (pairs, counts): (headword, first translation) of every single-sense entry.

    index_text: the .index file; body: the decompressed .dict bytes."""
    counts = {"entries": 0, "unreadable": 0, "several_senses": 0, "unusable": 0}
    pairs = []
    for line in index_text.splitlines():
        fields = line.split("\t")
        if not line.strip() or fields[0].startswith("00-database") or fields[0].startswith("00database"):
            continue
        counts["entries"] += 1
        try:
            if len(fields) != 3:
                raise ValueError(line)
            offset, length = _dictd_number(fields[1]), _dictd_number(fields[2])
            if offset + length > len(body):
                raise ValueError(line)
            entry = body[offset:offset + length].decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            counts["unreadable"] += 1
            continue
        lines = [l.strip() for l in entry.splitlines() if l.strip()]
        senses = [l for l in lines[1:] if not l.startswith(("see:", "Note:", "Synonym", "Antonym"))]
        if len(senses) != 1:
            counts["several_senses" if len(senses) > 1 else "unreadable"] += 1
            continue
        english = strip_annotations(fields[0])
        translation = strip_annotations(_SENSE_NUMBER.sub("", senses[0]).split(", ")[0])
        if not (_usable(english) and _usable(translation)):
            counts["unusable"] += 1
            continue
        pairs.append((english, translation))
    return pairs, counts


def parse_ding(text):
    """-> (sentences, phrases, counts) from a Ding 'German :: English' file, each a list of
    (english, german): whole sentences, and words or phrases of at most PHRASE_WORDS words."""
    counts = {"entries": 0, "unreadable": 0, "sub_entries": 0, "unusable": 0}
    sentences, phrases = [], []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        counts["entries"] += 1
        german_side, separator, english_side = line.partition(" :: ")
        german_parts, english_parts = german_side.split(" | "), english_side.split(" | ")
        if not separator or len(german_parts) != len(english_parts):
            counts["unreadable"] += 1
            continue
        for german, english in zip(german_parts, english_parts):
            counts["sub_entries"] += 1
            german = strip_annotations(german.split("; ")[0])
            english = strip_annotations(english.split("; ")[0])
            if not (_usable(german) and _usable(english)):
                counts["unusable"] += 1
                continue
            if _SENTENCE_END.search(english) and _SENTENCE_END.search(german) and english[0].isupper():
                sentences.append((english, german))
            elif len(english.split()) <= PHRASE_WORDS:
                if english.startswith("to ") and len(english.split()) > 1:
                    english = english[3:]  # 'to walk' :: 'gehen': the infinitive as it appears in text
                phrases.append((english, german))
            else:
                counts["unusable"] += 1
    return sentences, phrases, counts


def _check_readable(path, counts):
    """RuntimeError when too much of a file could not be read (damaged, or not this format)."""
    if counts["entries"] == 0 or counts["unreadable"] > MAX_BAD_SHARE * counts["entries"]:
        raise RuntimeError(f"{path}: {counts['unreadable']} of {counts['entries']} entries unreadable: "
                           "a damaged file or not this dictionary format; skipped")


def _package_files(package, paths, cache_dir):
    """-> (deb, [local path of each of `paths`]): one extraction of the package, which
    extract_tree caches per package, so every file wanted must be named at once."""
    deb = extra_sources.fetch_deb(package, cache_dir)
    folder = os.path.dirname(paths[0])
    root = extra_sources.extract_tree(deb, cache_dir, folder, suffixes=tuple(os.path.basename(p) for p in paths))
    return deb, [os.path.join(root, os.path.basename(p)) for p in paths]


def read_freedict_files(index_path, dict_path):
    """-> (pairs, counts) from a dictd .index and its .dict.dz (or plain .dict)."""
    try:
        with open(index_path, encoding="utf-8") as handle:
            index_text = handle.read()
        with open(dict_path, "rb") as handle:
            body = handle.read()
        if dict_path.endswith(".dz"):
            body = gzip.decompress(body)
    except (OSError, UnicodeDecodeError, EOFError, zlib.error, gzip.BadGzipFile) as error:
        raise RuntimeError(f"{dict_path}: cannot be read ({error}); skipped") from error
    pairs, counts = parse_freedict(index_text, body)
    _check_readable(dict_path, counts)
    return extra_sources._finish_pairs(pairs, counts), counts


def freedict_pairs(lang, cache_dir=extra_sources.DEFAULT_CACHE):
    """Single-sense FreeDict entries English -> lang."""
    code = FREEDICT_CODES.get(lang)
    if code is None:
        raise RuntimeError(f"no FreeDict English dictionary for '{lang}'")
    package, base = f"dict-freedict-eng-{code}", f"usr/share/dictd/freedict-eng-{code}"
    deb, (index_path, dict_path) = _package_files(package, [base + ".index", base + ".dict.dz"], cache_dir)
    pairs, counts = read_freedict_files(index_path, dict_path)
    return pairs, {"package": package, "version": extra_sources.deb_version(deb), "counts": counts}


# lttoolbox's ATT text: an arc's input symbol is one character, a tag '<n>' or
# 'ε'. A path is walked only through letters, spaces, hyphens, apostrophes,
# the '#' of a multi-word lemma's fixed part and tags: the dictionary's
# number and punctuation patterns (their own sections, with cycles) are not words.
_ATT_WORD_SYMBOL = re.compile(r"^(?:[^\W\d_]|[ '\-#]|<[^>]+>|ε)$")
_BIDIX_ENTRY = re.compile(r"^([^<]+)((?:<[^>]+>)+)$")
# English -> lang through Apertium's compiled bilingual dictionaries: one for
# Spanish; for French the English-Spanish one, then apertium-fr-es's Spanish ->
# French (a pivot: an English lemma is kept only when both steps give one
# translation, with the same part of speech).
APERTIUM_ENG_SPA = ("apertium-eng-spa", "usr/share/apertium/apertium-eng-spa/eng-spa.autobil.bin")
APERTIUM_SPA_FRA = ("apertium-fr-es", "usr/share/apertium/apertium-fr-es/es-fr.autobil.bin")
APERTIUM_BIDIX = {"es": (APERTIUM_ENG_SPA,), "fr": (APERTIUM_ENG_SPA, APERTIUM_SPA_FRA)}
APERTIUM_PARTS_OF_SPEECH = ("n", "adj", "vblex", "adv")


def att_paths(att_text):
    """-> [(input, output)] of every path of an lt-print transducer text, through
    _ATT_WORD_SYMBOL arcs only and never through a state twice on one path.
    Raises ValueError on a line that is not an arc, a final state or '--'."""
    paths = []
    for section in att_text.split("\n--\n"):
        arcs, finals = {}, set()
        for line in section.splitlines():
            fields = line.split("\t")
            if len(fields) >= 4:
                arcs.setdefault(int(fields[0]), []).append((int(fields[1]), fields[2], fields[3]))
            elif line.strip() and line.strip() != "--":
                finals.add(int(fields[0]))
        stack = [(0, "", "", frozenset((0,)))]
        while stack:
            state, source, target, seen = stack.pop()
            if state in finals:
                paths.append((source, target))
            for to, a, b in arcs.get(state, ()):
                if to in seen or not _ATT_WORD_SYMBOL.match(a) or not _ATT_WORD_SYMBOL.match(b):
                    continue
                stack.append((to, source + ("" if a == "ε" else a), target + ("" if b == "ε" else b), seen | {to}))
    return paths


def _bidix_lemma(text):
    """'campamento# para prisioneros' -> 'campamento para prisioneros' ('#' marks the
    part of a multi-word lemma that does not inflect)."""
    return _SPACES.sub(" ", text.replace("#", "")).strip()


def bidix_entries(paths, counts):
    """-> {lemma: {(translation, part of speech)}} of the entries whose part of speech is
    one of APERTIUM_PARTS_OF_SPEECH; counts (entries, unreadable, unusable) updated."""
    entries = {}
    for source, target in paths:
        counts["entries"] += 1
        english, translated = _BIDIX_ENTRY.match(source), _BIDIX_ENTRY.match(target)
        if not english or not translated:
            counts["unreadable"] += 1
            continue
        part = english.group(2)[1:].split(">", 1)[0]
        if part not in APERTIUM_PARTS_OF_SPEECH:
            counts["unusable"] += 1
            continue
        entries.setdefault(_bidix_lemma(english.group(1)), set()).add((_bidix_lemma(translated.group(1)), part))
    return entries


def unique_translations(entries, counts):
    """-> {lemma: (translation, part)} of the lemmas whose entries all give one translation
    (whatever their part of speech: "book" (libro, reservar) and "mat" (estera,
    alfombrilla; mate) are left out, counted as several_senses)."""
    unique = {}
    for lemma, translations in entries.items():
        if len({t for t, _ in translations}) > 1:
            counts["several_senses"] += 1
        else:
            unique[lemma] = min(translations)
    return unique


def chain_pairs(steps, counts):
    """-> sorted (english, translation) pairs through each step's bidix_entries in turn: a
    lemma goes on only while every step gives it one translation of the same part of speech."""
    chained = unique_translations(steps[0], counts)
    for entries in steps[1:]:
        following = unique_translations(entries, {"several_senses": 0})
        step = {}
        for english, (pivot, part) in chained.items():
            nxt = following.get(pivot)
            if nxt is None or nxt[1] != part:
                counts["no_pivot"] = counts.get("no_pivot", 0) + 1
            else:
                step[english] = nxt
        chained = step
    pairs = []
    for english, (translation, _part) in sorted(chained.items()):
        if not (_usable(english) and _usable(translation)) or len(english.split()) > PHRASE_WORDS:
            counts["unusable"] += 1
        else:
            pairs.append((english, translation))
    return pairs


def print_bidix(path):
    """lt-print's text of a compiled dictionary (RuntimeError, naming the file, when it cannot)."""
    try:
        printed = subprocess.run(["lt-print", path], capture_output=True, text=True)
    except OSError as error:
        raise RuntimeError(f"lt-print (lttoolbox-dev) is needed to read {path}: {error}; "
                           "./build.sh deps installs it; skipped") from error
    if printed.returncode != 0 or not printed.stdout.strip():
        raise RuntimeError(f"{path}: lt-print cannot read it ({printed.stderr.strip()[:200] or 'no output'}): "
                           "a damaged file or not a transducer; skipped")
    return printed.stdout


def read_apertium_chain(paths):
    """-> (pairs, counts) from compiled Apertium dictionaries, English -> ... -> target."""
    counts = {"entries": 0, "unreadable": 0, "several_senses": 0, "unusable": 0}
    steps = []
    for path in paths:
        own = {"entries": 0, "unreadable": 0, "unusable": 0}
        try:
            paths_of_file = att_paths(print_bidix(path))
        except ValueError as error:
            raise RuntimeError(f"{path}: lt-print's text is not a transducer ({error}); skipped") from error
        steps.append(bidix_entries(paths_of_file, own))
        _check_readable(path, own)
        for key in own:
            counts[key] += own[key]
    pairs = chain_pairs(steps, counts)
    return extra_sources._finish_pairs(pairs, counts), counts


def apertium_pairs(lang, cache_dir=extra_sources.DEFAULT_CACHE):
    """Apertium bilingual-dictionary lemmas English -> lang with a single translation (APERTIUM_BIDIX)."""
    if lang not in APERTIUM_BIDIX:
        raise RuntimeError(f"no Apertium English bilingual dictionary for '{lang}' here "
                           f"(only {', '.join(sorted(APERTIUM_BIDIX))})")
    paths, names, versions = [], [], []
    for package, bidix in APERTIUM_BIDIX[lang]:
        deb, (path,) = _package_files(package, [bidix], cache_dir)
        paths.append(path)
        names.append(package)
        versions.append(f"{package} {extra_sources.deb_version(deb)}")
    pairs, counts = read_apertium_chain(paths)
    return pairs, {"package": " then ".join(names), "version": ", ".join(versions), "counts": counts}


def read_ding_file(path):
    """-> (sentences, phrases, counts) of a Ding file."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as error:
        raise RuntimeError(f"{path}: cannot be read ({error}); skipped") from error
    sentences, phrases, counts = parse_ding(text)
    _check_readable(path, counts)
    return sentences, phrases, counts


def _ding(lang, cache_dir, which):
    if lang != "de":
        raise RuntimeError(f"the Ding dictionary (trans-de-en) is German only, not '{lang}'")
    deb, (path,) = _package_files("trans-de-en", ["usr/share/trans/de-en"], cache_dir)
    sentences, phrases, counts = read_ding_file(path)
    chosen = sentences if which == "sentences" else phrases
    counts = dict(counts, sentences=len(sentences), phrases=len(phrases))
    return (extra_sources._finish_pairs(chosen, counts),
            {"package": "trans-de-en", "version": extra_sources.deb_version(deb), "part": which, "counts": counts})


def ding_sentence_pairs(lang, cache_dir=extra_sources.DEFAULT_CACHE):
    return _ding(lang, cache_dir, "sentences")


def ding_phrase_pairs(lang, cache_dir=extra_sources.DEFAULT_CACHE):
    return _ding(lang, cache_dir, "phrases")


EXTRACTORS = {"freedict": freedict_pairs, "apertium": apertium_pairs, "ding-sentences": ding_sentence_pairs, "ding-phrases": ding_phrase_pairs}
