"""Corpus BLEU (Papineni et al. 2002): 4-gram, uniform weights, brevity penalty.

Text is compared as token lists from tokenize_text.words(), i.e. lower-cased
and split by the same rules as the model's vocabulary (models/FORMAT.md §5).
"""
import math
import re
from collections import Counter

# mteval-v13a's tokenisation (sacreBLEU's default "13a"), on detokenised text:
# punctuation and symbols become tokens, except . and , between digits, and -
# after a digit is split off. Case is kept.
_13A_RULES = (
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
)


def tokenize_13a(text):
    """Detokenised text -> 13a tokens (cased)."""
    text = text.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    for entity, char in (("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">")):
        text = text.replace(entity, char)
    text = f" {text} "
    for pattern, replacement in _13A_RULES:
        text = pattern.sub(replacement, text)
    return text.split()


def _ngrams(tokens, n):
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def sentence_stats(hyp, ref, max_n=4):
    """BLEU's sufficient statistics for one pair: [hyp_len, ref_len, matches_1..n, totals_1..n].
    Corpus BLEU is a function of their sums, which is what makes the bootstrap cheap."""
    stats = [len(hyp), len(ref)] + [0] * (2 * max_n)
    for n in range(1, max_n + 1):
        hyp_counts, ref_counts = _ngrams(hyp, n), _ngrams(ref, n)
        stats[1 + n] = sum(min(c, ref_counts[g]) for g, c in hyp_counts.items())
        stats[1 + max_n + n] = max(len(hyp) - n + 1, 0)
    return stats


def bleu_from_stats(summed, max_n=4):
    hyp_len, ref_len = summed[0], summed[1]
    matches, totals = summed[2:2 + max_n], summed[2 + max_n:2 + 2 * max_n]
    if hyp_len == 0 or min(matches) == 0:
        return 0.0
    log_precision = sum(math.log(m / t) for m, t in zip(matches, totals)) / max_n
    brevity = 1.0 if hyp_len > ref_len else math.exp(1 - ref_len / hyp_len)
    return 100.0 * brevity * math.exp(log_precision)


def corpus_bleu(hypotheses, references, max_n=4):
    """hypotheses, references: lists of token lists (one reference each) -> BLEU in 0..100."""
    summed = [0] * (2 + 2 * max_n)
    for hyp, ref in zip(hypotheses, references):
        summed = [a + b for a, b in zip(summed, sentence_stats(hyp, ref, max_n))]
    return bleu_from_stats(summed, max_n)


def _percentile_bootstrap(systems, references, score, resamples, coverage, seed):
    """Resample the sentences `resamples` times (the same draw for every system)
    and score each draw: score(summed stats per system) -> number. Returns the
    (low, high) percentiles holding `coverage` of the scores, or None for no
    sentences."""
    import torch  # vectorised resampling; bleu_from_stats stays plain Python
    per_sentence = [torch.tensor([sentence_stats(h, r) for h, r in zip(hyps, references)], dtype=torch.float64)
                    for hyps in systems]                                   # each (N, 10)
    count = per_sentence[0].size(0)
    if count == 0:
        return None
    generator = torch.Generator().manual_seed(seed)
    scores = []
    for start in range(0, resamples, 50):  # 50 resamples at a time bounds memory at 50*N*10 doubles per system
        picks = torch.randint(count, (min(50, resamples - start), count), generator=generator)  # (r, N)
        sums = [stats[picks].sum(dim=1).tolist() for stats in per_sentence]                    # each (r, 10)
        scores += [score(rows) for rows in zip(*sums)]
    scores.sort()
    tail = (1.0 - coverage) / 2
    return (scores[int(tail * resamples)], scores[min(int((1 - tail) * resamples), resamples - 1)])


def bootstrap_interval(hypotheses, references, resamples=1000, coverage=0.9, seed=12345):
    """Percentile bootstrap over sentences (Koehn 2004): (low, high) corpus BLEU
    bounds that hold `coverage` of the resampled corpora."""
    bounds = _percentile_bootstrap([hypotheses], references, lambda rows: bleu_from_stats(rows[0]),
                                   resamples, coverage, seed)
    return bounds or (0.0, 0.0)


def paired_bootstrap_difference(hyps_a, hyps_b, references, resamples=1000, coverage=0.9, seed=12345):
    """BLEU(b) - BLEU(a) on the same sentences, and a paired percentile bootstrap
    interval for it (Koehn 2004): each resample draws one set of sentences and
    scores both systems on it, so what the two share (hard sentences, easy ones)
    cancels. -> (difference, (low, high))."""
    bounds = _percentile_bootstrap([hyps_a, hyps_b], references,
                                   lambda rows: bleu_from_stats(rows[1]) - bleu_from_stats(rows[0]),
                                   resamples, coverage, seed)
    if bounds is None:
        return 0.0, (0.0, 0.0)
    return corpus_bleu(hyps_b, references) - corpus_bleu(hyps_a, references), bounds


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
    hyps = [["a", "b", "c", "d", "e"], ["x", "b", "c"]]
    refs = [["a", "b", "c", "d"], ["a", "b", "c"]]
    low, high = bootstrap_interval(hyps, refs, resamples=200)
    assert low <= corpus_bleu(hyps, refs) <= high
    same, (lo, hi) = paired_bootstrap_difference(hyps, hyps, refs, resamples=200)
    assert same == 0.0 and lo == hi == 0.0, "a system against itself differs by exactly 0 in every resample"
    better = [["a", "b", "c"], ["a", "b", "c"]]
    gain, (lo, hi) = paired_bootstrap_difference(hyps, better, refs, resamples=200)
    assert abs(gain - (corpus_bleu(better, refs) - corpus_bleu(hyps, refs))) < 1e-9 and lo <= gain <= hi
    print("bleu ok")
