"""Test BLEU of a checkpoint with its weights as a model file would store them:
f32 (the checkpoint itself), f16, or int8 (per-row scales, models/FORMAT.md
3.1), each computed by PyTorch with the stored values (export.round_weights_to)
and scored by train.py's own evaluate_bleu on the same test set.

  /usr/bin/python3 models/train/eval_quantised.py CHECKPOINT \
      [--data models/train/data/en-fr] [--weights f32,int8] [--out FILE.json]
      [--metrics RUN/metrics.json]

With --metrics (and one --weights), --out gets that training run's metrics
with test_bleu and its by-length table replaced by the stored weights' own
(the f32 figures kept as f32_test_bleu, f32_test_bleu_by_source_length):
the metrics of the model file the zoo commits.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import openblas_core  # noqa: E402,F401  (before torch: OpenBLAS reads its kernel choice on loading)

import torch  # noqa: E402

from export import load_checkpoint, load_segmenters, round_weights_to, suppress_specials  # noqa: E402
from train import evaluate_bleu, evaluate_test_sets, read_pairs  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("checkpoint")
    ap.add_argument("--data", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "en-fr"))
    ap.add_argument("--weights", default="f32,int8", help="comma-separated: f32, f16, int8")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", help="also write the results here as JSON")
    ap.add_argument("--metrics", help="a training run's metrics.json to merge the results into (see above)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    segmenters = load_segmenters(args.checkpoint)
    test_pairs = read_pairs(os.path.join(args.data, "test.tsv"), None, segmenters)
    test_sets = {}
    if segmenters:  # the subword recipe's two test sets, as train.py measures them
        test_sets["ui_test"] = [p for p in test_pairs if p.domain == "ui"]
        test_pairs = test_sets["ui_test"]
        general = os.path.join(args.data, "general_test.tsv")
        if os.path.exists(general):
            test_sets["general_test"] = read_pairs(general, None, segmenters)
    results = {"checkpoint": args.checkpoint, "test_pairs": len(test_pairs), "bleu": {}}
    for weights in args.weights.split(","):
        model, src_vocab, tgt_vocab = load_checkpoint(args.checkpoint)
        if segmenters:
            suppress_specials(model)
        round_weights_to(model, weights)
        src_index = {w: i for i, w in enumerate(src_vocab)}
        started = time.time()
        if segmenters:
            tests, _ = evaluate_test_sets(model, test_sets, src_index, tgt_vocab, True)
            bleu, by_bucket = tests["ui_test"]["bleu_lowercase_words"], tests["ui_test"]["bleu_lowercase_words_by_source_length"]
            results["bleu"][weights] = {"test_bleu": round(bleu, 2), "by_source_length": by_bucket, "tests": tests}
        else:
            bleu, by_bucket, _ = evaluate_bleu(model, test_pairs, src_index, tgt_vocab, intervals=True)
            results["bleu"][weights] = {"test_bleu": round(bleu, 2), "by_source_length": by_bucket}
        print(f"{weights}: test BLEU {bleu:.2f} on {len(test_pairs)} sentences ({time.time() - started:.0f} s)",
              flush=True)
    if args.metrics:
        if len(results["bleu"]) != 1:
            raise SystemExit("--metrics takes exactly one --weights")
        (weights, measured), = results["bleu"].items()
        with open(args.metrics, encoding="utf-8") as f:
            metrics = json.load(f)
        metrics.update({"weights": weights, "f32_test_bleu": metrics["test_bleu"],
                        "f32_test_bleu_by_source_length": metrics["test_bleu_by_source_length"],
                        "test_bleu": measured["test_bleu"],
                        "test_bleu_by_source_length": measured["by_source_length"]})
        if "tests" in measured:  # the stored weights' own figures on both test sets
            metrics["f32_tests"] = metrics.get("tests")
            metrics["tests"] = measured["tests"]
        results = metrics
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
