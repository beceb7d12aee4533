"""Bench artefacts: one model, the same weights for every backend.

  OPENBLAS_NUM_THREADS=1 /usr/bin/python3 tests/bench/make_models.py OUT_DIR [--random] [--checkpoint PATH]

Writes into OUT_DIR (build/bench/ by default from bench.mjs):
  model.alsc          the weights as f32 (.alsc, models/FORMAT.md), for wasm and native
  model-int8.alsc     the same weights as int8 matrices + per-row scales (FORMAT.md 3.1),
                      for the simd-int8 backend
  model.pt            the same module (config, vocabularies, state dict), for torch_bench.py
  encoder.onnx        src ids (1,S) int64 -> annotations (1,S,2He), keys (1,S,A), s0 (1,Hd)
  decoder_step.onnx   prev (1,) int64, state (1,Hd), annotations, keys, mask (1,S) bool
                      -> logits (1,Vt), new_state (1,Hd), alpha (1,S)
  models.json         what was made and from where

The trained checkpoint (models/train/runs/en-fr-additive/checkpoint.pt) is used
when it exists; otherwise (a clean clone, or --random) a randomly initialised
model of the same dimensions (Vs = Vt = 8000, E 128, He 256, Hd 256, A 256,
O 256) whose source vocabulary holds the words of the bench sentences, so the
encoder sees real ids and not only <unk>.
"""
import argparse
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "models", "train"))
from export import load_checkpoint, model_file_bytes  # noqa: E402
from model import SPECIALS, ModelConfig, Seq2SeqAttention  # noqa: E402
from tokenize_text import tokenize  # noqa: E402

CHECKPOINT = os.path.join(ROOT, "models", "train", "runs", "en-fr-additive", "checkpoint.pt")


def random_model(sentences, seed=1234):
    """Same dimensions as the shipped en-fr model, PyTorch's default init."""
    torch.manual_seed(seed)
    words = []
    for s in sentences:
        for t, _, _ in tokenize(s):
            if t not in words:
                words.append(t)
    src_vocab = SPECIALS + words
    src_vocab += [f"s{i}" for i in range(8000 - len(src_vocab))]
    tgt_vocab = SPECIALS + [f"t{i}" for i in range(8000 - len(SPECIALS))]
    model = Seq2SeqAttention(ModelConfig(src_vocab_size=8000, tgt_vocab_size=8000, attention="additive"))
    model.eval()
    return model, src_vocab, tgt_vocab


class Encoder(torch.nn.Module):
    """Batch 1, no padding: the packed sequence of model.encode is not needed
    (it is the identity for one full-length sequence), so the plain GRU runs."""

    def __init__(self, model):
        super().__init__()
        self.m = model

    def forward(self, src):
        m = self.m
        annotations, _ = m.encoder(m.src_embedding(src))
        He = m.config.encoder_hidden
        s0 = torch.tanh(m.init_state(annotations[:, 0, He:]))
        return annotations, m.attn_key(annotations), s0


class DecoderStep(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.m = model

    def forward(self, prev, state, annotations, keys, mask):
        m = self.m
        features, new_state, alpha, _, _ = m.decoder_step(prev, state, annotations, keys, mask, None, m.score_scale)
        return m.projection(features), new_state, alpha


def export_onnx(model, out_dir):
    cfg = model.config
    S = 7
    src = torch.randint(4, cfg.src_vocab_size, (1, S))
    enc = Encoder(model).eval()
    with torch.no_grad():
        annotations, keys, s0 = enc(src)
        torch.onnx.export(enc, (src,), os.path.join(out_dir, "encoder.onnx"),
                          input_names=["src"], output_names=["annotations", "keys", "s0"],
                          dynamic_axes={"src": {1: "S"}, "annotations": {1: "S"}, "keys": {1: "S"}},
                          opset_version=14)
        mask = torch.ones(1, S, dtype=torch.bool)
        prev = torch.tensor([2])
        torch.onnx.export(DecoderStep(model).eval(), (prev, s0, annotations, keys, mask),
                          os.path.join(out_dir, "decoder_step.onnx"),
                          input_names=["prev", "state", "annotations", "keys", "mask"],
                          output_names=["logits", "new_state", "alpha"],
                          dynamic_axes={"annotations": {1: "S"}, "keys": {1: "S"}, "mask": {1: "S"},
                                        "alpha": {1: "S"}},
                          opset_version=14)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--sentences", default=os.path.join(HERE, "sentences.txt"))
    ap.add_argument("--checkpoint", default=CHECKPOINT)
    ap.add_argument("--random", action="store_true", help="ignore the checkpoint")
    args = ap.parse_args()
    torch.set_num_threads(1)
    os.makedirs(args.out, exist_ok=True)
    with open(args.sentences, encoding="utf-8") as f:
        sentences = [line.rstrip("\n") for line in f if line.strip()]

    if not args.random and os.path.exists(args.checkpoint):
        model, src_vocab, tgt_vocab = load_checkpoint(args.checkpoint)
        source = os.path.relpath(args.checkpoint, ROOT)
    else:
        model, src_vocab, tgt_vocab = random_model(sentences)
        source = "random init (seed 1234)"
    model.eval()
    with open(os.path.join(args.out, "model.alsc"), "wb") as f:
        f.write(model_file_bytes(model, src_vocab, tgt_vocab, weights="f32"))
    with open(os.path.join(args.out, "model-int8.alsc"), "wb") as f:  # the simd-int8 backend
        f.write(model_file_bytes(model, src_vocab, tgt_vocab, weights="int8"))
    torch.save({"config": vars(model.config), "src_vocab": src_vocab, "tgt_vocab": tgt_vocab,
                "state_dict": model.state_dict()}, os.path.join(args.out, "model.pt"))
    export_onnx(model, args.out)
    info = {"source": source, "config": vars(model.config),
            "parameters": sum(p.numel() for p in model.parameters()), "weights": "f32",
            "torch": torch.__version__}
    with open(os.path.join(args.out, "models.json"), "w") as f:
        json.dump(info, f, indent=1)
    print(json.dumps(info))


if __name__ == "__main__":
    main()
