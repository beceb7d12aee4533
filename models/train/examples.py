"""Pick the page's example sentences from the held-out test sets, by what the
model's alignments show (never training data, never made up).

  /usr/bin/python3 models/train/examples.py CHECKPOINT --data models/train/data/en-fr \
      --out models/examples/en-fr.json [--weights int8] [--count 10]

Every general-test sentence of 5-25 words (and the UI test's of 5-25 words)
is translated greedily by PyTorch with the stored weights; its alignment is
taken to words (a source word's column sums its pieces' alpha, a target
word's row is the mean of its pieces', FORMAT.md 5.2). A sentence qualifies
when its translation is close to the reference (sentence BLEU, smoothed) and
shows at least one of:
- reordering: the path of each target word's most attended source word goes
  backwards at least once (a non-monotonic argmax path);
- one-to-many: one source word is the most attended of two or more target
  words that are not punctuation;
- long range: a target word's most attended source word is 4 or more words
  away from where a diagonal alignment would put it.
The list takes the best-translated sentences of each kind in turn.

The sentences are the corpus's (Debian's translators'), so the list is
written outside the repository's committed files (models/examples/ is
git-ignored): `./build.sh serve` and `dist` add it to the page's catalogue
when it is there.
"""
import argparse
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bleu import sentence_stats, tokenize_13a  # noqa: E402
from export import load_checkpoint, load_segmenters, round_weights_to, suppress_specials, trace_sentence  # noqa: E402
from train import read_rows  # noqa: E402
import subword  # noqa: E402


def smoothed_sentence_bleu(hyp, ref):
    """Sentence BLEU with add-one smoothing of the n-gram precisions (Lin & Och 2004)."""
    stats = sentence_stats(hyp, ref)
    hyp_len, ref_len = stats[0], stats[1]
    if hyp_len == 0:
        return 0.0
    log_p = sum(math.log((stats[1 + n] + 1) / (stats[5 + n] + 1)) for n in range(1, 5)) / 4
    brevity = 1.0 if hyp_len > ref_len else math.exp(1 - ref_len / hyp_len)
    return 100 * brevity * math.exp(log_p)


def word_alignment(case, target_pieces):
    """Pieces' alpha -> (target words x source words) matrix, and each target word's text."""
    words_src = case["source_words"]
    starts = subword.word_starts(target_pieces)
    n_src = max(words_src) + 1 if words_src else 0
    rows, texts = [], []
    for t, piece in enumerate(target_pieces):
        if starts[t]:
            rows.append([[0.0] * n_src, 0])
            texts.append("")
        row = rows[-1]
        for j, a in enumerate(case["alpha"][t]):
            row[0][words_src[j]] += a
        row[1] += 1
        texts[-1] += piece
    matrix = [[v / count for v in values] for values, count in rows]
    return matrix, [subword.decode([t]) for t in texts]


def qualities(matrix, target_words):
    """Which of the three things this alignment shows."""
    content = [i for i, w in enumerate(target_words) if any(ch.isalnum() for ch in w)]
    argmax = [max(range(len(matrix[i])), key=lambda j: matrix[i][j]) for i in content]
    found = set()
    if any(b < a for a, b in zip(argmax, argmax[1:])):
        found.add("reordering")
    if len(argmax) != len(set(argmax)):
        found.add("one-to-many")
    rows, cols = len(matrix), len(matrix[0]) if matrix else 0
    for i, j in zip(content, argmax):
        if rows > 1 and abs(j - i * (cols - 1) / (rows - 1)) >= 4:
            found.add("long range")
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkpoint")
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--weights", default="int8", choices=["f32", "f16", "int8"])
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--min-bleu", type=float, default=35.0)
    ap.add_argument("--min-words", type=int, default=5)
    args = ap.parse_args()
    torch.set_num_threads(1)
    model, src_vocab, tgt_vocab = load_checkpoint(args.checkpoint)
    segmenters = load_segmenters(args.checkpoint)
    if not segmenters:
        raise SystemExit("examples.py: the checkpoint is not a subword model")
    suppress_specials(model)
    round_weights_to(model, args.weights)
    scale = model.config.trained_score_scale()
    candidates = []
    for split in ("general_test.tsv", "test.tsv"):
        path = os.path.join(args.data, split)
        if not os.path.exists(path):
            continue
        for source, reference, domain in read_rows(path):
            if not args.min_words <= len(source.split()) <= 25:
                continue
            case = trace_sentence(model, source, src_vocab, tgt_vocab, scale, segmenters)
            pieces = [tgt_vocab[i] for i in case["target_ids"] if i != 3]
            if not case["alpha"] or not pieces:
                continue
            bleu = smoothed_sentence_bleu(tokenize_13a(case["translation"]), tokenize_13a(reference))
            if bleu < args.min_bleu:
                continue
            matrix, target_words = word_alignment(case, pieces)
            shows = qualities(matrix, target_words)
            if shows:
                candidates.append({"text": source, "translation": case["translation"], "shows": sorted(shows),
                                   "set": "general test" if split.startswith("general") else "UI test",
                                   "sentence_bleu": round(bleu, 1)})
    candidates.sort(key=lambda c: (-c["sentence_bleu"], c["text"]))
    chosen, seen = [], set()
    kinds = ["reordering", "one-to-many", "long range"]
    while len(chosen) < args.count and any(c["text"] not in seen for c in candidates):
        before = len(chosen)
        for kind in kinds:
            for c in candidates:
                if c["text"] not in seen and kind in c["shows"] and len(chosen) < args.count:
                    chosen.append(c)
                    seen.add(c["text"])
                    break
        if len(chosen) == before:
            break
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"model_checkpoint": os.path.basename(args.checkpoint), "weights": args.weights,
                   "candidates": len(candidates), "examples": chosen}, f, ensure_ascii=False, indent=1)
    print(f"examples.py: {len(chosen)} of {len(candidates)} qualifying sentences -> {args.out}")


if __name__ == "__main__":
    main()
