"""Convert a model trained with the PyTorch tutorial "NLP From Scratch:
Translation with a Sequence to Sequence Network and Attention"
(pytorch.org/tutorials/intermediate/seq2seq_translation_tutorial.html) into an
alignscope model file, so that the page and the CLI show its attention.

In the tutorial, after `train(train_dataloader, encoder, decoder, ...)`, save
the two networks and both vocabularies with these three lines:

    torch.save({"encoder": encoder.state_dict(), "decoder": decoder.state_dict(),
                "input_lang": input_lang.index2word, "output_lang": output_lang.index2word},
               "tutorial-checkpoint.pt")

(saving the Lang objects themselves, `"input_lang": input_lang`, works too
when they were defined in the notebook or script that trained them), then
convert it:

    /usr/bin/python3 models/train/convert_tutorial.py tutorial-checkpoint.pt my-model.alsc

and open my-model.alsc in the page ("load model file from disk") or run
`build/native/alignscope --model my-model.alsc "je suis froid"`.

The architecture (the tutorial's EncoderRNN, BahdanauAttention and
AttnDecoderRNN, one hidden size H everywhere) becomes a format-3 file with
arch_flags unidirectional | init-from-encoder | attention-bias | direct-output
| source-eos | tutorial-tokenizer (models/FORMAT.md 1.1, 4, 5.1). The hidden
size and the vocabulary sizes are read from the tensors.

Two other decoders convert too, told apart by their tensors (the teaching
notes' exercise "Add attention to your seq2seq", models/train/exercise.py,
trains both):
- the tutorial's DecoderRNN, without attention (its GRU reads H inputs:
  ReLU(embedding) alone) -> attention "none". The file's decoder reads
  [embedding; context], so the context columns of dec_w_ih are zero and the
  target embedding is stored with the ReLU applied (a ReLU after a lookup is a
  lookup in the ReLU'd table): the same function, exactly.
- AttnDecoderRNN with BahdanauAttention replaced by Luong's dot product
  (scores = query . keys: no attention parameters, so its GRU reads 2H inputs
  and there is no `attention.*` key) -> attention "dot".
Neither has attention biases: their files leave out that flag.

Vocabularies: the tutorial's ids are SOS 0, EOS 1, words from 2; ours are
<pad> 0, <unk> 1, <s> 2, </s> 3, words from 4. SOS becomes <s>, EOS </s>, word
k becomes k + 2. The tutorial has no unknown word (a word outside the
vocabulary is a KeyError there); here it becomes <unk>, whose embedding is all
zeros. <pad> and <unk> are never emitted: their output rows are zero with a
bias of NEVER_LOGIT (-10000), so their probability is exactly 0 in f32.

Weights are f32 by default: a tutorial model is small (H = 256 and the
tutorial's vocabularies take about 4 MB), and f32 computes exactly what the
student's own evaluate() computes, so the page shows the same translations as
their notebook. --f16 halves the file (greedy output may then differ in rare
near-ties); --int8 stores matrices as int8 (models/FORMAT.md 3.1).

Decoding: the tutorial's decoder always runs MAX_LENGTH = 10 steps and
evaluate() keeps the words up to EOS; the file's max_target_tokens is
--max-length (default 10), which gives the same words.

--fixtures OUT.json --sentences FILE writes parity fixtures in the shape of
export.py's (tests/parity.test.mjs reads them), computed by tutorial_greedy()
below: the tutorial's evaluate() re-implemented in PyTorch on exactly the
values the file stores.
"""
import argparse
import os
import pickle
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import openblas_core  # noqa: E402,F401  (before torch: OpenBLAS reads its kernel choice on loading)

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

from export import (  # noqa: E402
    ARCH_ATTENTION_BIAS, ARCH_DIRECT_OUTPUT, ARCH_INIT_FROM_ENCODER, ARCH_SOURCE_EOS, ARCH_TOKENIZER_TUTORIAL,
    ARCH_UNIDIRECTIONAL, LANGUAGE_TAG, MAX_SOURCE_TOKENS, alsc_bytes, dequantise_rows, quantise_rows,
    write_fixtures)
from model import BOS, EOS, SPECIALS, UNK  # noqa: E402
from tutorial_text import tutorial_tokens  # noqa: E402

ARCH_FLAGS = (ARCH_UNIDIRECTIONAL | ARCH_INIT_FROM_ENCODER | ARCH_ATTENTION_BIAS | ARCH_DIRECT_OUTPUT
              | ARCH_SOURCE_EOS | ARCH_TOKENIZER_TUTORIAL)
TUTORIAL_SOS, TUTORIAL_EOS = 0, 1
NEVER_LOGIT = -10000.0  # bias of <pad> and <unk>: exp(-10000 - best) is 0 in f32
TUTORIAL_MAX_LENGTH = 10

# state_dict key -> expected shape, H = hidden size, Vi / Vo = vocabulary sizes
ENCODER_KEYS = {"embedding.weight": ("Vi", "H"), "gru.weight_ih_l0": ("3H", "H"), "gru.weight_hh_l0": ("3H", "H"),
                "gru.bias_ih_l0": ("3H",), "gru.bias_hh_l0": ("3H",)}
DECODER_KEYS = {"embedding.weight": ("Vo", "H"),  # AttnDecoderRNN with BahdanauAttention
                "attention.Wa.weight": ("H", "H"), "attention.Wa.bias": ("H",),
                "attention.Ua.weight": ("H", "H"), "attention.Ua.bias": ("H",),
                "attention.Va.weight": ("1", "H"), "attention.Va.bias": ("1",),
                "gru.weight_ih_l0": ("3H", "2H"), "gru.weight_hh_l0": ("3H", "H"),
                "gru.bias_ih_l0": ("3H",), "gru.bias_hh_l0": ("3H",),
                "out.weight": ("Vo", "H"), "out.bias": ("Vo",)}
# AttnDecoderRNN with dot-product attention: no parameters of its own.
DOT_DECODER_KEYS = {k: v for k, v in DECODER_KEYS.items() if not k.startswith("attention.")}
# The tutorial's DecoderRNN (no attention): its GRU reads the embedding alone.
PLAIN_DECODER_KEYS = {**DOT_DECODER_KEYS, "gru.weight_ih_l0": ("3H", "H")}
DECODERS = {"additive": ("AttnDecoderRNN with BahdanauAttention", DECODER_KEYS),
            "dot": ("AttnDecoderRNN with dot-product attention", DOT_DECODER_KEYS),
            "none": ("DecoderRNN, no attention", PLAIN_DECODER_KEYS)}


def fail(message):
    raise SystemExit(f"convert_tutorial: {message}")


# ---- the checkpoint ------------------------------------------------------------

def strip_prefix(state):
    """A state_dict saved from a DataParallel or torch.compile wrapper has
    its keys prefixed; the tensors are the same."""
    out = {}
    for key, value in state.items():
        for prefix in ("module.", "_orig_mod."):
            if key.startswith(prefix):
                key = key[len(prefix):]
        out[key] = value
    return out


def check_shapes(name, state, expected, sizes, architecture="EncoderRNN"):
    for key, shape in expected.items():
        if key not in state:
            fail(f"{name} state_dict has no {key!r} (keys: {sorted(state)}); is this the tutorial's "
                 f"{architecture}?")
        size = {"3H": 3 * sizes["H"], "2H": 2 * sizes["H"], "1": 1, **sizes}
        want = tuple(size[d] for d in shape)
        if tuple(state[key].shape) != want:
            fail(f"{name} {key} has shape {tuple(state[key].shape)}, expected {want} (H={sizes['H']})")
    extra = sorted(set(state) - set(expected))
    if extra:
        fail(f"{name} state_dict has parameters this converter does not know: {extra}")


def vocabulary(index2word, name):
    """index2word {0: "SOS", 1: "EOS", 2: word, ...} -> list by id. The
    tutorial's Lang object itself (saved instead of its index2word) works too."""
    if not isinstance(index2word, dict) and isinstance(getattr(index2word, "index2word", None), dict):
        index2word = index2word.index2word
    if not isinstance(index2word, dict):
        fail(f"{name} must be the Lang's index2word dict, got {type(index2word).__name__}")
    words = [index2word.get(i) for i in range(len(index2word))]
    if any(w is None for w in words) or words[:2] != ["SOS", "EOS"]:
        fail(f"{name}: ids must run 0..{len(index2word) - 1} with 0 = 'SOS', 1 = 'EOS'")
    return words


class Lang:
    """Stands in for the tutorial's Lang class while a checkpoint that holds
    Lang objects (saved as `input_lang` rather than `input_lang.index2word`)
    is unpickled: pickle restores the attributes without calling __init__."""


def unpickle(path):
    """torch.load, with a Lang class in __main__ if the notebook's is not
    there (pickle looks classes up by module and name); a class from a module
    that cannot be imported here becomes a message, not a traceback."""
    main = sys.modules["__main__"]
    borrowed = not hasattr(main, "Lang")
    if borrowed:
        main.Lang = Lang
    try:
        return torch.load(path, map_location="cpu")
    except (AttributeError, ModuleNotFoundError, ImportError) as err:
        fail(f"{path} holds a Python object this script cannot rebuild ({err}); save the vocabularies as "
             "plain dicts, input_lang.index2word and output_lang.index2word, with the three lines in this "
             "script's docstring")
    except (pickle.UnpicklingError, RuntimeError, EOFError, ValueError) as err:
        fail(f"{path} is not a checkpoint that torch.save wrote ({err})")
    except OSError as err:
        fail(f"cannot read {path}: {err.strerror or err}")
    finally:
        if borrowed:
            del main.Lang


def decoder_kind(decoder, hidden):
    """The attention kind the decoder's tensors say: Bahdanau's parameters ->
    additive; none, with a GRU reading [embedding; context] (2H) -> dot; a GRU
    reading H -> the plain DecoderRNN, no attention."""
    if any(key.startswith("attention.") for key in decoder):
        return "additive"
    gru_input = decoder.get("gru.weight_ih_l0")
    return "none" if gru_input is not None and gru_input.dim() == 2 and gru_input.shape[1] == hidden else "dot"


def load_tutorial_checkpoint(path):
    """-> encoder state, decoder state, source words, target words, H, attention kind."""
    checkpoint = unpickle(path)
    for key in ("encoder", "decoder", "input_lang", "output_lang"):
        if key not in checkpoint:
            fail(f"{path} has no {key!r}: save it with the three lines in this script's docstring")
    encoder, decoder = strip_prefix(checkpoint["encoder"]), strip_prefix(checkpoint["decoder"])
    if "attn_combine.weight" in decoder:
        fail("this decoder is the older tutorial's AttnDecoderRNN (attn over MAX_LENGTH positions, then "
             "attn_combine), not the current one with BahdanauAttention; only the current version converts")
    src_words = vocabulary(checkpoint["input_lang"], "input_lang")
    tgt_words = vocabulary(checkpoint["output_lang"], "output_lang")
    if "embedding.weight" not in encoder:
        fail("encoder state_dict has no 'embedding.weight'")
    hidden = encoder["embedding.weight"].shape[1]
    sizes = {"H": hidden, "Vi": len(src_words), "Vo": len(tgt_words)}
    kind = decoder_kind(decoder, hidden)
    check_shapes("encoder", encoder, ENCODER_KEYS, sizes)
    check_shapes("decoder", decoder, DECODERS[kind][1], sizes, DECODERS[kind][0])
    return ({k: v.detach().float() for k, v in encoder.items()}, {k: v.detach().float() for k, v in decoder.items()},
            src_words, tgt_words, hidden, kind)


def arch_flags(kind):
    """The tutorial's six flags; attention biases only where Bahdanau's layers have them."""
    return ARCH_FLAGS if kind == "additive" else ARCH_FLAGS & ~ARCH_ATTENTION_BIAS


# ---- ids and tensors in our layout ---------------------------------------------

def our_vocab(words):
    """Tutorial words -> our token list: specials, then words 2.. in order.
    A word the file cannot store (empty, or over 255 bytes) gets a
    placeholder the tutorial tokeniser never produces, so ids stay aligned."""
    out = list(SPECIALS)
    for i, w in enumerate(words[2:], start=2):
        raw = w.encode("utf-8")
        out.append(w if 1 <= len(raw) <= 255 and all(b >= 0x20 for b in raw) else f"<unstorable {i}>")
    return out


def our_id(tutorial_id):
    return BOS if tutorial_id == TUTORIAL_SOS else EOS if tutorial_id == TUTORIAL_EOS else tutorial_id + 2


def remap_rows(t, fill=0.0):
    """Rows by tutorial id -> rows by our id; <pad> and <unk> rows = fill."""
    special = torch.full((2,) + tuple(t.shape[1:]), fill, dtype=t.dtype)
    return torch.cat([special, t[:2], t[2:]], dim=0)


def file_tensors(enc, dec, kind="additive"):
    """(name, tensor) in the file order of models/FORMAT.md section 3 for
    arch_flags(kind): what the loader expects, nothing else."""
    attention, embedding, w_ih = [], dec["embedding.weight"], dec["gru.weight_ih_l0"]
    if kind == "additive":
        attention = [("attn_query_w", dec["attention.Wa.weight"]), ("attn_query_b", dec["attention.Wa.bias"]),
                     ("attn_key_w", dec["attention.Ua.weight"]), ("attn_key_b", dec["attention.Ua.bias"]),
                     ("attn_v", dec["attention.Va.weight"][0]), ("attn_v_b", dec["attention.Va.bias"])]
    elif kind == "none":
        # DecoderRNN: GRU(ReLU(embedding)); the file's GRU reads [embedding; context]:
        # the ReLU'd table, and zero weights (3H, H) for the context.
        embedding = torch.relu(embedding)
        w_ih = torch.cat([w_ih, torch.zeros_like(w_ih)], dim=1)
    return [
        ("src_embedding", remap_rows(enc["embedding.weight"])),
        ("enc_fwd_w_ih", enc["gru.weight_ih_l0"]), ("enc_fwd_w_hh", enc["gru.weight_hh_l0"]),
        ("enc_fwd_b_ih", enc["gru.bias_ih_l0"]), ("enc_fwd_b_hh", enc["gru.bias_hh_l0"]),
        *attention,
        ("tgt_embedding", remap_rows(embedding)),
        ("dec_w_ih", w_ih), ("dec_w_hh", dec["gru.weight_hh_l0"]),
        ("dec_b_ih", dec["gru.bias_ih_l0"]), ("dec_b_hh", dec["gru.bias_hh_l0"]),
        ("proj_w", remap_rows(dec["out.weight"])), ("proj_b", remap_rows(dec["out.bias"], NEVER_LOGIT)),
    ]


def as_stored(tensors, weights):
    """The values the file holds (f16-rounded, or int8-dequantised for the
    2-D tensors), so that the fixtures are computed on exactly those."""
    out = []
    for name, t in tensors:
        if weights == "f16":
            t = t.half().float()
        elif weights == "int8" and t.dim() == 2:
            t = dequantise_rows(*quantise_rows(t))
        out.append((name, t))
    return dict(out)


# ---- the tutorial's evaluate(), on the file's values -----------------------------

@torch.no_grad()
def tutorial_greedy(w, src_ids, max_steps, score_scale=1.0, kind="additive"):
    """The tutorial's evaluate() for one sentence (batch 1, no padding, eval
    mode so no dropout), on the tensors w (our ids: src_ids already ends in
    </s>, as tensorFromSentence appends EOS). Records what the engine's
    trace holds. score_scale multiplies the raw scores before the softmax
    (1 = the tutorial). kind: the decoder's attention (decoder_kind); for
    "none" the context is the encoder's last output, which the zero context
    columns of dec_w_ih ignore, as DecoderRNN does."""
    hidden_size = w["enc_fwd_w_hh"].shape[1]
    encoder = nn.GRU(hidden_size, hidden_size, batch_first=True)
    decoder = nn.GRU(2 * hidden_size, hidden_size, batch_first=True)
    for gru, prefix in ((encoder, "enc_fwd_"), (decoder, "dec_")):
        gru.weight_ih_l0.copy_(w[prefix + "w_ih"])
        gru.weight_hh_l0.copy_(w[prefix + "w_hh"])
        gru.bias_ih_l0.copy_(w[prefix + "b_ih"])
        gru.bias_hh_l0.copy_(w[prefix + "b_hh"])
    # EncoderRNN: keys = outputs (1,S,H), hidden = final state (1,1,H)
    keys, hidden = encoder(w["src_embedding"][torch.tensor(src_ids)].unsqueeze(0))
    if kind == "additive":
        projected_keys = keys @ w["attn_key_w"].T + w["attn_key_b"]        # Ua(keys) (1,S,H)
    prev = BOS
    out_ids, alphas, scores, contexts, top = [], [], [], [], []
    for _ in range(max_steps):
        # query = the hidden state before the step (1,1,H)
        if kind == "additive":  # BahdanauAttention
            query = hidden.permute(1, 0, 2) @ w["attn_query_w"].T + w["attn_query_b"]  # Wa(query) (1,1,H)
            raw = torch.tanh(query + projected_keys) @ w["attn_v"] + w["attn_v_b"]     # Va(...) (1,S)
        elif kind == "dot":
            raw = (hidden.permute(1, 0, 2) @ keys.transpose(1, 2))[:, 0]                # query . keys (1,S)
        if kind == "none":
            context = keys[:, -1:]                                                      # (1,1,H)
        else:
            alpha = torch.softmax(raw * score_scale, dim=-1)
            context = torch.bmm(alpha.unsqueeze(1), keys)                               # (1,1,H)
        embedded = w["tgt_embedding"][prev].view(1, 1, -1)
        output, hidden = decoder(torch.cat([embedded, context], dim=2), hidden)
        logits = output[0, 0] @ w["proj_w"].T + w["proj_b"]                        # out(output)
        best = torch.topk(torch.softmax(logits, dim=0), 5)
        prev = int(best.indices[0])
        out_ids.append(prev)
        if kind != "none":
            alphas.append([float(x) for x in alpha[0]])
            scores.append([float(x) for x in raw[0]])
        contexts.append([float(x) for x in context[0, 0, :8]])
        top.append({"ids": best.indices.tolist(), "probs": [float(p) for p in best.values]})
        if prev == EOS:
            break
    return out_ids, alphas, scores, contexts, top


def source_ids(text, src_vocab):
    index = {w: i for i, w in enumerate(src_vocab)}
    ids = [index.get(t, UNK) for t in tutorial_tokens(text)][:MAX_SOURCE_TOKENS]
    return ids + [EOS]


def trace_case(w, text, src_vocab, tgt_vocab, max_length, score_scale, kind="additive"):
    ids = source_ids(text, src_vocab)
    max_steps = min(2 * len(ids) + 10, max_length)  # the engine's rule, S counting </s>
    out_ids, alphas, scores, contexts, top = tutorial_greedy(w, ids, max_steps, score_scale, kind)
    return {"text": text, "score_scale": score_scale, "source_ids": ids, "target_ids": out_ids,
            "target_tokens": [tgt_vocab[i] for i in out_ids],
            "alpha": alphas, "scores": scores, "context_head": contexts, "top": top}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkpoint", help="the torch.save'd dict (see the docstring)")
    ap.add_argument("out", help="the .alsc file to write")
    kind = ap.add_mutually_exclusive_group()
    kind.add_argument("--f16", action="store_true", help="store f16 (half the size) instead of f32")
    kind.add_argument("--int8", action="store_true", help="store matrices as int8 + per-row f32 scales")
    ap.add_argument("--languages", default="fr,en",
                    help="source,target tags (default fr,en: the tutorial translates French to English)")
    ap.add_argument("--max-length", type=int, default=TUTORIAL_MAX_LENGTH,
                    help="decoder steps at most, the tutorial's MAX_LENGTH (default 10)")
    ap.add_argument("--fixtures", help="write parity fixtures JSON here")
    ap.add_argument("--sentences", help="one sentence per line for the fixtures")
    args = ap.parse_args()
    if not 1 <= args.max_length <= 1024:
        fail("--max-length must be 1 ... 1024")
    languages = tuple(args.languages.split(","))
    if len(languages) != 2 or not all(LANGUAGE_TAG.fullmatch(tag) for tag in languages):
        fail("--languages needs two tags of 2 or 3 lower-case letters, e.g. fr,en")

    enc, dec, src_words, tgt_words, hidden, kind = load_tutorial_checkpoint(args.checkpoint)
    src_vocab, tgt_vocab = our_vocab(src_words), our_vocab(tgt_words)
    weights = "f16" if args.f16 else "int8" if args.int8 else "f32"
    tensors = file_tensors(enc, dec, kind)
    dims = {"attention": kind, "embed_dim": hidden, "encoder_hidden": hidden, "decoder_hidden": hidden,
            "attention_dim": hidden if kind == "additive" else 0, "output_dim": hidden, "trained_score_scale": 1.0}
    data = alsc_bytes(dims, src_vocab, tgt_vocab, tensors, weights, languages, arch_flags(kind),
                      max_source_tokens=MAX_SOURCE_TOKENS, max_target_tokens=args.max_length)
    with open(args.out, "wb") as f:
        f.write(data)
    params = sum(t.numel() for t in enc.values()) + sum(t.numel() for t in dec.values())
    print(f"wrote {args.out}: {len(data)} bytes, {weights}, H={hidden}, vocabularies {len(src_words)} -> "
          f"{len(tgt_words)} words (+2 specials each), {params} tutorial parameters, {'-'.join(languages)}, "
          f"decoder: {DECODERS[kind][0]}")

    if args.fixtures:
        if not args.sentences:
            fail("--fixtures needs --sentences")
        with open(args.sentences, encoding="utf-8") as f:
            sentences = [line.rstrip("\n") for line in f if tutorial_tokens(line)]
        stored = as_stored(tensors, weights)
        cases = [trace_case(stored, s, src_vocab, tgt_vocab, args.max_length, 1.0, kind) for s in sentences]
        if kind != "none":
            for factor in (4.0, 0.25):  # the slider's extremes, as export.py
                cases.append(trace_case(stored, sentences[0], src_vocab, tgt_vocab, args.max_length, factor, kind))
        write_fixtures(args.fixtures, args.out, weights, kind, 1.0, cases, arch_flags=arch_flags(kind))


if __name__ == "__main__":
    main()
