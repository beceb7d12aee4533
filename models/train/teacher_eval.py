"""Cased BLEU of model files on the teacher's test set (models/testsets/teacher.tsv),
as the engine translates it: greedy and beam search, written into each
model's metrics for the cards and models/index.json.

  /usr/bin/python3 models/train/teacher_eval.py models/en-fr-int8.alsc models/en-de.alsc \
      [--beam 5] [--length-penalty 1] [--cli build/native/alignscope] [--write] [--json OUT]

Each .alsc translates the 200 sentences through the native CLI twice: with
`--beam 1` (greedy: one hypothesis, the argmax at every step) and with
`--beam N` (the best hypothesis by log p / T^X). The reference column is the
language the file says it translates into. Scores are corpus BLEU on the
detokenised text, 13a tokens, cased (bleu.py, as train.py and eval_alsc.py
score); the lines teacher.meta.json lists as word-order cases are also scored
alone. A sentence the engine refuses counts as an empty translation, and is
counted.

--write puts the figures into models/ID.metrics.json beside each model (key
`teacher_bleu`), which card.py and catalogue.py read. Run it with the Python
that trains (eval_alsc.py, which it shares the CLI runner with, imports PyTorch).
"""
import argparse
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bleu import corpus_bleu, tokenize_13a  # noqa: E402
import testsets  # noqa: E402
import eval_alsc  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CLI = os.path.join(HERE, "..", "..", "build", "native", "alignscope")
META = os.path.join(testsets.TESTSETS, "teacher.meta.json")
HEADER = re.compile(r"^model .*: (\S+) -> (\S+), attention ")


def model_languages(cli, model):
    """(source, target) language codes the file declares, from the CLI's header line."""
    run = subprocess.run([cli, "--model", model, "Hello."], capture_output=True, text=True, check=False)
    found = HEADER.match(run.stdout.splitlines()[0]) if run.stdout else None
    if run.returncode != 0 or not found:
        raise RuntimeError(f"{cli} --model {model}: exit {run.returncode}: {(run.stderr or run.stdout).strip()[:300]}")
    return found.group(1), found.group(2)


def translate(cli, model, sentences, beam, length_penalty):
    """-> ([the best hypothesis's text per sentence], refused count, `<unk>` count), from
    eval_alsc.engine_outputs (greedy at beam 1)."""
    best, refused = eval_alsc.engine_outputs(cli, model, sentences, ("--beam", str(beam), "--length-penalty", repr(length_penalty)))
    unk = sum(1 for b in best if b for t in b["target"] if t["token"] == "<unk>")
    return [b["translation"] if b else "" for b in best], refused, unk


def cased_bleu(texts, references):
    return round(corpus_bleu([tokenize_13a(t) for t in texts], [tokenize_13a(r) for r in references]), 2)


def evaluate(cli, model, rows, word_order_rows, beam, length_penalty):
    """One model -> its teacher_bleu entry (and the translations, for a look)."""
    _, target = model_languages(cli, model)
    if target not in testsets.COLUMNS[1:]:
        raise SystemExit(f"{model} translates into {target!r}; teacher.tsv has references in "
                         f"{', '.join(testsets.COLUMNS[1:])}")
    sources = [r["en"] for r in rows]
    references = [r[target] for r in rows]
    result = {"sentences": len(rows), "beam_width": beam, "length_penalty": length_penalty,
              "word_order_sentences": len(word_order_rows)}
    translations = {}
    for name, width in (("greedy", 1), ("beam", beam)):
        texts, refused, unk = translate(cli, model, sources, width, length_penalty)
        translations[name] = texts
        result[name] = cased_bleu(texts, references)
        result[f"word_order_{name}"] = cased_bleu([texts[i] for i in word_order_rows],
                                                  [references[i] for i in word_order_rows])
        result[f"refused_{name}"] = refused
        result[f"unk_in_output_{name}"] = unk
    return target, result, translations


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("models", nargs="+", help=".alsc files")
    ap.add_argument("--teacher", default=testsets.TEACHER, help="the test set (default: models/testsets/teacher.tsv)")
    ap.add_argument("--meta", default=META, help="its word-order lines (teacher.meta.json)")
    ap.add_argument("--beam", type=int, default=eval_alsc.DEFAULT_BEAM_WIDTH,
                    help="beam width of the beam figure (the CLI takes 1..8; default the engine's, AS_DEFAULT_BEAM_WIDTH)")
    ap.add_argument("--length-penalty", type=float, default=eval_alsc.DEFAULT_LENGTH_PENALTY)
    ap.add_argument("--cli", default=DEFAULT_CLI)
    ap.add_argument("--write", action="store_true", help="write teacher_bleu into models/ID.metrics.json beside each model")
    ap.add_argument("--json", help="write the results and translations here too")
    args = ap.parse_args()
    if not os.path.exists(args.cli):
        sys.exit(f"{args.cli} is missing: run ./build.sh native")
    if not 2 <= args.beam <= 8:
        sys.exit(f"--beam {args.beam}: the beam figure needs a width of 2..8 (greedy is always measured)")
    rows = testsets.read_tsv(args.teacher)
    with open(args.meta, encoding="utf-8") as f:
        lines = json.load(f)["word_order_lines"]  # file lines: the header is line 1
    if not all(2 <= line <= len(rows) + 1 for line in lines):
        sys.exit(f"{args.meta}: word_order_lines outside {args.teacher}'s lines 2..{len(rows) + 1}")
    word_order_rows = [line - 2 for line in lines]
    results = {}
    for model in args.models:
        metrics_path = eval_alsc.metrics_beside(model)
        if args.write and not (metrics_path and os.path.exists(metrics_path)):
            sys.exit(f"--write: {model} has no {metrics_path} beside it")
        target, result, translations = evaluate(args.cli, model, rows, word_order_rows, args.beam, args.length_penalty)
        results[model] = {"target": target, "teacher_bleu": result, "translations": translations}
        print(f"{model}: teacher's set en-{target}, {result['sentences']} sentences: cased BLEU greedy "
              f"{result['greedy']:.2f}, beam {args.beam} {result['beam']:.2f} (word-order lines: "
              f"{result['word_order_greedy']:.2f} / {result['word_order_beam']:.2f}); refused "
              f"{result['refused_greedy']}/{result['refused_beam']}, <unk> {result['unk_in_output_greedy']}/"
              f"{result['unk_in_output_beam']}")
        if args.write:
            eval_alsc.write_metrics(metrics_path, "teacher_bleu", result)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
