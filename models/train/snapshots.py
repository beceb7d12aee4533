"""The training film: a catalogue model's weights at a few points of its own
training, as int8 model files that the page's training scrubber loads only
when it is opened (web/cards/training.js). The shipped film is of the zoo's
additive model (en-fr-additive: build.sh ZOO_RECIPE, 6,000 updates), whose
run `ZOO_JOBS=fr:additive ./build.sh zoo` makes; the film's run is the same
recipe again with train.py --snapshots 60,300,1200,3000:

  /usr/bin/python3 models/train/snapshots.py \
      --state ~/.cache/alignscope/runs/en-fr-additive-film \
      --final models/train/runs/zoo-en-fr-additive/checkpoint.pt \
      --data models/train/data/en-fr --id en-fr-additive --final-file en-fr-additive.alsc \
      --film-log models/train/runs/en-fr-additive-film/log.txt \
      --final-log models/train/runs/zoo-en-fr-additive/log.txt

Where the weights come from: train.py --snapshots N,N,... saves the weights
at those updates to STATE/snapshots/update-N.pt. Saving draws no random
numbers, and train.py's run is a pure function of its arguments and corpus
(seeded, one thread, data order by (seed, epoch), resumes restoring every
RNG), so a run of the model's recipe with --snapshots passes through the
model's own weights; its dev BLEU at each evaluation matches that run's log
(the manifest records both, so anyone can check).

Writes models/snapshots/ID-uN.alsc for each snapshot and models/snapshots/
ID.json, the manifest: for each point its update count, the share of the
budget, the file (the last point is the shipped model file itself, not a
copy), its bytes and SHA-256, and its dev BLEU measured here the same way for
every point (train.py's 600-sentence dev sample, lower-cased words, the int8
weights the file stores).
"""
import argparse
import hashlib
import json
import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import openblas_core  # noqa: E402,F401  (before torch: OpenBLAS reads its kernel choice on loading)

import torch  # noqa: E402

from checkpoints import load_own  # noqa: E402
from export import load_checkpoint, load_segmenters, round_weights_to, suppress_specials  # noqa: E402
from train import evaluate_bleu, read_pairs  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))


def dev_sample_of(data, segmenters, sentences=600):
    """train.py's dev sample, chosen the same way (half UI, half general, seed 7)."""
    dev_pairs = read_pairs(os.path.join(data, "dev.tsv"), None, segmenters)
    general_path = os.path.join(data, "general_dev.tsv")
    ui_dev = [p for p in dev_pairs if p.domain == "ui"]
    if os.path.exists(general_path):
        general_dev = read_pairs(general_path, None, segmenters)
        half = sentences // 2
        return (random.Random(7).sample(ui_dev, min(half, len(ui_dev)))
                + random.Random(7).sample(general_dev, min(half, len(general_dev))))
    return random.Random(7).sample(dev_pairs, min(sentences, len(dev_pairs)))


def dev_bleu_int8(checkpoint, dev):
    model, src_vocab, tgt_vocab = load_checkpoint(checkpoint)
    suppress_specials(model)
    round_weights_to(model, "int8")
    src_index = {w: i for i, w in enumerate(src_vocab)}
    bleu, _, _ = evaluate_bleu(model, dev, src_index, tgt_vocab, subwords=True)
    return round(bleu, 2)


def file_facts(path):
    with open(path, "rb") as handle:
        data = handle.read()
    return {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def logged_dev_bleu(log_path):
    """{update: dev BLEU} from a train.py log (what the run itself measured, f32)."""
    found = {}
    if os.path.exists(log_path):
        for line in open(log_path, encoding="utf-8"):
            m = re.search(r"update (\d+): dev BLEU ([0-9.]+)", line)
            if m:
                found[int(m.group(1))] = float(m.group(2))
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--state", required=True, help="the film run's state folder (with snapshots/update-N.pt)")
    ap.add_argument("--final", required=True, help="the shipped model's training checkpoint")
    ap.add_argument("--film-log", default="", help="the film run's train.py log (OUT/log.txt)")
    ap.add_argument("--final-log", default="", help="the shipped model's train.py log (its dev BLEU curve)")
    ap.add_argument("--data", required=True)
    ap.add_argument("--id", required=True, help="the catalogue id of the shipped model (en-fr-int8)")
    ap.add_argument("--final-file", required=True, help="the shipped model's file in models/")
    ap.add_argument("--languages", default="en,fr")
    ap.add_argument("--out", default=os.path.join(REPO, "models", "snapshots"))
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)

    final = load_own(args.final)
    budget = int(final["step"])
    snapshot_dir = os.path.join(args.state, "snapshots")
    points = sorted(int(m.group(1)) for f in os.listdir(snapshot_dir)
                    if (m := re.fullmatch(r"update-(\d+)\.pt", f)) and int(m.group(1)) < budget)
    if not points:
        raise SystemExit(f"no snapshots in {snapshot_dir}: train with --snapshots first")
    segmenters = load_segmenters(args.final)
    if not segmenters:
        raise SystemExit("the training film is made for subword models (the shipped recipe)")
    dev = dev_sample_of(args.data, segmenters)
    film_log = logged_dev_bleu(args.film_log) if args.film_log else {}
    final_log = logged_dev_bleu(args.final_log) if args.final_log else {}
    os.makedirs(args.out, exist_ok=True)
    entries = []
    for update in points:
        checkpoint = os.path.join(snapshot_dir, f"update-{update}.pt")
        name = f"{args.id}-u{update}.alsc"
        out = os.path.join(args.out, name)
        subprocess.run([sys.executable, os.path.join(HERE, "export.py"), checkpoint, out, "--int8",
                        "--languages", args.languages], check=True)
        bleu = dev_bleu_int8(checkpoint, dev)
        print(f"update {update}: {name}, dev BLEU {bleu}", flush=True)
        entries.append({"update": update, "file": name, **file_facts(out), "devBleu": bleu})
    final_path = os.path.join(REPO, "models", args.final_file)
    entries.append({"update": budget, "file": f"../{args.final_file}", **file_facts(final_path),
                    "devBleu": dev_bleu_int8(args.final, dev), "shipped": True})
    for e in entries:
        e["fraction"] = round(e["update"] / budget, 4)
    manifest = {
        "model": args.id,
        "updates": budget,
        "devSentences": len(dev),
        "devBleu": "corpus BLEU of lower-cased words on train.py's dev sample, the int8 weights as stored",
        # The check that the film run followed the shipped run: the dev BLEU
        # both logged (f32) at the evaluations they share.
        "trajectoryCheck": {str(u): {"film": film_log[u], "shipped": final_log.get(u)}
                            for u in sorted(film_log) if u in final_log} if final_log else {},
        "snapshots": entries,
    }
    with open(os.path.join(args.out, f"{args.id}.json"), "w", encoding="utf-8") as handle:
        json.dump(manifest, handle, indent=2)
        handle.write("\n")
    print(f"wrote {len(entries)} points to {args.out}/{args.id}.json")


if __name__ == "__main__":
    main()
