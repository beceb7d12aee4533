"""Bench artefacts: the shipped model, the same weights for every backend.

  OPENBLAS_NUM_THREADS=1 /usr/bin/python3 tests/bench/make_models.py OUT_DIR
        [--model models/en-fr.alsc] [--int8-model models/en-fr-int8.alsc] [--random | --checkpoint PATH]

By default the bench runs what users run: the committed files of the
default English -> French model. Writes into OUT_DIR (build/bench/ from
bench.mjs):
  model.alsc          the shipped f16 file (--model), byte for byte: the engine
                      widens f16 to f32 at load, so its products are f32
  model-int8.alsc     the shipped int8 file of the same checkpoint (--int8-model),
                      for the simd-int8 backend
  model.pt            the PyTorch model rebuilt from model.alsc by
                      models/train/alsc_to_torch.py (f16 widened to f32 exactly as
                      the engine does) with the bench sentences' source ids, for
                      torch_bench.py
  encoder.onnx        src ids (1,S) int64 -> annotations (1,S,2He), keys (1,S,A), s0 (1,Hd)
  decoder_step.onnx   prev (1,) int64, state (1,Hd), annotations, keys, mask (1,S) bool
                      -> logits (1,Vt), new_state (1,Hd), alpha (1,S)
  models.json         what was made and from which files (their SHA-256), and
                      which weights each backend runs

Random weights only on request (--random: a model of the old word model's
dimensions, PyTorch's default init), or a training checkpoint (--checkpoint).
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


class LayerNormDirection(torch.nn.Module):
    """One direction of model.LayerNormBiGRU over one sentence, its own cell's step at
    each position: gi (S, 3H) from cell.input_part -> states (S, H)."""

    def __init__(self, cell, reverse: bool):
        super().__init__()
        self.cell, self.reverse, self.hidden = cell, reverse, cell.hidden_size

    def forward(self, gi):
        steps = gi.size(0)
        h = torch.zeros(1, self.hidden)
        states = torch.zeros(steps, self.hidden)
        for k in range(steps):
            t = steps - 1 - k if self.reverse else k
            h = self.cell.step(gi[t:t + 1], h)
            states[t] = h[0]
        return states


class LayerNormEncoder(torch.nn.Module):
    """Encoder for a layer-norm model (config.layer_norm), batch 1. model.LayerNormBiGRU
    loops over the positions in Python, which torch.onnx.export would trace at one
    length; this loop is scripted, so the ONNX graph keeps a loop over any S. The
    cells are the model's own (LayerNormGRUCell: input_part, step)."""

    def __init__(self, model):
        super().__init__()
        enc = model.encoder
        self.embedding, self.attn_key, self.init_state = model.src_embedding, model.attn_key, model.init_state
        self.hidden = model.config.encoder_hidden
        self.forward_direction = LayerNormDirection(enc.forward_cell, False)
        self.backward_direction = LayerNormDirection(enc.backward_cell, True)

    def forward(self, src):
        embedded = self.embedding(src)[0]
        forward_states = self.forward_direction(self.forward_direction.cell.input_part(embedded))
        backward_states = self.backward_direction(self.backward_direction.cell.input_part(embedded))
        annotations = torch.cat([forward_states, backward_states], 1).unsqueeze(0)
        return annotations, self.attn_key(annotations), torch.tanh(self.init_state(annotations[:, 0, self.hidden:]))


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
    enc = torch.jit.script(LayerNormEncoder(model).eval()) if cfg.layer_norm else Encoder(model).eval()
    with torch.no_grad():
        annotations, keys, s0 = enc(src)
        want = model.encode(src, torch.tensor([S]))
        if not all(torch.allclose(a, b, atol=1e-5) for a, b in zip((annotations, keys, s0), want)):
            raise SystemExit("make_models.py: the ONNX encoder's PyTorch module differs from model.encode")
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


def sha256(path):
    import hashlib
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--sentences", default=os.path.join(HERE, "sentences.txt"))
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "en-fr.alsc"), help="a shipped f16 (or f32) .alsc")
    ap.add_argument("--int8-model", default=os.path.join(ROOT, "models", "en-fr-int8.alsc"),
                    help="the shipped int8 file of the same checkpoint")
    ap.add_argument("--checkpoint", help="a training checkpoint instead of the shipped files")
    ap.add_argument("--random", action="store_true", help="random weights instead of the shipped files")
    args = ap.parse_args()
    torch.set_num_threads(1)
    os.makedirs(args.out, exist_ok=True)
    with open(args.sentences, encoding="utf-8") as f:
        sentences = [line.rstrip("\n") for line in f if line.strip()]

    source_ids = None
    if args.random or args.checkpoint:
        if args.random:
            model, src_vocab, tgt_vocab = random_model(sentences)
            source = "random init (seed 1234)"
        else:
            model, src_vocab, tgt_vocab = load_checkpoint(args.checkpoint)
            source = os.path.relpath(args.checkpoint, ROOT)
        model.eval()
        with open(os.path.join(args.out, "model.alsc"), "wb") as f:
            f.write(model_file_bytes(model, src_vocab, tgt_vocab, weights="f32"))
        with open(os.path.join(args.out, "model-int8.alsc"), "wb") as f:  # the simd-int8 and native-int8 backends
            f.write(model_file_bytes(model, src_vocab, tgt_vocab, weights="int8"))
        files = {"model.alsc": f"{source}, exported f32", "model-int8.alsc": f"{source}, exported int8"}
        weights = {"f32 rows": "f32", "simd-int8, native-int8": "int8 (per-row scales)", "ort, torch": "f32"}
    else:
        import shutil
        import alsc_to_torch
        loaded = alsc_to_torch.load(args.model)
        int8 = alsc_to_torch.load(args.int8_model)
        if int8.weights != "int8" or int8.src_vocab != loaded.src_vocab:
            raise SystemExit(f"make_models: {args.int8_model} is not the int8 file of {args.model}'s model")
        model, src_vocab, tgt_vocab = loaded.model, loaded.src_vocab, loaded.tgt_vocab
        shutil.copyfile(args.model, os.path.join(args.out, "model.alsc"))
        shutil.copyfile(args.int8_model, os.path.join(args.out, "model-int8.alsc"))
        source = os.path.relpath(args.model, ROOT)
        source_ids = [loaded.source_ids(s) for s in sentences]
        files = {"model.alsc": {"from": source, "sha256": sha256(args.model), "weights": loaded.weights},
                 "model-int8.alsc": {"from": os.path.relpath(args.int8_model, ROOT), "sha256": sha256(args.int8_model),
                                     "weights": int8.weights}}
        weights = {"simd, scalar, simd-page, native": f"{source} ({loaded.weights}, widened to f32 at load)",
                   "simd-int8, native-int8": f"{os.path.relpath(args.int8_model, ROOT)} (int8 matrices, per-row scales)",
                   "ort, torch": f"{source} rebuilt in PyTorch by alsc_to_torch.py ({loaded.weights} widened to f32)"}
    model.eval()
    torch.save({"config": vars(model.config), "src_vocab": src_vocab, "tgt_vocab": tgt_vocab,
                "state_dict": model.state_dict(), "source_ids": source_ids}, os.path.join(args.out, "model.pt"))
    export_onnx(model, args.out)
    info = {"source": source, "files": files, "backend_weights": weights, "config": vars(model.config),
            "parameters": sum(p.numel() for p in model.parameters()), "torch": torch.__version__}
    with open(os.path.join(args.out, "models.json"), "w") as f:
        json.dump(info, f, indent=1)
    print(json.dumps(info))


if __name__ == "__main__":
    main()
