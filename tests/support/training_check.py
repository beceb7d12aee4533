"""Training by update budget (tests/training.test.mjs): the same arguments make
the same model whether the run goes through at once, stops and resumes, or
grows from a smaller budget's snapshot; SIGTERM saves the state and exits
cleanly; a damaged or foreign state means a fresh start, not a failure.

  /usr/bin/python3 tests/support/training_check.py TOY_DATA_DIR WORK_DIR
"""
import json
import os
import signal
import subprocess
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
TRAIN = os.path.join(HERE, "..", "..", "models", "train", "train.py")
sys.path.insert(0, os.path.dirname(TRAIN))
from checkpoints import load_own  # noqa: E402
data, work = sys.argv[1], sys.argv[2]
COMMON = ["--data", data, "--attention", "additive", "--subwords", "300,300", "--embed", "16", "--hidden", "12",
          "--decoder-hidden", "16", "--attention-dim", "12", "--output-dim", "12", "--batch", "16",
          "--sampled-negatives", "20", "--eval-every", "15", "--save-every", "4", "--epoch-pairs", "160",
          "--dev-sentences", "10"]
ENV = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}


def train(name, updates, *extra):
    run = subprocess.run([sys.executable, TRAIN, *COMMON, "--out", os.path.join(work, name), "--state",
                          os.path.join(work, f"state-{name}"), "--updates", str(updates), *extra],
                         env=ENV, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


def weights(name):
    return load_own(os.path.join(work, f"state-{name}", "state.pt"))["state_dict"]


def same(a, b):
    return all(torch.equal(a[k], b[k]) for k in a) and a.keys() == b.keys()


passed = 0
train("straight", 30)
# stopped every few seconds' worth and resumed until done
log = ""
for _ in range(40):
    log = train("resumed", 30, "--minutes", "0.004")
    if "test BLEU" in log:
        break
assert "test BLEU" in log, log
assert same(weights("straight"), weights("resumed")), "a stopped and resumed run differs from a straight one"
# the learning curve: an evaluation every 15 updates and at the end, the same points however the run was cut
curves = {}
for name in ("straight", "resumed"):
    with open(os.path.join(work, name, "metrics.json"), encoding="utf-8") as f:
        curves[name] = [(p["update"], p["dev_bleu"]) for p in json.load(f)["learning_curve"]]
assert [u for u, _ in curves["straight"]] == [15, 30], curves
assert curves["straight"] == curves["resumed"], curves
# every phase records its CPU seconds beside its wall clock, and the metrics their sum
with open(os.path.join(work, "resumed", "metrics.json"), encoding="utf-8") as f:
    resumed_metrics = json.load(f)
assert len(resumed_metrics["phases"]) > 1, resumed_metrics["phases"]
assert all(p["cpu_seconds"] >= 0 for p in resumed_metrics["phases"]), resumed_metrics["phases"]
assert resumed_metrics["train_cpu_seconds"] > 0, resumed_metrics
assert abs(resumed_metrics["train_cpu_seconds"] - sum(p["cpu_seconds"] for p in resumed_metrics["phases"])) < 0.2
passed += 1
# checkpoint averaging (--average-last 2, a save every 4 updates of 30): the weights of updates 24 and
# 28 are kept, the run's trajectory is the same as without, the mean is scored on the dev sample and
# exported only when it beats the best checkpoint; a run cut and resumed keeps the same saves and record
records = []
for name in ("averaged", "averaged-resumed"):
    if name == "averaged":
        train(name, 30, "--average-last", "2")
    else:
        for _ in range(40):
            if "test BLEU" in train(name, 30, "--average-last", "2", "--minutes", "0.004"):
                break
    assert same(weights("straight"), weights(name)), f"{name}: --average-last changed the trajectory"
    kept = sorted(os.listdir(os.path.join(work, f"state-{name}", "average")))
    assert kept == ["update-24.pt", "update-28.pt"], kept
    with open(os.path.join(work, name, "metrics.json"), encoding="utf-8") as f:
        averaging = json.load(f)["averaging"]
    assert averaging["saves"] == 2 and averaging["updates"] == [24, 28], averaging
    saves = [load_own(os.path.join(work, f"state-{name}", "average", f))["state_dict"] for f in kept]
    mean = {k: (saves[0][k].double() + saves[1][k].double()) / 2 for k in saves[0]}
    exported = load_own(os.path.join(work, name, "checkpoint.pt"))["state_dict"]
    best = load_own(os.path.join(work, f"state-{name}", "best.pt"))["state_dict"]
    if averaging["chosen"]:
        assert averaging["dev_bleu"] > averaging["best_dev_bleu"], averaging
        assert max(float((exported[k].double() - mean[k]).abs().max()) for k in mean) < 1e-6
    else:
        assert averaging["dev_bleu"] <= averaging["best_dev_bleu"], averaging
        assert same(exported, best), f"{name}: not chosen, yet the export is not the best checkpoint"
    records.append(averaging)
assert records[0] == records[1], records
passed += 1
# a budget of 12 then grown to 30: the snapshot before the first decay continues
train("grown", 12)
log = train("grown", 30)
assert "the budget grows from 12 to 30" in log, log
assert same(weights("straight"), weights("grown")), "a grown budget differs from a straight run of that budget"
passed += 1
# a damaged state, and a state for other arguments: both start afresh
with open(os.path.join(work, "state-grown", "state.pt"), "wb") as f:
    f.write(b"not a state")
log = train("grown", 30)
assert "cannot be read" in log and "starting afresh" in log, log
assert same(weights("straight"), weights("grown"))
log = train("grown", 30, "--lr", "0.004")
assert "is for other arguments (lr)" in log, log
passed += 1
# SIGTERM mid-run (a budget far too large to finish first): the update in
# progress ends, the state is saved at that update, the exit is clean, and the
# same command resumes there.
name = "signalled"
command = [sys.executable, TRAIN, *COMMON, "--out", os.path.join(work, name), "--state",
           os.path.join(work, f"state-{name}"), "--updates", "100000"]
child = subprocess.Popen(command, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
lines = []
for line in child.stdout:
    lines.append(line)
    if " loss/token " in line and int(line.split(" update ")[1].split()[0]) >= 10:  # well inside the loop
        child.send_signal(signal.SIGTERM)
        break
lines += child.stdout.readlines()
assert child.wait() == 0, "".join(lines)
stopped = [line for line in lines if "stopped by SIGTERM at update" in line]
assert stopped, "".join(lines)
at = int(stopped[0].split("at update ")[1].split()[0])
assert 10 <= at < 100000, stopped
saved = load_own(os.path.join(work, f"state-{name}", "state.pt"))
assert int(saved["step"]) == at, (saved["step"], at)
resumed = subprocess.run(command + ["--pause-at", str(at + 2)], env=ENV, capture_output=True, text=True)
assert resumed.returncode == 0, resumed.stdout + resumed.stderr
assert f"at update {at} " in resumed.stdout and f"pausing at update {at + 2} " in resumed.stdout, resumed.stdout
passed += 1
# tied target embeddings and word dropout (issue 28's recipe list): the output layer and the
# target embeddings stay one table through training; word dropout changes the trajectory, yet a
# paused and resumed run is the same as a straight one; a wrong width is refused by name
TIED = ["--embed", "12", "--tie-target-embeddings", "--word-dropout", "0.2"]
train("tied", 30, *TIED)
tied = weights("tied")
assert torch.equal(tied["tgt_embedding.weight"], tied["projection.weight"]), "the tie came apart in training"
train("tied-cut", 30, *TIED, "--pause-at", "13")
train("tied-cut", 30, *TIED)
assert same(tied, weights("tied-cut")), "word dropout: a paused and resumed run differs from a straight one"
train("tied-no-word-dropout", 30, "--embed", "12", "--tie-target-embeddings")
assert not same(tied, weights("tied-no-word-dropout")), "--word-dropout 0.2 changed nothing"
refused = subprocess.run([sys.executable, TRAIN, *COMMON, "--out", os.path.join(work, "bad"), "--updates", "30",
                          "--tie-target-embeddings"], env=ENV, capture_output=True, text=True)
assert refused.returncode != 0 and "--output-dim equal to --embed (12 and 16)" in refused.stderr, refused.stderr
passed += 1
# ... and its file: the exporter unties before it zeroes the output rows of <pad> <unk> <s>, so <s>'s
# embedding (the decoder's first input) is the trained one; PyTorch's tied model (the specials
# banned by their bias alone), the exporter's fixtures and the C engine give the same tokens
sys.path.insert(0, os.path.join(HERE, "..", "..", "models", "train"))
import alsc_to_torch  # noqa: E402
import export  # noqa: E402
from model import BOS, PAD, UNK, ModelConfig, Seq2SeqAttention  # noqa: E402

alsc, fixtures = os.path.join(work, "tied.alsc"), os.path.join(work, "tied.parity.json")
with open(os.path.join(data, "dev.tsv"), encoding="utf-8") as f:
    sentences = [line.split("\t")[0] for line in f if line.strip()][:6]
with open(os.path.join(work, "sentences.txt"), "w", encoding="utf-8") as f:
    f.write("\n".join(sentences) + "\n")
exported = subprocess.run([sys.executable, os.path.join(HERE, "..", "..", "models", "train", "export.py"),
                           os.path.join(work, "tied", "checkpoint.pt"), alsc, "--f32", "--fixtures", fixtures,
                           "--sentences", os.path.join(work, "sentences.txt")], env=ENV, capture_output=True, text=True)
assert exported.returncode == 0, exported.stdout + exported.stderr
checkpoint = load_own(os.path.join(work, "tied", "checkpoint.pt"))
trained = Seq2SeqAttention(ModelConfig(**checkpoint["config"]))
trained.load_state_dict(checkpoint["state_dict"])
trained.eval()
assert trained.projection.weight is trained.tgt_embedding.weight
with torch.no_grad():
    for token_id in (PAD, UNK, BOS):
        trained.projection.bias[token_id] = -10000.0
segmenters = export.load_segmenters(os.path.join(work, "tied", "checkpoint.pt"))
scale = trained.config.trained_score_scale()
with torch.no_grad():
    want = [export.trace_sentence(trained, s, checkpoint["src_vocab"], checkpoint["tgt_vocab"], scale, segmenters)["target_ids"]
            for s in sentences]
loaded = alsc_to_torch.load(alsc).model
assert torch.equal(loaded.tgt_embedding.weight[BOS], trained.tgt_embedding.weight[BOS].detach())
assert loaded.tgt_embedding.weight[BOS].abs().sum() > 0, "<s>'s embedding was zeroed in the file"
with open(fixtures, encoding="utf-8") as f:
    assert [c["target_ids"] for c in json.load(f)["cases"] if c["score_scale"] == scale][:len(sentences)] == want
engine = subprocess.run([os.path.join(HERE, "..", "..", "build", "native", "alignscope"), "--model", alsc, "--beam", "1",
                         "--json", "--top-k", "0"], input="\n".join(sentences) + "\n", capture_output=True, text=True)
assert engine.returncode == 0, engine.stderr
assert [json.loads(line)["target_ids"] for line in engine.stdout.splitlines()] == want, (engine.stdout[:400], want)
passed += 1
# layer normalisation (issue 28's recipe list): a padded batch encodes every sentence as it would
# alone; it trains (its parameters are plain ones, saved and resumed as any); its file carries
# arch_flags layer_norm and every gain and shift, read back into the same network (the engine's
# parity with it: build/test-models/layer-norm*, tests/parity.test.mjs)
from model import LayerNormBiGRU  # noqa: E402

torch.manual_seed(1)
encoder = LayerNormBiGRU(5, 4).eval()
batch, mask = torch.randn(3, 6, 5), torch.tensor([[True] * 6, [True] * 4 + [False] * 2, [True] * 2 + [False] * 4])
with torch.no_grad():
    together = encoder(batch, mask)
    for row, length in enumerate((6, 4, 2)):
        alone = encoder(batch[row:row + 1, :length], mask[row:row + 1, :length])
        assert torch.allclose(together[row, :length], alone[0], atol=1e-6), (row, together[row], alone)
        assert not together[row, length:].any(), "a padded position's annotation is not zero"
# and backwards: the padded batch's gradients (inputs and weights) are the sum of each sentence's
# own, with nothing reaching a padded position (LayerNormBiGRU.run reads gi through unbind's views)
readout = torch.randn(3, 6, 8)
inputs = batch.clone().requires_grad_(True)
(encoder(inputs, mask) * readout).sum().backward()
batch_grads = [p.grad.clone() for p in encoder.parameters()]
summed = [torch.zeros_like(p) for p in encoder.parameters()]
for row, length in enumerate((6, 4, 2)):
    encoder.zero_grad(set_to_none=True)
    alone_input = batch[row:row + 1, :length].clone().requires_grad_(True)
    (encoder(alone_input, mask[row:row + 1, :length]) * readout[row:row + 1, :length]).sum().backward()
    assert torch.allclose(inputs.grad[row, :length], alone_input.grad[0], atol=1e-6), row
    assert not inputs.grad[row, length:].any(), "a padded position got a gradient"
    summed = [total + p.grad for total, p in zip(summed, encoder.parameters())]
assert all(torch.allclose(b, s, atol=1e-5) for b, s in zip(batch_grads, summed)), "weight gradients differ"
encoder.zero_grad(set_to_none=True)
NORMED = ["--layer-norm"]
train("layer-norm", 30, *NORMED)
normed = weights("layer-norm")
assert "decoder_cell.norm_hh.gain" in normed and "encoder.backward_cell.norm_ih.shift" in normed, sorted(normed)
assert "deep_output_norm.gain" in normed and not any(k.startswith("encoder.weight_hh_l0") for k in normed)
assert not same(normed, weights("straight")), "--layer-norm trained the plain network"
exported = subprocess.run([sys.executable, os.path.join(HERE, "..", "..", "models", "train", "export.py"),
                           os.path.join(work, "layer-norm", "checkpoint.pt"), os.path.join(work, "layer-norm.alsc"), "--f32"],
                          env=ENV, capture_output=True, text=True)
assert exported.returncode == 0, exported.stdout + exported.stderr
loaded = alsc_to_torch.load(os.path.join(work, "layer-norm.alsc"))
assert loaded.header["arch_flags"] == export.ARCH_SUBWORDS | export.ARCH_LAYER_NORM, loaded.header["arch_flags"]
trained = load_own(os.path.join(work, "layer-norm", "checkpoint.pt"))["state_dict"]
rebuilt = loaded.model.state_dict()
assert rebuilt.keys() == trained.keys(), sorted(set(rebuilt) ^ set(trained))
suppressed = {"projection.weight", "projection.bias"}  # the exporter's rows for <pad> <unk> <s>
assert all(torch.equal(rebuilt[k], trained[k]) for k in trained if k not in suppressed), "a tensor changed on the way"
with open(os.path.join(work, "layer-norm", "metrics.json"), encoding="utf-8") as f:
    assert json.load(f)["args"]["layer_norm"] is True
passed += 1
# a final phase weighted towards some domains (issue 28's recipe list): after update 15 of 30 the
# batches come from the phase's own draws (10 a phase epoch here, so it crosses into a second);
# the trajectory changes from the straight run's, whose first 15 updates it shares, and a run
# paused inside the phase's second epoch resumes bit for bit
FINAL = ["--final-domain-weights", "ui=1", "--final-share", "0.5"]
log = train("final", 30, *FINAL)
assert "final phase after update 15: domain weights ui=1" in log, log
assert not same(weights("final"), weights("straight")), "the final phase drew the same batches as the epoch"
train("final-cut", 30, *FINAL, "--pause-at", "27")
train("final-cut", 30, *FINAL)
assert same(weights("final"), weights("final-cut")), "final phase: a paused and resumed run differs from a straight one"
with open(os.path.join(work, "final", "metrics.json"), encoding="utf-8") as f:
    assert json.load(f)["final_phase"] == {"after_update": 15, "domain_weights": {"ui": 1.0}}
import train as train_script  # noqa: E402

for bad, message in ((["--final-share", "0.5"], "go together"),
                     (["--final-domain-weights", "ui=1", "--final-share", "1"], "must lie in (0, 1)")):
    try:
        train_script.parse_args([*COMMON, "--out", os.path.join(work, "bad-final"), "--updates", "30", *bad])
        raise AssertionError(f"accepted {bad}")
    except SystemExit as refusal:
        assert message in str(refusal), (bad, refusal)
refused = subprocess.run([sys.executable, TRAIN, *COMMON, "--out", os.path.join(work, "bad-final"), "--updates", "30",
                          "--final-domain-weights", "dialog=1", "--final-share", "0.2"], env=ENV, capture_output=True, text=True)
assert refused.returncode != 0 and "no domain named there" in refused.stderr, refused.stderr
passed += 1
print(f"{passed} passed, 0 failed")
