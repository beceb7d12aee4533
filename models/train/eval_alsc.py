"""Test BLEU of model files as the engine runs them: each .alsc translates the
same test sets through the native CLI (build/native/alignscope, greedy, the
trained score scale), and its output text is scored the way train.py scores
a checkpoint: cased BLEU on detokenised text with 13a tokens, and the
lower-cased word figure kept for continuity. Files of any kind compare on the
same sentences: a word-level model and the subword model that replaces it,
or the same network's f16 and int8 files.

  /usr/bin/python3 models/train/eval_alsc.py --data models/train/data/en-de \
      models/en-de.alsc OLD.alsc [--cli build/native/alignscope] [--json OUT]
      [--beam 5 [--length-penalty 1] [--write]]

With --beam N (2..8) the engine decodes by beam search instead (the best
hypothesis by log p / T^penalty), and --write puts those figures into
models/ID.metrics.json beside each model as `test_bleu_beam` (the card's
beam column: issue 28's general-test target is a beam figure); --write
alone measures the engine's default decoding (AS_DEFAULT_BEAM_WIDTH and
AS_DEFAULT_LENGTH_PENALTY, decode.py's twins). Greedy's figures stay
train.py's and eval_quantised.py's, which the engine matches.

Test sets: the UI test (test.tsv's `ui` rows) and, where the folder has it,
the general test (general_test.tsv), read as train.py reads them. A sentence
the engine refuses (longer than the model reads) counts as an empty
translation, and is counted. Run it with the Python that trains (train.py's
reader imports PyTorch).
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bleu import corpus_bleu, tokenize_13a  # noqa: E402
from tokenize_text import words  # noqa: E402
from train import read_rows  # noqa: E402
from decode import DEFAULT_BEAM_WIDTH, DEFAULT_LENGTH_PENALTY  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
# What the CLI says on stderr of a sentence it refuses (longer than the model reads).
REFUSED = "more words than this model accepts"
DEFAULT_CLI = os.path.join(HERE, "..", "..", "build", "native", "alignscope")


def test_rows(path, domain=None):
    """corpus.py's TSV -> [(english, reference)]: the rows train.py reads, only
    `domain`'s where given."""
    return [(src, ref) for src, ref, row_domain in read_rows(path) if not domain or row_domain == domain]


def engine_outputs(cli, model, sentences, decoding=("--beam", "1")):
    """-> ([the engine's best translation as its JSON object, or None where refused, per
    sentence], refused count). The CLI reads one sentence a line and prints one JSON line
    per translation; a refused one prints only a message to stderr, so outputs are matched
    to inputs by their text, in order. decoding: the CLI's decoding flags, greedy by
    default; with `--beam K` (K > 1) the line lists K hypotheses and the best is taken."""
    for s in sentences:
        if "\n" in s or not s.strip():
            raise ValueError(f"not one non-empty line: {s!r}")
    run = subprocess.run([cli, "--model", model, *decoding, "--json", "--no-context", "--top-k", "0"], input="\n".join(sentences) + "\n",
                         capture_output=True, text=True, check=False)
    outputs = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    # It exits 1 when it refused a sentence; anything else is a failure.
    odd = [line for line in run.stderr.splitlines() if line.strip() and REFUSED not in line]
    if run.returncode not in (0, 1) or odd or (sentences and not outputs):
        raise RuntimeError(f"{cli} --model {model} {' '.join(decoding)}: exit {run.returncode}: "
                           f"{(odd or [run.stderr.strip()])[0][:500]}")
    best, at, refused = [], 0, 0
    for s in sentences:
        if at < len(outputs) and outputs[at]["text"] == s:
            out = outputs[at]
            best.append(out["hypotheses"][0] if "hypotheses" in out else out)
            at += 1
        else:
            best.append(None)
            refused += 1
    if at != len(outputs):
        raise RuntimeError(f"{model}: {len(outputs) - at} outputs matched no input sentence")
    return best, refused


def translate(cli, model, sentences, decoding=("--beam", "1")):
    """-> ([translation text per sentence, '' where refused], refused count): engine_outputs' texts."""
    best, refused = engine_outputs(cli, model, sentences, decoding)
    return [b["translation"] if b else "" for b in best], refused


def score(texts, references):
    """-> {cased BLEU (13a), lower-cased word BLEU}, as train.evaluate_test_sets reports them."""
    return {"bleu_cased_13a": round(corpus_bleu([tokenize_13a(t) for t in texts], [tokenize_13a(r) for r in references]), 2),
            "bleu_lowercase_words": round(corpus_bleu([words(t) for t in texts], [words(r) for r in references]), 2)}


def write_metrics(path, key, result):
    """Set KEY in a metrics file, keeping the layout its writer gave it (train.py
    indents by 2, eval_quantised.py by 1; no final newline), so the diff is the
    new key alone."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    metrics = json.loads(text)
    second = text.split("\n", 2)[1] if "\n" in text else ""
    indent = len(second) - len(second.lstrip(" ")) or 2
    metrics[key] = result
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(metrics, indent=indent) + ("\n" if text.endswith("\n") else ""))


def metrics_beside(model):
    """models/ID.alsc -> models/ID.metrics.json (None for another name)."""
    return model[:-len(".alsc")] + ".metrics.json" if model.endswith(".alsc") else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("models", nargs="+", help=".alsc files")
    ap.add_argument("--data", required=True, help="a corpus folder (models/train/data/en-LANG)")
    ap.add_argument("--cli", default=DEFAULT_CLI)
    ap.add_argument("--beam", type=int, default=None,
                    help=f"beam width (the CLI takes 1..8; default 1, greedy, or with --write {DEFAULT_BEAM_WIDTH})")
    ap.add_argument("--length-penalty", type=float, default=DEFAULT_LENGTH_PENALTY,
                    help="with --beam: rank by log p / T^this")
    ap.add_argument("--write", action="store_true",
                    help="with --beam 2..8: write test_bleu_beam into models/ID.metrics.json beside each model")
    ap.add_argument("--json", help="write the results here too")
    args = ap.parse_args()
    if not os.path.exists(args.cli):
        sys.exit(f"{args.cli} is missing: run ./build.sh native")
    if args.beam is None:
        args.beam = DEFAULT_BEAM_WIDTH if args.write else 1
    if not 1 <= args.beam <= 8:
        sys.exit(f"--beam {args.beam}: the CLI takes a width of 1..8")
    if args.write and args.beam < 2:
        sys.exit("--write records beam search's figures: give --beam 2..8 (greedy's are the training's own)")
    for model in args.models if args.write else ():
        if not (metrics_beside(model) and os.path.exists(metrics_beside(model))):
            sys.exit(f"--write: {model} has no {metrics_beside(model)} beside it")
    decoding = ("--beam", str(args.beam), "--length-penalty", repr(args.length_penalty))
    sets = {"ui_test": test_rows(os.path.join(args.data, "test.tsv"), "ui")}
    general = os.path.join(args.data, "general_test.tsv")
    if os.path.exists(general):
        sets["general_test"] = test_rows(general)
    results = {}
    for model in args.models:
        results[model] = {}
        for name, rows in sets.items():
            texts, refused = translate(args.cli, model, [r[0] for r in rows], decoding)
            results[model][name] = {"sentences": len(rows), "refused": refused, **score(texts, [r[1] for r in rows])}
            r = results[model][name]
            print(f"{model}: {name}: {r['sentences']} sentences, {'greedy' if args.beam == 1 else f'beam {args.beam}'}: "
                  f"cased BLEU {r['bleu_cased_13a']:.2f}, lower-cased {r['bleu_lowercase_words']:.2f}, refused {r['refused']}")
        if args.write:
            write_metrics(metrics_beside(model), "test_bleu_beam",
                          {"beam_width": args.beam, "length_penalty": args.length_penalty, **results[model]})
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
