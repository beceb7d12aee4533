"""Corpus BLEU (Papineni et al. 2002): 4-gram, uniform weights, brevity penalty.

Text is compared as token lists from tokenize_text.words(), i.e. lower-cased
and split by the same rules as the model's vocabulary (models/FORMAT.md §5).
"""
import math
from collections import Counter


def _ngrams(tokens, n):
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def corpus_bleu(hypotheses, references, max_n=4):
    """hypotheses, references: lists of token lists (one reference each) -> BLEU in 0..100."""
    matches = [0] * max_n
    totals = [0] * max_n
    hyp_len = ref_len = 0
    for hyp, ref in zip(hypotheses, references):
        hyp_len += len(hyp)
        ref_len += len(ref)
        for n in range(1, max_n + 1):
            hyp_counts, ref_counts = _ngrams(hyp, n), _ngrams(ref, n)
            matches[n - 1] += sum(min(c, ref_counts[g]) for g, c in hyp_counts.items())
            totals[n - 1] += max(len(hyp) - n + 1, 0)
    if hyp_len == 0 or min(matches) == 0:
        return 0.0
    log_precision = sum(math.log(m / t) for m, t in zip(matches, totals)) / max_n
    brevity = 1.0 if hyp_len > ref_len else math.exp(1 - ref_len / hyp_len)
    return 100.0 * brevity * math.exp(log_precision)


def sentence_lengths_buckets(sources, edges=(10, 20, 30, 40, 50)):
    """Bucket label per sentence by source token count (for BLEU by length)."""
    labels = []
    for src in sources:
        n = len(src)
        lo = 0
        for edge in edges:
            if n <= edge:
                labels.append(f"{lo + 1}-{edge}")
                break
            lo = edge
        else:
            labels.append(f">{edges[-1]}")
    return labels


def bucket_order(label):
    """Sort key for the labels above: '1-10' < '11-20' < ... < '>50'."""
    return int(label.lstrip(">").split("-")[0]) + (1 if label.startswith(">") else 0)


if __name__ == "__main__":
    # Self-check against hand-computed values.
    assert abs(corpus_bleu([["a", "b", "c", "d"]], [["a", "b", "c", "d"]]) - 100.0) < 1e-9
    assert corpus_bleu([["x", "y", "z", "w"]], [["a", "b", "c", "d"]]) == 0.0
    print("bleu ok")
