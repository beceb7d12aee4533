"""The PyTorch twins of the engine's decoders (src/engine.c), on model.py's own
decoder_step: greedy decoding with attention overrides (the pinned finger)
and beam search, each recording what the engine's trace holds.

  loaded = alsc_to_torch.load("models/en-fr.alsc")
  ids = loaded.source_ids("Open the file")
  greedy_trace(loaded, ids, overrides=[(1, [1, 0, 0])])
  beam_search(loaded, ids, width=4, length_penalty=1.0)

The rules are the engine's (src/alignscope.h): an override's weights are S
values, finite, >= 0, not all zero, divided by their f32 sum; a beam keeps
the best n extensions of its n live hypotheses (by log-probability; ties to
the older hypothesis, then the higher logit), a hypothesis that emits </s>
leaves it, and the k final ones rank by log_prob / T^length_penalty.

  /usr/bin/python3 models/train/decode.py MODEL.alsc --sentences FILE > cases.json

writes the cases tests/twins.test.mjs replays on the engine: per sentence a
pin (all weight on the least attended token at step 1), a ramp override at
step 0 (weights 1, 2, ..., S) and a beam of 4; on the first sentence also a
beam of 3 with the pin and a beam of 8 with length penalty 0.6.
"""
import argparse
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from alsc_to_torch import AlscError, load  # noqa: E402
from model import BOS, EOS  # noqa: E402

BEAM_MAX_WIDTH = 8          # AS_BEAM_MAX_WIDTH (tests/definitions.test.mjs)
MAX_LENGTH_PENALTY = 4.0    # AS_MAX_LENGTH_PENALTY
DEFAULT_LENGTH_PENALTY = 1.0
TOP_K = 5                   # candidates recorded per step, as the parity fixtures
SPARE = 1                   # one more candidate's probability, to tell a near tie at the 5th
CONTEXT_HEAD = 8            # context values recorded per step


def forced_rows(overrides, source_len, cap, has_attention):
    """[(step, weights)] -> {step: f32 tensor (1, S)}, each divided by its sum as the
    engine does (f32, left to right); AlscError for what the engine refuses."""
    rows = {}
    for step, weights in overrides:
        if not has_attention:
            raise AlscError("a model without attention has no weights to force")
        w = np.asarray(weights, dtype=np.float32)
        if w.shape != (source_len,) or not isinstance(step, int) or step < 0:
            raise AlscError("the forced attention weights are invalid (length or step)")
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise AlscError("the forced attention weights are invalid (NaN, inf or negative)")
        total = np.float32(0)
        for x in w:
            total = np.float32(total + x)
        if not (total > 0 and np.isfinite(total)):
            raise AlscError("the forced attention weights are invalid (all zero)")
        if step >= cap:
            raise AlscError("the forced attention names a step the translation does not reach")
        if step in rows:
            raise AlscError("the forced attention weights are invalid (two at one step)")
        rows[step] = torch.from_numpy((w / total).astype(np.float32)).unsqueeze(0)
    return rows


def encode(loaded, ids):
    model = loaded.model
    src = torch.tensor([ids])
    lengths = torch.tensor([len(ids)])
    annotations, keys, s0 = model.encode(src, lengths)
    summary = model.summary_context(annotations, lengths) if model.config.attention == "none" else None
    return annotations, keys, s0, src != 0, summary


def step_record(alpha, raw, context, logits, row=0):
    """One step's trace entries for batch row `row`."""
    probs = torch.softmax(logits[row], dim=0)
    best = torch.topk(probs, min(TOP_K + SPARE, probs.numel()))
    out = {"context_head": [float(x) for x in context[row][:CONTEXT_HEAD]],
           "top": {"ids": best.indices.tolist()[:TOP_K], "probs": [float(p) for p in best.values[:TOP_K]],
                   "spare_prob": float(best.values[-1])}}
    if alpha is not None:
        out["alpha"] = [float(x) for x in alpha[row]]
        out["scores"] = [float(x) for x in raw[row]]
    return out


def collect(records):
    """Step records -> the trace's arrays."""
    return {"alpha": [r["alpha"] for r in records if "alpha" in r],
            "scores": [r["scores"] for r in records if "scores" in r],
            "context_head": [r["context_head"] for r in records], "top": [r["top"] for r in records]}


@torch.no_grad()
def greedy_trace(loaded, ids, score_scale=None, overrides=()):
    """Greedy decoding with alpha forced at the overrides' steps (as_translate)."""
    model = loaded.model
    scale = loaded.trained_score_scale if score_scale is None else score_scale
    cap = loaded.max_target_tokens(len(ids))
    forced = forced_rows(overrides, len(ids), cap, model.config.attention != "none")
    annotations, keys, state, mask, summary = encode(loaded, ids)
    prev = torch.tensor([BOS])
    target, records = [], []
    for t in range(cap):
        features, state, alpha, raw, context = model.decoder_step(
            prev, state, annotations, keys, mask, summary, scale, forced.get(t))
        logits = model.projection(features)
        records.append(step_record(alpha, raw, context, logits))
        prev = logits.argmax(dim=1)
        target.append(int(prev))
        if target[-1] == EOS:
            break
    if forced and max(forced) >= len(target):
        raise AlscError("the forced attention names a step the translation does not reach")
    return {"source_ids": list(ids), "target_ids": target, **collect(records)}


@torch.no_grad()
def beam_search(loaded, ids, width, length_penalty=DEFAULT_LENGTH_PENALTY, score_scale=None, overrides=()):
    """Beam search as as_translate_beam: -> hypotheses, best first, each
    {target_ids, log_prob, score, step_log_probs, stopped_at_eos, alpha, ...}."""
    if not (isinstance(width, int) and 1 <= width <= BEAM_MAX_WIDTH):
        raise AlscError("the beam width must be a whole number from 1 to 8")
    if not 0 <= length_penalty <= MAX_LENGTH_PENALTY:
        raise AlscError("the length penalty must be 0 to 4")
    model = loaded.model
    scale = loaded.trained_score_scale if score_scale is None else score_scale
    cap = loaded.max_target_tokens(len(ids))
    forced = forced_rows(overrides, len(ids), cap, model.config.attention != "none")
    annotations, keys, s0, mask, summary = encode(loaded, ids)
    vocab = model.config.tgt_vocab_size
    # A live hypothesis: (log_prob f32, tokens, step records, step log-probs, state (1, Hd)).
    live = [(np.float32(0), [], [], [], s0)]
    finals = []
    steps_run = 0
    margin = float("inf")  # the closest call: kept vs dropped candidate, or two final scores
    for t in range(cap):
        if not live:
            break
        want = width - len(finals)
        per_slot = min(want, vocab)
        n = len(live)
        state = torch.cat([h[4] for h in live], dim=0)
        prev = torch.tensor([h[1][-1] if h[1] else BOS for h in live])
        row_forced = forced.get(t)
        features, new_state, alpha, raw, context = model.decoder_step(
            prev, state, annotations.expand(n, -1, -1), keys.expand(n, -1, -1), mask.expand(n, -1),
            None if summary is None else summary.expand(n, -1), scale,
            None if row_forced is None else row_forced.expand(n, -1))
        logits = model.projection(features)
        log_probs = torch.log_softmax(logits, dim=1)
        candidates = []
        for i, hyp in enumerate(live):
            best = torch.topk(logits[i], per_slot).indices.tolist()
            for rank, token in enumerate(best):
                step_lp = np.float32(float(log_probs[i, token]))
                candidates.append((np.float32(hyp[0] + step_lp), i, rank, token, step_lp))
        steps_run = t + 1
        candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
        if len(candidates) > want:
            margin = min(margin, float(candidates[want - 1][0] - candidates[want][0]))
        next_live = []
        for total, i, _, token, step_lp in candidates[:want]:
            hyp = live[i]
            record = step_record(alpha, raw, context, logits, i)
            grown = (total, hyp[1] + [token], hyp[2] + [record], hyp[3] + [float(step_lp)], new_state[i:i + 1])
            if token == EOS:
                finals.append((grown, True))
            else:
                next_live.append(grown)
        live = next_live
    finals += [(hyp, False) for hyp in live]
    if forced and max(forced) >= steps_run:
        raise AlscError("the forced attention names a step the translation does not reach")
    out = []
    for (log_prob, tokens, records, step_lps, _), eos in finals:
        steps = np.float32(len(tokens))
        score = log_prob if length_penalty == 0 else np.float32(log_prob / np.float32(steps ** np.float32(length_penalty)))
        out.append({"source_ids": list(ids), "target_ids": tokens, "log_prob": float(log_prob), "score": float(score),
                    "step_log_probs": step_lps, "stopped_at_eos": eos, **collect(records)})
    out.sort(key=lambda h: -h["score"])  # stable: ties keep the order they were made in
    for a, b in zip(out, out[1:]):
        margin = min(margin, a["score"] - b["score"])
    for h in out:
        h["search_margin"] = margin
    return out


def replay_cases(loaded, sentences):
    """The cases tests/twins.test.mjs replays on the engine (module docstring)."""
    has_attention = loaded.attention != "none"
    cases = []
    for n, text in enumerate(sentences):
        ids = loaded.source_ids(text)
        if has_attention:
            greedy = greedy_trace(loaded, ids)
            step = min(1, len(greedy["target_ids"]) - 1)
            least = int(np.argmin(greedy["alpha"][step]))
            pin = [(step, [1.0 if j == least else 0.0 for j in range(len(ids))])]
            ramp = [(0, [float(j + 1) for j in range(len(ids))])]
            for overrides in (pin, ramp):
                cases.append({"kind": "forced", "text": text, "overrides": overrides,
                              "result": greedy_trace(loaded, ids, overrides=overrides)})
        cases.append({"kind": "beam", "text": text, "width": 4, "length_penalty": DEFAULT_LENGTH_PENALTY,
                      "overrides": [], "hypotheses": beam_search(loaded, ids, 4)})
        if n == 0:
            extra = [(8, 0.6, [])]
            if has_attention:
                extra.append((3, 0.0, pin))
            for width, penalty, overrides in extra:
                cases.append({"kind": "beam", "text": text, "width": width, "length_penalty": penalty,
                              "overrides": overrides,
                              "hypotheses": beam_search(loaded, ids, width, penalty, overrides=overrides)})
    return cases


def main():
    ap = argparse.ArgumentParser(description="PyTorch twins of the engine's decoders: replay cases as JSON")
    ap.add_argument("models", nargs="+", help=".alsc files")
    ap.add_argument("--sentences", required=True, help="one sentence per line")
    ap.add_argument("--limit", type=int, default=0, help="only the first N sentences (0: all)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    with open(args.sentences, encoding="utf-8") as f:
        sentences = [line.rstrip("\n") for line in f if line.strip()]
    if args.limit > 0:
        sentences = sentences[:args.limit]
    out = []
    for path in args.models:
        try:
            loaded = load(path)
        except AlscError as e:
            out.append({"model": path, "error": str(e)})
            continue
        out.append({"model": path, "weights": loaded.weights, "attention": loaded.attention,
                    "cases": replay_cases(loaded, sentences)})
    json.dump(out, sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
