"""Choose the beam search's width and length penalty on a dev set: translate
its English sentences with the native CLI (build/native/alignscope) at every
width in {1, 3, 5, 8} and length penalty in {0.6, 0.8, 1.0, 1.2} (a
hypothesis of T tokens, </s> included, ranks by log p / T^penalty: src/cli.c,
as_translate_beam), score each run with cased BLEU (13a tokens, bleu.py, as
train.py and eval_alsc.py score), and name the best setting. Width 1 is
greedy, where the penalty plays no part: it runs once.

  nice -n 10 /usr/bin/python3 models/train/choose_beam.py models/en-fr-int8.alsc \\
      --data models/train/data/en-fr [--sample 300] [--json OUT]

Dev sentences: dev.tsv, and general_dev.tsv where the folder has it, half
and half as train.py chooses its checkpoints (at most --sample in all,
evenly spaced so the same rows come back every run). Ties go to the smaller
width, then the penalty nearer 1 (the cheaper, the plainer setting). The
choice is recorded once, for the CLI, the page and the element alike, as
AS_DEFAULT_BEAM_WIDTH and AS_DEFAULT_LENGTH_PENALTY in src/alignscope.h
(web/engine.js copies them, checked by tests/definitions.test.mjs); this
script prints the define lines to paste there, and never edits the header.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eval_alsc import DEFAULT_CLI, score, test_rows, translate  # noqa: E402

WIDTHS = (1, 3, 5, 8)
PENALTIES = (0.6, 0.8, 1.0, 1.2)


def evenly(rows, n):
    """At most n of rows, evenly spaced (all of them when there are fewer)."""
    if n <= 0 or len(rows) <= n:
        return list(rows)
    return [rows[i * len(rows) // n] for i in range(n)]


def dev_rows(data, sample):
    """[(english, reference)]: dev.tsv (and general_dev.tsv), at most `sample`."""
    path = os.path.join(data, "dev.tsv")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path} is missing: build the corpus first (./build.sh model, corpus.py)")
    dev = test_rows(path)
    general = os.path.join(data, "general_dev.tsv")
    if os.path.exists(general):
        half = sample // 2 if sample > 0 else 0
        other = test_rows(general)
        # general_dev may be short: dev fills what it cannot
        take_general = evenly(other, half) if half else other
        return evenly(dev, sample - len(take_general) if sample > 0 else 0) + take_general
    return evenly(dev, sample)


def settings():
    """(width, penalty) pairs; greedy once (penalty None)."""
    out = []
    for width in WIDTHS:
        if width == 1:
            out.append((1, None))
        else:
            out.extend((width, p) for p in PENALTIES)
    return out


def decoding_flags(width, penalty):
    return ("--beam", "1") if width == 1 else ("--beam", str(width), "--length-penalty", f"{penalty:g}")


def better(a, b):
    """True if result a beats b: higher cased BLEU, then smaller width, then penalty nearer 1."""
    if a["bleu_cased_13a"] != b["bleu_cased_13a"]:
        return a["bleu_cased_13a"] > b["bleu_cased_13a"]
    if a["width"] != b["width"]:
        return a["width"] < b["width"]
    return abs((a["length_penalty"] or 1.0) - 1.0) < abs((b["length_penalty"] or 1.0) - 1.0)


def choose(cli, model, rows, log=print):
    """-> (best result, every result); a result is {width, length_penalty, sentences, refused, bleu_*}."""
    sources, references = [r[0] for r in rows], [r[1] for r in rows]
    results = []
    for width, penalty in settings():
        texts, refused = translate(cli, model, sources, decoding_flags(width, penalty))
        r = {"width": width, "length_penalty": penalty, "sentences": len(rows), "refused": refused,
             **score(texts, references)}
        results.append(r)
        log(f"{os.path.basename(model)}: width {width}" + (f", penalty {penalty:g}" if penalty is not None else " (greedy)")
            + f": cased BLEU {r['bleu_cased_13a']:.2f} (lower-cased {r['bleu_lowercase_words']:.2f}), refused {refused}")
    best = results[0]
    for r in results[1:]:
        if better(r, best):
            best = r
    return best, results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", help="an .alsc file")
    ap.add_argument("--data", required=True, help="a corpus folder with dev.tsv (models/train/data/en-LANG)")
    ap.add_argument("--sample", type=int, default=300, help="at most this many dev sentences (0: all)")
    ap.add_argument("--cli", default=DEFAULT_CLI)
    ap.add_argument("--json", help="write every result and the choice here too")
    args = ap.parse_args()
    if not os.path.exists(args.cli):
        sys.exit(f"{args.cli} is missing: run ./build.sh native")
    if not os.path.exists(args.model):
        sys.exit(f"{args.model}: no such model file")
    try:
        rows = dev_rows(args.data, args.sample)
    except FileNotFoundError as e:
        sys.exit(str(e))
    if not rows:
        sys.exit(f"{args.data}: the dev set has no sentence pairs")
    best, results = choose(args.cli, args.model, rows)
    penalty = best["length_penalty"] if best["length_penalty"] is not None else 1.0
    greedy = results[0]
    print(f"best: width {best['width']}, length penalty {penalty:g}: cased BLEU {best['bleu_cased_13a']:.2f} "
          f"(greedy {greedy['bleu_cased_13a']:.2f}) on {len(rows)} dev sentences")
    print(f"#define AS_DEFAULT_BEAM_WIDTH {best['width']}\n#define AS_DEFAULT_LENGTH_PENALTY {penalty:.1f}f")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"model": args.model, "data": args.data, "sentences": len(rows), "results": results,
                       "choice": {"width": best["width"], "length_penalty": penalty}}, f, indent=2)


if __name__ == "__main__":
    main()
