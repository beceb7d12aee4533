"""Cased subword pieces (byte-pair encoding), learned by our own script.

The reference for models/FORMAT.md section 5.2: src/tokenizer.c segments a
source sentence exactly as `Segmenter.encode` does (tests compare them on every
sentence of the test splits and on tricky strings), and src/detokenize.c joins
target pieces exactly as `decode` does.

Text -> pieces, in three steps:
1. Pre-tokens. The source side folds quotes, dashes and spaces as section 5
   step 1 (no lower-casing); the target side only turns odd spaces and control
   characters into spaces (so French « » and German „ “ survive). Then
   section 5 step 3 splits: a run of word characters is one pre-token, any
   other non-space character is one of its own. A pre-token after a space (or
   at the start) is marked: its first symbol carries the prefix ▁ (U+2581).
   Pre-tokens are the words the page shows; a piece never spans two.
2. Symbols. Each character of a pre-token is one symbol ('▁' + character for
   the first one of a marked pre-token). A symbol outside the vocabulary falls
   back: a marked one to '▁' and its character, a character to its UTF-8 bytes
   as the tokens <0x00> ... <0xFF>. So no text ever needs <unk>.
3. Merges. Repeatedly, the adjacent pair of symbols whose merge comes first in
   the merge list is merged everywhere in the pre-token (left to right, without
   overlap), until no adjacent pair is in the list. Byte tokens never merge.

Vocabulary (ids): <pad> <unk> <s> </s>, the 256 byte tokens, the base symbols
(characters and ▁-characters seen at least `min_count` times, most frequent
first), then one token per merge whose result is new. A merge whose result
string already exists (a+bc and ab+c) points at that token.

Decoding target pieces: concatenate their texts (byte tokens as bytes, invalid
UTF-8 and a NUL, which only <0x00> spells, as U+FFFD: the C engine's text is
NUL-terminated), turn every ▁ into a space, drop a leading space.
"""
import heapq
import json
from collections import Counter

from tokenize_text import _FOLD, is_word_char

SPECIALS = ["<pad>", "<unk>", "<s>", "</s>"]
MARK = "\u2581"
BYTE_TOKENS = [f"<0x{b:02X}>" for b in range(256)]
FIRST_BYTE_ID = len(SPECIALS)
MARK_ID = FIRST_BYTE_ID + 256
# A pre-token longer than this is cut into pieces of this many characters, each
# segmented alone (the first keeps the mark): src/alignscope_format.h's
# AS_MAX_PRETOKEN_CHARS, so the C engine needs no unbounded buffer.
MAX_PRETOKEN_CHARS = 256


def fold_source_char(cp):
    """Source-side fold (FORMAT.md 5 step 1 without lower-casing): text of one code point."""
    if cp in _FOLD:
        return _FOLD[cp]
    if cp < 0x20 or cp == 0x7F:
        return " "
    return chr(cp)


_ODD_SPACES = {0x00A0, 0x2007, 0x2009, 0x202F, 0x200B}


def fold_target_char(cp):
    """Target-side fold: odd spaces and controls become a space, nothing else changes."""
    if cp in _ODD_SPACES or cp < 0x20 or cp == 0x7F:
        return " "
    return chr(cp)


def pretokenize(text, side="source"):
    """Text -> [(pre-token text, start, end, marked)]; start/end are character offsets
    into `text` (a folded character that expands, … -> ..., gives one pre-token per
    resulting character, each spanning the original one)."""
    fold = fold_source_char if side == "source" else fold_target_char
    out = []
    current, start, marked = [], 0, True
    space_before = True
    for index, ch in enumerate(text):
        for folded in fold(ord(ch)):
            if folded == " ":
                if current:
                    out.append(("".join(current), start, index, marked))
                    current = []
                space_before = True
                continue
            if is_word_char(ord(folded)):
                if not current:
                    start, marked = index, space_before
                current.append(folded)
            else:
                if current:
                    out.append(("".join(current), start, index, marked))
                    current = []
                out.append((folded, index, index + 1, space_before))
            space_before = False
    if current:
        out.append(("".join(current), start, len(text), marked))
    return out


def initial_symbols(word, marked, index):
    """A pre-token's symbols before merging: [(token id, char offset start, end)] relative
    to the pre-token's characters. index: token text -> id."""
    symbols = []
    for position, ch in enumerate(word):
        candidates = [MARK + ch] if (position == 0 and marked) else [ch]
        if candidates[0] in index:
            symbols.append((index[candidates[0]], position, position + 1))
            continue
        if position == 0 and marked:
            symbols.append((index[MARK], position, position + 1))  # spans the character it marks
        if ch in index:
            symbols.append((index[ch], position, position + 1))
        else:
            for byte in ch.encode("utf-8"):
                symbols.append((FIRST_BYTE_ID + byte, position, position + 1))
    return symbols


def apply_merges(symbols, ranks):
    """symbols: [(id, start, end)]; ranks: {(left id, right id): (rank, result id)}."""
    while len(symbols) > 1:
        best = None
        for i in range(len(symbols) - 1):
            found = ranks.get((symbols[i][0], symbols[i + 1][0]))
            if found is not None and (best is None or found[0] < best[0]):
                best = found + ((symbols[i][0], symbols[i + 1][0]),)
        if best is None:
            break
        _, result, pair = best
        merged, i = [], 0
        while i < len(symbols):
            if i + 1 < len(symbols) and (symbols[i][0], symbols[i + 1][0]) == pair:
                merged.append((result, symbols[i][1], symbols[i + 1][2]))
                i += 2
            else:
                merged.append(symbols[i])
                i += 1
        symbols = merged
    return symbols


class Segmenter:
    """One side's vocabulary and merge list: text -> pieces, pieces -> text."""

    def __init__(self, vocab, merges, side):
        self.vocab = list(vocab)
        self.merges = [tuple(m) for m in merges]
        self.side = side
        self.index = {token: i for i, token in enumerate(self.vocab)}
        if len(self.index) != len(self.vocab):
            raise ValueError("duplicate token in the vocabulary")
        self.ranks = {}
        for rank, (left, right, result) in enumerate(self.merges):
            if self.vocab[result] != self.vocab[left] + self.vocab[right]:
                raise ValueError(f"merge {rank}: {self.vocab[result]!r} is not "
                                 f"{self.vocab[left]!r} + {self.vocab[right]!r}")
            self.ranks.setdefault((left, right), (rank, result))
        self._cache = {}

    def encode_word(self, word, marked):
        key = (word, marked)
        found = self._cache.get(key)
        if found is None:
            found = apply_merges(initial_symbols(word, marked, self.index), self.ranks)
            if len(found) > 1 and found[0][0] == MARK_ID:  # a bare mark spans the piece it marks
                found = [(MARK_ID, found[1][1], found[1][2])] + found[1:]
            if len(self._cache) < 500_000:
                self._cache[key] = found
        return found

    def encode(self, text):
        """Text -> [(piece id, start, end, word)]: character spans into `text`, word = the
        index of the pre-token the piece belongs to."""
        pieces = []
        for word_index, (word, start, end, marked) in enumerate(pretokenize(text, self.side)):
            expanded = end - start != len(word)  # a folded expansion: every piece spans it all
            for cut in range(0, len(word), MAX_PRETOKEN_CHARS):
                chunk = word[cut:cut + MAX_PRETOKEN_CHARS]
                for token_id, a, b in self.encode_word(chunk, marked and cut == 0):
                    if expanded:
                        pieces.append((token_id, start, end, word_index))
                    else:
                        pieces.append((token_id, start + cut + a, start + cut + b, word_index))
        return pieces

    def ids(self, text):
        return [p[0] for p in self.encode(text)]

    def pieces(self, text):
        return [self.vocab[p[0]] for p in self.encode(text)]

    def decode(self, ids):
        return decode([self.vocab[i] for i in ids])

    def to_json(self):
        return {"side": self.side, "vocab": self.vocab, "merges": [list(m) for m in self.merges]}

    @classmethod
    def from_json(cls, data):
        return cls(data["vocab"], data["merges"], data["side"])


def decode(pieces):
    """Target pieces (token texts) -> text (the module docstring's rule)."""
    raw = bytearray()
    for piece in pieces:
        if piece in SPECIALS:
            continue
        if len(piece) == 6 and piece.startswith("<0x") and piece.endswith(">"):
            raw.append(int(piece[3:5], 16))
        else:
            raw += piece.encode("utf-8")
    text = raw.decode("utf-8", errors="replace").replace("\0", "\ufffd").replace(MARK, " ")
    return text[1:] if text.startswith(" ") else text


APOSTROPHES = ("'", "\u2019")


def word_starts(pieces):
    """Which target pieces start a word (FORMAT.md 5.2): a piece starts one if it is the
    first, has the ▁ prefix, is a punctuation piece, or follows one (but a piece after
    a bare '▁' continues that word), except an elision's apostrophe (a bare ' or ’
    after a word piece and before one joined to it: "n'a" is the words "n'" and "a")."""
    starts = []
    for i, piece in enumerate(pieces):
        if i == 0 or piece.startswith(MARK):
            starts.append(True)
            continue
        previous = pieces[i - 1]
        elision = (piece in APOSTROPHES and is_word_piece(previous)
                   and i + 1 < len(pieces) and is_word_piece(pieces[i + 1], attached=True))
        starts.append(previous != MARK and not elision
                      and (is_punctuation_piece(piece) or is_punctuation_piece(previous)))
    return starts


def is_word_piece(piece, attached=False):
    """A piece of a word: not punctuation, not a special or a bare '▁' (byte tokens
    are); `attached`: without the ▁ prefix either (no space before it)."""
    return (piece not in SPECIALS and piece != MARK and not (attached and piece.startswith(MARK))
            and not is_punctuation_piece(piece))


def is_punctuation_piece(piece):
    """A piece whose first character (after ▁) is not a word character; byte tokens are not."""
    text = piece[1:] if piece.startswith(MARK) else piece
    if not text or (len(text) == 6 and text.startswith("<0x")) or text in SPECIALS:
        return False
    return not is_word_char(ord(text[0]))


def learn(texts, vocab_size, side, min_count=10):
    """Learn a vocabulary of `vocab_size` tokens (specials and bytes included) and its
    merge list from an iterable of sentences. Deterministic: ties go to the pair of
    smaller (left, right) token texts."""
    word_counts = Counter()
    for text in texts:
        for word, _, _, marked in pretokenize(text, side):
            word_counts[(word, marked)] += 1
    symbol_counts = Counter()
    for (word, marked), count in word_counts.items():
        for position, ch in enumerate(word):
            symbol_counts[MARK + ch if position == 0 and marked else ch] += count
    base = sorted((s for s, c in symbol_counts.items() if c >= min_count), key=lambda s: (-symbol_counts[s], s))
    vocab = SPECIALS + BYTE_TOKENS + [MARK] + [s for s in base if s != MARK]
    if len(vocab) > vocab_size:
        raise ValueError(f"vocab_size {vocab_size} is below the {len(vocab)} base symbols")
    index = {token: i for i, token in enumerate(vocab)}

    # Words as lists of symbol ids; pair statistics over them.
    words, counts = [], []
    for (word, marked), count in sorted(word_counts.items()):
        words.append([s[0] for s in initial_symbols(word, marked, index)])
        counts.append(count)
    mergeable_from = FIRST_BYTE_ID + 256  # byte tokens never merge

    pair_counts = Counter()
    where = {}
    for w, symbols in enumerate(words):
        for a, b in zip(symbols, symbols[1:]):
            if a >= mergeable_from and b >= mergeable_from:
                pair_counts[(a, b)] += counts[w]
                where.setdefault((a, b), set()).add(w)

    def key_of(pair):
        return (-pair_counts[pair], vocab[pair[0]], vocab[pair[1]])

    heap = [(key_of(p), p) for p in pair_counts]
    heapq.heapify(heap)
    merges = []
    while len(vocab) < vocab_size and heap:
        key, pair = heapq.heappop(heap)
        if pair_counts.get(pair, 0) <= 0:
            continue
        if key != key_of(pair):
            heapq.heappush(heap, (key_of(pair), pair))
            continue
        left, right = pair
        text = vocab[left] + vocab[right]
        result = index.get(text)
        if result is None:
            result = len(vocab)
            vocab.append(text)
            index[text] = result
        merges.append((left, right, result))
        changed = set()
        for w in sorted(where.pop(pair, ())):
            symbols, count = words[w], counts[w]
            for a, b in zip(symbols, symbols[1:]):
                if a >= mergeable_from and b >= mergeable_from:
                    pair_counts[(a, b)] -= count
            merged, i = [], 0
            while i < len(symbols):
                if i + 1 < len(symbols) and symbols[i] == left and symbols[i + 1] == right:
                    merged.append(result)
                    i += 2
                else:
                    merged.append(symbols[i])
                    i += 1
            words[w] = merged
            for a, b in zip(merged, merged[1:]):
                if a >= mergeable_from and b >= mergeable_from:
                    pair_counts[(a, b)] += count
                    where.setdefault((a, b), set()).add(w)
                    changed.add((a, b))
        pair_counts.pop(pair, None)
        for p in changed:
            if pair_counts.get(p, 0) > 0:
                heapq.heappush(heap, (key_of(p), p))
    return Segmenter(vocab, merges, side)


def save(path, source, target):
    with open(path, "w", encoding="utf-8") as handle:
        json.dump({"source": source.to_json(), "target": target.to_json()}, handle, ensure_ascii=False)


def load(path):
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    return Segmenter.from_json(data["source"]), Segmenter.from_json(data["target"])


if __name__ == "__main__":
    import argparse
    import os
    import sys
    import time
    ap = argparse.ArgumentParser(description="learn source and target pieces from a corpus's train.tsv")
    ap.add_argument("train_tsv")
    ap.add_argument("out_json")
    ap.add_argument("--src-vocab", type=int, default=6000)
    ap.add_argument("--tgt-vocab", type=int, default=6000)
    ap.add_argument("--min-count", type=int, default=10)
    args = ap.parse_args()
    started = time.time()
    sources, targets = [], []
    with open(args.train_tsv, encoding="utf-8") as handle:
        for line in handle:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 2:
                sources.append(parts[0])
                targets.append(parts[1])
    src = learn(sources, args.src_vocab, "source", args.min_count)
    tgt = learn(targets, args.tgt_vocab, "target", args.min_count)
    os.makedirs(os.path.dirname(os.path.abspath(args.out_json)), exist_ok=True)
    save(args.out_json, src, tgt)
    print(f"wrote {args.out_json}: {len(src.vocab)} source / {len(tgt.vocab)} target tokens, "
          f"{len(src.merges)} / {len(tgt.merges)} merges, {time.time() - started:.0f} s", file=sys.stderr)
