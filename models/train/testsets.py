"""The project's own test sentences (models/testsets/): reading them, and the
key that keeps them out of every training split.

teacher.tsv (200 sentences) and everyday.tsv (the 20 of
everyday_sentences.en.txt, with references) are written by the project and
never trained on: corpus.write_splits drops every pair whose English side has
the key of one of them (english_key: case, spaces, quotes and final
punctuation folded), and counts it. Stdlib only (corpus.py's rule).

Each file: a header line `en<TAB>fr<TAB>de<TAB>es`, then one English sentence
and its three references a line (models/testsets/README.md).
"""
import os
import re
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
TESTSETS = os.path.normpath(os.path.join(HERE, "..", "testsets"))
TEACHER = os.path.join(TESTSETS, "teacher.tsv")
EVERYDAY = os.path.join(TESTSETS, "everyday.tsv")
COLUMNS = ("en", "fr", "de", "es")

_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})
_SPACES = re.compile(r"\s+")
# What may end a sentence without changing which sentence it is.
_FINAL_PUNCTUATION = re.compile(r"[\s.!?\u2026;:,\"')\]]+$")


def english_key(text):
    """A sentence -> the key two spellings of it share: 'Where is the bus stop?'
    and 'where is the  bus stop' are one sentence. Case-folded, NFC, curly
    quotes made straight, whitespace runs one space, final punctuation gone."""
    text = unicodedata.normalize("NFC", text).translate(_QUOTES).casefold()
    return _FINAL_PUNCTUATION.sub("", _SPACES.sub(" ", text).strip())


def read_tsv(path):
    """A test-set file -> [{'en', 'fr', 'de', 'es'}] in file order. Raises
    ValueError naming the file and line for a wrong header, a row without
    exactly four fields or an empty field."""
    with open(path, encoding="utf-8", newline="") as handle:
        lines = handle.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or lines[0].split("\t") != list(COLUMNS):
        raise ValueError(f"{path}:1: the header must be {'<TAB>'.join(COLUMNS)}")
    rows = []
    for number, line in enumerate(lines[1:], 2):
        fields = line.split("\t")
        if len(fields) != len(COLUMNS):
            raise ValueError(f"{path}:{number}: {len(fields)} tab-separated fields, expected {len(COLUMNS)}")
        if any(not f.strip() for f in fields):
            raise ValueError(f"{path}:{number}: an empty field")
        rows.append(dict(zip(COLUMNS, fields)))
    return rows


def held_out_keys(paths=(TEACHER, EVERYDAY)):
    """english_key of every English sentence of the given files (default: both
    of ours). A missing file is an error: training without the guard would be
    silent."""
    keys = set()
    for path in paths:
        keys.update(english_key(row["en"]) for row in read_tsv(path))
    return keys
