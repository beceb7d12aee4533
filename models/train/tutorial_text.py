"""The PyTorch seq2seq tutorial's text normalisation, the reference for the
engine's "tutorial" tokeniser (models/FORMAT.md 5.1, src/tokenizer.c;
tests/byo.test.mjs compares them). No torch: the tests import it.
"""
import re
import unicodedata


def normalize_string(s):
    """The tutorial's normalizeString: lower-case, strip accents (NFD, drop
    combining marks), a space before each of . ! ?, every run of characters
    other than a-z A-Z ! ? -> one space, strip. (The current tutorial's class
    is [^a-zA-Z!?], so '.' is removed as well; older versions kept it.)"""
    s = "".join(c for c in unicodedata.normalize("NFD", s.lower().strip()) if unicodedata.category(c) != "Mn")
    s = re.sub(r"([.!?])", r" \1", s)
    s = re.sub(r"[^a-zA-Z!?]+", r" ", s)
    return s.strip()


def tutorial_tokens(text):
    """The words the tutorial's tensorFromSentence looks up (before its EOS)."""
    normalized = normalize_string(text)
    return normalized.split(" ") if normalized else []
