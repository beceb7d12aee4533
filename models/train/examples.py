"""Pick the page's example sentences by what the model's alignments show
(never training data, never made up), from the teacher's test set (ours,
committed) or from the corpus's held-out test sets (the corpus's text, not
committed).

  /usr/bin/python3 models/train/examples.py --alsc models/en-fr-int8.alsc \
      --out models/examples/en-fr-int8.json [--teacher models/testsets/teacher.tsv] [--beam 1]
  /usr/bin/python3 models/train/examples.py CHECKPOINT --data models/train/data/en-fr \
      --out DIR/en-fr.json [--weights int8] [--count 10]

With --alsc, every teacher's-set sentence of 5-25 words is translated by the
native engine with that very file (build/native/alignscope --json; --beam 1
is greedy) and its word alignment is the engine's own (FORMAT.md 5.2: a
source word's column sums its pieces' alpha, a target word's row is the mean
of its pieces'). With a CHECKPOINT, every general-test and UI-test sentence
of 5-25 words is translated greedily by PyTorch with the stored weights, its
alignment taken to words the same way. A sentence qualifies when its
translation is close to the reference (sentence BLEU, smoothed) and shows at
least one of:
- reordering: the path of each target word's most attended source word goes
  backwards at least once (a non-monotonic argmax path);
- one-to-many: one source word is the most attended of two or more target
  words that are not punctuation;
- long range: a target word's most attended source word is 4 or more words
  away from where a diagonal alignment would put it.
The list takes the best-translated sentences of each kind in turn.

The teacher's set is ours, so its lists are committed (models/examples/, one
per model; `./build.sh serve` and `dist` add them to the page's catalogue).
Lists picked from the corpus's sentences must stay out of the repository.
"""
import argparse
import json
import math
import os
import sys

import subprocess

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bleu import sentence_stats, tokenize_13a  # noqa: E402
import testsets  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CLI = os.path.join(HERE, "..", "..", "build", "native", "alignscope")
MAX_WORDS = 25


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
    import subword
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


def engine_alignment(trace):
    """One translation of the CLI's --json (a greedy line or a beam hypothesis)
    -> (target words x source words) matrix and each target word's text, from
    the engine's own piece -> word maps (source_words, target_words); the end
    token is left out."""
    n_src = max(trace["source_words"]) + 1 if trace["source_words"] else 0
    rows, texts = {}, {}
    for t, (token, word) in enumerate(zip(trace["target"], trace["target_words"])):
        if token["token"] == "</s>":
            continue
        sums = [0.0] * n_src
        for j, a in enumerate(trace["alpha"][t]):
            sums[trace["source_words"][j]] += a
        row = rows.setdefault(word, [[0.0] * n_src, 0])
        row[0] = [x + y for x, y in zip(row[0], sums)]
        row[1] += 1
        texts[word] = texts.get(word, "") + token["text"]
    order = sorted(rows)
    return [[v / rows[w][1] for v in rows[w][0]] for w in order], [texts[w] for w in order]


def engine_translations(cli, model, sentences, beam):
    """-> [the CLI's trace of each sentence's translation (the best hypothesis
    with --beam)]; a sentence the engine refuses raises (the teacher's set is short)."""
    command = [cli, "--model", model, "--json", "--no-context", "--top-k", "0", "--beam", str(beam)]
    run = subprocess.run(command, input="\n".join(sentences) + "\n", capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise SystemExit(f"examples.py: {' '.join(command)}: exit {run.returncode}: {run.stderr.strip()[:300]}")
    lines = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    if [j["text"] for j in lines] != sentences:
        raise SystemExit(f"examples.py: {model}: the engine's outputs do not match its inputs")
    # Greedy (--beam 1) prints the translation itself; a beam prints its hypotheses, best first.
    return [j["hypotheses"][0] if "hypotheses" in j else j for j in lines]


def engine_candidates(args):
    """The teacher's set through the native engine -> qualifying sentences."""
    if not os.path.exists(args.cli):
        raise SystemExit(f"examples.py: {args.cli} is missing: run ./build.sh native")
    languages = subprocess.run([args.cli, "--model", args.alsc, "Hello."], capture_output=True, text=True)
    header = languages.stdout.split("\n", 1)[0]
    target = header.split(" -> ", 1)[1].split(",", 1)[0] if " -> " in header else None
    if languages.returncode != 0 or target not in testsets.COLUMNS[1:]:
        raise SystemExit(f"examples.py: {args.alsc}: not a model into one of {testsets.COLUMNS[1:]}: "
                         f"{(languages.stderr or header).strip()[:300]}")
    rows = [r for r in testsets.read_tsv(args.teacher) if args.min_words <= len(r["en"].split()) <= MAX_WORDS]
    traces = engine_translations(args.cli, args.alsc, [r["en"] for r in rows], args.beam)
    candidates = []
    for row, trace in zip(rows, traces):
        if not trace["alpha"] or not trace["translation"]:
            continue
        bleu = smoothed_sentence_bleu(tokenize_13a(trace["translation"]), tokenize_13a(row[target]))
        if bleu < args.min_bleu:
            continue
        shows = qualities(*engine_alignment(trace))
        if shows:
            candidates.append({"text": row["en"], "translation": trace["translation"], "reference": row[target],
                               "shows": sorted(shows), "set": "teacher's set", "sentence_bleu": round(bleu, 1)})
    return candidates


def checkpoint_candidates(args):
    """The corpus's held-out test sets through PyTorch -> qualifying sentences."""
    import torch
    from export import load_checkpoint, load_segmenters, round_weights_to, suppress_specials, trace_sentence
    from train import read_rows
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
            if not args.min_words <= len(source.split()) <= MAX_WORDS:
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
    return candidates


def choose(candidates, count):
    """The best-translated sentences of each kind in turn, each sentence once."""
    candidates = sorted(candidates, key=lambda c: (-c["sentence_bleu"], c["text"]))
    chosen, seen = [], set()
    kinds = ["reordering", "one-to-many", "long range"]
    while len(chosen) < count and any(c["text"] not in seen for c in candidates):
        before = len(chosen)
        for kind in kinds:
            for c in candidates:
                if c["text"] not in seen and kind in c["shows"] and len(chosen) < count:
                    chosen.append(c)
                    seen.add(c["text"])
                    break
        if len(chosen) == before:
            break
    return chosen


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkpoint", nargs="?", help="a training checkpoint (with --data), instead of --alsc")
    ap.add_argument("--alsc", help="a model file: the teacher's set through the native engine")
    ap.add_argument("--teacher", default=testsets.TEACHER)
    ap.add_argument("--beam", type=int, default=1, help="with --alsc: the engine's beam width (1: greedy)")
    ap.add_argument("--cli", default=DEFAULT_CLI)
    ap.add_argument("--data", help="with a checkpoint: a corpus folder (its held-out test sets)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--weights", default="int8", choices=["f32", "f16", "int8"])
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--min-bleu", type=float, default=35.0)
    ap.add_argument("--min-words", type=int, default=5)
    args = ap.parse_args()
    if bool(args.alsc) == bool(args.checkpoint) or (args.checkpoint and not args.data):
        ap.error("give either --alsc FILE, or CHECKPOINT with --data")
    if args.alsc:
        candidates = engine_candidates(args)
        about = {"model": os.path.basename(args.alsc), "decoding": "greedy" if args.beam == 1 else f"beam {args.beam}",
                 "sentences_from": "models/testsets/teacher.tsv"}
    else:
        candidates = checkpoint_candidates(args)
        about = {"model_checkpoint": os.path.basename(args.checkpoint), "weights": args.weights}
    chosen = choose(candidates, args.count)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({**about, "min_sentence_bleu": args.min_bleu, "candidates": len(candidates), "examples": chosen},
                  f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"examples.py: {len(chosen)} of {len(candidates)} qualifying sentences -> {args.out}")


if __name__ == "__main__":
    main()
