"""Pipeline smoke test: toy corpus -> train each attention kind briefly ->
export .alsc + parity fixtures. The tests load the results in the C engine, so
training, export and the engine cannot drift apart unnoticed.

  /usr/bin/python3 models/train/smoke.py OUT_DIR [--kinds additive,dot,...]

Writes OUT_DIR/<kind>.alsc, OUT_DIR/<kind>.parity.json and OUT_DIR/<kind>.metrics.json,
and for the kinds in INT8_KINDS also OUT_DIR/<kind>-int8.alsc + .parity.json (the
same checkpoint with int8 matrices; the fixtures use the dequantised weights).
"""
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SENTENCES = [
    "Open the file",
    "Show the new window",
    "Print the Zorglub page",       # unknown word: exercises <unk> handling
    "Delete the selected document!",
    "save   the LAST   menu",
]
INT8_KINDS = ("additive",)


def run(args):
    subprocess.run([sys.executable] + args, check=True, stdout=subprocess.DEVNULL)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--kinds", default="additive,dot,general,scaled_dot,none")
    ap.add_argument("--epochs", type=int, default=12)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    data = os.path.join(args.out, "toy-data")
    run([os.path.join(HERE, "toy_corpus.py"), data, "--pairs", "400"])
    sentences = os.path.join(args.out, "sentences.txt")
    with open(sentences, "w", encoding="utf-8") as f:
        f.write("\n".join(SENTENCES) + "\n")
    for kind in args.kinds.split(","):
        run_dir = os.path.join(args.out, f"run-{kind}")
        shutil.rmtree(run_dir, ignore_errors=True)
        run([os.path.join(HERE, "train.py"), "--data", data, "--out", run_dir, "--attention", kind,
             "--src-vocab", "60", "--tgt-vocab", "60", "--embed", "24", "--hidden", "20",
             "--decoder-hidden", "24", "--attention-dim", "28", "--output-dim", "20",
             "--epochs", str(args.epochs), "--batch", "16", "--lr", "5e-3", "--dev-sentences", "20",
             "--sampled-negatives", "20", "--full-softmax-tail", "0.5", "--max-steps", str(args.epochs * 25)])
        run([os.path.join(HERE, "export.py"), os.path.join(run_dir, "checkpoint.pt"),
             os.path.join(args.out, f"{kind}.alsc"), "--fixtures", os.path.join(args.out, f"{kind}.parity.json"),
             "--sentences", sentences])
        if kind in INT8_KINDS:
            run([os.path.join(HERE, "export.py"), os.path.join(run_dir, "checkpoint.pt"),
                 os.path.join(args.out, f"{kind}-int8.alsc"), "--int8",
                 "--fixtures", os.path.join(args.out, f"{kind}-int8.parity.json"), "--sentences", sentences])
        shutil.copy(os.path.join(run_dir, "metrics.json"), os.path.join(args.out, f"{kind}.metrics.json"))
        print(f"smoke: {kind} ok", flush=True)


if __name__ == "__main__":
    main()
