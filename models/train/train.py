"""Train an attention translator on the corpus built by corpus.py.

Usage (./build.sh model runs the full recipe):
  OPENBLAS_NUM_THREADS=2 /usr/bin/python3 models/train/train.py \
      --data models/train/data/en-fr --out models/train/runs/en-fr-additive \
      --attention additive --subwords 6000,6000 --updates 24000 \
      --state ~/.cache/alignscope/runs/en-fr-additive [--device cuda]

Two tokenisations: whole lower-cased words (models/FORMAT.md 5, --src-vocab /
--tgt-vocab words) or cased subword pieces (--subwords SRC,TGT: subword.py
learns them from train.tsv; FORMAT.md 5.2). With --updates the budget is a
number of updates (the learning-rate schedule and the softmax switch follow
it, so a busy machine makes the same model, only later), the run saves its
whole state (weights, Adam, random generators, position in the data) to
--state every --save-every updates and a later run with the same arguments
resumes from there: the result is the same as one uninterrupted run. A
missing or incompatible state starts afresh, with a message. Training samples
the corpus's domains with --domain-weights.

Writes OUT/checkpoint.pt (best dev BLEU), OUT/metrics.json and OUT/log.txt.
"""
import argparse
import json
import math
import os
import random
import signal
import sys
import time
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import openblas_core  # noqa: E402,F401  (before torch: OpenBLAS reads its kernel choice on loading)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from bleu import (bootstrap_interval, bucket_order, corpus_bleu,  # noqa: E402
                  sentence_lengths_buckets, tokenize_13a)
from checkpoints import average_state_dicts, load_own  # noqa: E402
from model import (BOS, EOS, PAD, SPECIALS, UNK, ModelConfig,  # noqa: E402
                   Seq2SeqAttention, max_target_tokens, suppress_specials)
from tokenize_text import detokenize, words  # noqa: E402
import subword  # noqa: E402


def keep_freed_memory():
    """Ask glibc's malloc to keep freed blocks instead of handing them back to the
    kernel. By default a block over 128 kB-32 MB is its own mmap, unmapped when
    freed, so every (B,S,3H) gradient buffer the GRU's backward allocates comes
    back as fresh pages: one page fault per 4 kB on first touch (the time went
    to aten::fill_ and aten::add on new buffers, 20 % of it in the kernel).
    Measured on one idle core of a 2-core EPYC, PyTorch 1.13: the en-de
    recipe's first 60 updates 1.76 -> 1.05 s each, weights bit-identical; a
    batch of 22-piece sentences 6.1 -> 1.2-1.5 s. No-op off glibc."""
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    M_TRIM_THRESHOLD, M_MMAP_MAX = -1, -4
    return bool(libc.mallopt(M_MMAP_MAX, 0)) and bool(libc.mallopt(M_TRIM_THRESHOLD, 2**31 - 1))


def read_rows(path):
    """corpus.py's TSV -> [(english, translation, domain)]; two-column files are domain 'ui'."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 2 or not parts[0].strip() or not parts[1].strip():
                continue
            rows.append((parts[0], parts[1], parts[2] if len(parts) > 2 else "ui"))
    return rows


class Pair:
    """One sentence pair: its raw text (for cased BLEU and the word-level figure), its
    tokens for the model (words, or piece texts) and its domain."""
    __slots__ = ("src_text", "tgt_text", "domain", "src", "tgt")

    def __init__(self, src_text, tgt_text, domain, src, tgt):
        self.src_text, self.tgt_text, self.domain, self.src, self.tgt = src_text, tgt_text, domain, src, tgt

    def __getitem__(self, i):  # (src tokens, tgt tokens), as the word pipeline's tuples were
        return (self.src, self.tgt)[i]


def read_pairs(path, max_tokens=None, segmenters=None):
    """TSV -> [Pair]; tokens are words (models/FORMAT.md 5) or, with segmenters
    (source, target subword.Segmenter), piece texts. Pairs with either side
    longer than max_tokens tokens are dropped."""
    pairs = []
    for src_text, tgt_text, domain in read_rows(path):
        if segmenters:
            src, tgt = segmenters[0].pieces(src_text), segmenters[1].pieces(tgt_text)
        else:
            src, tgt = words(src_text), words(tgt_text)
        if not src or not tgt:
            continue
        if max_tokens and (len(src) > max_tokens or len(tgt) > max_tokens):
            continue
        pairs.append(Pair(src_text, tgt_text, domain, src, tgt))
    return pairs


def build_vocab(sentences, size):
    """Most frequent words, ties alphabetical (deterministic); specials first."""
    counts = Counter(w for s in sentences for w in s)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    vocab = SPECIALS + [w for w, _ in ranked[: size - len(SPECIALS)]]
    return vocab, counts


def coverage(counts, vocab):
    known = set(vocab)
    total = sum(counts.values())
    return sum(c for w, c in counts.items() if w in known) / max(total, 1)


def to_ids(tokens, index):
    return [index.get(w, UNK) for w in tokens]


def make_batches(pairs, batch_size, rng):
    """Length-sorted buckets (little padding), shuffled at batch level."""
    order = sorted(range(len(pairs)), key=lambda i: (len(pairs[i][0]), rng.random()))
    batches = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
    rng.shuffle(batches)
    return batches


def pad(seqs, value=PAD):
    width = max(len(s) for s in seqs)
    return torch.tensor([s + [value] * (width - len(s)) for s in seqs], dtype=torch.long)


def tensorise(batch, src_ids, tgt_ids):
    src = [src_ids[i] for i in batch]
    tgt = [tgt_ids[i] for i in batch]
    src_lengths = torch.tensor([len(s) for s in src])
    tgt_in = pad([[BOS] + t for t in tgt])
    tgt_out = pad([t + [EOS] for t in tgt])
    return pad(src), src_lengths, tgt_in, tgt_out


def replace_unknowns(output_ids, alphas, row, src_words, tgt_vocab):
    """Luong et al. 2015: an <unk> output becomes the most-attended source word."""
    out = []
    for t, token_id in enumerate(output_ids):
        if token_id == UNK and alphas[t] is not None:
            j = int(alphas[t][row, : len(src_words)].argmax())
            out.append(src_words[j])
        else:
            out.append(tgt_vocab[token_id])
    return out


@torch.no_grad()
def translate_all(model, pairs, src_index, tgt_vocab, batch_size=64, subwords=False):
    """Greedy translations (token lists) for every pair's source, in input order.
    With subwords, <pad> <unk> <s> are never chosen (the exporter gives them zero
    rows and a -10000 bias, model.suppress_specials, so the engine agrees)."""
    model.eval()
    device = next(model.parameters()).device
    results = [None] * len(pairs)
    order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]))
    for start in range(0, len(order), batch_size):
        batch = order[start:start + batch_size]
        src = pad([to_ids(pairs[i][0], src_index) for i in batch]).to(device)
        lengths = torch.tensor([len(pairs[i][0]) for i in batch])
        max_len = max_target_tokens(int(lengths.max()))
        outputs, alphas = model.greedy(src, lengths, max_len, banned=(PAD, UNK, BOS) if subwords else ())
        for row, i in enumerate(batch):
            if subwords:
                results[i] = [tgt_vocab[t] for t in outputs[row]]
            else:
                results[i] = replace_unknowns(outputs[row], alphas, row, pairs[i][0], tgt_vocab)
    return results


def hypothesis_text(tokens, subwords):
    """A translation's display text: pieces decoded (FORMAT.md 5.2), or words joined."""
    return subword.decode(tokens) if subwords else detokenize(tokens)


def sampled_softmax_loss(projection, features, tgt_out, negatives, vocab_size, label_smoothing=0.0):
    """Summed cross-entropy over a candidate set instead of all vocab_size words.

    Candidates = every target word of the batch (always included) + `negatives`
    words drawn uniformly with replacement from the non-special ids. A drawn
    word's logit is corrected by -log q (q = its chance of being drawn), the
    usual sampled-softmax correction (Jean et al. 2015), so that rare words are
    pushed down about as hard as the full softmax would push them.
    features (B,T,O), tgt_out (B,T) -> scalar.
    """
    flat_targets = tgt_out.reshape(-1)
    keep = flat_targets != PAD
    targets = flat_targets[keep]
    feats = features.reshape(-1, features.size(-1))[keep]                  # (N,O)
    in_batch = torch.unique(targets)
    drawn = torch.unique(torch.randint(len(SPECIALS), vocab_size, (negatives,)).to(targets.device))
    drawn = drawn[~torch.isin(drawn, in_batch)]
    candidates = torch.cat([in_batch, drawn])                               # (C,)
    logits = F.linear(feats, projection.weight[candidates], projection.bias[candidates])  # (N,C)
    draw_probability = 1.0 - (1.0 - 1.0 / (vocab_size - len(SPECIALS))) ** negatives
    correction = torch.zeros(len(candidates), device=targets.device)
    correction[len(in_batch):] = -math.log(draw_probability)
    remap = torch.empty(vocab_size, dtype=torch.long, device=targets.device)
    remap[candidates] = torch.arange(len(candidates), device=targets.device)
    # Label smoothing spreads its share over the candidates, as the full
    # softmax's spreads it over the vocabulary (Szegedy et al. 2016).
    return F.cross_entropy(logits + correction, remap[targets], reduction="sum", label_smoothing=label_smoothing)


def evaluate_bleu(model, pairs, src_index, tgt_vocab, intervals=False, subwords=False):
    """-> corpus BLEU, {length bucket: {sentences, bleu[, ci90]}}, hypotheses (tokens).

    The figure is today's continuity one: lower-cased words (FORMAT.md 5) of the
    detokenised output against the reference's. intervals: a 90% bootstrap
    interval per bucket (bleu.bootstrap_interval)."""
    hyps = translate_all(model, pairs, src_index, tgt_vocab, subwords=subwords)
    texts = [hypothesis_text(h, subwords) for h in hyps]
    hyp_words = [words(t) for t in texts]
    refs = [words(p.tgt_text) if isinstance(p, Pair) else p[1] for p in pairs]
    overall = corpus_bleu(hyp_words, refs)
    by_bucket = bleu_by_length(pairs, hyp_words, refs, intervals)
    return overall, by_bucket, hyps


def bleu_by_length(pairs, hyps, refs, intervals):
    """{source-length bucket (in words of the English text): {sentences, bleu[, ci90]}}."""
    by_bucket = {}
    labels = sentence_lengths_buckets([words(p.src_text) if isinstance(p, Pair) else p[0] for p in pairs])
    for label in sorted(set(labels), key=bucket_order):
        idx = [i for i, lab in enumerate(labels) if lab == label]
        bucket_hyps, bucket_refs = [hyps[i] for i in idx], [refs[i] for i in idx]
        by_bucket[label] = {"sentences": len(idx), "bleu": round(corpus_bleu(bucket_hyps, bucket_refs), 2)}
        if intervals:
            low, high = bootstrap_interval(bucket_hyps, bucket_refs)
            by_bucket[label]["ci90"] = [round(low, 2), round(high, 2)]
    return by_bucket


def evaluate_test_sets(model, test_sets, src_index, tgt_vocab, subwords, intervals=True, with_hypotheses=False):
    """Every test set: the continuity figure (lower-cased words) and cased BLEU on
    detokenised text with 13a tokens (sacreBLEU's default), both by length.
    -> ({name: results}, {name: hypothesis texts}[, {name: hypothesis tokens}])."""
    results, texts_by_set, hyps_by_set = {}, {}, {}
    for name, pairs in test_sets.items():
        if not pairs:
            continue
        lower, lower_by_length, hyps = evaluate_bleu(model, pairs, src_index, tgt_vocab, intervals, subwords)
        texts = [hypothesis_text(h, subwords) for h in hyps]
        cased_hyps = [tokenize_13a(t) for t in texts]
        cased_refs = [tokenize_13a(p.tgt_text) for p in pairs]
        results[name] = {"sentences": len(pairs), "bleu_lowercase_words": round(lower, 2),
                         "bleu_lowercase_words_by_source_length": lower_by_length,
                         "bleu_cased_13a": round(corpus_bleu(cased_hyps, cased_refs), 2),
                         "bleu_cased_13a_by_source_length": bleu_by_length(pairs, cased_hyps, cased_refs, intervals),
                         "unk_in_output": sum(h.count("<unk>") for h in hyps)}
        texts_by_set[name] = texts
        hyps_by_set[name] = hyps
    return (results, texts_by_set, hyps_by_set) if with_hypotheses else (results, texts_by_set)


# Recipe arguments added after states were first saved, with the value every
# earlier state was trained with: such a state still resumes.
ARGUMENTS_ADDED_LATER = {"label_smoothing": 0.0, "word_dropout": 0.0, "tie_target_embeddings": False,
                         "layer_norm": False, "final_domain_weights": "", "final_share": 0.0}


def parse_domain_weights(text):
    """'ui=0.35,dialogue=0.35' -> {'ui': 0.35, 'dialogue': 0.35} (normalised later)."""
    weights = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, value = part.partition("=")
        weights[name.strip()] = float(value)
        if weights[name.strip()] < 0:
            raise SystemExit(f"--domain-weights: {part!r} is negative")
    return weights


def epoch_order(pairs, domains, weights, seed, epoch, epoch_pairs):
    """The pair indices of one epoch, a pure function of (seed, epoch): epoch_pairs
    pairs drawn with replacement from each domain in proportion to its weight
    (domains without a weight, or with weight 0, are not drawn). Without weights:
    every pair once, shuffled."""
    rng = random.Random(seed * 1_000_003 + epoch)
    if not weights:
        order = list(range(len(pairs)))
        rng.shuffle(order)
        return order
    present = {d: w for d, w in weights.items() if w > 0 and domains.get(d)}
    total = sum(present.values())
    order = []
    for domain in sorted(present):
        share = round(epoch_pairs * present[domain] / total)
        order += rng.choices(domains[domain], k=share)
    rng.shuffle(order)
    return order


FINAL_EPOCH_BASE = 1_000_000  # the final phase's epoch numbers start here (their draws differ from the main epochs')


def make_epoch_batches(pairs, order, batch_size, seed, epoch):
    """Length-sorted buckets (little padding), shuffled at batch level; deterministic."""
    rng = random.Random(seed * 7_919 + epoch)
    keyed = sorted(order, key=lambda i: (len(pairs[i][0]), rng.random()))
    batches = [keyed[i:i + batch_size] for i in range(0, len(keyed), batch_size)]
    rng.shuffle(batches)
    return batches


def save_state(path, payload):
    """Write atomically: a run killed mid-write leaves the previous state."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    torch.save(payload, tmp)
    os.replace(tmp, path)


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, help="folder with train.tsv, dev.tsv, test.tsv (general_*.tsv too)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--attention", default="additive", choices=["additive", "dot", "general", "scaled_dot", "none"])
    ap.add_argument("--src-vocab", type=int, default=8000, help="words (without --subwords)")
    ap.add_argument("--tgt-vocab", type=int, default=8000, help="words (without --subwords)")
    ap.add_argument("--subwords", default="",
                    help="SRC,TGT: cased subword vocabularies of these sizes (subword.py), instead of words")
    ap.add_argument("--embed", type=int, default=128)
    ap.add_argument("--hidden", type=int, default=256, help="encoder hidden per direction")
    ap.add_argument("--decoder-hidden", type=int, default=256)
    ap.add_argument("--attention-dim", type=int, default=256)
    ap.add_argument("--output-dim", type=int, default=256)
    ap.add_argument("--dropout", type=float, default=0.2)
    ap.add_argument("--word-dropout", type=float, default=0.0,
                    help="chance that a token's whole embedding, source or target, is zeroed in training "
                         "(word dropout, Sennrich & Zhang 2019; 0.1 is usual)")
    ap.add_argument("--tie-target-embeddings", action="store_true",
                    help="the output layer's weights are the target embeddings (needs --output-dim == --embed)")
    ap.add_argument("--layer-norm", action="store_true",
                    help="layer normalisation in both GRUs, gate by gate, and of the deep output "
                         "(arch_flags layer_norm in the model file, models/FORMAT.md 4.1)")
    ap.add_argument("--label-smoothing", type=float, default=0.0,
                    help="share of each target's probability spread over the other words (0.1 is usual)")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--epochs", type=int, default=20, help="upper bound on passes (word runs without --updates)")
    ap.add_argument("--updates", type=int, default=0,
                    help="the budget in updates: schedule, softmax switch and end follow it (see above)")
    ap.add_argument("--minutes", type=float, default=45.0,
                    help="wall-clock budget when --updates is 0; with --updates, stop this run after this "
                         "long (a later run resumes from --state)")
    ap.add_argument("--max-steps", type=int, default=0, help="stop after this many updates (smoke tests)")
    ap.add_argument("--max-train-pairs", type=int, default=0)
    ap.add_argument("--max-tokens", type=int, default=50, help="drop training pairs longer than this (tokens)")
    ap.add_argument("--dev-sentences", type=int, default=600)
    ap.add_argument("--decay-start", type=float, default=0.45,
                    help="fraction of the budget after which the learning rate falls linearly to "
                         "--final-lr-ratio x --lr at the end of the budget")
    ap.add_argument("--final-lr-ratio", type=float, default=0.05)
    ap.add_argument("--sampled-negatives", type=int, default=1500,
                    help="train the output softmax over the batch's target words plus this many random words "
                         "(sampled softmax, ~2x faster updates); 0 = full softmax throughout")
    ap.add_argument("--full-softmax-tail", type=float, default=0.15,
                    help="the last fraction of the budget trains with the full softmax, the one decoding uses")
    ap.add_argument("--domain-weights", default="",
                    help="e.g. ui=0.35,dialogue=0.35,docs=0.15,descriptions=0.15: each epoch draws "
                         "--epoch-pairs pairs from the domains in these proportions")
    ap.add_argument("--epoch-pairs", type=int, default=200_000)
    ap.add_argument("--final-domain-weights", default="",
                    help="the last --final-share of the budget draws its batches with these weights instead "
                         "(a final phase weighted towards dialogue, e.g. ui=0.2,dialogue=0.6,...)")
    ap.add_argument("--final-share", type=float, default=0.0,
                    help="the fraction of the budget, at its end, that uses --final-domain-weights")
    ap.add_argument("--state", default="", help="resumable state file or folder (with --updates)")
    ap.add_argument("--save-every", type=int, default=250, help="updates between state saves")
    ap.add_argument("--eval-every", type=int, default=1000, help="updates between dev evaluations (with --updates)")
    ap.add_argument("--snapshots", default="",
                    help="comma-separated update counts at which to save the weights to STATE/snapshots/"
                         "update-N.pt (the training film: models/snapshots.py exports them)")
    ap.add_argument("--average-last", type=int, default=0,
                    help="with --updates and --state: also keep the weights of the budget's last N saves (one every "
                         "--save-every updates, in STATE/average/) and at the end export their mean instead of the "
                         "best checkpoint when it scores higher on the dev sample (checkpoint averaging)")
    ap.add_argument("--pause-at", type=int, default=0,
                    help="save the state and stop at this update (the same command without it resumes); "
                         "SIGTERM or Ctrl-C does the same at the end of the update in progress")
    ap.add_argument("--device", default="cpu", help="cpu or cuda")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--resume", action="store_true",
                    help="word runs: continue from OUT/checkpoint.pt (same vocabularies), adding to the time")
    args = ap.parse_args(argv)
    if args.subwords and not args.updates:
        raise SystemExit("--subwords needs --updates (an update budget)")
    if not 0.0 <= args.word_dropout < 1.0:
        raise SystemExit(f"--word-dropout must lie in [0, 1), not {args.word_dropout}")
    if args.tie_target_embeddings and args.output_dim != args.embed:
        raise SystemExit(f"--tie-target-embeddings needs --output-dim equal to --embed ({args.output_dim} and {args.embed})")
    if bool(args.final_domain_weights) != (args.final_share > 0):
        raise SystemExit("--final-domain-weights and --final-share go together (a final phase needs both)")
    if args.final_share and (not args.updates or not 0.0 < args.final_share < 1.0):
        raise SystemExit(f"--final-share needs --updates and must lie in (0, 1), not {args.final_share}")
    if args.updates and args.full_softmax_tail > 1.0 - args.decay_start:
        raise SystemExit("--full-softmax-tail must lie inside the decay (<= 1 - --decay-start)")
    return args


def state_file(args):
    """--state as the state file's path ('' without one): a folder means FOLDER/state.pt."""
    path = args.state
    if path and (os.path.isdir(path) or not path.endswith(".pt")):
        path = os.path.join(path, "state.pt")
    return path


def decay_begin(args, updates):
    """The update at which a budget of `updates` starts to lower the learning rate."""
    return int(args.decay_start * updates)


def run_identity(args):
    """What makes a state resumable: every argument that changes the model, except
    the budget. The learning rate is constant until decay_begin(updates) and the
    last part of the budget decays it (and uses the full softmax), so a larger
    budget can grow from a run's snapshot taken at its own decay's start
    (stable.pt): the updates before it are the same for any budget.
    The corpus is named by its content (train.tsv's SHA-1), not by its path."""
    identity = {k: v for k, v in vars(args).items() if k not in (
        "minutes", "state", "device", "threads", "save_every", "eval_every", "updates", "data", "out",
        "snapshots", "pause_at", "average_last")}
    if args.updates:
        import hashlib
        with open(os.path.join(args.data, "train.tsv"), "rb") as handle:
            identity["train_tsv_sha1"] = hashlib.sha1(handle.read()).hexdigest()
    return identity


def open_state(args, state_path, identity, log):
    """The saved state this run resumes from, or None for a fresh start (with the reason
    logged): missing, unreadable, for other arguments, or past a budget it cannot grow from."""
    if not state_path:
        return None
    if not os.path.exists(state_path):
        log(f"no state at {state_path}: starting afresh")
        return None
    state = None
    try:
        state = load_own(state_path)
    except Exception as error:  # a damaged file means a fresh start, not a failure
        log(f"state {state_path} cannot be read ({error}): starting afresh")
        return None
    # (a state from before the corpus was named by content names its paths)
    saved = {k: v for k, v in state.get("identity", {}).items() if k not in ("data", "out")}
    if "train_tsv_sha1" not in saved:
        saved["train_tsv_sha1"] = identity.get("train_tsv_sha1")
    for name, default in ARGUMENTS_ADDED_LATER.items():  # a state from before an argument existed
        saved.setdefault(name, default)
    if saved != identity:
        changed = sorted(k for k in set(identity) | set(saved) if identity.get(k) != saved.get(k))
        log(f"state {state_path} is for other arguments ({', '.join(changed)}): starting afresh")
        return None
    if state["updates"] == args.updates:
        return state
    stable_path = os.path.join(os.path.dirname(state_path), "stable.pt")
    shared = min(decay_begin(args, state["updates"]), decay_begin(args, args.updates))
    if state["step"] <= shared:
        log(f"state at update {state['step']}: the budget changes from {state['updates']} to "
            f"{args.updates}, before either's decay")
        return state
    if decay_begin(args, args.updates) >= decay_begin(args, state["updates"]) and os.path.exists(stable_path):
        log(f"the budget grows from {state['updates']} to {args.updates} updates: resuming from "
            f"{stable_path} (update {decay_begin(args, state['updates'])}, before the old decay)")
        state = load_own(stable_path)
        state["best"] = {"dev_bleu": -1.0}  # best.pt belongs to the old decay
        return state
    log(f"the budget changes from {state['updates']} to {args.updates} updates after the old "
        f"decay began and there is no earlier snapshot to grow from: starting afresh")
    return None


def load_segmenters(args, state, state_path, log):
    """(source, target) subword segmenters: the state's, else learnt from train.tsv once per
    corpus and sizes (kept beside the state, so a fresh start with other settings does not
    learn them again). None for word runs."""
    if not args.subwords:
        return None
    if state is not None:
        return (subword.Segmenter.from_json(state["segmentation"]["source"]),
                subword.Segmenter.from_json(state["segmentation"]["target"]))
    sizes = [int(x) for x in args.subwords.split(",")]
    train_tsv = os.path.join(args.data, "train.tsv")
    cached = os.path.join(os.path.dirname(state_path) if state_path else args.out,
                          f"subwords-{sizes[0]}-{sizes[1]}-{os.path.getsize(train_tsv)}.json")
    if os.path.exists(cached):
        log(f"subwords from {cached}")
        return subword.load(cached)
    rows = read_rows(train_tsv)
    learn_started = time.time()
    segmenters = (subword.learn([r[0] for r in rows], sizes[0], "source"),
                  subword.learn([r[1] for r in rows], sizes[1], "target"))
    os.makedirs(os.path.dirname(cached), exist_ok=True)
    subword.save(cached, *segmenters)
    log(f"subwords learned in {time.time() - learn_started:.0f} s: {len(segmenters[0].vocab)} source, "
        f"{len(segmenters[1].vocab)} target tokens")
    return segmenters


def dev_splits(data, dev_sentences, segmenters):
    """-> (dev pairs, the dev sample that picks checkpoints: --dev-sentences of them, half UI dev and
    half general dev when the corpus has held-out sources, drawn with a fixed seed). average.py scores
    checkpoints on the same sample without reading the training split."""
    dev = read_pairs(os.path.join(data, "dev.tsv"), None, segmenters)
    general_dev_path = os.path.join(data, "general_dev.tsv")
    general_dev = (read_pairs(general_dev_path, None, segmenters)
                   if os.path.exists(os.path.join(data, "general_test.tsv")) else [])
    if general_dev:  # checkpoints are chosen on both domains alike
        half = dev_sentences // 2
        ui_dev = [p for p in dev if p.domain == "ui"]
        return dev, (random.Random(7).sample(ui_dev, min(half, len(ui_dev)))
                     + random.Random(7).sample(general_dev, min(half, len(general_dev))))
    return dev, random.Random(7).sample(dev, min(dev_sentences, len(dev)))


class Corpus:
    """The splits a run reads: train pairs (capped by --max-tokens), dev pairs, the test
    sets (UI test, and the general test when the corpus has held-out sources) and the dev
    sample that picks checkpoints (half UI dev, half general dev, when both exist)."""

    def __init__(self, args, segmenters):
        path = lambda name: os.path.join(args.data, name)  # noqa: E731
        self.train = read_pairs(path("train.tsv"), args.max_tokens, segmenters)
        if args.max_train_pairs:
            self.train = self.train[: args.max_train_pairs]
        self.dev, self.dev_sample = dev_splits(args.data, args.dev_sentences, segmenters)
        self.tests = {"ui_test": [p for p in read_pairs(path("test.tsv"), None, segmenters) if p.domain == "ui"]}
        if os.path.exists(path("general_test.tsv")):
            self.tests["general_test"] = read_pairs(path("general_test.tsv"), None, segmenters)
        self.domain_counts = Counter(p.domain for p in self.train)
        self.by_domain = {}
        for i, p in enumerate(self.train):
            self.by_domain.setdefault(p.domain, []).append(i)


def vocabularies(args, train_pairs, segmenters):
    """-> (src_vocab, src_counts, tgt_vocab, tgt_counts): the segmenters' vocabularies, or
    the most frequent words of a word run; counts are the training tokens'."""
    if segmenters:
        return (segmenters[0].vocab, Counter(t for p in train_pairs for t in p[0]),
                segmenters[1].vocab, Counter(t for p in train_pairs for t in p[1]))
    src_vocab, src_counts = build_vocab([p[0] for p in train_pairs], args.src_vocab)
    tgt_vocab, tgt_counts = build_vocab([p[1] for p in train_pairs], args.tgt_vocab)
    return src_vocab, src_counts, tgt_vocab, tgt_counts


def training_loss(model, features, tgt_out, args, used):
    """-> (summed loss, full softmax?) of one batch: sampled softmax until the budget's
    last --full-softmax-tail, the full softmax (the one decoding uses) after it."""
    vocab_size = model.projection.out_features
    full_softmax = (args.sampled_negatives <= 0 or args.sampled_negatives >= vocab_size
                    or used >= 1.0 - args.full_softmax_tail)
    if full_softmax:
        logits = model.projection(features)
        return F.cross_entropy(logits.reshape(-1, logits.size(-1)), tgt_out.reshape(-1),
                               ignore_index=PAD, reduction="sum", label_smoothing=args.label_smoothing), True
    return sampled_softmax_loss(model.projection, features, tgt_out, args.sampled_negatives, vocab_size,
                                args.label_smoothing), False


class Run:
    """One training run: the model, its optimiser and where it stands (update, epoch,
    batch in the epoch, best dev BLEU, learning curve, earlier phases), with the
    schedule, the saves and the loop. A state (open_state) or a word run's previous
    checkpoint puts it where that run stopped."""

    def __init__(self, args, corpus, vocab, segmenters, identity, state_path, device, log, started_all):
        self.args, self.corpus, self.identity, self.state_path, self.device, self.log = (
            args, corpus, identity, state_path, device, log)
        # The OpenBLAS kernels this process runs (fixed once torch has loaded it): each phase
        # record and the metrics name them; None on a GPU or another BLAS.
        self.openblas_core = openblas_core.loaded_core() if device.type == "cpu" else None
        self.started_all = started_all  # the process's start: a word run's --minutes count from it
        self.src_vocab, self.tgt_vocab = vocab
        self.src_index = {w: i for i, w in enumerate(self.src_vocab)}
        self.tgt_index = {w: i for i, w in enumerate(self.tgt_vocab)}
        self.src_ids = [to_ids(p[0], self.src_index) for p in corpus.train]
        self.tgt_ids = [to_ids(p[1], self.tgt_index) for p in corpus.train]
        self.weights = parse_domain_weights(args.domain_weights)
        # The final phase (--final-domain-weights, --final-share): after final_start
        # updates, batch k of the phase is batch k of its own epochs, drawn with the final
        # weights; a pure function of (seed, k), so a resumed run draws the same ones.
        self.final_weights = parse_domain_weights(args.final_domain_weights)
        self.final_start = (args.updates - round(args.updates * args.final_share)) if self.final_weights else None
        self.final_epoch = (0, [])  # (its number, its batches)
        if self.final_weights and not any(w > 0 and self.corpus.by_domain.get(d) for d, w in self.final_weights.items()):
            raise SystemExit(f"--final-domain-weights {args.final_domain_weights}: no domain named there has pairs "
                             f"with a weight above 0 (the corpus's domains: {', '.join(sorted(self.corpus.by_domain))})")
        self.subwords = bool(segmenters)
        self.segmentation = ({"kind": "subwords", "source": segmenters[0].to_json(),
                              "target": segmenters[1].to_json()} if segmenters else {"kind": "words"})
        config = ModelConfig(len(self.src_vocab), len(self.tgt_vocab), attention=args.attention,
                             embed_dim=args.embed, encoder_hidden=args.hidden,
                             decoder_hidden=args.decoder_hidden, attention_dim=args.attention_dim,
                             output_dim=args.output_dim, dropout=args.dropout,
                             tie_target_embeddings=args.tie_target_embeddings, word_dropout=args.word_dropout,
                             layer_norm=args.layer_norm)
        self.model = Seq2SeqAttention(config)
        self.optimiser = None
        self.best, self.curve, self.phases = {"dev_bleu": -1.0}, [], []
        self.phase_record = None  # (step, this_phase()'s record at that step)
        self.step, self.epoch, self.batch_in_epoch = 0, 1, 0
        state_dir = os.path.dirname(state_path) if state_path else args.out
        self.best_path = os.path.join(state_dir if state_path else args.out,
                                      "best.pt" if state_path else "checkpoint.pt")
        self.stable_path = os.path.join(state_dir, "stable.pt") if state_path else ""
        self.snapshot_dir = os.path.join(state_dir, "snapshots")
        self.average_dir = os.path.join(state_dir, "average")
        self.stop_request = []

    def start(self, state, previous=None, previous_metrics=None):
        """Weights, optimiser and position from a state or a word run's last checkpoint."""
        if previous:
            self.model.load_state_dict(previous["state_dict"])
        self.model.to(self.device)
        self.optimiser = torch.optim.Adam(self.model.parameters(), lr=self.args.lr)
        if previous:
            self.best = dict(previous_metrics["best"])
            self.step = previous_metrics["updates"]
            self.phases = previous_metrics.get("phases") or [{"seconds": previous_metrics["train_seconds"],
                                                              "args": previous_metrics["args"]}]
            self.log(f"resuming at update {self.step}, best dev BLEU so far {self.best['dev_bleu']:.2f}")
        if state is not None:
            self.model.load_state_dict(state["state_dict"])
            self.optimiser.load_state_dict(state["optimiser"])
            torch.set_rng_state(state["torch_rng"])
            if self.device.type == "cuda" and state.get("cuda_rng") is not None:
                torch.cuda.set_rng_state(state["cuda_rng"])
            self.step, self.epoch, self.batch_in_epoch = state["step"], state["epoch"], state["batch_in_epoch"]
            self.best, self.phases = state["best"], state["phases"]
            self.curve = state.get("curve", [])
            self.log(f"resumed {self.state_path} at update {self.step} (epoch {self.epoch}, batch "
                     f"{self.batch_in_epoch}); best dev BLEU so far {self.best['dev_bleu']:.2f}")
        self.first_step = self.step
        self.started, self.cpu_started = time.time(), time.process_time()

    # -- schedule ------------------------------------------------------------
    def budget_used(self):
        """0 at the start of the budget, 1 at its end: updates of --updates, else this run's
        time or --max-steps, whichever is nearer."""
        args = self.args
        if args.updates:
            return min(self.step / args.updates, 1.0)
        used = (time.time() - self.started_all) / (args.minutes * 60)
        if args.max_steps:
            used = max(used, (self.step - self.first_step) / max(args.max_steps - self.first_step, 1))
        return min(used, 1.0)

    def learning_rate(self, used):
        args = self.args
        if args.updates and self.step <= decay_begin(args, args.updates):
            return args.lr
        if used <= args.decay_start:
            return args.lr
        fall = (used - args.decay_start) / max(1.0 - args.decay_start, 1e-9)
        return args.lr * (1.0 - fall * (1.0 - args.final_lr_ratio))

    # -- saving --------------------------------------------------------------
    def cpu_seconds(self):
        """This phase's process time. Wall clock counts a SIGSTOP pause or a core shared
        with another job as training; process time (all threads) does not."""
        return round(time.process_time() - self.cpu_started, 1)

    def this_phase(self):
        """This phase's record, made once per update count: the last state save and metrics.json
        must carry the same one (runs.py matches an export to its state by the phases' end; two
        clocks read a second apart under load made them differ)."""
        if self.phase_record is None or self.phase_record[0] != self.step:
            self.phase_record = (self.step, {"seconds": round(time.time() - self.started, 1), "cpu_seconds": self.cpu_seconds(),
                                             "updates": self.step - self.first_step, "device": str(self.device),
                                             **({"openblas_core": self.openblas_core} if self.openblas_core else {}),
                                             "ended": time.strftime("%Y-%m-%d %H:%M:%S")})
        return dict(self.phase_record[1])

    def checkpoint_payload(self):
        return {"config": self.model.config.__dict__,
                "state_dict": {k: v.detach().cpu() for k, v in self.model.state_dict().items()},
                "src_vocab": self.src_vocab, "tgt_vocab": self.tgt_vocab, "segmentation": self.segmentation,
                "step": self.step}

    def save_resumable(self, path=None):
        save_state(path or self.state_path, {
            "identity": self.identity, "updates": self.args.updates, "segmentation": self.segmentation,
            "state_dict": self.model.state_dict(), "optimiser": self.optimiser.state_dict(),
            "torch_rng": torch.get_rng_state(),
            "cuda_rng": torch.cuda.get_rng_state() if self.device.type == "cuda" else None,
            "step": self.step, "epoch": self.epoch, "batch_in_epoch": self.batch_in_epoch,
            "best": self.best, "curve": self.curve, "phases": self.phases + [self.this_phase()]})

    def evaluate_dev(self):
        bleu, _, _ = evaluate_bleu(self.model, self.corpus.dev_sample, self.src_index, self.tgt_vocab,
                                   subwords=self.subwords)
        self.model.train()
        return bleu

    # -- checkpoint averaging (--average-last) ---------------------------------
    def averaged_updates(self):
        """The updates whose weights --average-last keeps: the budget's last N saves."""
        args = self.args
        last = args.updates - args.updates % args.save_every
        return [u for u in range(last - (args.average_last - 1) * args.save_every, last + 1, args.save_every) if u > 0]

    def choose_average(self):
        """At the end of a budget with --average-last: the mean of the kept saves' weights, scored on the
        dev sample; -> (its checkpoint payload or None, the record for metrics.json). The mean is used
        only when it scores higher than the best checkpoint (ship what helps); without all the saves (a
        run begun before the flag, or grown from another budget) the best checkpoint stays."""
        wanted = self.averaged_updates()
        paths = [os.path.join(self.average_dir, f"update-{u}.pt") for u in wanted]
        have = [p for p in paths if os.path.exists(p)]
        record = {"saves": len(wanted), "updates": wanted, "best_dev_bleu": round(self.best["dev_bleu"], 2)}
        if not wanted:  # a budget shorter than one --save-every
            self.log("checkpoint averaging: no save in this budget: the best checkpoint stays")
            return None, {**record, "chosen": False, "reason": "no save in the budget"}
        if len(have) < len(wanted):
            self.log(f"checkpoint averaging: {len(have)} of the last {len(wanted)} saves kept: the best checkpoint stays")
            return None, {**record, "chosen": False, "reason": f"{len(have)} of {len(wanted)} saves kept"}
        saved = [load_own(p) for p in paths]
        mean = average_state_dicts([x["state_dict"] for x in saved])
        # Scored in the run's own model; write_results loads the exported checkpoint into it next.
        self.model.load_state_dict(mean)
        dev_bleu = self.evaluate_dev()
        chosen = dev_bleu > self.best["dev_bleu"]
        self.log(f"checkpoint averaging: the mean of updates {wanted[0]}-{wanted[-1]} scores dev BLEU {dev_bleu:.2f}, "
                 f"the best checkpoint (update {self.best.get('step')}) {self.best['dev_bleu']:.2f}: "
                 + ("exporting the mean" if chosen else "keeping the best checkpoint"))
        record = {**record, "dev_bleu": round(dev_bleu, 2), "chosen": chosen}
        return (dict(saved[-1], state_dict=mean, averaged_updates=wanted) if chosen else None), record

    # -- the loop ------------------------------------------------------------
    def update(self, batch):
        """One optimiser step on one batch -> (summed loss, target tokens, full softmax?)."""
        src, lengths, tgt_in, tgt_out = tensorise(batch, self.src_ids, self.tgt_ids)
        src, tgt_in, tgt_out = src.to(self.device), tgt_in.to(self.device), tgt_out.to(self.device)
        used = self.budget_used()
        for group in self.optimiser.param_groups:
            group["lr"] = self.learning_rate(used)
        features = self.model.features(src, lengths, tgt_in)  # (B,T,O)
        loss, full_softmax = training_loss(self.model, features, tgt_out, self.args, used)
        tokens = int((tgt_out != PAD).sum())
        self.optimiser.zero_grad()
        (loss / tokens).backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimiser.step()
        self.step += 1
        return float(loss), tokens, full_softmax

    def after_budgeted_update(self, finished):
        """Dev evaluation, best checkpoint, snapshots and saves of an update-budgeted run;
        -> True when this run stops here (--pause-at, a signal)."""
        args, step = self.args, self.step
        if self.state_path and step == decay_begin(args, args.updates):
            self.save_resumable(self.stable_path)  # what a larger budget grows from
        if step % args.eval_every == 0 or finished:
            dev_bleu = self.evaluate_dev()
            self.log(f"update {step}: dev BLEU {dev_bleu:.2f} ({len(self.corpus.dev_sample)} sentences)")
            trained = sum(p["seconds"] for p in self.phases) + time.time() - self.started
            self.curve.append({"update": step, "dev_bleu": round(dev_bleu, 2), "hours": round(trained / 3600, 3)})
            if dev_bleu > self.best["dev_bleu"]:
                self.best = {"dev_bleu": dev_bleu, "epoch": self.epoch, "step": step}
                save_state(self.best_path, self.checkpoint_payload())
        if step in {int(x) for x in args.snapshots.split(",") if x.strip()}:
            # Weights only: saving draws no random numbers, so the run with
            # snapshots follows the same trajectory as the one without.
            os.makedirs(self.snapshot_dir, exist_ok=True)
            save_state(os.path.join(self.snapshot_dir, f"update-{step}.pt"), self.checkpoint_payload())
            self.log(f"update {step}: snapshot saved in {self.snapshot_dir}")
        if self.state_path and args.average_last and step % args.save_every == 0 and step in self.averaged_updates():
            # Weights only, like the snapshots: the run's trajectory is the same with or without them.
            save_state(os.path.join(self.average_dir, f"update-{step}.pt"), self.checkpoint_payload())
        if self.state_path and (step % args.save_every == 0 or finished or step == args.pause_at):
            self.save_resumable()
        if args.pause_at and step >= args.pause_at and not finished:
            self.log(f"pausing at update {step} of {args.updates} (--pause-at); "
                     f"the same command without --pause-at resumes from {self.state_path}")
            return True
        if self.stop_request and not finished:
            self.save_resumable()
            self.log(f"stopped by {self.stop_request[0]} at update {step} of {args.updates}, state saved; "
                     f"the same command resumes from {self.state_path}")
            return True
        return False

    def batch_for_update(self, epoch_batch):
        """The batch of the next update: the epoch's own, or in the final phase the
        phase's batch number step - final_start."""
        if self.final_start is None or self.step < self.final_start:
            return epoch_batch
        k = self.step - self.final_start
        if k == 0:
            self.log(f"final phase after update {self.step}: domain weights {self.args.final_domain_weights}")
        if not self.final_epoch[1]:
            self.final_epoch = (1, self.final_phase_epoch(1))
        # every epoch of the phase has the same number of batches (the same shares)
        per_epoch = len(self.final_epoch[1])
        wanted = 1 + k // per_epoch
        if wanted != self.final_epoch[0]:
            self.final_epoch = (wanted, self.final_phase_epoch(wanted))
        return self.final_epoch[1][k % per_epoch]

    def final_phase_epoch(self, number):
        """The final phase's epoch NUMBER as batches, numbered apart from the main
        epochs (another draw from the same seed)."""
        order = epoch_order(self.corpus.train, self.corpus.by_domain, self.final_weights, self.args.seed,
                            FINAL_EPOCH_BASE + number, self.args.epoch_pairs)
        return make_epoch_batches(self.corpus.train, order, self.args.batch, self.args.seed, FINAL_EPOCH_BASE + number)

    def train(self, rng):
        """The loop, until the budget is done (-> True) or this run stops early (-> False)."""
        args = self.args
        out_of_time = False
        finished = bool(args.updates) and self.step >= args.updates
        while self.epoch <= args.epochs or args.updates:
            if finished:
                break
            self.model.train()
            if self.weights or args.updates:
                order = epoch_order(self.corpus.train, self.corpus.by_domain, self.weights, args.seed, self.epoch,
                                    args.epoch_pairs)
                batches = make_epoch_batches(self.corpus.train, order, args.batch, args.seed, self.epoch)
            else:
                batches = make_batches(self.corpus.train, args.batch, rng)
            epoch_loss, epoch_tokens, t0 = 0.0, 0, time.time()
            for b in range(self.batch_in_epoch, len(batches)):
                loss, tokens, full_softmax = self.update(self.batch_for_update(batches[b]))
                epoch_loss += loss
                epoch_tokens += tokens
                self.batch_in_epoch = b + 1
                if b % 200 == 0:
                    self.log(f"epoch {self.epoch} batch {b}/{len(batches)} update {self.step} loss/token "
                             f"{epoch_loss / max(epoch_tokens, 1):.3f} lr {self.optimiser.param_groups[0]['lr']:.2e} "
                             f"{'full' if full_softmax else 'sampled'} softmax ({time.time() - t0:.0f}s)")
                if args.updates:
                    finished = self.step >= args.updates
                    if self.after_budgeted_update(finished):
                        return False
                    if finished:
                        break
                    if time.time() - self.started > args.minutes * 60:
                        out_of_time = True
                        if self.state_path:
                            self.save_resumable()
                        break
                elif (time.time() - self.started_all > args.minutes * 60
                      or (args.max_steps and self.step >= args.max_steps)):
                    out_of_time = True
                    break
            if args.updates:
                if out_of_time:
                    self.log(f"stopping at update {self.step} of {args.updates} (--minutes {args.minutes:g}); "
                             f"run the same command again to resume from {self.state_path}")
                    return False
                if not finished:
                    self.epoch, self.batch_in_epoch = self.epoch + 1, 0
                continue
            dev_bleu = self.evaluate_dev()
            self.log(f"epoch {self.epoch} done: train loss/token {epoch_loss / max(epoch_tokens, 1):.3f}, "
                     f"dev BLEU {dev_bleu:.2f} ({len(self.corpus.dev_sample)} sentences), {time.time() - t0:.0f}s")
            if dev_bleu > self.best["dev_bleu"]:
                self.best = {"dev_bleu": dev_bleu, "epoch": self.epoch, "step": self.step,
                             "phase": len(self.phases) + 1}
                torch.save(self.checkpoint_payload(), os.path.join(args.out, "checkpoint.pt"))
            if out_of_time:
                break
            self.epoch, self.batch_in_epoch = self.epoch + 1, 0
        return True


def catch_stop_signals(run):
    """A resumable run asked to stop (SIGTERM, Ctrl-C) finishes the update in progress,
    saves its state and exits cleanly, so no update since the last save is lost; a
    second signal stops it at once."""
    def request_stop(signum, _frame):
        run.stop_request.append(signal.Signals(signum).name)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)


def write_results(run, vocab_counts, params):
    """The best checkpoint scored on the test sets -> OUT/metrics.json, OUT/test_hypotheses.txt
    and OUT/NAME_translations.txt (one per test set)."""
    args, corpus, device = run.args, run.corpus, run.device
    phases = list(run.phases)
    averaging = None  # --average-last's record (metrics.json "averaging")
    if args.updates:
        this = run.this_phase()
        if this["updates"]:  # a resume that found the budget done trained nothing: no phase
            phases.append(this)
        averaged, averaging = run.choose_average() if (args.average_last and run.state_path) else (None, None)
        if averaged is not None:
            torch.save(averaged, os.path.join(args.out, "checkpoint.pt"))
        elif os.path.abspath(run.best_path) != os.path.abspath(os.path.join(args.out, "checkpoint.pt")):
            import shutil
            shutil.copy(run.best_path, os.path.join(args.out, "checkpoint.pt"))
    else:
        phases.append({"seconds": round(time.time() - run.started_all, 1), "args": vars(args)})
    train_seconds = sum(p["seconds"] for p in phases)
    # None when an earlier phase predates cpu_seconds (a sum of some phases would mislead)
    train_cpu_seconds = (round(sum(p["cpu_seconds"] for p in phases), 1)
                         if all("cpu_seconds" in p for p in phases) else None)
    model = run.model
    checkpoint = load_own(os.path.join(args.out, "checkpoint.pt"))
    model.load_state_dict(checkpoint["state_dict"])
    model.to(device)
    if run.subwords:
        suppress_specials(model)
    tests, texts, hyps_by_set = evaluate_test_sets(model, corpus.tests, run.src_index, run.tgt_vocab, run.subwords,
                                                   with_hypotheses=True)
    test_bleu = tests["ui_test"]["bleu_lowercase_words"]
    by_bucket = tests["ui_test"]["bleu_lowercase_words_by_source_length"]
    src_counts, tgt_counts = vocab_counts
    metrics = {
        "attention": args.attention, "parameters": params, "train_pairs": len(corpus.train),
        "train_pairs_by_domain": dict(sorted(corpus.domain_counts.items())),
        "domain_weights": run.weights,
        **({"final_phase": {"after_update": run.final_start, "domain_weights": run.final_weights}}
           if run.final_weights else {}),
        "dev_pairs": len(corpus.dev), "test_pairs": len(corpus.tests["ui_test"]),
        "segmentation": "subwords" if run.subwords else "words",
        "src_vocab": len(run.src_vocab), "tgt_vocab": len(run.tgt_vocab),
        "src_token_coverage": round(coverage(src_counts, run.src_vocab), 4),
        "tgt_token_coverage": round(coverage(tgt_counts, run.tgt_vocab), 4),
        "best": run.best, **({"averaging": averaging} if averaging else {}), "updates": run.step, "train_seconds": round(train_seconds, 1),
        "train_cpu_seconds": train_cpu_seconds, "phases": phases,
        "learning_curve": run.curve,
        "test_bleu": round(test_bleu, 2), "test_bleu_by_source_length": by_bucket,
        "tests": tests,
        "args": vars(args),
        # the machine the times were measured on
        "machine": {"cpus": os.cpu_count(), "torch_threads": torch.get_num_threads(),
                    "openblas_threads": os.environ.get("OPENBLAS_NUM_THREADS"),
                    "openblas_core": run.openblas_core, "device": str(device),
                    "device_name": torch.cuda.get_device_name(0) if device.type == "cuda" else None,
                    "load_average_at_end": [round(x, 2) for x in os.getloadavg()]},
    }
    with open(os.path.join(args.out, "metrics.json"), "w", encoding="utf-8") as f:
        json.dump(metrics, f, indent=2)
    with open(os.path.join(args.out, "test_hypotheses.txt"), "w", encoding="utf-8") as f:
        for h in hyps_by_set["ui_test"]:
            f.write(" ".join(h) + "\n")
    for name, lines in texts.items():
        with open(os.path.join(args.out, f"{name}_translations.txt"), "w", encoding="utf-8") as f:
            f.writelines(line + "\n" for line in lines)
    run.log(f"test BLEU {test_bleu:.2f} on {len(corpus.tests['ui_test'])} sentences; by length {by_bucket}; "
            f"{ {k: (v['bleu_cased_13a'], v['bleu_lowercase_words']) for k, v in tests.items()} } (cased, lower); "
            f"total {train_seconds / 60:.1f} min, {run.step} updates")


def main(argv=None):
    args = parse_args(argv)
    started = time.time()
    keep_freed_memory()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise SystemExit("--device cuda: no CUDA device is available")
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)
    log_file = open(os.path.join(args.out, "log.txt"), "a", encoding="utf-8")

    def log(msg):
        line = f"[{time.strftime('%H:%M:%S')}] {msg}"
        print(line, flush=True)
        log_file.write(line + "\n")
        log_file.flush()

    state_path = state_file(args)
    identity = run_identity(args)
    state = open_state(args, state_path, identity, log) if args.updates else None
    segmenters = load_segmenters(args, state, state_path, log)
    corpus = Corpus(args, segmenters)
    src_vocab, src_counts, tgt_vocab, tgt_counts = vocabularies(args, corpus.train, segmenters)
    previous = previous_metrics = None
    if args.resume:
        previous = load_own(os.path.join(args.out, "checkpoint.pt"))
        if previous["src_vocab"] != src_vocab or previous["tgt_vocab"] != tgt_vocab:
            raise SystemExit("--resume: the checkpoint's vocabularies differ from this data's")
        with open(os.path.join(args.out, "metrics.json"), encoding="utf-8") as f:
            previous_metrics = json.load(f)
    log(f"pairs train={len(corpus.train)} ({dict(sorted(corpus.domain_counts.items()))}) dev={len(corpus.dev)} "
        f"tests={ {k: len(v) for k, v in corpus.tests.items()} }; "
        f"vocab src={len(src_vocab)} ({coverage(src_counts, src_vocab):.2%} of tokens) "
        f"tgt={len(tgt_vocab)} ({coverage(tgt_counts, tgt_vocab):.2%})")
    run = Run(args, corpus, (src_vocab, tgt_vocab), segmenters, identity, state_path, device, log, started)
    if args.updates and state_path:
        catch_stop_signals(run)
    params = sum(p.numel() for p in run.model.parameters())
    log(f"model {run.model.config} parameters={params} device={device}")
    run.start(state, previous, previous_metrics)
    if run.train(rng):
        write_results(run, (src_counts, tgt_counts), params)


if __name__ == "__main__":
    main()
