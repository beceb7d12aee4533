"""Pipeline smoke test: toy corpus -> train each attention kind briefly ->
export .alsc + parity fixtures. The tests load the results in the C engine, so
training, export and the engine cannot drift apart unnoticed.

  /usr/bin/python3 models/train/smoke.py OUT_DIR [--kinds additive,dot,...]

Writes OUT_DIR/<kind>.alsc, OUT_DIR/<kind>.parity.json and OUT_DIR/<kind>.metrics.json,
and for the kinds in INT8_KINDS also OUT_DIR/<kind>-int8.alsc + .parity.json (the
same checkpoint with int8 matrices; the fixtures use the dequantised weights).
OUT_DIR/subwords.alsc (+ -int8) is the additive kind with cased subword pieces
(models/FORMAT.md 5.2), trained by update budget and resumed half way, as
./build.sh model trains the page's models. OUT_DIR/layer-norm.alsc (+ -int8) is
the same with --layer-norm (arch_flags layer_norm, FORMAT.md 1.1).
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
# The subword model's fixtures add text that exercises segmentation: unseen
# characters (byte fallback), case, punctuation runs.
SUBWORD_SENTENCES = SENTENCES + ["Zoë opens the FILE… now!", "Привет, close the 😀 window?", "e\u0301cran « test »"]


def run(args):
    subprocess.run([sys.executable] + args, check=True, stdout=subprocess.DEVNULL)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--kinds", default="additive,dot,general,scaled_dot,none")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--no-subwords", dest="subwords", action="store_false", help="skip the subword model")
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
    if args.subwords:
        subword_model(args, data)
        subword_model(args, data, "layer-norm", ["--layer-norm"], resume=False)


def subword_model(args, data, name="subwords", extra_args=(), resume=True):
    """The additive kind on cased subwords: an update budget, stopped after a few
    seconds and resumed from its state (the path a long run takes) unless not
    resume; extra_args: train.py's options for a variant of it (layer-norm)."""
    sentences = os.path.join(args.out, "sentences-subwords.txt")
    with open(sentences, "w", encoding="utf-8") as f:
        f.write("\n".join(SUBWORD_SENTENCES) + "\n")
    run_dir, state = os.path.join(args.out, f"run-{name}"), os.path.join(args.out, f"state-{name}")
    shutil.rmtree(run_dir, ignore_errors=True)
    shutil.rmtree(state, ignore_errors=True)
    common = [os.path.join(HERE, "train.py"), "--data", data, "--out", run_dir, "--attention", "additive",
              "--subwords", "330,330", "--updates", str(args.epochs * 25), "--state", state,
              "--embed", "24", "--hidden", "20", "--decoder-hidden", "24", "--attention-dim", "28",
              "--output-dim", "20", "--batch", "16", "--lr", "5e-3", "--dev-sentences", "20",
              "--sampled-negatives", "20", "--full-softmax-tail", "0.3", "--eval-every", "100",
              "--save-every", "20", "--epoch-pairs", "400", *extra_args]
    if resume:
        run(common + ["--minutes", "0.05"])  # stops part way, state saved
    run(common)                              # (resumes and) finishes
    checkpoint = os.path.join(run_dir, "checkpoint.pt")
    for file_name, extra in ((name, []), (f"{name}-int8", ["--int8"])):
        run([os.path.join(HERE, "export.py"), checkpoint, os.path.join(args.out, f"{file_name}.alsc"), *extra,
             "--fixtures", os.path.join(args.out, f"{file_name}.parity.json"), "--sentences", sentences])
    shutil.copy(os.path.join(run_dir, "metrics.json"), os.path.join(args.out, f"{name}.metrics.json"))
    print(f"smoke: {name} ok", flush=True)


if __name__ == "__main__":
    main()
