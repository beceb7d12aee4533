"""The PyTorch twins of the engine's decoders (src/engine.c), on model.py's own
decoder_step: greedy decoding with attention overrides (the pinned finger),
beam search, each recording what the engine's trace holds, and forced
decoding with an attention mask (as_force_score).

  loaded = alsc_to_torch.load("models/en-fr.alsc")
  ids = loaded.source_ids("Open the file")
  greedy_trace(loaded, ids, overrides=[(1, [1, 0, 0])])
  beam_search(loaded, ids, width=4, length_penalty=1.0)
  forced_score(loaded, ids, [47, 12, 3], keep=window_mask(3, len(ids), 1))

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

  /usr/bin/python3 models/train/decode.py MODEL.alsc --sentences FILE --forced > cases.json
  /usr/bin/python3 models/train/decode.py MODEL.alsc --sentences FILE --windowed > cases.json

writes instead the forced-decoding cases tests/forced.test.mjs replays
(forced_cases: two targets per sentence, each under five masks), or the
local-window decoding cases tests/local.test.mjs replays (windowed_cases).
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import openblas_core  # noqa: E402,F401  (before numpy and torch: OpenBLAS reads its kernel choice on loading)

import numpy as np  # noqa: E402
import torch  # noqa: E402

from alsc_to_torch import AlscError, load  # noqa: E402
from model import BOS, EOS  # noqa: E402

BEAM_MAX_WIDTH = 8          # AS_BEAM_MAX_WIDTH (tests/definitions.test.mjs)
WINDOW_MAX_LENGTH = 4096    # AS_WINDOW_MAX_LENGTH
MAX_LENGTH_PENALTY = 4.0    # AS_MAX_LENGTH_PENALTY
DEFAULT_LENGTH_PENALTY = 1.0  # AS_DEFAULT_LENGTH_PENALTY: the CLI's, the page's and the element's decoding
DEFAULT_BEAM_WIDTH = 5        # AS_DEFAULT_BEAM_WIDTH (teacher_eval.py and eval_alsc.py --write measure it)
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


def window_mask(target_count, source_positions, half_width):
    """The twin of as_window_mask (src/alignscope.h): (T, S) lists of 0/1, step t
    keeping |j - p_t| <= half_width, p_t = round(t (S - 1) / (T - 1)) with halves
    up (p_0 = 0 when T = 1), in exact integers as the C code."""
    if not (1 <= target_count <= WINDOW_MAX_LENGTH and 1 <= source_positions <= WINDOW_MAX_LENGTH
            and half_width >= 0):
        raise AlscError(f"an option is out of range (window: T and S from 1 to {WINDOW_MAX_LENGTH}, half width >= 0)")
    span = target_count - 1
    rows = []
    for t in range(target_count):
        p = 0 if span == 0 else (2 * t * (source_positions - 1) + span) // (2 * span)
        rows.append([1 if p - half_width <= j <= p + half_width else 0 for j in range(source_positions)])
    return rows


def window_centre(t, steps, positions):
    """The twin of engine.c window_centre: the local-m centre p_t in free
    decoding, scaled with the reference length T = steps (the global
    translation's): window_mask's round(t (S - 1) / (T - 1)) for t < T - 1, the
    last source position from T - 1 on (p_0 = 0 when T = 1)."""
    span = steps - 1
    if t == 0:
        return 0
    if t >= span:
        return positions - 1
    return (2 * t * (positions - 1) + span) // (2 * span)


def window_row(t, steps, positions, half_width):
    """Step t's keep row (1, S) of bool for free decoding with a local-m window."""
    p = window_centre(t, steps, positions)
    return torch.tensor([[p - half_width <= j <= p + half_width for j in range(positions)]], dtype=torch.bool)


def check_window(window, window_steps, overrides):
    """What as_options refuses of a window (AlscError, the engine's bad option)."""
    if window is None:
        return
    if not (isinstance(window, int) and window >= 0 and isinstance(window_steps, int)
            and 1 <= window_steps <= WINDOW_MAX_LENGTH and not overrides):
        raise AlscError("an option is out of range (window: half width >= 0, steps 1 to 4096, no overrides)")


def check_forced(loaded, ids, target_ids, keep):
    """What as_force_score refuses, in its order (AlscError naming the position)."""
    h = loaded.header
    if not ids:
        raise AlscError("the input has no words to translate")
    if len(ids) > loaded.max_source_tokens:
        raise AlscError("the input has more words than this model accepts")
    for j, x in enumerate(ids):
        if not 0 <= x < h["src_vocab_size"]:
            raise AlscError(f"a source token id is outside the model's source vocabulary (position {j})")
    if not 1 <= len(target_ids) <= h["max_target_tokens"]:
        raise AlscError("the forced target is invalid (length)")
    for t, y in enumerate(target_ids):
        if not 0 <= y < h["tgt_vocab_size"]:
            raise AlscError(f"the forced target is invalid (position {t})")
    if keep is not None and loaded.attention != "none":
        if len(keep) != len(target_ids) or any(len(row) != len(ids) for row in keep):
            raise AlscError("the attention mask is invalid (shape)")
        for t, row in enumerate(keep):
            if any(v not in (0, 1) for v in row) or not any(row):
                raise AlscError(f"the attention mask is invalid (row {t})")


@torch.no_grad()
def forced_score(loaded, ids, target_ids, keep=None, score_scale=None):
    """Forced decoding as as_force_score: log p(y_t | y_<t, x) for each given
    target token, each step fed the given previous one (<s> first); keep (T, S)
    of 0/1 or None: step t's softmax over the kept positions only (model.py's
    own masked_fill with -inf: dropped weights exactly 0, the rest renormalised),
    ignored without attention. -> {log_probs, alpha} (alpha [] without
    attention). A model of model.py reads no </s> after the source, so S = len(ids)."""
    check_forced(loaded, ids, target_ids, keep)
    model = loaded.model
    scale = loaded.trained_score_scale if score_scale is None or score_scale <= 0 else score_scale
    annotations, keys, state, src_mask, summary = encode(loaded, ids)
    attends = model.config.attention != "none"
    prev = torch.tensor([BOS])
    log_probs, alphas = [], []
    for t, y in enumerate(target_ids):
        mask = torch.tensor([keep[t]], dtype=torch.bool) if keep is not None and attends else src_mask
        features, state, alpha, _, _ = model.decoder_step(prev, state, annotations, keys, mask, summary, scale)
        logits = model.projection(features)
        log_probs.append(float(torch.log_softmax(logits[0], dim=0)[y]))
        if alpha is not None:
            alphas.append([float(a) for a in alpha[0]])
        prev = torch.tensor([y])
    return {"log_probs": log_probs, "alpha": alphas}


def forced_cases(loaded, sentences):
    """The cases tests/forced.test.mjs replays: per sentence two targets (the
    greedy output, and its words reversed before </s>: a target the decoder
    would not choose, so that teacher forcing matters), each unmasked, in
    windows of half width 1 and 0 (one position: alpha one-hot), with each
    step's most attended position (unmasked) dropped, and with a seeded random
    mask (every row keeping at least one position); on the first sentence also
    the windowed greedy target at half the trained scale."""
    rng = np.random.default_rng(32)
    cases = []
    for n, text in enumerate(sentences):
        ids = loaded.source_ids(text)
        S = len(ids)
        greedy = greedy_trace(loaded, ids)["target_ids"]
        body = [y for y in greedy if y != EOS]
        for name, target in (("greedy", greedy), ("reversed", body[::-1] + [EOS])):
            T = len(target)
            plain = forced_score(loaded, ids, target)
            masks = [("none", None, None), ("window 1", window_mask(T, S, 1), 1), ("window 0", window_mask(T, S, 0), 0)]
            if plain["alpha"]:
                top = [int(np.argmax(row)) for row in plain["alpha"]]
                masks.append(("drop the most attended",
                              [[0 if j == top[t] and S > 1 else 1 for j in range(S)] for t in range(T)], None))
            rand = (rng.random((T, S)) < 0.4).astype(int)
            rand[np.arange(T), rng.integers(0, S, T)] = 1
            masks.append(("random", rand.tolist(), None))
            scales = [None] + ([loaded.trained_score_scale / 2] if n == 0 and name == "greedy" else [])
            for scale in scales:
                for mask_name, keep, window in masks:
                    if scale is not None and window != 1:
                        continue
                    result = plain if keep is None and scale is None else forced_score(loaded, ids, target, keep, scale)
                    cases.append({"text": text, "target": name, "mask": mask_name, "window": window,
                                  "source_ids": list(ids), "target_ids": list(target), "keep": keep,
                                  "score_scale": 0 if scale is None else scale, **result})
    return cases


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
def greedy_trace(loaded, ids, score_scale=None, overrides=(), window=None, window_steps=None):
    """Greedy decoding with alpha forced at the overrides' steps (as_translate),
    or with a local-m window of half width `window` centred by window_centre
    with the reference length window_steps (as_options.window_half_width)."""
    model = loaded.model
    check_window(window, window_steps, overrides)
    scale = loaded.trained_score_scale if score_scale is None else score_scale
    cap = loaded.max_target_tokens(len(ids))
    forced = forced_rows(overrides, len(ids), cap, model.config.attention != "none")
    annotations, keys, state, mask, summary = encode(loaded, ids)
    prev = torch.tensor([BOS])
    target, records = [], []
    for t in range(cap):
        if window is not None and model.config.attention != "none":
            mask = window_row(t, window_steps, len(ids), window)
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
def beam_search(loaded, ids, width, length_penalty=DEFAULT_LENGTH_PENALTY, score_scale=None, overrides=(),
                window=None, window_steps=None):
    """Beam search as as_translate_beam: -> hypotheses, best first, each
    {target_ids, log_prob, score, step_log_probs, stopped_at_eos, alpha, ...}.
    window, window_steps: as greedy_trace's, the same row for every hypothesis."""
    check_window(window, window_steps, overrides)
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
        if window is not None and model.config.attention != "none":
            mask = window_row(t, window_steps, len(ids), window)
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


def windowed_cases(loaded, sentences):
    """The cases tests/local.test.mjs replays: per sentence, greedy decoding with
    local-m windows of half width 0, 1 and 2 scaled with the global greedy
    translation's length T, with 0 also at the reference length 1 and
    max(1, T // 2) (steps past it clamped to the source's end), and a beam of 3
    with the window of half width 1."""
    cases = []
    for text in sentences:
        ids = loaded.source_ids(text)
        T = len(greedy_trace(loaded, ids)["target_ids"])
        runs = [(0, T), (1, T), (2, T), (0, 1), (0, max(1, T // 2))]
        for window, steps in runs:
            cases.append({"kind": "greedy", "text": text, "window": window, "window_steps": steps,
                          "global_steps": T, "result": greedy_trace(loaded, ids, window=window, window_steps=steps)})
        cases.append({"kind": "beam", "text": text, "width": 3, "window": 1, "window_steps": T, "global_steps": T,
                      "hypotheses": beam_search(loaded, ids, 3, window=1, window_steps=T)})
    return cases


def main():
    ap = argparse.ArgumentParser(description="PyTorch twins of the engine's decoders: replay cases as JSON")
    ap.add_argument("models", nargs="+", help=".alsc files")
    ap.add_argument("--sentences", required=True, help="one sentence per line")
    ap.add_argument("--limit", type=int, default=0, help="only the first N sentences (0: all)")
    ap.add_argument("--forced", action="store_true", help="the forced-decoding cases (forced_cases) instead")
    ap.add_argument("--windowed", action="store_true", help="the local-window decoding cases (windowed_cases) instead")
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
        cases = (forced_cases(loaded, sentences) if args.forced else windowed_cases(loaded, sentences)
                 if args.windowed else replay_cases(loaded, sentences))
        out.append({"model": path, "weights": loaded.weights, "attention": loaded.attention, "cases": cases})
    json.dump(out, sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
