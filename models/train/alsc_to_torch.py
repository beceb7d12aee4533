"""Read a committed .alsc model file back into the PyTorch model of model.py.

Training checkpoints are git-ignored, so a clean clone has only the .alsc
files; this rebuilds Seq2SeqAttention from one, with every weight widened to
f32 exactly as the C engine widens it (src/model.c): f16 values exactly, and
an int8 matrix as scale[r] * q[r][c], one f32 multiply (models/FORMAT.md
3.1). The file is validated first as the C loader does (header ranges and
rules, sizes against the file length, the CRC-32 of the whole file, vocabularies, a subword
model's merge table, finite weights, no int8 -128, scales >= 0); a file it
refuses raises AlscError with the reason.

  import alsc_to_torch
  loaded = alsc_to_torch.load("models/en-fr.alsc")
  loaded.model             # Seq2SeqAttention, eval mode, f32
  loaded.source_ids(text)  # the engine's tokenisation (FORMAT.md 5, or 5.2)

  /usr/bin/python3 models/train/alsc_to_torch.py models/en-fr.alsc ["Open the file" ...]

Only the architecture of model.py is rebuilt: arch_flags 0, subwords
(bit 6), layer_norm (bit 7), or both. A converted tutorial model (other arch_flags) has its own network
(tests/support/tutorial_model.py) and is refused with a message.
"""
import argparse
import math
import os
import struct
import sys
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import openblas_core  # noqa: E402,F401  (before numpy and torch: OpenBLAS reads its kernel choice on loading)

import numpy as np  # noqa: E402
import torch  # noqa: E402

import export  # noqa: E402  (the format's Python definitions: version, header, arch bits, file order)
import subword  # noqa: E402
from model import ATTENTION_KINDS, SPECIALS, UNK, ModelConfig, Seq2SeqAttention  # noqa: E402
from tokenize_text import tokenize  # noqa: E402

# Limits of src/alignscope_format.h (tests/definitions.test.mjs checks them).
MAGIC = b"ALNSCOPE"
FORMAT_VERSION_OLDEST = 5
MIN_VOCAB, MAX_VOCAB = 5, 65536
MAX_DIM = 4096
MAX_TOKENS_LIMIT = 1024
ARCH_KNOWN_FLAGS = 0xFF
# Which arch_flags this loader can rebuild as model.py's network.
SUPPORTED_ARCH_FLAGS = export.ARCH_SUBWORDS | export.ARCH_LAYER_NORM
HEADER_FORMAT = export.HEADER_FORMAT
OLD_VERSION_MESSAGE = ("this model file's format version is older than this engine reads (before version 5 the "
                       "checksum did not cover the header): re-export it with models/train/export.py, or convert "
                       "it with models/train/migrate_format.py")
HEADER_FIELDS = ("magic", "format_version", "header_size", "attention_kind", "weight_type", "src_vocab_size",
                 "tgt_vocab_size", "embed_dim", "encoder_hidden", "decoder_hidden", "attention_dim", "output_dim",
                 "max_source_tokens", "max_target_tokens", "trained_score_scale", "vocab_bytes", "tensor_bytes",
                 "crc32", "source_language", "target_language", "arch_flags")
KIND_NAMES = {v: k for k, v in ATTENTION_KINDS.items()}
WEIGHT_NAMES = {v: k for k, v in export.WEIGHT_TYPES.items()}


class AlscError(ValueError):
    """A file the engine would refuse (or one this loader cannot rebuild)."""


@dataclass
class LoadedModel:
    model: Seq2SeqAttention
    header: dict
    src_vocab: list
    tgt_vocab: list
    segmenter: object  # subword.Segmenter of the source side, or None for a word model

    @property
    def attention(self):
        return KIND_NAMES[self.header["attention_kind"]]

    @property
    def weights(self):
        return WEIGHT_NAMES[self.header["weight_type"]]

    @property
    def trained_score_scale(self):
        return self.header["trained_score_scale"]

    @property
    def max_source_tokens(self):
        return self.header["max_source_tokens"]

    def max_target_tokens(self, source_len):
        """The engine's cap: min(2 S + 10, max_target_tokens)."""
        return min(2 * source_len + 10, self.header["max_target_tokens"])

    def source_ids(self, text):
        """The engine's tokenisation of text: FORMAT.md 5 (words looked up, <unk>
        otherwise; a repeated token maps to its last id, as the C loader's table
        does) or 5.2 (subword pieces). Raises AlscError as the engine refuses:
        no tokens, or more than max_source_tokens."""
        if self.segmenter is not None:
            ids = [p[0] for p in self.segmenter.encode(text)]
        else:
            index = {token: i for i, token in enumerate(self.src_vocab)}
            ids = [index.get(t, UNK) for t, _, _ in tokenize(text)]
        if not ids:
            raise AlscError("the input has no words to translate")
        if len(ids) > self.max_source_tokens:
            raise AlscError(f"the input has {len(ids)} tokens; this model accepts at most {self.max_source_tokens}")
        return ids


def parse_header(data):
    """The 96 header bytes -> dict, every rule of FORMAT.md section 1 (as src/model.c)."""
    if len(data) < export.HEADER_SIZE:
        raise AlscError("the file is too short to be an alignscope model (truncated?)")
    h = dict(zip(HEADER_FIELDS, struct.unpack_from(HEADER_FORMAT, data)))
    if h["magic"] != MAGIC:
        raise AlscError("not an alignscope model file (wrong magic bytes; expected ALNSCOPE)")
    version = h["format_version"]
    if version > export.FORMAT_VERSION:
        raise AlscError("this model file was made by a newer alignscope")
    if version < FORMAT_VERSION_OLDEST:
        raise AlscError(OLD_VERSION_MESSAGE)
    bad = lambda why: AlscError(f"the model header is invalid: {why}")  # noqa: E731
    if h["header_size"] != export.HEADER_SIZE:
        raise bad("header_size")
    flags = h["arch_flags"]
    if flags & ~ARCH_KNOWN_FLAGS:
        raise AlscError("this model file uses an architecture feature (an arch_flags bit) this engine does not know")
    if flags & export.ARCH_SUBWORDS and flags & export.ARCH_TOKENIZER_TUTORIAL:
        raise bad("subwords with the tutorial tokeniser")
    if flags & export.ARCH_SUBWORDS and min(h["src_vocab_size"], h["tgt_vocab_size"]) <= subword.MARK_ID:
        raise bad("a subword vocabulary without room for the byte tokens and the mark")
    if h["attention_kind"] not in KIND_NAMES:
        raise bad("attention_kind")
    if h["weight_type"] not in WEIGHT_NAMES:
        raise bad("weight_type")
    for key in ("src_vocab_size", "tgt_vocab_size"):
        if not MIN_VOCAB <= h[key] <= MAX_VOCAB:
            raise bad(key)
    for key in ("embed_dim", "encoder_hidden", "decoder_hidden", "output_dim"):
        if not 1 <= h[key] <= MAX_DIM:
            raise bad(key)
    context = h["encoder_hidden"] if flags & export.ARCH_UNIDIRECTIONAL else 2 * h["encoder_hidden"]
    if flags & export.ARCH_INIT_FROM_ENCODER and h["decoder_hidden"] != h["encoder_hidden"]:
        raise bad("init_from_encoder needs decoder_hidden == encoder_hidden")
    if flags & export.ARCH_DIRECT_OUTPUT and h["output_dim"] != h["decoder_hidden"]:
        raise bad("direct_output needs output_dim == decoder_hidden")
    kind = KIND_NAMES[h["attention_kind"]]
    if flags & export.ARCH_ATTENTION_BIAS and kind != "additive":
        raise bad("attention_bias is for additive attention only")
    if kind == "additive" and not 1 <= h["attention_dim"] <= MAX_DIM:
        raise bad("attention_dim")
    if kind == "general" and h["attention_dim"] != h["decoder_hidden"]:
        raise bad("general attention needs attention_dim == decoder_hidden")
    if kind in ("dot", "scaled_dot") and (h["attention_dim"] != 0 or h["decoder_hidden"] != context):
        raise bad("dot attention needs attention_dim 0 and decoder_hidden == the context width")
    if kind == "none" and h["attention_dim"] != 0:
        raise bad("attention_dim must be 0 without attention")
    for key in ("max_source_tokens", "max_target_tokens"):
        if not 1 <= h[key] <= MAX_TOKENS_LIMIT:
            raise bad(key)
    scale = h["trained_score_scale"]
    if not (math.isfinite(scale) and export.MIN_TRAINED_SCORE_SCALE <= scale <= export.MAX_TRAINED_SCORE_SCALE):
        raise bad("trained_score_scale")
    for key in ("source_language", "target_language"):
        raw = h[key]
        tag = raw.rstrip(b"\0")
        # [a-z]{2,3}, then only NUL (a NUL inside the tag leaves bytes rstrip keeps)
        if not export.LANGUAGE_TAG.fullmatch(tag.decode("latin-1")):
            raise bad(key)
        h[key] = tag.decode("ascii")
    tokens = h["src_vocab_size"] + h["tgt_vocab_size"]
    if not 2 * tokens <= h["vocab_bytes"] <= 256 * tokens:
        raise bad("vocab_bytes")
    h["context_dim"] = context
    return h


def parse_vocab(data, pos, end, size):
    """size tokens from data[pos:end] -> (tokens, new pos), FORMAT.md section 2."""
    tokens = []
    for token_id in range(size):
        if pos >= end:
            raise AlscError("the model's vocabulary is malformed (it ends early)")
        n = data[pos]
        pos += 1
        if n == 0 or n > end - pos:
            raise AlscError("the model's vocabulary is malformed (a token's length)")
        raw = data[pos:pos + n]
        if any(b < 0x20 for b in raw):
            raise AlscError("the model's vocabulary is malformed (a control byte)")
        try:
            token = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise AlscError("the model's vocabulary is malformed (invalid UTF-8)") from None
        if token_id < len(SPECIALS) and token != SPECIALS[token_id]:
            raise AlscError(f"the model's vocabulary is malformed (id {token_id} must be {SPECIALS[token_id]})")
        tokens.append(token)
        pos += n
    return tokens, pos


def parse_merges(data, pos, end, src_vocab, tgt_vocab):
    """A subword model's merge table (FORMAT.md 5.2) and its vocabularies' rules."""
    fail = AlscError("the model's subword segmentation table is damaged or inconsistent")
    if end - pos < 4:
        raise fail
    (count,) = struct.unpack_from("<I", data, pos)
    pos += 4
    if count > len(src_vocab) or pos + count * 6 != end:
        raise fail
    for vocab in (src_vocab, tgt_vocab):
        if any(vocab[subword.FIRST_BYTE_ID + b] != f"<0x{b:02X}>" for b in range(256)) or \
                vocab[subword.MARK_ID] != subword.MARK:
            raise fail
    if len(set(src_vocab)) != len(src_vocab):
        raise fail
    merges = [struct.unpack_from("<HHH", data, pos + 6 * i) for i in range(count)]
    for left, right, result in merges:
        if max(left, right, result) >= len(src_vocab) or min(left, right) < subword.MARK_ID or result <= subword.MARK_ID:
            raise fail
        if src_vocab[result] != src_vocab[left] + src_vocab[right]:
            raise fail
    return merges


def read_tensor(data, pos, shape, weight_type):
    """One tensor at data[pos:], widened to f32 as the engine does -> (tensor, new pos)."""
    rows = shape[0]
    n = int(np.prod(shape))
    if weight_type == "int8" and len(shape) == 2:
        scale = np.frombuffer(data, dtype="<f4", count=rows, offset=pos)
        q = np.frombuffer(data, dtype=np.int8, count=n, offset=pos + 4 * rows).reshape(shape)
        if not np.all(np.isfinite(scale)) or np.any(scale < 0) or np.any(q == -128):
            raise AlscError("the model contains non-finite or out-of-range weights "
                            "(inf, NaN, an int8 value of -128 or a negative scale)")
        values = export.dequantise_rows(torch.from_numpy(scale.copy()), torch.from_numpy(q.copy()))
        return values, pos + 4 * rows + n
    dtype, size = ("<f2", 2) if weight_type == "f16" else ("<f4", 4)
    raw = np.frombuffer(data, dtype=dtype, count=n, offset=pos).reshape(shape)
    if not np.all(np.isfinite(raw)):
        raise AlscError("the model contains non-finite or out-of-range weights (inf, NaN)")
    return torch.from_numpy(raw.astype(np.float32)), pos + size * n


def load_bytes(data):
    """.alsc bytes -> LoadedModel (validated; weights widened to f32)."""
    data = bytes(data)
    h = parse_header(data)
    tensor_offset = export.HEADER_SIZE + h["vocab_bytes"] + (-(export.HEADER_SIZE + h["vocab_bytes"]) % 4)
    if len(data) != tensor_offset + h["tensor_bytes"]:
        raise AlscError("the file length does not match its header (truncated or has extra bytes)")
    if export.file_crc32(data) != h["crc32"]:
        raise AlscError("the model file is damaged (CRC-32 checksum mismatch)")
    if h["arch_flags"] & ~SUPPORTED_ARCH_FLAGS:
        raise AlscError(f"arch_flags {h['arch_flags']:#x}: not the architecture of models/train/model.py "
                        "(a converted tutorial model has its own network: tests/support/tutorial_model.py)")
    vocab_end = export.HEADER_SIZE + h["vocab_bytes"]
    src_vocab, pos = parse_vocab(data, export.HEADER_SIZE, vocab_end, h["src_vocab_size"])
    tgt_vocab, pos = parse_vocab(data, pos, vocab_end, h["tgt_vocab_size"])
    segmenter = None
    if h["arch_flags"] & export.ARCH_SUBWORDS:
        merges = parse_merges(data, pos, vocab_end, src_vocab, tgt_vocab)
        segmenter = subword.Segmenter(src_vocab, merges, "source")
    elif pos != vocab_end:
        raise AlscError("the model's vocabulary is malformed (bytes left after the target vocabulary)")
    if any(data[vocab_end:tensor_offset]):
        raise AlscError("the model's vocabulary is malformed (non-zero padding)")

    kind = KIND_NAMES[h["attention_kind"]]
    config = ModelConfig(src_vocab_size=h["src_vocab_size"], tgt_vocab_size=h["tgt_vocab_size"], attention=kind,
                         embed_dim=h["embed_dim"], encoder_hidden=h["encoder_hidden"],
                         decoder_hidden=h["decoder_hidden"], attention_dim=h["attention_dim"],
                         output_dim=h["output_dim"], dropout=0.0,
                         layer_norm=bool(h["arch_flags"] & export.ARCH_LAYER_NORM))
    model = Seq2SeqAttention(config)
    cfg = model.config
    if (cfg.decoder_hidden, cfg.attention_dim) != (h["decoder_hidden"], h["attention_dim"]):
        raise AlscError("the header's dimensions do not fit models/train/model.py's network")
    if abs(cfg.trained_score_scale() - h["trained_score_scale"]) > 1e-6 * cfg.trained_score_scale():
        raise AlscError("trained_score_scale differs from what model.py's training uses for this attention kind")
    weight_type = WEIGHT_NAMES[h["weight_type"]]
    pos = tensor_offset
    with torch.no_grad():
        for name, param in export.tensors_in_file_order(model):
            values, pos = read_tensor(data, pos, tuple(param.shape), weight_type)
            param.copy_(values)
    if pos != len(data):
        raise AlscError("the tensors do not fill tensor_bytes")
    model.eval()
    return LoadedModel(model, h, src_vocab, tgt_vocab, segmenter)


def load(path):
    with open(path, "rb") as f:
        return load_bytes(f.read())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", help="an .alsc file")
    ap.add_argument("sentences", nargs="*", help="sentences to translate greedily with PyTorch")
    args = ap.parse_args()
    try:
        loaded = load(args.model)
    except AlscError as e:
        sys.exit(f"alsc_to_torch: {args.model}: {e}")
    h = loaded.header
    params = sum(p.numel() for p in loaded.model.parameters())
    print(f"{args.model}: {h['source_language']} -> {h['target_language']}, attention {loaded.attention}, "
          f"{loaded.weights} weights widened to f32, {params} parameters")
    # model.py's own greedy decoding, capped as the engine caps it (decode.py,
    # which imports this module, holds the engine's decoders with overrides and beams).
    for text in args.sentences:
        try:
            ids = loaded.source_ids(text)
        except AlscError as e:
            print(f"{text!r}: {e}")
            continue
        cap = loaded.max_target_tokens(len(ids))
        (target,), _ = loaded.model.greedy(torch.tensor([ids]), torch.tensor([len(ids)]), cap)
        end = " </s>" if len(target) < cap else ""  # greedy() drops the </s> it stopped at
        print(f"{text} -> {' '.join(loaded.tgt_vocab[i] for i in target)}{end}")


if __name__ == "__main__":
    main()
