"""Write a trained checkpoint as an .alsc model file (models/FORMAT.md) and,
optionally, parity fixtures: what PyTorch computes for fixed sentences, which
the C engine must reproduce (tests/parity.test.mjs).

  /usr/bin/python3 models/train/export.py CHECKPOINT OUT.alsc \
      [--f32 | --int8] [--fixtures OUT.json --sentences FILE]

Weights are f16 by default; --f32 keeps them exact, --int8 stores every
matrix as int8 with one f32 scale per row (models/FORMAT.md 3.1).
"""
import argparse
import json
import os
import re
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import openblas_core  # noqa: E402,F401  (before torch: OpenBLAS reads its kernel choice on loading)

import torch  # noqa: E402

from checkpoints import load_own  # noqa: E402
from model import (ATTENTION_KINDS, BOS, EOS, ModelConfig, Seq2SeqAttention,  # noqa: E402
                   max_target_tokens, suppress_specials)
from tokenize_text import tokenize  # noqa: E402
import subword  # noqa: E402

FORMAT_VERSION = 5
WEIGHT_TYPES = {"f32": 0, "f16": 1, "int8": 2}  # header field weight_type
HEADER_SIZE = 96
HEADER_FORMAT = "<8sIIIIIIIIIIIIIfIII8s8sI"  # models/FORMAT.md section 1, field by field
CRC_OFFSET = 72  # the header's crc32 field
# Language tags: 2 or 3 lower-case ASCII letters (src/alignscope_format.h AS_*_LANGUAGE_LETTERS).
LANGUAGE_TAG = re.compile(r"[a-z]{2,3}")
# trained_score_scale's range (AS_MIN_TRAINED_SCORE_SCALE, AS_MAX_TRAINED_SCORE_SCALE).
MIN_TRAINED_SCORE_SCALE, MAX_TRAINED_SCORE_SCALE = 0.001, 1000.0
# arch_flags bits (header offset 92; src/alignscope_format.h).
# Our own models use none of them; models/train/convert_tutorial.py sets them.
ARCH_UNIDIRECTIONAL = 1 << 0       # forward GRU only: annotations He wide
ARCH_INIT_FROM_ENCODER = 1 << 1    # s0 = encoder final state, no init_w/init_b
ARCH_ATTENTION_BIAS = 1 << 2       # attn_query_b, attn_key_b, attn_v_b
ARCH_DIRECT_OUTPUT = 1 << 3        # logits = proj_w s_t + proj_b, no out_w/out_b
ARCH_SOURCE_EOS = 1 << 4           # the encoder reads </s> after the words
ARCH_TOKENIZER_TUTORIAL = 1 << 5   # FORMAT.md 5.1 instead of 5
ARCH_SUBWORDS = 1 << 6             # FORMAT.md 5.2: cased subword pieces, merge table
ARCH_LAYER_NORM = 1 << 7           # LN gains and shifts instead of the GRU biases, and on the deep output
MAX_SOURCE_TOKENS = 100
MAX_TARGET_TOKENS = 210  # = 2 * MAX_SOURCE_TOKENS + 10


def layer_norm_tensors(prefix, cell):
    """A LayerNormGRUCell's gains and shifts, as FORMAT.md names them after its matrices."""
    return [(f"{prefix}_ln_ih_gain", cell.norm_ih.gain), (f"{prefix}_ln_ih_shift", cell.norm_ih.shift),
            (f"{prefix}_ln_hh_gain", cell.norm_hh.gain), (f"{prefix}_ln_hh_shift", cell.norm_hh.shift)]


def tensors_in_file_order(model):
    """(name, tensor) in the order of models/FORMAT.md section 3. A layer-normalised
    model (ARCH_LAYER_NORM) has LN gains and shifts where the others have GRU biases,
    and the deep output's after out_b."""
    m, kind, normed = model, model.config.attention, model.config.layer_norm
    order = [("src_embedding", m.src_embedding.weight)]
    for direction, suffix in (("fwd", "l0"), ("bwd", "l0_reverse")):
        if normed:
            cell = m.encoder.forward_cell if direction == "fwd" else m.encoder.backward_cell
            order += [(f"enc_{direction}_weight_ih", cell.weight_ih.weight),
                      (f"enc_{direction}_weight_hh", cell.weight_hh.weight)]
            order += layer_norm_tensors(f"enc_{direction}", cell)
            continue
        for part in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            order.append((f"enc_{direction}_{part}", getattr(m.encoder, f"{part}_{suffix}")))
    order += [("init_w", m.init_state.weight), ("init_b", m.init_state.bias)]
    if kind == "additive":
        order.append(("attn_query_w", m.attn_query.weight))
    if kind in ("additive", "general"):
        order.append(("attn_key_w", m.attn_key.weight))
    if kind == "additive":
        order.append(("attn_v", m.attn_v))
    order.append(("tgt_embedding", m.tgt_embedding.weight))
    if normed:
        order += [("dec_w_ih", m.decoder_cell.weight_ih.weight), ("dec_w_hh", m.decoder_cell.weight_hh.weight)]
        order += layer_norm_tensors("dec", m.decoder_cell)
    else:
        order += [("dec_w_ih", m.decoder_cell.weight_ih), ("dec_w_hh", m.decoder_cell.weight_hh),
                  ("dec_b_ih", m.decoder_cell.bias_ih), ("dec_b_hh", m.decoder_cell.bias_hh)]
    order += [("out_w", m.deep_output.weight), ("out_b", m.deep_output.bias)]
    if normed:
        order += [("out_ln_gain", m.deep_output_norm.gain), ("out_ln_shift", m.deep_output_norm.shift)]
    order += [("proj_w", m.projection.weight), ("proj_b", m.projection.bias)]
    return order


def vocab_block(tokens):
    out = bytearray()
    for token in tokens:
        raw = token.encode("utf-8")
        if not 1 <= len(raw) <= 255 or any(b < 0x20 for b in raw):
            raise ValueError(f"token cannot be stored: {token!r}")
        out += bytes([len(raw)]) + raw
    return bytes(out)


def merges_block(segmenter):
    """The source side's merge table (models/FORMAT.md 5.2): u32 count, then u16 left,
    right, result per merge in rank order."""
    out = bytearray(struct.pack("<I", len(segmenter.merges)))
    for left, right, result in segmenter.merges:
        out += struct.pack("<HHH", left, right, result)
    return bytes(out)


def load_checkpoint(path):
    checkpoint = load_own(path)
    # The file holds the output layer and the target embeddings as two tensors
    # (FORMAT.md), so a model trained with them tied is loaded untied: the same
    # values, but suppress_specials and the rounding touch only the one they name.
    model = Seq2SeqAttention(ModelConfig(**{**checkpoint["config"], "tie_target_embeddings": False}))
    model.load_state_dict(checkpoint["state_dict"])
    model.eval()
    return model, checkpoint["src_vocab"], checkpoint["tgt_vocab"]


def load_segmenters(path):
    """(source, target) subword.Segmenter of a subword checkpoint, else None."""
    segmentation = load_own(path).get("segmentation") or {"kind": "words"}
    if segmentation["kind"] != "subwords":
        return None
    return (subword.Segmenter.from_json(segmentation["source"]),
            subword.Segmenter.from_json(segmentation["target"]))


def quantise_rows(w):
    """Symmetric per-row int8 (models/FORMAT.md 3.1): (scale f32 (rows,), q int8 (rows, cols))."""
    w = w.detach().float()
    scale = w.abs().amax(dim=1) / 127.0
    safe = torch.where(scale > 0, scale, torch.ones_like(scale))
    q = torch.round(w / safe[:, None]).clamp_(-127, 127).to(torch.int8)
    return scale, q


def dequantise_rows(scale, q):
    """What the file means: w[r][c] = scale[r] * q[r][c], one f32 multiply."""
    return scale[:, None] * q.float()


def round_weights_to(model, weights):
    """Make PyTorch compute with exactly the values the file stores
    (weights: "f32", "f16" or "int8"; int8 touches only the 2-D tensors)."""
    with torch.no_grad():
        for p in model.parameters():
            if weights == "f16":
                p.copy_(p.half().float())
            elif weights == "int8" and p.dim() == 2:
                p.copy_(dequantise_rows(*quantise_rows(p)))


def tensor_file_bytes(t, weights):
    if weights == "int8" and t.dim() == 2:
        scale, q = quantise_rows(t)
        return scale.contiguous().numpy().astype("<f4").tobytes() + q.contiguous().numpy().tobytes()
    dtype = torch.float16 if weights == "f16" else torch.float32
    return t.detach().to(dtype).contiguous().numpy().tobytes()


def alsc_bytes(dims, src_vocab, tgt_vocab, tensors, weights="f16", languages=("en", "fr"), arch_flags=0,
               max_source_tokens=MAX_SOURCE_TOKENS, max_target_tokens=MAX_TARGET_TOKENS, merges=b""):
    """A whole .alsc file (models/FORMAT.md). dims: attention (kind name),
    embed_dim, encoder_hidden, decoder_hidden, attention_dim, output_dim and
    trained_score_scale; tensors: [(name, tensor)] in the file order that the
    attention kind and arch_flags imply (the loader checks every size);
    merges: a subword model's merges_block (with ARCH_SUBWORDS)."""
    assert weights in WEIGHT_TYPES, weights
    assert bool(merges) == bool(arch_flags & ARCH_SUBWORDS)
    vocab = vocab_block(src_vocab) + vocab_block(tgt_vocab) + merges
    padding = b"\0" * ((-(HEADER_SIZE + len(vocab))) % 4)
    tensor_data = b"".join(tensor_file_bytes(t, weights) for _, t in tensors)
    body = vocab + padding + tensor_data
    for tag in languages:
        if not LANGUAGE_TAG.fullmatch(tag):
            raise ValueError(f"language tag {tag!r}: 2 or 3 lower-case letters a-z, e.g. en, fr, deu")
    if not MIN_TRAINED_SCORE_SCALE <= dims["trained_score_scale"] <= MAX_TRAINED_SCORE_SCALE:
        raise ValueError(f"trained_score_scale {dims['trained_score_scale']}: outside "
                         f"{MIN_TRAINED_SCORE_SCALE} ... {MAX_TRAINED_SCORE_SCALE}")
    header = struct.pack(
        HEADER_FORMAT,
        b"ALNSCOPE", FORMAT_VERSION, HEADER_SIZE, ATTENTION_KINDS[dims["attention"]], WEIGHT_TYPES[weights],
        len(src_vocab), len(tgt_vocab), dims["embed_dim"], dims["encoder_hidden"], dims["decoder_hidden"],
        dims["attention_dim"], dims["output_dim"], max_source_tokens, max_target_tokens,
        dims["trained_score_scale"], len(vocab), len(tensor_data), 0,
        languages[0].encode(), languages[1].encode(), arch_flags)
    assert len(header) == HEADER_SIZE
    return with_file_crc(header + body)


def file_crc32(data):
    """The CRC-32 of a whole .alsc file (FORMAT.md section 1): every byte, the
    header included, with the 4 bytes of the crc32 field read as zero."""
    crc = zlib.crc32(data[:CRC_OFFSET])
    crc = zlib.crc32(b"\0\0\0\0", crc)
    return zlib.crc32(data[CRC_OFFSET + 4:], crc)


def with_file_crc(data):
    """data with its crc32 field set to file_crc32(data)."""
    return data[:CRC_OFFSET] + struct.pack("<I", file_crc32(data)) + data[CRC_OFFSET + 4:]


def model_file_bytes(model, src_vocab, tgt_vocab, weights="f16", languages=("en", "fr"), segmenters=None):
    """One of our models (models/train/model.py): arch_flags 0, plus ARCH_SUBWORDS with
    the source segmenter's merge table, plus ARCH_LAYER_NORM for a --layer-norm model."""
    cfg = model.config
    dims = {"attention": cfg.attention, "embed_dim": cfg.embed_dim, "encoder_hidden": cfg.encoder_hidden,
            "decoder_hidden": cfg.decoder_hidden, "attention_dim": cfg.attention_dim,
            "output_dim": cfg.output_dim, "trained_score_scale": cfg.trained_score_scale()}
    flags = (ARCH_SUBWORDS if segmenters else 0) | (ARCH_LAYER_NORM if cfg.layer_norm else 0)
    return alsc_bytes(dims, src_vocab, tgt_vocab, tensors_in_file_order(model), weights, languages,
                      arch_flags=flags, merges=merges_block(segmenters[0]) if segmenters else b"")


@torch.no_grad()
def trace_sentence(model, text, src_vocab, tgt_vocab, score_scale, segmenters=None):
    """Single-sentence greedy decode recording what the engine's trace holds
    (with segmenters: a subword model's pieces, words and display text too)."""
    index = {w: i for i, w in enumerate(src_vocab)}
    if segmenters:
        pieces = segmenters[0].encode(text)[:MAX_SOURCE_TOKENS]
        ids = [p[0] for p in pieces]
    else:
        tokens = [t for t, _, _ in tokenize(text)][:MAX_SOURCE_TOKENS]
        ids = [index.get(t, 1) for t in tokens]
    src = torch.tensor([ids])
    lengths = torch.tensor([len(ids)])
    annotations, keys, state = model.encode(src, lengths)
    mask = src != 0
    summary = model.summary_context(annotations, lengths) if model.config.attention == "none" else None
    prev = torch.tensor([BOS])
    out_ids, alphas, scores, contexts, top = [], [], [], [], []
    for _ in range(min(max_target_tokens(len(ids)), MAX_TARGET_TOKENS)):
        features, state, alpha, raw, context = model.decoder_step(
            prev, state, annotations, keys, mask, summary, score_scale)
        probs = torch.softmax(model.projection(features), dim=1)[0]
        best = torch.topk(probs, 5)
        prev = best.indices[:1]
        out_ids.append(int(prev))
        if alpha is not None:
            alphas.append([float(x) for x in alpha[0]])
            scores.append([float(x) for x in raw[0]])
        contexts.append([float(x) for x in context[0][:8]])
        top.append({"ids": best.indices.tolist(), "probs": [float(p) for p in best.values]})
        if out_ids[-1] == EOS:
            break
    case = {"text": text, "score_scale": score_scale, "source_ids": ids, "target_ids": out_ids,
            "target_tokens": [tgt_vocab[i] for i in out_ids],
            "alpha": alphas, "scores": scores, "context_head": contexts, "top": top}
    if segmenters:
        pieces_out = [tgt_vocab[i] for i in out_ids if i != EOS]
        starts = subword.word_starts(pieces_out)
        case.update({"source_words": [p[3] for p in pieces],
                     "target_words": [sum(starts[:k + 1]) - 1 for k in range(len(pieces_out))],
                     "translation": subword.decode(pieces_out)})
    return case


def write_fixtures(path, model_path, weights, attention, trained_score_scale, cases, **extra):
    """The parity fixture file tests/parity.test.mjs reads (also convert_tutorial.py's)."""
    fixture = {"model": os.path.basename(model_path), "format_version": FORMAT_VERSION, "weights": weights,
               "attention": attention, "trained_score_scale": trained_score_scale, **extra, "cases": cases}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(fixture, f, ensure_ascii=False, separators=(",", ":"))
    print(f"wrote {path}: {len(cases)} cases")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("checkpoint")
    ap.add_argument("out")
    kind = ap.add_mutually_exclusive_group()
    kind.add_argument("--f32", action="store_true", help="store f32 instead of f16")
    kind.add_argument("--int8", action="store_true", help="store matrices as int8 + per-row f32 scales")
    ap.add_argument("--languages", default="en,fr")
    ap.add_argument("--fixtures", help="write parity fixtures JSON here")
    ap.add_argument("--sentences", help="one sentence per line for the fixtures")
    args = ap.parse_args()

    model, src_vocab, tgt_vocab = load_checkpoint(args.checkpoint)
    segmenters = load_segmenters(args.checkpoint)
    if segmenters:
        suppress_specials(model)
    weights = "f32" if args.f32 else "int8" if args.int8 else "f16"
    data = model_file_bytes(model, src_vocab, tgt_vocab, weights, tuple(args.languages.split(",")), segmenters)
    with open(args.out, "wb") as f:
        f.write(data)
    params = sum(p.numel() for p in model.parameters())
    print(f"wrote {args.out}: {len(data)} bytes, {params} parameters, "
          f"{weights}, attention={model.config.attention}")

    if args.fixtures:
        round_weights_to(model, weights)
        with open(args.sentences, encoding="utf-8") as f:
            sentences = [line.rstrip("\n") for line in f if line.strip()]
        trained = model.config.trained_score_scale()
        cases = [trace_sentence(model, s, src_vocab, tgt_vocab, trained, segmenters) for s in sentences]
        if model.config.attention != "none":
            # The slider's extremes: a sharper and a flatter softmax than trained.
            for factor in (4.0, 0.25):
                cases.append(trace_sentence(model, sentences[0], src_vocab, tgt_vocab, trained * factor, segmenters))
        write_fixtures(args.fixtures, args.out, weights, model.config.attention, trained, cases)


if __name__ == "__main__":
    main()
