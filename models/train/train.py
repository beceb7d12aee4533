"""Train an attention translator on the corpus built by corpus.py.

Usage (see models/README.md; ./build.sh model runs the full recipe):
  OPENBLAS_NUM_THREADS=2 /usr/bin/python3 models/train/train.py \
      --data models/train/data/en-fr --out models/train/runs/en-fr-additive \
      --attention additive --minutes 45

Writes OUT/checkpoint.pt (best dev BLEU), OUT/metrics.json and OUT/log.txt.
"""
import argparse
import json
import os
import random
import sys
import time
from collections import Counter

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bleu import bootstrap_interval, bucket_order, corpus_bleu, sentence_lengths_buckets  # noqa: E402
from model import (BOS, EOS, PAD, SPECIALS, UNK, ModelConfig,  # noqa: E402
                   Seq2SeqAttention, max_target_tokens)
from tokenize_text import words  # noqa: E402


def read_pairs(path, max_tokens=None):
    """TSV of english\\tfrench -> list of (src_words, tgt_words)."""
    pairs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 2:
                continue
            src, tgt = words(parts[0]), words(parts[1])
            if not src or not tgt:
                continue
            if max_tokens and (len(src) > max_tokens or len(tgt) > max_tokens):
                continue
            pairs.append((src, tgt))
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
def translate_all(model, pairs, src_index, tgt_vocab, batch_size=64):
    """Greedy translations (token lists) for every pair's source, in input order."""
    model.eval()
    results = [None] * len(pairs)
    order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]))
    for start in range(0, len(order), batch_size):
        batch = order[start:start + batch_size]
        src = pad([to_ids(pairs[i][0], src_index) for i in batch])
        lengths = torch.tensor([len(pairs[i][0]) for i in batch])
        max_len = max_target_tokens(int(lengths.max()))
        outputs, alphas = model.greedy(src, lengths, max_len)
        for row, i in enumerate(batch):
            results[i] = replace_unknowns(outputs[row], alphas, row, pairs[i][0], tgt_vocab)
    return results


def sampled_softmax_loss(projection, features, tgt_out, negatives, vocab_size):
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
    drawn = torch.unique(torch.randint(len(SPECIALS), vocab_size, (negatives,)))
    drawn = drawn[~torch.isin(drawn, in_batch)]
    candidates = torch.cat([in_batch, drawn])                               # (C,)
    logits = F.linear(feats, projection.weight[candidates], projection.bias[candidates])  # (N,C)
    draw_probability = 1.0 - (1.0 - 1.0 / (vocab_size - len(SPECIALS))) ** negatives
    correction = torch.zeros(len(candidates))
    correction[len(in_batch):] = -torch.log(torch.tensor(draw_probability))
    remap = torch.empty(vocab_size, dtype=torch.long)
    remap[candidates] = torch.arange(len(candidates))
    return F.cross_entropy(logits + correction, remap[targets], reduction="sum")


def evaluate_bleu(model, pairs, src_index, tgt_vocab, intervals=False):
    """-> corpus BLEU, {length bucket: {sentences, bleu[, ci90]}}, hypotheses.
    intervals: add a 90% bootstrap interval per bucket (bleu.bootstrap_interval)."""
    hyps = translate_all(model, pairs, src_index, tgt_vocab)
    refs = [p[1] for p in pairs]
    overall = corpus_bleu(hyps, refs)
    by_bucket = {}
    labels = sentence_lengths_buckets([p[0] for p in pairs])
    for label in sorted(set(labels), key=bucket_order):
        idx = [i for i, lab in enumerate(labels) if lab == label]
        bucket_hyps, bucket_refs = [hyps[i] for i in idx], [refs[i] for i in idx]
        by_bucket[label] = {"sentences": len(idx), "bleu": round(corpus_bleu(bucket_hyps, bucket_refs), 2)}
        if intervals:
            low, high = bootstrap_interval(bucket_hyps, bucket_refs)
            by_bucket[label]["ci90"] = [round(low, 2), round(high, 2)]
    return overall, by_bucket, hyps


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, help="folder with train.tsv, dev.tsv, test.tsv")
    ap.add_argument("--out", required=True)
    ap.add_argument("--attention", default="additive", choices=["additive", "dot", "general", "scaled_dot", "none"])
    ap.add_argument("--src-vocab", type=int, default=8000)
    ap.add_argument("--tgt-vocab", type=int, default=8000)
    ap.add_argument("--embed", type=int, default=128)
    ap.add_argument("--hidden", type=int, default=256, help="encoder hidden per direction")
    ap.add_argument("--decoder-hidden", type=int, default=256)
    ap.add_argument("--attention-dim", type=int, default=256)
    ap.add_argument("--output-dim", type=int, default=256)
    ap.add_argument("--dropout", type=float, default=0.2)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--minutes", type=float, default=45.0, help="wall-clock training budget")
    ap.add_argument("--max-steps", type=int, default=0, help="stop after this many updates (smoke tests)")
    ap.add_argument("--max-train-pairs", type=int, default=0)
    ap.add_argument("--max-tokens", type=int, default=50, help="drop training pairs longer than this")
    ap.add_argument("--dev-sentences", type=int, default=600)
    ap.add_argument("--decay-start", type=float, default=0.45,
                    help="fraction of the budget (--minutes, or --max-steps) after which the learning rate "
                         "falls linearly to --final-lr-ratio x --lr at the end of the budget")
    ap.add_argument("--final-lr-ratio", type=float, default=0.05)
    ap.add_argument("--sampled-negatives", type=int, default=1500,
                    help="train the output softmax over the batch's target words plus this many random words "
                         "(sampled softmax, ~2x faster updates); 0 = full softmax throughout")
    ap.add_argument("--full-softmax-tail", type=float, default=0.15,
                    help="the last fraction of the budget trains with the full softmax, the one decoding uses")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--resume", action="store_true",
                    help="continue from OUT/checkpoint.pt (same vocabularies), adding to OUT/metrics.json's time")
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)
    log_file = open(os.path.join(args.out, "log.txt"), "a", encoding="utf-8")

    def log(msg):
        line = f"[{time.strftime('%H:%M:%S')}] {msg}"
        print(line, flush=True)
        log_file.write(line + "\n")
        log_file.flush()

    started = time.time()
    train_pairs = read_pairs(os.path.join(args.data, "train.tsv"), args.max_tokens)
    if args.max_train_pairs:
        train_pairs = train_pairs[: args.max_train_pairs]
    dev_pairs = read_pairs(os.path.join(args.data, "dev.tsv"))
    test_pairs = read_pairs(os.path.join(args.data, "test.tsv"))
    dev_sample = random.Random(7).sample(dev_pairs, min(args.dev_sentences, len(dev_pairs)))

    src_vocab, src_counts = build_vocab([p[0] for p in train_pairs], args.src_vocab)
    tgt_vocab, tgt_counts = build_vocab([p[1] for p in train_pairs], args.tgt_vocab)
    previous = None
    if args.resume:
        previous = torch.load(os.path.join(args.out, "checkpoint.pt"))
        if previous["src_vocab"] != src_vocab or previous["tgt_vocab"] != tgt_vocab:
            raise SystemExit("--resume: the checkpoint's vocabularies differ from this data's")
        with open(os.path.join(args.out, "metrics.json"), encoding="utf-8") as f:
            previous_metrics = json.load(f)
    src_index = {w: i for i, w in enumerate(src_vocab)}
    tgt_index = {w: i for i, w in enumerate(tgt_vocab)}
    log(f"pairs train={len(train_pairs)} dev={len(dev_pairs)} test={len(test_pairs)}; "
        f"vocab src={len(src_vocab)} ({coverage(src_counts, src_vocab):.2%} of tokens) "
        f"tgt={len(tgt_vocab)} ({coverage(tgt_counts, tgt_vocab):.2%})")

    src_ids = [to_ids(p[0], src_index) for p in train_pairs]
    tgt_ids = [to_ids(p[1], tgt_index) for p in train_pairs]

    config = ModelConfig(len(src_vocab), len(tgt_vocab), attention=args.attention,
                         embed_dim=args.embed, encoder_hidden=args.hidden,
                         decoder_hidden=args.decoder_hidden, attention_dim=args.attention_dim,
                         output_dim=args.output_dim, dropout=args.dropout)
    model = Seq2SeqAttention(config)
    if previous:
        model.load_state_dict(previous["state_dict"])
    params = sum(p.numel() for p in model.parameters())
    log(f"model {model.config} parameters={params}")
    optimiser = torch.optim.Adam(model.parameters(), lr=args.lr)

    best = {"dev_bleu": -1.0}
    step = 0
    phases = []
    if previous:
        best = dict(previous_metrics["best"])
        step = previous_metrics["updates"]
        phases = previous_metrics.get("phases") or [{"seconds": previous_metrics["train_seconds"],
                                                     "args": previous_metrics["args"]}]
        log(f"resuming at update {step}, best dev BLEU so far {best['dev_bleu']:.2f}")
    deadline = started + args.minutes * 60
    budget_seconds = args.minutes * 60

    def budget_used():
        """0 at the start of this run, 1 at its end (time or --max-steps, whichever is nearer)."""
        used = (time.time() - started) / budget_seconds
        if args.max_steps:
            used = max(used, (step - first_step) / max(args.max_steps - first_step, 1))
        return min(used, 1.0)

    def learning_rate(used):
        if used <= args.decay_start:
            return args.lr
        fall = (used - args.decay_start) / max(1.0 - args.decay_start, 1e-9)
        return args.lr * (1.0 - fall * (1.0 - args.final_lr_ratio))

    first_step = step
    vocab_size = len(tgt_vocab)
    out_of_time = False
    for epoch in range(1, args.epochs + 1):
        model.train()
        batches = make_batches(train_pairs, args.batch, rng)
        epoch_loss, epoch_tokens, t0 = 0.0, 0, time.time()
        for b, batch in enumerate(batches):
            src, lengths, tgt_in, tgt_out = tensorise(batch, src_ids, tgt_ids)
            used = budget_used()
            for group in optimiser.param_groups:
                group["lr"] = learning_rate(used)
            features = model.features(src, lengths, tgt_in)  # (B,T,O)
            full_softmax = (args.sampled_negatives <= 0 or args.sampled_negatives >= vocab_size
                            or used >= 1.0 - args.full_softmax_tail)
            if full_softmax:
                logits = model.projection(features)
                loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), tgt_out.reshape(-1),
                                       ignore_index=PAD, reduction="sum")
            else:
                loss = sampled_softmax_loss(model.projection, features, tgt_out, args.sampled_negatives, vocab_size)
            tokens = int((tgt_out != PAD).sum())
            optimiser.zero_grad()
            (loss / tokens).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimiser.step()
            epoch_loss += float(loss)
            epoch_tokens += tokens
            step += 1
            if b % 200 == 0:
                log(f"epoch {epoch} batch {b}/{len(batches)} loss/token {epoch_loss / max(epoch_tokens, 1):.3f} "
                    f"lr {optimiser.param_groups[0]['lr']:.2e} {'full' if full_softmax else 'sampled'} softmax "
                    f"({time.time() - t0:.0f}s)")
            if time.time() > deadline or (args.max_steps and step >= args.max_steps):
                out_of_time = True
                break
        dev_bleu, _, _ = evaluate_bleu(model, dev_sample, src_index, tgt_vocab)
        log(f"epoch {epoch} done: train loss/token {epoch_loss / max(epoch_tokens, 1):.3f}, "
            f"dev BLEU {dev_bleu:.2f} ({len(dev_sample)} sentences), {time.time() - t0:.0f}s")
        if dev_bleu > best["dev_bleu"]:
            best = {"dev_bleu": dev_bleu, "epoch": epoch, "step": step, "phase": len(phases) + 1}
            torch.save({"config": model.config.__dict__, "state_dict": model.state_dict(),
                        "src_vocab": src_vocab, "tgt_vocab": tgt_vocab}, os.path.join(args.out, "checkpoint.pt"))
        if out_of_time:
            break

    phases.append({"seconds": round(time.time() - started, 1), "args": vars(args)})
    train_seconds = sum(p["seconds"] for p in phases)
    checkpoint = torch.load(os.path.join(args.out, "checkpoint.pt"))
    model.load_state_dict(checkpoint["state_dict"])
    test_bleu, by_bucket, hyps = evaluate_bleu(model, test_pairs, src_index, tgt_vocab, intervals=True)
    metrics = {
        "attention": args.attention, "parameters": params, "train_pairs": len(train_pairs),
        "dev_pairs": len(dev_pairs), "test_pairs": len(test_pairs),
        "src_vocab": len(src_vocab), "tgt_vocab": len(tgt_vocab),
        "src_token_coverage": round(coverage(src_counts, src_vocab), 4),
        "tgt_token_coverage": round(coverage(tgt_counts, tgt_vocab), 4),
        "best": best, "updates": step, "train_seconds": round(train_seconds, 1), "phases": phases,
        "test_bleu": round(test_bleu, 2), "test_bleu_by_source_length": by_bucket,
        "args": vars(args),
        # the machine the times were measured on
        "machine": {"cpus": os.cpu_count(), "torch_threads": torch.get_num_threads(),
                    "openblas_threads": os.environ.get("OPENBLAS_NUM_THREADS"),
                    "load_average_at_end": [round(x, 2) for x in os.getloadavg()]},
    }
    with open(os.path.join(args.out, "metrics.json"), "w", encoding="utf-8") as f:
        json.dump(metrics, f, indent=2)
    with open(os.path.join(args.out, "test_hypotheses.txt"), "w", encoding="utf-8") as f:
        for h in hyps:
            f.write(" ".join(h) + "\n")
    log(f"test BLEU {test_bleu:.2f} on {len(test_pairs)} sentences; by length {by_bucket}; "
        f"total {train_seconds / 60:.1f} min")


if __name__ == "__main__":
    main()
