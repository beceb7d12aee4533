"""Which word each target piece belongs to, by models/train/subword.py's
word_starts (FORMAT.md 5.2), for tests/subword.test.mjs to hold the C
engine's grouping against.

  /usr/bin/python3 tests/support/words_expect.py < pieces.json
  /usr/bin/python3 tests/support/words_expect.py --self-check

stdin: a JSON list of piece lists (vocabulary texts, "</s>" left out);
stdout: a JSON list, per list, of each piece's word index. --self-check
holds word_starts against hand-made cases and exits non-zero on a mismatch.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models", "train"))
import subword  # noqa: E402

M = subword.MARK
# (pieces, the words they make): the rules of FORMAT.md 5.2, elisions first.
CASES = [
    ([M + "n", "'", "a", M + "pas"], ["n'", "a", "pas"]),
    ([M + "L", "'", "hom", "me"], ["L'", "homme"]),
    ([M + "aujourd", "'", "hui"], ["aujourd'", "hui"]),
    ([M + "l", "\u2019", "\u00e9t\u00e9"], ["l\u2019", "\u00e9t\u00e9"]),
    ([M + "l", "'", "<0xC3>", "<0xA9>", "t\u00e9"], ["l'", "<0xC3><0xA9>t\u00e9"]),  # byte tokens are word pieces
    ([M + "'", "Save", "'", M + "now"], ["'", "Save", "'", "now"]),  # quotes: the next piece has a mark
    ([M + "Save", "'"], ["Save", "'"]),                                 # nothing after it
    ([M + "a", "'", M + "b"], ["a", "'", "b"]),
    ([M + "a", "'", "."], ["a", "'", "."]),                             # punctuation after it
    ([M + "a", ".", "'", "b"], ["a", ".", "'", "b"]),                   # punctuation before it
    ([M, "'", "a"], ["'", "a"]),                                          # a bare mark before it continues
    ([M + "fichiers", M + "non", M + "enregistr", "\u00e9s", "."], ["fichiers", "non", "enregistr\u00e9s", "."]),
    ([M + "\u00bf", "D\u00f3nde", "?"], ["\u00bf", "D\u00f3nde", "?"]),
]


def word_indices(pieces):
    starts = subword.word_starts(pieces)
    return [sum(starts[:k + 1]) - 1 for k in range(len(pieces))]


def words_of(pieces):
    words = []
    for piece, index in zip(pieces, word_indices(pieces)):
        text = piece[1:] if piece.startswith(M) and len(piece) > 1 else ("" if piece == M else piece)
        if index == len(words):
            words.append(text)
        else:
            words[index] += text
    return words


def main():
    if sys.argv[1:] == ["--self-check"]:
        bad = [(p, want, words_of(p)) for p, want in CASES if words_of(p) != want]
        for pieces, want, got in bad:
            print(f"{pieces}: want {want}, got {got}", file=sys.stderr)
        print(json.dumps({"cases": len(CASES), "failed": len(bad)}))
        sys.exit(1 if bad else 0)
    print(json.dumps([word_indices(p) for p in json.load(sys.stdin)]))


if __name__ == "__main__":
    main()
