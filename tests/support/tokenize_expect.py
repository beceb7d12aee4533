"""Expected tokens for tests/loader.test.mjs, from the reference tokeniser.

stdin: JSON list of hex strings (raw UTF-8, possibly invalid). stdout: JSON
list of [[token, byte_start, byte_end], ...]. Invalid bytes become U+FFFD one
byte at a time (the engine's rule), using Python's own strict decoder to judge
validity, so the C decoder is checked against an independent one.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models", "train"))
from tokenize_text import tokenize  # noqa: E402


def decode(raw):
    chars, starts = [], []
    i = 0
    while i < len(raw):
        for n in (1, 2, 3, 4):
            try:
                ch = raw[i:i + n].decode("utf-8")
            except UnicodeDecodeError:
                continue
            if len(ch) == 1:
                chars.append(ch)
                starts.append(i)
                i += n
                break
        else:
            chars.append("\ufffd")
            starts.append(i)
            i += 1
    starts.append(len(raw))
    return "".join(chars), starts


if __name__ == "__main__":  # tutorial_tokens.py imports decode()
    out = []
    for hexed in json.load(sys.stdin):
        raw = bytes.fromhex(hexed)
        text, starts = decode(raw)
        out.append([[tok, starts[a], starts[b]] for tok, a, b in tokenize(text)])
    json.dump(out, sys.stdout, ensure_ascii=False)
