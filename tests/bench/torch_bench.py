"""PyTorch eager backend of the bench (tests/bench/bench.mjs drives it).

  OPENBLAS_NUM_THREADS=1 /usr/bin/python3 tests/bench/torch_bench.py MODEL.pt SENTENCES.txt

One thread. Reads commands on stdin, one per line, and answers each with one
JSON line on stdout, so the driver can interleave it with the other backends:
  tokens     -> {"tokens": [[id, ...], ...]}  greedy output per sentence (with </s>)
  round N    -> {"samples": [{"i", "whole_ms", "decode_ms", "steps"}, ...]}
               N repetitions of every sentence, in order; whole = encoder +
               greedy decoding, decode = the decoding loop alone
  quit
The greedy loop is the model's own decoder_step + projection + argmax, as
models/train/export.py's trace_sentence runs it (batch 1, eval mode).
"""
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "models", "train"))
import openblas_core  # noqa: E402,F401  (before torch: OpenBLAS reads its kernel choice on loading)

import torch  # noqa: E402

from checkpoints import load_own  # noqa: E402
from export import MAX_SOURCE_TOKENS, MAX_TARGET_TOKENS  # noqa: E402
from model import BOS, EOS, ModelConfig, Seq2SeqAttention, max_target_tokens  # noqa: E402
from tokenize_text import tokenize  # noqa: E402


def load(path):
    """-> (model, source vocabulary, the bench sentences' source ids when make_models.py
    took them from the shipped file's own segmentation, else None)."""
    checkpoint = load_own(path)
    model = Seq2SeqAttention(ModelConfig(**checkpoint["config"]))
    model.load_state_dict(checkpoint["state_dict"])
    model.eval()
    return model, checkpoint["src_vocab"], checkpoint.get("source_ids")


def greedy(model, ids):
    """-> (tokens, encoder seconds, decoder seconds)."""
    t0 = time.perf_counter()
    src = torch.tensor([ids])
    lengths = torch.tensor([len(ids)])
    annotations, keys, state = model.encode(src, lengths)
    mask = src != 0
    t1 = time.perf_counter()
    prev = torch.tensor([BOS])
    out = []
    for _ in range(min(max_target_tokens(len(ids)), MAX_TARGET_TOKENS)):
        features, state, _, _, _ = model.decoder_step(prev, state, annotations, keys, mask, None, model.score_scale)
        prev = model.projection(features).argmax(dim=1)
        token = int(prev)
        out.append(token)
        if token == EOS:
            break
    t2 = time.perf_counter()
    return out, t1 - t0, t2 - t1


def main():
    torch.set_num_threads(1)
    model, src_vocab, source_ids = load(sys.argv[1])
    with open(sys.argv[2], encoding="utf-8") as f:
        sentences = [line.rstrip("\n") for line in f if line.strip()]
    if source_ids is None:  # a word model from --random or --checkpoint
        index = {w: i for i, w in enumerate(src_vocab)}
        source_ids = [[index.get(t, 1) for t, _, _ in tokenize(s)][:MAX_SOURCE_TOKENS] for s in sentences]
    source_ids = [ids[:MAX_SOURCE_TOKENS] for ids in source_ids]
    with torch.inference_mode():
        for line in sys.stdin:
            cmd = line.split()
            if not cmd:
                continue
            if cmd[0] == "quit":
                break
            if cmd[0] == "tokens":
                reply = {"tokens": [greedy(model, ids)[0] for ids in source_ids], "source_ids": source_ids,
                         "threads": torch.get_num_threads(), "version": torch.__version__,
                         "openblas_core": openblas_core.loaded_core()}
            elif cmd[0] == "round":
                samples = []
                for _ in range(int(cmd[1])):
                    for i, ids in enumerate(source_ids):
                        tokens, enc, dec = greedy(model, ids)
                        samples.append({"i": i, "whole_ms": (enc + dec) * 1e3, "decode_ms": dec * 1e3,
                                        "steps": len(tokens)})
                reply = {"samples": samples}
            else:
                reply = {"error": f"unknown command {cmd[0]}"}
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
