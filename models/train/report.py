"""Write models/REPORT.md and its figures (models/report/*.svg): the attention
kinds on English -> French, and the no-attention baseline, compared.

  /usr/bin/python3 models/train/report.py [--models models] [--data models/train/data/en-fr]
        [--engine build/native/alignscope] [--bench build/bench/native_bench]
  /usr/bin/python3 models/train/report.py --bytes-only    (the model files' bytes alone)

Run by `./build.sh zoo` after it trains the models. What it compares:
  - every kind, additive too, is the zoo's model of that kind
    (models/report/en-fr-KIND.metrics.json, int8 BLEU): one recipe and one
    budget for all (build.sh ZOO_RECIPE, ZOO_UPDATES_DEFAULT). The page's
    default model was trained longer by another recipe, so it is not the
    additive entry; only without models/report/en-fr-additive.metrics.json
    does the default (models/en-fr-int8.metrics.json, else en-fr.metrics.json)
    stand in for it, and the report then says the budgets differ;
  - every number is read from those metrics, from the engine run on the test
    sets (alignment sharpness, argmax agreement with additive, and the paired
    bootstrap of dot's BLEU against additive's; needs --data and --engine), or
    from the native bench (cost per decoder step; needs --bench). What cannot
    be measured here is said, not guessed.

The verdict sentences are chosen by comparing the numbers, so a rerun with
other results cannot leave a stale claim, and they say when the comparison
is not fair (budgets or vocabularies differ).
"""
import argparse
import concurrent.futures
import json
import math
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bleu import (bootstrap_interval, bucket_order, corpus_bleu, paired_bootstrap_difference,  # noqa: E402
                  sentence_lengths_buckets, tokenize_13a)

KIND_ORDER = ["additive", "general", "dot", "scaled_dot", "none"]
KIND_LABELS = {"additive": "Bahdanau additive", "general": "Luong general", "dot": "Luong dot",
               "scaled_dot": "scaled dot product", "none": "no attention (baseline)"}
# One colour and dash per kind; colour-blind-safe (Okabe-Ito) and told apart by dash too.
KIND_STYLE = {"additive": ("#0072B2", ""), "general": ("#009E73", "6 3"), "dot": ("#E69F00", "2 3"),
              "scaled_dot": ("#CC79A7", "8 3 2 3"), "none": ("#D55E00", "1 0")}
TEST_SETS = {"ui_test": "UI test (held out by hash from the training catalogues)",
             "general_test": "general test (whole sources never trained on)"}
# |BLEU difference| at or under this counts as "as good" in the lesson's verdict;
# the verdict's paired bootstrap says whether the difference's interval lies within it.
AS_GOOD_BLEU = 1.0
BENCH_SENTENCES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "bench", "sentences.txt")


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def load_models(models_dir):
    """{kind: {"id", "metrics", "file"}} for English -> French: the zoo's models
    (models/report/en-fr-KIND.metrics.json); without the zoo's additive one,
    the default English -> French model's metrics stand in for it."""
    out = {}
    report_dir = os.path.join(models_dir, "report")
    for kind in KIND_ORDER:
        path = os.path.join(report_dir, f"en-fr-{kind}.metrics.json")
        if os.path.exists(path):
            alsc = os.path.join(models_dir, f"en-fr-{kind}.alsc")
            out[kind] = {"id": f"en-fr-{kind}", "metrics": read_json(path), "file": alsc if os.path.exists(alsc) else None}
    for model_id in ("en-fr-int8", "en-fr"):
        path = os.path.join(models_dir, f"{model_id}.metrics.json")
        if "additive" not in out and os.path.exists(path):
            alsc = os.path.join(models_dir, f"{model_id}.alsc")
            out["additive"] = {"id": model_id, "metrics": read_json(path), "file": alsc if os.path.exists(alsc) else None}
    return {kind: out[kind] for kind in KIND_ORDER if kind in out}


def by_length(metrics, test_set):
    """(label of the BLEU used, {bucket: {sentences, bleu, ci90?}}) or (None, None)."""
    tests = metrics.get("tests", {})
    if test_set in tests:
        return "cased BLEU (13a tokens)", tests[test_set]["bleu_cased_13a_by_source_length"]
    if test_set == "ui_test" and "test_bleu_by_source_length" in metrics:  # older metrics: UI, lower-cased words
        return "lower-cased word BLEU", metrics["test_bleu_by_source_length"]
    return None, None


def overall(metrics, test_set):
    tests = metrics.get("tests", {})
    if test_set in tests:
        return tests[test_set]["bleu_cased_13a"]
    return metrics.get("test_bleu") if test_set == "ui_test" else None


def duration_text(seconds):
    """"3 h 17 min" / "21 min" ('' for no time), as the page's formatDuration writes it."""
    if not seconds or seconds <= 0:
        return ""
    minutes = max(1, round(seconds / 60))
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"


def time_text(metrics):
    """"4 h 37 min (CPU 2 h 1 min)": wall clock and, where the run recorded it, its
    CPU time, which a paused run or a shared core does not inflate ('' if unknown)."""
    wall, cpu = duration_text(metrics.get("train_seconds")), duration_text(metrics.get("train_cpu_seconds"))
    return f"{wall} (CPU {cpu})" if wall and cpu else wall


def budget_text(metrics):
    """"6,000 updates, 3 h 17 min": what a model was trained for, from its metrics ('' if unknown)."""
    parts = [f"{metrics['updates']:,} updates"] if metrics.get("updates") else []
    parts += [time_text(metrics)] if metrics.get("train_seconds") else []
    return ", ".join(parts)


def svg_plot(series, buckets, title):
    """series: [(kind, label, budget, [bleu per bucket], [(low, high) per bucket])] -> SVG text.
    A line per kind with its 90% bootstrap interval as a band, its legend entry
    with its training budget under the name; plain SVG, no scripts, readable at
    700 px and scalable (viewBox)."""
    width, height = 700, 400
    left, right, top, bottom = 56, 215, 40, 56
    plot_w, plot_h = width - left - right, height - top - bottom
    y_max = max([high for *_, ci in series for _, high in ci] + [10])
    y_max = 10 * (int(y_max / 10) + 1)

    def x(i):
        return left + plot_w * (i + 0.5) / len(buckets)

    def y(v):
        return top + plot_h * (1 - v / y_max)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" role="img" aria-labelledby="t d" font-family="system-ui, sans-serif" font-size="12">',
           f'<title id="t">{title}</title>',
           '<desc id="d">Test BLEU (y axis) by source sentence length in words (x axis), one line per model, '
           'shaded bands are 90% bootstrap intervals. '
           + "; ".join(f"{label}" + (f" ({budget})" if budget else "") + ": "
                       + ", ".join(f"{b} {v:.1f}" for b, v in zip(buckets, values))
                       for _, label, budget, values, _ in series) + '</desc>',
           f'<rect x="0" y="0" width="{width}" height="{height}" fill="#fff"/>',
           f'<text x="{left}" y="22" font-size="14" font-weight="600">{title}</text>']
    for tick in range(0, y_max + 1, 10):
        out.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 8}" y="{y(tick) + 4:.1f}" text-anchor="end" fill="#333">{tick}</text>')
    for i, b in enumerate(buckets):
        out.append(f'<text x="{x(i):.1f}" y="{top + plot_h + 18}" text-anchor="middle" fill="#333">{b}</text>')
    out.append(f'<text x="{left + plot_w / 2}" y="{height - 12}" text-anchor="middle" fill="#333">'
               'source sentence length (words)</text>')
    out.append(f'<text transform="translate(16 {top + plot_h / 2}) rotate(-90)" text-anchor="middle" '
               'fill="#333">test BLEU</text>')
    for i, (kind, label, budget, values, ci) in enumerate(series):
        colour, dash = KIND_STYLE.get(kind, ("#555", ""))
        band = [f"{x(k):.1f},{y(high):.1f}" for k, (_, high) in enumerate(ci)]
        band += [f"{x(k):.1f},{y(low):.1f}" for k, (low, _) in reversed(list(enumerate(ci)))]
        out.append(f'<polygon points="{" ".join(band)}" fill="{colour}" fill-opacity="0.12"/>')
        line = " ".join(f"{x(k):.1f},{y(v):.1f}" for k, v in enumerate(values))
        dash_attr = f' stroke-dasharray="{dash}"' if dash and dash != "1 0" else ""
        out.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2.5"{dash_attr}/>')
        for k, v in enumerate(values):
            out.append(f'<circle cx="{x(k):.1f}" cy="{y(v):.1f}" r="3.5" fill="{colour}"/>')
        ly = top + 10 + 36 * i
        lx = left + plot_w + 16
        out.append(f'<line x1="{lx}" x2="{lx + 28}" y1="{ly}" y2="{ly}" stroke="{colour}" stroke-width="2.5"{dash_attr}/>')
        out.append(f'<text x="{lx + 34}" y="{ly + 4}" fill="#222">{label}</text>')
        if budget:
            out.append(f'<text x="{lx + 34}" y="{ly + 18}" fill="#555" font-size="11">{budget}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def fmt_ci(entry):
    ci = entry.get("ci90")
    return f"{entry['bleu']:.1f} ({ci[0]:.1f}–{ci[1]:.1f})" if ci else f"{entry['bleu']:.1f}"


# ---------------------------------------------------------------------------
# Alignments, measured with the engine on the test sets.

def engine_traces(engine, model_file, sentences):
    """The native CLI's JSON trace of each sentence, in order: {source_ids, alpha
    (T x S), ...}, or None for a sentence the model refuses because it is longer
    than the model accepts (the CLI says so on stderr and goes on). Any other
    failure stops the report."""
    run = subprocess.run([engine, "--model", model_file, "--beam", "1", "--json", "--no-context", "--top-k", "0"], input="\n".join(sentences) + "\n",
                         capture_output=True, text=True)
    refusals = [line for line in run.stderr.splitlines() if line.strip()]
    if run.returncode not in (0, 1) or any("more words than this model accepts" not in r for r in refusals):
        raise SystemExit(f"report: {engine} --model {model_file} failed (exit {run.returncode}): {run.stderr.strip()[-600:]}")
    by_text = {}
    for line in run.stdout.splitlines():
        if line.strip():
            trace = json.loads(line)
            by_text[trace["text"]] = trace
    traces = [by_text.get(s) for s in sentences]
    if sum(t is None for t in traces) != len(refusals):
        raise SystemExit(f"report: {engine} --model {model_file}: {len(refusals)} sentences refused but "
                         f"{sum(t is None for t in traces)} without a trace")
    return traces


def alignment_stats(traces):
    """Sharpness over every decoder step: mean of the row's largest α, mean entropy
    (bits), share of one-hot-like rows (largest α > 0.9)."""
    maxima, entropies = [], []
    for tr in traces:
        for row in (tr or {}).get("alpha") or []:
            maxima.append(max(row))
            entropies.append(-sum(p * math.log2(p) for p in row if p > 0))
    if not maxima:
        return None
    return {"rows": len(maxima), "mean_max": statistics.fmean(maxima), "mean_entropy": statistics.fmean(entropies),
            "one_hot_share": sum(m > 0.9 for m in maxima) / len(maxima)}


def argmax_agreement(traces, reference):
    """Share of decoder steps (up to the shorter translation) where the argmax
    source position is the same as the reference model's, over sentences both
    read as the same source pieces; (share, steps, sentences compared)."""
    same = steps = sentences = 0
    for a, b in zip(traces, reference):
        if not a or not b or a.get("source_ids") != b.get("source_ids") or not a.get("alpha") or not b.get("alpha"):
            continue
        sentences += 1
        for ra, rb in zip(a["alpha"], b["alpha"]):
            steps += 1
            same += ra.index(max(ra)) == rb.index(max(rb))
    return (same / steps if steps else None, steps, sentences)


def step_costs(bench, model_files, rounds=5):
    """{id: median ms of one decoder step, or None} for {id: model file}: greedy
    decoding with the encoder cached, from the native bench on
    tests/bench/sentences.txt. One bench process per model, and the models take
    turns, one round of every sentence each, so a machine that slows down
    mid-measure (a training run, another job) slows them alike and the ratios
    between them stay fair."""
    procs = {k: subprocess.Popen([bench, f, BENCH_SENTENCES], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True) for k, f in model_files.items()}
    per_step = {k: [] for k in procs}
    try:
        for _ in range(rounds):
            for k, p in procs.items():
                line = ""
                if p.poll() is None:
                    p.stdin.write("round 1\n")
                    p.stdin.flush()
                    line = p.stdout.readline()
                if not line.startswith("{"):
                    p.kill()
                    raise SystemExit(f"report: {bench} {model_files[k]} stopped: {p.stderr.read().strip()[-400:]}")
                per_step[k] += [s["decode_ms"] / s["steps"] for s in json.loads(line).get("samples", []) if s.get("steps")]
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.stdin.write("quit\n")
                p.stdin.close()
            p.wait()
    return {k: statistics.median(v) if v else None for k, v in per_step.items()}


def read_test_pairs(data_dir, test_set, most):
    """(English sources, French references, rows in the set) of a test set as
    train.py reads it (the UI test: test.tsv's `ui` rows), at most `most` of
    them, evenly spaced through the file (it is sorted by source, so its head
    would be the sentences that start with digits and early letters); None
    without the file."""
    from eval_alsc import test_rows
    path = os.path.join(data_dir, f"{test_set}.tsv") if test_set != "ui_test" else os.path.join(data_dir, "test.tsv")
    if not os.path.exists(path):
        return None
    rows = test_rows(path, "ui" if test_set == "ui_test" else None)
    picked = [rows[i * len(rows) // most] for i in range(most)] if len(rows) > most else rows
    return [r[0] for r in picked], [r[1] for r in picked], len(rows)


def engine_bleu_difference(traces_a, traces_b, references):
    """Cased BLEU (13a) of the engine's translations for two models on the same
    sentences (those both translated), B - A, with its 90% paired bootstrap
    interval: {sentences, bleu_a, bleu_b, difference, ci90}."""
    kept = [(a["translation"], b["translation"], r) for a, b, r in zip(traces_a, traces_b, references) if a and b]
    hyps_a = [tokenize_13a(a) for a, _, _ in kept]
    hyps_b = [tokenize_13a(b) for _, b, _ in kept]
    refs = [tokenize_13a(r) for _, _, r in kept]
    difference, ci = paired_bootstrap_difference(hyps_a, hyps_b, refs)
    return {"sentences": len(kept), "bleu_a": corpus_bleu(hyps_a, refs), "bleu_b": corpus_bleu(hyps_b, refs),
            "difference": difference, "ci90": ci}


# ---------------------------------------------------------------------------
# The longest 10% of the UI test: the notes' exercise ("compare validation BLEU
# and the quality on the longest 10% of sentences against the no-attention
# model"), which the page's exercise card shows (cards/exercise.js).

LONGEST_SHARE = 0.10
LONGEST_JSON = "longest-tenth.json"
LONGEST_HEADING = "## The longest 10% of the UI test"


def longest_threshold(lengths, share=LONGEST_SHARE):
    """The source length L (words) of the ceil(share * N)-th longest sentence, or
    None for no sentences: the longest `share` of the set is every sentence of L
    words or more. Sentences of L words are kept together, so the set holds a
    little more than `share` when several have L words (its size is reported)."""
    if not lengths:
        return None
    k = max(1, math.ceil(share * len(lengths)))
    return sorted(lengths, reverse=True)[k - 1]


def longest_tenth(engine, models, kinds, data_dir):
    """Each model file's cased BLEU (13a) on the longest 10% of the UI test's
    sources (counted in words as train.py buckets them), translated by the
    engine (greedy, as eval_alsc.py), with its 90% bootstrap interval, and each
    attention kind's paired difference from the no-attention model on the same
    sentences. -> the dict written to report/longest-tenth.json, or None without
    the test set, the engine or the no-attention file."""
    from eval_alsc import translate
    from tokenize_text import words
    pairs = read_test_pairs(data_dir, "ui_test", 10 ** 9)
    if not pairs or not os.path.exists(engine) or not models.get("none", {}).get("file"):
        return None
    sources, references, whole = pairs
    lengths = [len(words(s)) for s in sources]
    least = longest_threshold(lengths)
    picked = [i for i, n in enumerate(lengths) if n >= least]
    srcs, refs = [sources[i] for i in picked], [tokenize_13a(references[i]) for i in picked]
    files = {k: models[k]["file"] for k in kinds if models[k]["file"]}
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        futures = {k: pool.submit(translate, engine, f, srcs) for k, f in files.items()}
        outputs = {k: f.result() for k, f in futures.items()}
    hyps = {k: [tokenize_13a(t) for t in texts] for k, (texts, _) in outputs.items()}
    out = {"test_set": "ui_test", "sentences_in_set": whole, "share": LONGEST_SHARE, "min_words": least,
           "sentences": len(picked), "measure": "cased BLEU (13a tokens)",
           "measured_with": f"{engine}, greedy, the .alsc files", "models": {}}
    for k in files:
        low, high = bootstrap_interval(hyps[k], refs)
        entry = {"id": models[k]["id"], "bleu": round(corpus_bleu(hyps[k], refs), 2),
                 "ci90": [round(low, 2), round(high, 2)], "refused": outputs[k][1]}
        if k != "none":
            difference, (lo, hi) = paired_bootstrap_difference(hyps["none"], hyps[k], refs)
            entry["minus_none"] = {"bleu": round(difference, 2), "ci90": [round(lo, 2), round(hi, 2)]}
        out["models"][k] = entry
    return out


def longest_section(result):
    """REPORT.md's lines for longest_tenth's result."""
    if not result:
        return ["", LONGEST_HEADING, "", "Not measured: it needs the UI test set, the native CLI and the no-attention model file."]
    share = result["sentences"] / result["sentences_in_set"]
    lines = ["", LONGEST_HEADING, "",
             f"The notes' exercise: the quality on the longest {result['share']:.0%} of sentences. The UI test's "
             f"{result['sentences_in_set']:,} sources sorted by length in words: the {math.ceil(result['share'] * result['sentences_in_set']):,}th "
             f"longest has {result['min_words']} words, so the longest {result['share']:.0%} is every source of "
             f"{result['min_words']} words or more: {result['sentences']:,} sentences ({share:.1%}; those of "
             f"{result['min_words']} words kept together). They start inside the "
             f"{sentence_lengths_buckets([[''] * result['min_words']])[0]} bucket, so no row of the tables above is exactly them: each file translated them again, with the engine "
             f"(`{result['measured_with']}`). {result['measure'][:1].upper() + result['measure'][1:]}; brackets: 90% bootstrap interval (1,000 resamples); "
             "the difference from no attention is paired (the same resampled sentences for both).", "",
             "| model | BLEU on the longest 10% | − no attention (paired) | refused |", "|---|---:|---:|---:|"]
    for k in KIND_ORDER:
        e = result["models"].get(k)
        if not e:
            continue
        d = e.get("minus_none")
        diff = f"{d['bleu']:+.1f} ({d['ci90'][0]:+.1f} to {d['ci90'][1]:+.1f})" if d else "—"
        lines.append(f"| {KIND_LABELS[k]} | {fmt_ci(e)} | {diff} | {e['refused']} |")
    return lines


BYTES_HEADING = "## Bytes in the repository"


def bytes_section(models_dir):
    """REPORT.md's last section: every models/*.alsc and its bytes, and their total (lines, a blank one first)."""
    committed, total = [], 0
    for name in sorted(os.listdir(models_dir)):
        if name.endswith(".alsc"):
            size = os.path.getsize(os.path.join(models_dir, name))
            total += size
            committed.append(f"| `{name}` | {size:,} |")
    return ["", BYTES_HEADING, "", "| file | bytes |", "|---|---:|", *committed, f"| **total** | **{total:,}** |"]


def splice_section(report_text, lines, heading=LONGEST_HEADING):
    """REPORT.md with the section under `heading` replaced (or put before the alignment section)."""
    body = "\n".join(lines[1:])
    start = report_text.find(heading)
    if start >= 0:
        end = report_text.find("\n## ", start + len(heading))
        return report_text[:start] + body + ("\n" + report_text[end:] if end >= 0 else "\n")  # a blank line before the next heading
    at = report_text.find("\n## How sharp")
    if at < 0:
        return report_text.rstrip("\n") + "\n\n" + body + "\n"
    return report_text[:at] + "\n" + body + "\n" + report_text[at:]


# ---------------------------------------------------------------------------
# Verdicts.

def paper_verdict(models, test_set):
    """Bahdanau et al.'s claim: attention degrades less with length than a fixed summary."""
    if "none" not in models:
        return None, []
    _, none_rows = by_length(models["none"]["metrics"], test_set)
    if not none_rows:
        return None, []
    buckets = sorted(none_rows, key=bucket_order)
    short, long_buckets = buckets[0], [b for b in buckets if bucket_order(b) > 20]
    if not long_buckets:
        return None, []

    def kept(kind):
        _, rows = by_length(models[kind]["metrics"], test_set)
        if not rows or short not in rows or any(b not in rows for b in long_buckets):
            return None
        n = sum(rows[b]["sentences"] for b in long_buckets)
        long_bleu = sum(rows[b]["bleu"] * rows[b]["sentences"] for b in long_buckets) / n
        return rows[short]["bleu"], long_bleu, long_bleu / max(rows[short]["bleu"], 1e-9)

    base = kept("none")
    lines, agree, total = [], 0, 0
    for kind in KIND_ORDER[:-1]:
        if kind not in models or kept(kind) is None:
            continue
        s, l, r = kept(kind)
        total += 1
        agree += r > base[2]
        lines.append(f"- {KIND_LABELS[kind]}: {s:.1f} on {short}-word sources, {l:.1f} on sources over 20 words "
                     f"(keeps {r:.0%} of its short-sentence BLEU)")
    lines.append(f"- no attention: {base[0]:.1f} → {base[1]:.1f} (keeps {base[2]:.0%})")
    if total == 0:
        return None, []
    if agree == total:
        verdict = ("**Agrees with the paper.** Every attention model keeps a larger share of its short-sentence BLEU on "
                   "long sentences than the no-attention baseline does: the fixed summary vector degrades faster with length.")
    elif agree == 0:
        verdict = ("**Does not agree with the paper.** No attention model keeps a larger share of its short-sentence "
                   "BLEU on long sentences than the baseline.")
    else:
        verdict = (f"**Partly agrees with the paper.** {agree} of {total} attention models keep a larger share of "
                   "their short-sentence BLEU on long sentences than the baseline.")
    counts = ", ".join(f"{b}: {none_rows[b]['sentences']}" for b in long_buckets)
    return verdict, lines + ["", f"(Long buckets: {counts} sentences; their intervals in the table above are wide.)"]


def lesson_verdict(models, test_set, paired=None):
    """The lesson's claim: dot-product scoring works as well as additive once dimensions are matched.
    paired: engine_bleu_difference(additive, dot) on this test set, if measured: the sampling
    uncertainty of the difference, said with the verdict."""
    if "dot" not in models or "additive" not in models:
        return None
    a, d = overall(models["additive"]["metrics"], test_set), overall(models["dot"]["metrics"], test_set)
    if a is None or d is None:
        return None
    diff = d - a
    if abs(diff) <= AS_GOOD_BLEU:
        head = "**Agrees with the lesson.** Luong dot scores within"
        tail = f"{AS_GOOD_BLEU:.0f} BLEU of additive"
    elif diff < 0:
        head = "**Does not agree with the lesson.** Luong dot scores"
        tail = f"{-diff:.1f} BLEU below additive"
    else:
        head = "**Agrees with the lesson, and more.** Luong dot scores"
        tail = f"{diff:.1f} BLEU above additive"
    from card import trained_config
    cfg = trained_config("dot", models["dot"]["metrics"].get("args") or {})
    sentence = (f"{head} {tail} on the {TEST_SETS[test_set].split(' (')[0]} ({d:.2f} against {a:.2f}), with its dimensions "
                "matched the way the lesson means: the decoder state is as wide as the bidirectional annotation "
                f"({cfg.decoder_hidden} = 2 × {cfg.encoder_hidden}), so score(s, h) = sᵀh needs no projection.")
    if paired and paired["sentences"]:
        lo, hi = paired["ci90"]
        apart, within = lo > 0 or hi < 0, -AS_GOOD_BLEU <= lo and hi <= AS_GOOD_BLEU
        reading = {(True, True): f"the gap is not an accident of which sentences were drawn, but it is within ±{AS_GOOD_BLEU:.0f} BLEU",
                   (True, False): "the gap is not an accident of which sentences were drawn",
                   (False, True): f"these sentences show the two as good as each other (within ±{AS_GOOD_BLEU:.0f} BLEU)",
                   (False, False): f"these sentences neither tell the two apart nor show them within ±{AS_GOOD_BLEU:.0f} BLEU"}[(apart, within)]
        sentence += (f" Paired on the {paired['sentences']:,} sentences the engine translated below (the files above, "
                     f"cased BLEU {paired['bleu_b']:.2f} against {paired['bleu_a']:.2f}), dot − additive is "
                     f"{paired['difference']:+.2f} BLEU, 90% paired bootstrap interval {lo:+.2f} to {hi:+.2f} "
                     f"(1,000 resamples): {reading}.")
    return sentence


def vocabulary_tables(path):
    """A short fingerprint of a model file's vocabularies and merge table (the
    bytes between the header and the tensors, models/FORMAT.md 5), or None
    when there is no readable file. Two models read a sentence as the same
    pieces exactly when these agree."""
    import hashlib
    import alsc_to_torch
    from export import HEADER_SIZE
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        header = alsc_to_torch.parse_header(data)
    except (OSError, TypeError, alsc_to_torch.AlscError):
        return None
    return hashlib.sha1(data[HEADER_SIZE:HEADER_SIZE + header["vocab_bytes"]]).hexdigest()[:12]


def dims_sentence(models):
    """How each kind's dimensions follow from the recipe (the additive model's
    training arguments, else the recipe's defaults in model.ModelConfig)."""
    from card import trained_config
    args = next((m["metrics"]["args"] for m in models.values() if m["metrics"].get("args")), {})
    cfg = trained_config("additive", args)
    He, Hd, A = cfg.encoder_hidden, cfg.decoder_hidden, cfg.attention_dim
    return (f"How the dimensions are matched: dot and scaled dot compare the decoder state with the bidirectional "
            f"annotation directly (sᵀh), so their decoder state is as wide as the annotation, 2 × {He} = {2 * He} "
            f"units against the others' {Hd}, which gives them more parameters; general learns a {Hd} × {2 * He} "
            f"matrix W in sᵀWh; additive a {A}-unit layer vᵀ tanh(W₁h + W₂s); no attention has no attention layer.")


def fairness(models):
    """Sentences saying how the compared models differ in budget and vocabulary ([] when they do not)."""
    budgets = {k: m["metrics"].get("updates") for k, m in models.items()}
    segs = {k: m["metrics"].get("segmentation", "words") for k, m in models.items()}
    tables = {k: vocabulary_tables(m["file"]) for k, m in models.items() if m.get("file")}
    tables = {k: v for k, v in tables.items() if v}
    notes = []
    if len(set(budgets.values())) > 1:
        notes.append("**Not an equal budget:** " + ", ".join(f"{KIND_LABELS[k]} {v:,} updates" for k, v in budgets.items() if v)
                     + ". BLEU differences below mix the kind of attention with the length of training; the verdicts "
                     "hold only for these files, not for the kinds. `./build.sh zoo` retrains every kind with the default "
                     "model's recipe and budget.")
    if len(set(segs.values())) > 1:
        notes.append("**Not the same vocabulary:** " + ", ".join(f"{KIND_LABELS[k]} {v}" for k, v in segs.items())
                     + ". Alignment agreement is measured only between models that read a sentence as the same pieces.")
    elif len(set(tables.values())) > 1:
        notes.append("**Not the same vocabulary:** the files' vocabulary and merge tables differ ("
                     + ", ".join(f"{KIND_LABELS[k]} {v}" for k, v in tables.items())
                     + "), so the kinds read some sentences as different pieces. Alignment agreement is measured only "
                     "between models that read a sentence as the same pieces.")
    elif len(tables) == len(models) > 1:
        notes.append(f"Every file compared has the same vocabulary and merge tables (fingerprint {next(iter(tables.values()))}).")
    return notes


# ---------------------------------------------------------------------------
# Where attention looked against what the words needed (erasure), and local
# windows (issue 32 part 4), measured with the page's engine on the UI test:
# models/train/local_attention.mjs does the engine's part per sentence, this
# the statistics. The page's erasure card cites report/local-attention.json
# through index.json (catalogue.py report.local).

LOCAL_JSON = "local-attention.json"
LOCAL_HEADING = "## Where attention looked, what the words needed, and local windows"
LOCAL_WINDOWS = (1, 2, 4)
LOCAL_SENTENCES = 10 ** 9  # the whole UI test: about 3 minutes per model file on one core
LOCAL_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "local_attention.mjs")


def local_lines(model_file, sources, node="node"):
    """local_attention.mjs's line for each source, in order."""
    run = subprocess.run([node, LOCAL_SCRIPT, model_file, "--windows", ",".join(map(str, LOCAL_WINDOWS))],
                         input="\n".join(sources) + "\n", capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"report: {LOCAL_SCRIPT} {model_file} failed (exit {run.returncode}): {run.stderr.strip()[-600:]}")
    lines = [json.loads(x) for x in run.stdout.splitlines() if x.strip()]
    if len(lines) != len(sources):
        raise SystemExit(f"report: {LOCAL_SCRIPT} {model_file}: {len(lines)} lines for {len(sources)} sentences")
    return lines


def share_interval(per_sentence, resamples=1000, coverage=0.9, seed=12345):
    """sum(agreeing) / sum(compared) over sentences [(agreeing, compared)], and its
    percentile bootstrap interval resampling whole sentences (a sentence's steps
    are not independent of each other). -> (share, (low, high)) or None."""
    import random
    total = sum(c for _, c in per_sentence)
    if not total:
        return None
    rng = random.Random(seed)
    n = len(per_sentence)
    shares = []
    for _ in range(resamples):
        a = c = 0
        for _ in range(n):
            x, y = per_sentence[rng.randrange(n)]
            a += x
            c += y
        shares.append(a / c if c else 0.0)
    shares.sort()
    tail = (1.0 - coverage) / 2
    return (sum(a for a, _ in per_sentence) / total,
            (shares[int(tail * resamples)], shares[min(int((1 - tail) * resamples), resamples - 1)]))


def local_attention(models, kinds, data_dir, most=LOCAL_SENTENCES):
    """Per attention kind, on `most` UI test sentences (evenly spaced): how often
    attention's argmax word equals erasure's at a decoder step, and cased BLEU
    (13a) with local-m windows of half width D against global attention (paired).
    -> the dict written to report/local-attention.json, or None without the test set."""
    import time
    pairs = read_test_pairs(data_dir, "ui_test", most)
    if not pairs:
        return None
    sources, references, whole = pairs
    refs = [tokenize_13a(r) for r in references]
    out = {"test_set": "ui_test", "sentences_in_set": whole, "sentences": len(sources), "windows": list(LOCAL_WINDOWS),
           "measure": "cased BLEU (13a tokens); agreement: share of compared decoder steps",
           "measured_with": "models/train/local_attention.mjs: web/engine.js (SIMD wasm), greedy, the .alsc files",
           "min_needed_nats": None, "kinds": {}}
    for k in kinds:
        if k == "none" or not models[k].get("file"):
            continue
        started = time.monotonic()
        lines = local_lines(models[k]["file"], sources)
        kept = [(i, line) for i, line in enumerate(lines) if "refused" not in line]
        per_sentence, steps = [], 0
        for _, line in kept:
            agree = line.get("agree") or []
            steps += len(agree)
            per_sentence.append((sum(a is True for a in agree), sum(a is not None for a in agree)))
            out["min_needed_nats"] = line.get("minNeeded", out["min_needed_nats"])
        entry = {"id": models[k]["id"], "refused": len(lines) - len(kept), "steps": steps,
                 "compared": sum(c for _, c in per_sentence), "seconds": round(time.monotonic() - started, 1)}
        agreement = share_interval(per_sentence)
        if agreement:
            share, (lo, hi) = agreement
            entry["agreement"] = {"share": round(share, 4), "ci90": [round(lo, 4), round(hi, 4)]}
        hyps_global = [tokenize_13a(line["translation"]) for _, line in kept]
        kept_refs = [refs[i] for i, _ in kept]
        low, high = bootstrap_interval(hyps_global, kept_refs)
        entry["global"] = {"bleu": round(corpus_bleu(hyps_global, kept_refs), 2), "ci90": [round(low, 2), round(high, 2)]}
        entry["windows"] = {}
        for d in LOCAL_WINDOWS:
            hyps = [tokenize_13a(line["windows"][str(d)]) for _, line in kept]
            low, high = bootstrap_interval(hyps, kept_refs)
            difference, (lo, hi) = paired_bootstrap_difference(hyps_global, hyps, kept_refs)
            changed = sum(line["windows"][str(d)] != line["translation"] for _, line in kept)
            entry["windows"][str(d)] = {"bleu": round(corpus_bleu(hyps, kept_refs), 2), "ci90": [round(low, 2), round(high, 2)],
                                        "minus_global": {"bleu": round(difference, 2), "ci90": [round(lo, 2), round(hi, 2)]},
                                        "changed": changed}
        out["kinds"][k] = entry
        print(f"report: local attention, {k}: {len(kept)} sentences in {entry['seconds']} s", file=sys.stderr)
    return out


def told_apart(ci):
    """'worse', 'better' or 'not told apart' for a difference's 90% interval."""
    return "worse" if ci[1] < 0 else "better" if ci[0] > 0 else "not told apart"


def local_section(result):
    """REPORT.md's lines for local_attention's result."""
    if not result or not result["kinds"]:
        return ["", LOCAL_HEADING, "", "Not measured: it needs the UI test set, Node and the attention models' files."]
    sample = (f"{result['sentences']:,} of its {result['sentences_in_set']:,} sentences, evenly spaced"
              if result["sentences"] < result["sentences_in_set"] else f"all {result['sentences']:,} sentences")
    lines = ["", LOCAL_HEADING, "",
             f"`report.py --local-only`. The UI test, {sample}, greedy decoding, each file through the page's engine "
             f"(`{result['measured_with']}`).", "",
             "**Attention against erasure.** At every decoder step of the global translation, each source word was "
             "masked out in turn (its pieces together; α renormalised over the others, the output teacher-forced: the page's "
             "erasure card's computation) and the drop in the step's log-probability read off. A step agrees when the word "
             "with the largest α (summed over its pieces) is the word whose removal cost most; a step whose largest drop is "
             f"under {result['min_needed_nats']} nats needed no word in particular and is not compared. Brackets: 90% bootstrap "
             "interval, resampling whole sentences (1,000 resamples).", "",
             "| model | decoder steps | compared | argmax α = argmax erasure | refused |", "|---|---:|---:|---:|---:|"]
    for k in KIND_ORDER:
        e = result["kinds"].get(k)
        if not e or "agreement" not in e:
            continue
        a = e["agreement"]
        lines.append(f"| {KIND_LABELS[k]} | {e['steps']:,} | {e['compared']:,} | "
                     f"{a['share']:.1%} ({a['ci90'][0]:.1%} to {a['ci90'][1]:.1%}) | {e['refused']} |")
    lines += ["", "**Local windows.** Luong et al.'s local-m: step t attends only to the source positions within D of "
              "p_t = round(t (S − 1) / (T − 1)), the softmax over them alone. A free decode does not know its length "
              "beforehand, so T is the global translation's length (steps past it stay at the source's last position: "
              "`src/alignscope.h`, `as_options.window_half_width`). Cased BLEU; the difference from global attention is paired "
              "(the same resampled sentences for both, 1,000 resamples, 90% interval); \"changed\": sentences whose output differs.", "",
              "| model | global | " + " | ".join(f"D = {d}" for d in result["windows"]) + " |",
              "|---|---:|" + "---:|" * len(result["windows"])]
    verdicts = []
    for k in KIND_ORDER:
        e = result["kinds"].get(k)
        if not e:
            continue
        cells = []
        for d in result["windows"]:
            w = e["windows"][str(d)]
            m = w["minus_global"]
            cells.append(f"{w['bleu']:.2f}, {m['bleu']:+.2f} ({m['ci90'][0]:+.2f} to {m['ci90'][1]:+.2f}); {w['changed']:,} changed")
            verdicts.append((k, d, told_apart(m["ci90"])))
        lines.append(f"| {KIND_LABELS[k]} | {fmt_ci(e['global'])} | " + " | ".join(cells) + " |")
    worse = [f"{KIND_LABELS[k]} at D = {d}" for k, d, v in verdicts if v == "worse"]
    better = [f"{KIND_LABELS[k]} at D = {d}" for k, d, v in verdicts if v == "better"]
    level = [f"{KIND_LABELS[k]} at D = {d}" for k, d, v in verdicts if v == "not told apart"]
    lines += ["", ("Worse than global attention (the whole interval below zero): " + ", ".join(worse) + ". " if worse else
                   "No window is told apart as worse than global attention. ")
              + ("Better: " + ", ".join(better) + ". " if better else "")
              + ("Not told apart: " + ", ".join(level) + ". " if level else "")
              + "A diagonal window assumes the t-th target word comes from about the t-th source word (scaled); where French "
              "reorders (an adjective after its noun: \"European economic zone\" → \"zone économique européenne\") the "
              "word a step needs can lie outside it."]
    return lines


# ---------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="models")
    ap.add_argument("--data", default="models/train/data/en-fr")
    ap.add_argument("--engine", default="build/native/alignscope")
    ap.add_argument("--bench", default="build/bench/native_bench")
    ap.add_argument("--max-sentences", type=int, default=2000, help="per test set, evenly spaced: the alignment statistics and the paired BLEU of dot against additive")
    ap.add_argument("--no-timing", metavar="REASON", help="leave the step cost out, saying why (e.g. a training run shares the cores)")
    ap.add_argument("--longest-only", action="store_true",
                    help="measure the longest 10%% of the UI test only: write report/longest-tenth.json and that section of REPORT.md, leave the rest")
    ap.add_argument("--local-only", action="store_true",
                    help="measure attention against erasure and local windows only: write report/local-attention.json and that section of REPORT.md, leave the rest")
    ap.add_argument("--bytes-only", action="store_true",
                    help="rewrite only the section of the model files' bytes (./build.sh model runs it after an export)")
    ap.add_argument("--local-sentences", type=int, default=LOCAL_SENTENCES, help="at most this many UI test sentences, evenly spaced, for --local-only (default: all)")
    args = ap.parse_args()
    if args.bytes_only:
        path = os.path.join(args.models, "REPORT.md")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        with open(path, "w", encoding="utf-8") as f:
            f.write(splice_section(text, bytes_section(args.models), BYTES_HEADING))
        print(f"report: the model files' bytes -> {path}")
        return
    report_dir = os.path.join(args.models, "report")
    os.makedirs(report_dir, exist_ok=True)
    models = load_models(args.models)
    kinds = [k for k in KIND_ORDER if k in models]
    if len(kinds) < 2:
        raise SystemExit(f"report: fewer than two English -> French kinds in {args.models}; run ./build.sh zoo")
    if args.local_only:
        local = local_attention(models, kinds, args.data, args.local_sentences)
        local_path = os.path.join(report_dir, LOCAL_JSON)
        if local:
            with open(local_path, "w", encoding="utf-8") as f:
                json.dump(local, f, indent=1)
                f.write("\n")
        path = os.path.join(args.models, "REPORT.md")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        with open(path, "w", encoding="utf-8") as f:
            f.write(splice_section(text, local_section(local), LOCAL_HEADING))
        print(f"report: local attention -> {local_path} and {path}" if local else "report: local attention not measured")
        return
    longest = longest_tenth(args.engine, models, kinds, args.data)
    longest_path = os.path.join(report_dir, LONGEST_JSON)
    if longest:
        with open(longest_path, "w", encoding="utf-8") as f:
            json.dump(longest, f, indent=1)
            f.write("\n")
    elif os.path.exists(longest_path):
        os.remove(longest_path)  # a stale file would outlive the models it measured
    if args.longest_only:
        path = os.path.join(args.models, "REPORT.md")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        with open(path, "w", encoding="utf-8") as f:
            f.write(splice_section(text, longest_section(longest)))
        print(f"report: the longest 10% -> {longest_path} and {path}" if longest else "report: the longest 10% not measured")
        return

    text = ["# Model report: the attention kinds and the no-attention baseline, English → French", "",
            "Written by `models/train/report.py` (run by `./build.sh zoo`). BLEU is corpus BLEU with greedy decoding; "
            "every file compared is int8 (per-row scales) and its BLEU is measured with the int8 weights. Brackets: "
            "90% bootstrap interval over the sentences of a bucket (1,000 resamples).", ""]
    for note in fairness({k: models[k] for k in kinds}):
        text += [note, ""]
    text += ["", "| model | attention | parameters | segmentation | updates | training time | "
             + " | ".join(TEST_SETS[t].split(" (")[0] + " BLEU" for t in TEST_SETS) + " |",
             "|---|---|---:|---|---:|---:|" + "---:|" * len(TEST_SETS)]
    for k in kinds:
        m = models[k]["metrics"]
        cells = []
        for t in TEST_SETS:
            label, _ = by_length(m, t)
            v = overall(m, t)
            cells.append("—" if v is None else f"**{v:.2f}**" + ("" if label != "lower-cased word BLEU" else " (lower-cased)"))
        text.append(f"| `{models[k]['id']}` | {KIND_LABELS[k]} | {m['parameters']:,} | {m.get('segmentation', 'words')} | "
                    f"{m['updates']:,} | {time_text(m) or '—'} | " + " | ".join(cells) + " |")
    text.append("")
    text.append(dims_sentence(models))

    # The engine on every test set, once: the alignment section and the lesson's verdict read it.
    engine_runs = {}  # test set -> (sources, references, rows in the whole set, {kind: traces})
    if os.path.exists(args.engine):
        for t in TEST_SETS:
            pairs = read_test_pairs(args.data, t, args.max_sentences)
            if not pairs or not pairs[0]:
                continue
            sources, references, whole = pairs
            # One engine process per model, as many at once as there are cores: decoding
            # thousands of sentences (not writing the JSON) is what takes the time.
            with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
                futures = {k: pool.submit(engine_traces, args.engine, models[k]["file"], sources)
                           for k in kinds if models[k]["file"] and k != "none"}
                traces = {k: f.result() for k, f in futures.items()}
            if traces:
                engine_runs[t] = (sources, references, whole, traces)

    # BLEU by length, one figure per test set (Bahdanau et al. 2015, Fig. 2).
    verdicts = []
    for t, title in TEST_SETS.items():
        rows = {k: by_length(models[k]["metrics"], t) for k in kinds}
        shown = [k for k in kinds if rows[k][1]]
        if not shown:
            text += ["", f"## BLEU by source length: {title}", "", "Not measured for these models (their metrics have no such test set)."]
            continue
        # One measure per table, figure and verdict: the additive model's (else the
        # first's); a model measured otherwise (older metrics) is named and left out.
        measure = rows["additive" if "additive" in shown else shown[0]][0]
        other_measure = [k for k in shown if rows[k][0] != measure]
        shown = [k for k in shown if rows[k][0] == measure]
        buckets = sorted(set.intersection(*[set(rows[k][1]) for k in shown]), key=bucket_order)
        label = rows[shown[0]][0]
        svg = "bleu-by-length.svg" if t == "ui_test" else f"bleu-by-length-{t.replace('_test', '')}.svg"
        series = [(k, KIND_LABELS[k], budget_text(models[k]["metrics"]), [rows[k][1][b]["bleu"] for b in buckets],
                   [tuple(rows[k][1][b].get("ci90", (rows[k][1][b]["bleu"],) * 2)) for b in buckets]) for k in shown]
        with open(os.path.join(report_dir, svg), "w", encoding="utf-8") as f:
            f.write(svg_plot(series, buckets, f"English → French, {title.split(' (')[0]}: {label} by source length"))
        text += ["", f"## BLEU by source length: {title}", "", f"![BLEU by source length, {t}]({os.path.basename(report_dir)}/{svg})", "",
                 f"{label}." + (" Left out: " + ", ".join(f"{KIND_LABELS[k]} ({rows[k][0]}, older metrics)" for k in other_measure)
                                + "; `./build.sh zoo` retrains them." if other_measure else ""), "",
                 "| source words | sentences | " + " | ".join(KIND_LABELS[k] for k in shown) + " |",
                 "|---|---:|" + "---:|" * len(shown)]
        for b in buckets:
            text.append(f"| {b} | {rows[shown[0]][1][b]['sentences']} | " + " | ".join(fmt_ci(rows[k][1][b]) for k in shown) + " |")
        pv, lines = paper_verdict({k: models[k] for k in shown}, t)
        if pv:
            text += ["", pv, "", "Share of short-sentence BLEU kept on sources over 20 words (sentence-weighted mean of the long buckets):", ""] + lines
            verdicts.append(pv)
        run = engine_runs.get(t)
        paired = (engine_bleu_difference(run[3]["additive"], run[3]["dot"], run[1])
                  if run and "additive" in run[3] and "dot" in run[3] else None)
        lv = lesson_verdict({k: models[k] for k in shown}, t, paired)
        if lv:
            text += ["", lv]
            verdicts.append(lv)

    text += longest_section(longest)

    # Alignments: sharpness and agreement with additive, measured with the engine.
    text += ["", "## How sharp the alignments are, and how often they agree with additive", ""]
    measured = False
    for t, title in TEST_SETS.items():
        if t not in engine_runs:
            continue
        sources, _, whole, traces = engine_runs[t]
        measured = True
        refused = max(sum(tr is None for tr in model_traces) for model_traces in traces.values())
        left_out = f" ({refused:,} longer than a model accepts left out)" if refused else ""
        sample = f"{len(sources):,} sentences" if len(sources) == whole else f"{len(sources):,} of its {whole:,} sentences, evenly spaced"
        text += [f"{title.split(' (')[0]}, {sample}{left_out}, every decoder step (the engine, `{args.engine}`):", "",
                 "| model | mean largest α per row | mean row entropy (bits) | rows with largest α > 0.9 | argmax = additive's |",
                 "|---|---:|---:|---:|---:|"]
        for k, tr in traces.items():
            st = alignment_stats(tr)
            agree = "—"
            if k != "additive" and "additive" in traces:
                share, steps, n = argmax_agreement(tr, traces["additive"])
                agree = f"{share:.0%} of {steps:,} steps ({n:,} sentences)" if share is not None else "— (different pieces)"
            text.append(f"| {KIND_LABELS[k]} | {st['mean_max']:.2f} | {st['mean_entropy']:.2f} | {st['one_hot_share']:.0%} | {agree} |")
        if "additive" not in traces:
            text.append(f"\nThe additive entry (`{models['additive']['id']}`) has no model file here, so its "
                        "sharpness and the agreement with it are not measured.")
        text.append("")
    if not measured:
        text.append(f"Not measured: it needs the test sets ({args.data}) and the native CLI ({args.engine}); `./build.sh zoo` has both.")

    # Cost per decoder step, measured in the engine.
    text += ["", "## Cost of one decoder step, in the engine", ""]
    files = [k for k in kinds if models[k]["file"]]
    if args.no_timing:
        text.append(f"Not measured in this run: {args.no_timing}.")
    elif os.path.exists(args.bench) and files:
        load = os.getloadavg()[0]
        text += [f"Median over `tests/bench/sentences.txt`, greedy decoding with the encoder cached, native build (`{args.bench}`, "
                 f"one thread), the models taking turns round by round so that the ratios are side by side; load average "
                 f"{load:.2f} on {os.cpu_count()} cores when it began:", "",
                 "| model | ms per decoder step | × additive |", "|---|---:|---:|"]
        cost = step_costs(args.bench, {k: models[k]["file"] for k in files})
        for k, c in cost.items():
            rel = f"{c / cost['additive']:.2f}" if c and cost.get("additive") else "—"
            text.append(f"| {KIND_LABELS[k]} | {c:.3f} | {rel} |" if c else f"| {KIND_LABELS[k]} | — | — |")
        text.append("")
        text.append("A step is mostly the decoder's GRU and its output layer (a product with V target pieces and a "
                    "softmax over them); the attention over S source positions is a small share for these sentences "
                    "(see `./build.sh bench`). So the cost follows the decoder's width more than the scoring: dot and "
                    "scaled dot score without parameters, but their decoder is as wide as the bidirectional annotation "
                    "(see the dimensions above).")
    elif not files:
        text.append("Not measured: no model files to run.")
    else:
        text.append(f"Not measured: the native bench ({args.bench}) is missing; `./build.sh zoo` builds it before this script.")

    text += ["", "## Caveats", "",
             "One training run (one seed) per kind, on 2 CPU cores, at a few thousand updates; the paper trained for "
             "days on news text. The test sets come from software strings and game dialogue, so long sentences are "
             "few and their intervals wide. The verdicts above compare point estimates; where two models' intervals "
             "overlap, read \"as good\" and \"worse\" as \"not told apart by this test\"."]

    text += bytes_section(args.models) + [""]
    with open(os.path.join(args.models, "REPORT.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(text))
    print(f"report: {len(kinds)} kinds; verdicts: {len(verdicts)} -> {args.models}/REPORT.md")


if __name__ == "__main__":
    main()
