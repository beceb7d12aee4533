"""Expected tokens of the tutorial's tokeniser for tests/byo.test.mjs.

stdin: JSON list of hex strings (raw UTF-8, possibly invalid). stdout: JSON
list of token lists, each the tutorial's normalizeString(text).split(' ')
(models/train/convert_tutorial.py's normalize_string, Python's unicodedata),
[] for a text with no word. Invalid bytes become U+FFFD one byte at a time,
the engine's rule.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models", "train"))
from tutorial_text import tutorial_tokens  # noqa: E402
from tokenize_expect import decode  # noqa: E402  (same directory)

json.dump([tutorial_tokens(decode(bytes.fromhex(h))[0]) for h in json.load(sys.stdin)], sys.stdout)
