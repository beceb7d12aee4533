"""Checkpoint averaging, measured: the mean of the weights of a run's last saves, scored
on the dev sample that picks checkpoints (train.py's dev_splits, lower-cased BLEU as in
the training log), beside the run's last save and its best checkpoint.

Usage:
  /usr/bin/python3 models/train/average.py --data models/train/data/en-es \\
      --best ~/.cache/alignscope/runs/en-es-additive/best.pt --last 4,8 \\
      SAVE.pt [SAVE.pt ...] [--json OUT.json] [--out AVERAGED.pt]

SAVE.pt: resumable states (train.py --state, written every --save-every updates) or
checkpoints of one run; each must have the best checkpoint's architecture and
vocabularies. --last 4,8: average the last 4 saves (by update), then the last 8.
--out writes the best-scoring average as a checkpoint export.py reads (config,
vocabularies and segmentation from --best). Prints a Markdown table.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import openblas_core  # noqa: E402,F401  (before torch: OpenBLAS reads its kernel choice on loading)

import torch  # noqa: E402

from checkpoints import AverageError, average_state_dicts, load_own  # noqa: E402
from model import ModelConfig, Seq2SeqAttention  # noqa: E402
import subword  # noqa: E402
from train import dev_splits, evaluate_bleu  # noqa: E402


def load_saves(paths, template):
    """-> [(update, state_dict)] sorted by update; each checked against the template's weights."""
    saves = []
    for path in paths:
        try:
            payload = load_own(path)
        except Exception as error:
            raise AverageError(f"{path} cannot be read: {error}") from error
        if "state_dict" not in payload or "step" not in payload:
            raise AverageError(f"{path} is not a training state or checkpoint (no state_dict and step)")
        if payload.get("segmentation") not in (None, template["segmentation"]):
            raise AverageError(f"{path} has other vocabularies than the best checkpoint")
        for key, value in template["state_dict"].items():
            if key not in payload["state_dict"] or payload["state_dict"][key].shape != value.shape:
                raise AverageError(f"{path}: {key} differs from the best checkpoint's")
        saves.append((int(payload["step"]), payload["state_dict"]))
    steps = [s for s, _ in saves]
    if len(set(steps)) != len(steps):
        raise AverageError(f"two saves of the same update ({sorted(steps)})")
    return sorted(saves, key=lambda s: s[0])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("saves", nargs="+")
    ap.add_argument("--data", required=True)
    ap.add_argument("--best", required=True, help="the run's best checkpoint (best.pt or checkpoint.pt)")
    ap.add_argument("--last", default="4,8")
    ap.add_argument("--dev-sentences", type=int, default=600)
    ap.add_argument("--json", default="")
    ap.add_argument("--out", default="")
    args = ap.parse_args(argv)
    try:
        template = load_own(args.best)
        saves = load_saves(args.saves, template)
        counts = sorted({int(x) for x in args.last.split(",") if x.strip()})
        if not counts or counts[0] < 2 or counts[-1] > len(saves):
            raise AverageError(f"--last {args.last}: between 2 and the {len(saves)} saves given")
    except AverageError as error:
        print(f"average.py: {error}", file=sys.stderr)
        return 1
    segmentation = template["segmentation"]
    subwords = segmentation["kind"] == "subwords"
    segmenters = ((subword.Segmenter.from_json(segmentation["source"]),
                   subword.Segmenter.from_json(segmentation["target"])) if subwords else None)
    _, sample = dev_splits(args.data, args.dev_sentences, segmenters)
    src_index = {w: i for i, w in enumerate(template["src_vocab"])}
    model = Seq2SeqAttention(ModelConfig(**template["config"]))

    def score(state_dict):
        model.load_state_dict(state_dict)
        model.eval()
        with torch.no_grad():
            return evaluate_bleu(model, sample, src_index, template["tgt_vocab"], subwords=subwords)[0]

    rows = [{"weights": f"best checkpoint (update {template['step']})", "updates": [template["step"]],
             "dev_bleu": score(template["state_dict"])},
            {"weights": f"last save (update {saves[-1][0]})", "updates": [saves[-1][0]],
             "dev_bleu": score(saves[-1][1])}]
    averages = {}
    for n in counts:
        chosen = saves[-n:]
        averages[n] = average_state_dicts([sd for _, sd in chosen])
        rows.append({"weights": f"mean of the last {n} saves (updates {chosen[0][0]}–{chosen[-1][0]})",
                     "updates": [s for s, _ in chosen], "dev_bleu": score(averages[n])})
    print(f"Dev BLEU (lower-cased, the {len(sample)}-sentence dev sample that picks checkpoints):\n")
    print("| weights | dev BLEU |\n|---|---:|")
    for row in rows:
        print(f"| {row['weights']} | {row['dev_bleu']:.2f} |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"dev_sentences": len(sample), "rows": rows}, f, indent=1)
    if args.out:
        best_n = max(counts, key=lambda n: next(r["dev_bleu"] for r in rows if r["updates"] == [s for s, _ in saves[-n:]]))
        payload = dict(template, state_dict=averages[best_n], step=saves[-1][0], averaged_updates=[s for s, _ in saves[-best_n:]])
        torch.save(payload, args.out)
        print(f"wrote {args.out}: the mean of the last {best_n} saves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
