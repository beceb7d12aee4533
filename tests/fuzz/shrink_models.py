"""Small seed models for the fuzzers: each test model of build/test-models
with its own vocabularies, merge table, arch_flags, weight type, languages
and source token limit, but at most MAX_TARGET_TOKENS decoder steps and a
network 2 wide (E = He = A = O = 2; Hd = 2, or 4 =
2He for dot and scaled_dot) with seeded random weights.

  /usr/bin/python3 tests/fuzz/shrink_models.py build/test-models build/fuzz/models

Why: the fuzzers' cost per execution is the loader's pass over the file and
the translations a loaded model runs. A test model (22 to 82 KB, E 16, He
20, Hd 24) takes milliseconds per input under ASan; this keeps everything the
tokenisers and the loader's rules look at (the vocabularies and merges are
the test models' own bytes) and makes each translation step a few dozen
multiply-adds, so a 10-minute run reaches a million executions per harness
(tests/fuzz/README.md). The weights mean nothing: the harnesses check the
engine's invariants, not translations. Each file is written by
export.alsc_bytes (the one writer) and read back by alsc_to_torch's header
rules and CRC.
"""
import os
import struct
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "models", "train"))
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
import alsc_to_torch  # noqa: E402
import export  # noqa: E402
from model import ModelConfig, Seq2SeqAttention  # noqa: E402

NAMES = ["additive", "dot", "general", "scaled_dot", "none", "additive-int8", "tutorial", "subwords", "subwords-int8", "layer-norm", "layer-norm-int8"]
WIDTH = 2
# Random weights hardly ever emit </s>, so every translation would run to its
# cap, 2 S + 10 steps of S-wide attention (210 x 100 for a long input): the
# cap is cut to this many steps. The source limit stays the test model's, so
# the too-long path is fuzzed as before.
MAX_TARGET_TOKENS = 12


def shrink(data, seed):
    h = alsc_to_torch.parse_header(data)
    vocab_end = export.HEADER_SIZE + h["vocab_bytes"]
    src, pos = alsc_to_torch.parse_vocab(data, export.HEADER_SIZE, vocab_end, h["src_vocab_size"])
    tgt, pos = alsc_to_torch.parse_vocab(data, pos, vocab_end, h["tgt_vocab_size"])
    merges = data[pos:vocab_end]  # a subword model's table, byte for byte ("" otherwise)
    kind = alsc_to_torch.KIND_NAMES[h["attention_kind"]]
    weights = alsc_to_torch.WEIGHT_NAMES[h["weight_type"]]
    flags = h["arch_flags"]
    torch.manual_seed(seed)
    if flags & ~(export.ARCH_SUBWORDS | export.ARCH_LAYER_NORM):  # a converted tutorial model: its own network
        import convert_tutorial
        import tutorial_model
        enc = tutorial_model.EncoderRNN(len(src) - 2, WIDTH)
        dec = tutorial_model.AttnDecoderRNN(WIDTH, len(tgt) - 2)
        tensors = convert_tutorial.file_tensors(enc.state_dict(), dec.state_dict())
        dims = {"attention": kind, "embed_dim": WIDTH, "encoder_hidden": WIDTH, "decoder_hidden": WIDTH,
                "attention_dim": WIDTH, "output_dim": WIDTH, "trained_score_scale": 1.0}
    else:
        cfg = ModelConfig(src_vocab_size=len(src), tgt_vocab_size=len(tgt), attention=kind, embed_dim=WIDTH,
                          encoder_hidden=WIDTH, decoder_hidden=WIDTH, attention_dim=WIDTH, output_dim=WIDTH,
                          dropout=0.0, layer_norm=bool(flags & export.ARCH_LAYER_NORM))
        model = Seq2SeqAttention(cfg)
        if flags & export.ARCH_SUBWORDS:
            export.suppress_specials(model)
        c = model.config
        tensors = export.tensors_in_file_order(model)
        dims = {"attention": kind, "embed_dim": c.embed_dim, "encoder_hidden": c.encoder_hidden,
                "decoder_hidden": c.decoder_hidden, "attention_dim": c.attention_dim, "output_dim": c.output_dim,
                "trained_score_scale": c.trained_score_scale()}
    out = export.alsc_bytes(dims, src, tgt, tensors, weights, (h["source_language"], h["target_language"]), flags,
                            max_source_tokens=h["max_source_tokens"],
                            max_target_tokens=min(h["max_target_tokens"], MAX_TARGET_TOKENS), merges=merges)
    alsc_to_torch.parse_header(out)
    assert export.file_crc32(out) == struct.unpack_from("<I", out, export.CRC_OFFSET)[0]
    return out


def main():
    src_dir, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for seed, name in enumerate(NAMES):
        path = os.path.join(src_dir, f"{name}.alsc")
        if not os.path.exists(path):
            continue
        with open(path, "rb") as f:
            data = f.read()
        out = shrink(data, 34 + seed)
        with open(os.path.join(out_dir, f"{name}.alsc"), "wb") as f:
            f.write(out)
        written.append(f"{name} {len(data)} -> {len(out)} bytes")
    if not written:
        sys.exit(f"shrink_models: no test models in {src_dir} (run ./build.sh models)")
    print("shrink_models: " + ", ".join(written))


if __name__ == "__main__":
    main()
