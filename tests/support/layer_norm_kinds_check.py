"""Layer normalisation (arch_flags layer_norm) under every attention kind, f32 and int8
(tests/layer-norm.test.mjs). The smoke test model covers the additive kind trained; this
covers the others: small networks with seeded random weights, and random LN gains and
shifts (trained ones start at 1 and 0, where a mistake in them would hide), written by
export.py's one writer with the layer-norm test model's subword vocabularies, then run by
the native CLI. Its greedy tokens must be PyTorch's (export.trace_sentence on the weights
the file stores), its alpha and raw scores within the parity tolerances, which the
test passes as JSON (tests/support/alsc.mjs TOLERANCES: default, and int8 looser for the
engine's int16 inputs).

  /usr/bin/python3 tests/support/layer_norm_kinds_check.py TEST_MODELS CLI TOLERANCES_JSON
Prints one line per kind and weight type, then "N passed, 0 failed"; exits 1 on a failure.
"""
import copy
import json
import os
import subprocess
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "models", "train"))
import alsc_to_torch  # noqa: E402
import export  # noqa: E402
from model import ATTENTION_KINDS, ModelConfig, Seq2SeqAttention  # noqa: E402

SENTENCES = ["Open the file", "Show the new window", "Zoë opens the FILE… now!"]


def random_model(kind, vocab_sizes, seed):
    """A layer-norm network 6 to 12 wide, PyTorch's init, with gains and shifts drawn too."""
    torch.manual_seed(seed)
    cfg = ModelConfig(src_vocab_size=vocab_sizes[0], tgt_vocab_size=vocab_sizes[1], attention=kind, embed_dim=8,
                      encoder_hidden=6, decoder_hidden=12, attention_dim=10, output_dim=8, dropout=0.0,
                      layer_norm=True)
    model = Seq2SeqAttention(cfg).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith(".gain"):
                p.uniform_(0.2, 2.0)
            elif name.endswith(".shift"):
                p.uniform_(-1.0, 1.0)
    export.suppress_specials(model)
    return model


def largest_difference(got, want):
    """max |got - want| over two equally long rows."""
    return max((abs(g - w) for g, w in zip(got, want)), default=0.0)


def main():
    test_models, cli, tolerances = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    loaded = alsc_to_torch.load(os.path.join(test_models, "layer-norm.alsc"))
    segmenters = export.load_segmenters(os.path.join(test_models, "run-layer-norm", "checkpoint.pt"))
    src_vocab, tgt_vocab = loaded.src_vocab, loaded.tgt_vocab
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for seed, kind in enumerate(sorted(ATTENTION_KINDS)):
            model = random_model(kind, (len(src_vocab), len(tgt_vocab)), 28 + seed)
            scale = model.config.trained_score_scale()
            for weights in ("f32", "int8"):
                path = os.path.join(tmp, f"{kind}-{weights}.alsc")
                with open(path, "wb") as f:
                    f.write(export.model_file_bytes(model, src_vocab, tgt_vocab, weights, ("en", "fr"), segmenters))
                stored = copy.deepcopy(model)
                export.round_weights_to(stored, weights)
                with torch.no_grad():
                    want = [export.trace_sentence(stored, s, src_vocab, tgt_vocab, scale, segmenters) for s in SENTENCES]
                run = subprocess.run([cli, "--model", path, "--beam", "1", "--json", "--top-k", "0", "--", *SENTENCES],
                                     capture_output=True, text=True)
                problems = [] if run.returncode == 0 else [f"the CLI failed: {run.stderr.strip()}"]
                got = [json.loads(line) for line in run.stdout.splitlines()] if not problems else []
                worst_alpha = worst_scores = 0.0
                for case, line in zip(want, got):
                    if line["target_ids"] != case["target_ids"]:
                        problems.append(f"{case['text']!r}: tokens {line['target_ids']} against PyTorch's {case['target_ids']}")
                        continue
                    if case["alpha"]:
                        for got_row, want_row in zip(line["alpha"], case["alpha"]):
                            worst_alpha = max(worst_alpha, largest_difference(got_row, want_row))
                        for got_row, want_row in zip(line["scores"], case["scores"]):  # relative to the row's scale
                            top = max(1.0, *(abs(x) for x in want_row))
                            worst_scores = max(worst_scores, largest_difference(got_row, want_row) / top)
                    else:
                        assert line["alpha"] is None, "kind none has no alpha"
                tol = tolerances["int8" if weights == "int8" else "default"]
                if worst_alpha > tol["alpha"] or worst_scores > tol["scores"]:
                    problems.append(f"max |dalpha| {worst_alpha:.2e} (allowed {tol['alpha']}), "
                                    f"max dscore {worst_scores:.2e} (allowed {tol['scores']})")
                if len(got) != len(want) and not problems:
                    problems.append(f"{len(got)} lines for {len(want)} sentences")
                status = "ok" if not problems else "FAIL " + "; ".join(problems)
                print(f"{kind} {weights}: {sum(len(c['target_ids']) for c in want)} steps, "
                      f"max |dalpha| {worst_alpha:.2e}, max dscore {worst_scores:.2e}: {status}", flush=True)
                passed += not problems
                failed += bool(problems)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
