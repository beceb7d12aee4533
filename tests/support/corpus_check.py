"""Unit checks of the corpus builder and BLEU (run by tests/corpus.test.mjs).

Each check raises AssertionError with a message; exit status 0 means all passed.
No network: a .mo file is written here from made-up strings. The eval_alsc
check runs the native CLI on a test model (./build.sh test builds both first).
"""
import collections
import os
import struct
import sys
import tempfile

TRAIN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models", "train")
sys.path.insert(0, TRAIN_DIR)
import corpus  # noqa: E402
from bleu import corpus_bleu  # noqa: E402

CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


def write_mo(path, entries, big_endian=False):
    """Minimal GNU .mo writer: entries are (msgid bytes, msgstr bytes)."""
    e = ">" if big_endian else "<"
    entries = sorted(entries)
    n = len(entries)
    ids_offset, strs_offset = 28, 28 + 8 * n
    data_offset = 28 + 16 * n
    blob, ids, strs = b"", [], []
    for msgid, _ in entries:
        ids.append((len(msgid), data_offset + len(blob)))
        blob += msgid + b"\0"
    for _, msgstr in entries:
        strs.append((len(msgstr), data_offset + len(blob)))
        blob += msgstr + b"\0"
    header = struct.pack(e + "7I", 0x950412DE, 0, n, ids_offset, strs_offset, 0, 0)
    table = b"".join(struct.pack(e + "2I", *x) for x in ids) + b"".join(struct.pack(e + "2I", *x) for x in strs)
    with open(path, "wb") as f:
        f.write(header + table + blob)


@check
def mo_parsing_handles_context_plural_and_endianness():
    for big in (False, True):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "x.mo")
            write_mo(path, [
                (b"", b"Content-Type: text/plain; charset=UTF-8\n"),
                (b"menu\x04Open", "Ouvrir".encode()),
                (b"One file\x00%d files", "Un fichier\x00%d fichiers".encode()),
            ], big_endian=big)
            got = dict(corpus.catalogue_entries(path))
            assert got == {"Open": "Ouvrir", "One file": "Un fichier"}, got


@check
def cleaning_rules():
    cases = {
        ("_Open", "_Ouvrir"): (None, ("Open", "Ouvrir")),
        ("&Save file", "&Enregistrer le fichier"): (None, ("Save file", "Enregistrer le fichier")),
        ("Delete %s", "Supprimer %s"): ("format_specifier", None),
        ("Two\nlines", "Deux\nlignes"): ("multiline", None),
        ("<b>Bold</b> text", "Texte <b>gras</b>"): ("markup", None),
        ("Quit", "Quit"): ("identical", None),
        ("Color", ""): ("empty_translation", None),
        ("Really quit?", "Vraiment quitter\u00a0?"): (None, ("Really quit?", "Vraiment quitter ?")),
        ("Loading\u2026", "Chargement\u2026"): (None, ("Loading...", "Chargement...")),
        ("Name \u201cx\u201d", "Nom \u00ab\u00a0x\u00a0\u00bb"): (None, ('Name "x"', 'Nom \u00ab x \u00bb')),
        ("female^Hello there", "Bonjour"): (None, ("Hello there", "Bonjour")),
    }
    for (src, tgt), expected in cases.items():
        got = corpus.clean_pair(src, tgt)
        assert got == expected, f"clean_pair({src!r}, {tgt!r}) = {got!r}, expected {expected!r}"


@check
def split_is_by_folded_source_and_order_free():
    variants = ["Open File...", "open file", "Open file!", "OPEN  FILE"]
    keys = {corpus.split_key(v) for v in variants}
    assert len(keys) == 1, keys
    names = {corpus.split_of(k) for k in keys}
    assert len(names) == 1
    # Roughly 2% / 2% / 96% over many keys.
    counts = {"train": 0, "dev": 0, "test": 0}
    for i in range(20000):
        counts[corpus.split_of(f"sentence number {i}")] += 1
    assert 300 < counts["test"] < 500 and 300 < counts["dev"] < 500, counts


@check
def write_splits_never_leaks():
    with tempfile.TemporaryDirectory() as tmp:
        pairs = {f"Open file {i}": f"Ouvrir le fichier {i}" for i in range(300)}
        pairs.update({f"open FILE {i}!": (f"ouvrir {i}", "dialogue", "game") for i in range(300)})
        heldout = {f"We march at dawn {i}.": (f"Nous partons à l'aube {i}.", "heldout", "campaign") for i in range(200)}
        heldout["Open file 7 now"] = ("Ouvrir le fichier 7 maintenant", "heldout", "campaign")  # key of a training pair
        heldout["Go"] = ("Va", "heldout", "campaign")  # too short for the general test
        sizes, by_domain = corpus.write_splits(pairs, tmp, heldout)
        assert sizes["dropped_heldout_key"] == 0  # 'opefile7now' is not 'openfile7'
        assert sum(v for k, v in sizes.items() if not k.startswith("dropped_")) == 801, sizes
        assert 0 < sizes["general_dev"] < sizes["general_test"], sizes
        seen = {}
        for name in ("train", "dev", "test", "general_dev", "general_test"):
            with open(os.path.join(tmp, f"{name}.tsv"), encoding="utf-8") as f:
                for line in f:
                    fields = line.rstrip("\n").split("\t")
                    assert len(fields) == 4, fields
                    key = corpus.split_key(fields[0])
                    assert seen.setdefault(key, name) == name, f"{key} in {seen[key]} and {name}"
                    assert (fields[2] == "heldout") == name.startswith("general_"), (name, fields)
        assert by_domain.get("train/dialogue", 0) + by_domain.get("dev/dialogue", 0) + by_domain.get("test/dialogue", 0) == 300
        # A training pair whose key is held out is dropped from training.
        sizes, _ = corpus.write_splits({"We march at dawn 3!": "x"}, tmp, heldout)
        assert sizes["dropped_heldout_key"] == 1 and sizes["train"] + sizes["dev"] + sizes["test"] == 0, sizes


@check
def dictionary_pairs_only_add_vocabulary_and_only_train():
    collector, drops = corpus.PairCollector(), collections.Counter()
    corpus.collect([("Open", "Ouvrir")], "ui", "app", collector, drops)
    raw, kept, new = corpus.collect([("Open", "ouvert"), ("kettle", "bouilloire")], "dictionary", "freedict",
                                    collector, drops)
    assert (raw, kept, new) == (2, 1, 1) and drops["dictionary_known_source"] == 1, (raw, kept, new, drops)
    assert collector.rows()["Open"] == ("Ouvrir", "ui", "app"), collector.rows()
    with tempfile.TemporaryDirectory() as tmp:
        words = {f"word{i}": (f"mot{i}", "dictionary", "freedict") for i in range(400)}
        sizes, by_domain = corpus.write_splits(words, tmp)
        held = sum(1 for w in words if corpus.split_of(corpus.split_key(w)) != "train")
        assert held > 0 and sizes["dropped_dictionary_not_train"] == held, (held, sizes)
        assert sizes["dev"] == sizes["test"] == 0 and sizes["train"] == 400 - held, sizes


@check
def our_test_sentences_never_reach_a_split():
    import testsets
    teacher = testsets.read_tsv(testsets.TEACHER)
    everyday = testsets.read_tsv(testsets.EVERYDAY)
    with tempfile.TemporaryDirectory() as tmp:
        pairs = {f"Open file {i}": f"Ouvrir le fichier {i}" for i in range(300)}
        # The same sentences as the corpus might spell them: other case, spaces,
        # curly apostrophe, another final punctuation mark or none.
        spelled = [teacher[0]["en"].upper(), "  " + teacher[57]["en"].replace(" ", "  ").rstrip(".!?") + " !",
                   teacher[41]["en"].replace("'", "\u2019"), everyday[1]["en"].lower().rstrip(".")]
        for i, source in enumerate(spelled):
            pairs[source] = (f"traduction {i}", "dialogue", "game")
        heldout = {teacher[5]["en"]: (teacher[5]["fr"], "heldout", "campaign")}
        sizes, _ = corpus.write_splits(pairs, tmp, heldout)
        assert sizes["dropped_our_testsets"] == len(spelled), sizes
        assert sizes["train"] + sizes["dev"] + sizes["test"] == 300, sizes
        keys = testsets.held_out_keys()
        for name in ("train", "dev", "test"):
            with open(os.path.join(tmp, f"{name}.tsv"), encoding="utf-8") as f:
                for line in f:
                    assert testsets.english_key(line.split("\t")[0]) not in keys, f"{name}: {line!r}"
        # The key folds spelling only: a different sentence stays.
        sizes, _ = corpus.write_splits({teacher[0]["en"] + " again": "x", "Good morning, everyone else.": "y"}, tmp, {})
        assert sizes["dropped_our_testsets"] == 0 and sizes["train"] + sizes["dev"] + sizes["test"] == 2, sizes


@check
def an_empty_corpus_stops_with_its_counts_beside_it():
    import subprocess
    tracked = os.path.join(TRAIN_DIR, "corpus_stats.fr.json")
    before = os.stat(tracked).st_mtime_ns if os.path.exists(tracked) else None
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("packages.txt", "sources.txt"):
            open(os.path.join(tmp, name), "w").close()
        run = subprocess.run([sys.executable, os.path.join(TRAIN_DIR, "corpus.py"), "--lang", "fr",
                              "--packages", os.path.join(tmp, "packages.txt"), "--sources", os.path.join(tmp, "sources.txt"),
                              "--out", os.path.join(tmp, "out"), "--cache", os.path.join(tmp, "cache")],
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 1, (run.returncode, run.stderr)
        assert "the corpus has 0 training and 0 dev pairs" in run.stderr, run.stderr
        # The counts go beside the corpus; the tracked copy changes only when a model is exported.
        assert os.path.exists(os.path.join(tmp, "out", "en-fr", "corpus_stats.json")), os.listdir(os.path.join(tmp, "out", "en-fr"))
    after = os.stat(tracked).st_mtime_ns if os.path.exists(tracked) else None
    assert before == after, "corpus.py rewrote models/train/corpus_stats.fr.json"


@check
def multi_sentence_entries_become_sentence_pairs():
    rule, pairs = corpus.segment_pairs("We must hurry. The orcs are coming!\nRun!",
                                       "Nous devons nous dépêcher. Les orques arrivent !\nCourez !")
    assert rule is None and pairs == [("We must hurry.", "Nous devons nous dépêcher."),
                                      ("The orcs are coming!", "Les orques arrivent !"), ("Run!", "Courez !")], pairs
    # Different counts on one line: the entry whole; over several lines: dropped.
    assert corpus.segment_pairs("Hi. Go on.", "Salut, continue.") == (None, [("Hi. Go on.", "Salut, continue.")])
    assert corpus.segment_pairs("Hi.\nGo on.", "Salut, continue.")[0] == "sentence_count_mismatch"
    # Equal counts but the lengths say the sentences do not correspond: dropped.
    rule, _ = corpus.segment_pairs("Dr. Smith is here and waits for you.",
                                   "Cordialement, le docteur Smith vous attend ici. Oui.")
    assert rule == "sentence_count_mismatch", rule


@check
def catalogue_folders_prefer_the_plain_language():
    names = ["usr__share__locale__es__LC_MESSAGES__x.mo", "usr__share__locale__es_ES__LC_MESSAGES__x.mo",
             "usr__share__locale__es_ES__LC_MESSAGES__y.mo"]
    got = sorted(os.path.basename(p) for p in corpus.preferred_catalogues(names, ("es", "es_ES"), "/d"))
    assert got == ["usr__share__locale__es_ES__LC_MESSAGES__y.mo", "usr__share__locale__es__LC_MESSAGES__x.mo"], got


@check
def source_list_is_checked():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "s.txt")
        with open(path, "w") as f:
            f.write("dialogue  game-data=1.0  # a comment\nheldout @gimp-help\n")
        assert corpus.read_source_list(path) == [("dialogue", ("game-data", "1.0")), ("heldout", "@gimp-help")]
        with open(path, "w") as f:
            f.write("dictionary @freedict fr,es\ndict_sentences @ding-sentences de\n")
        assert corpus.read_source_list(path, "es") == [("dictionary", "@freedict")]
        assert corpus.read_source_list(path, "de") == [("dict_sentences", "@ding-sentences")]
        assert len(corpus.read_source_list(path)) == 2
        with open(path, "w") as f:
            f.write("games game-data=1.0\n")
        try:
            corpus.read_source_list(path)
        except ValueError as error:
            assert "s.txt:1" in str(error), error
        else:
            raise AssertionError("an unknown domain was accepted")


@check
def translation_choice_is_deterministic():
    chosen = corpus.choose_translations({"Open": {"Ouvrir": 3, "Ouvre": 3, "Ouvrez": 1}})
    assert chosen == {"Open": "Ouvre"}, chosen


@check
def bleu_reference_values():
    assert abs(corpus_bleu([["a", "b", "c", "d"]], [["a", "b", "c", "d"]]) - 100) < 1e-9
    # Hand-computed: p1=5/6 p2=3/5 p3=1/4 p4=0 -> 0; with a longer match:
    hyp = [["the", "cat", "sat", "on", "the", "mat"]]
    ref = [["the", "cat", "sat", "on", "a", "mat"]]
    # p1=5/6 p2=3/5 p3=2/4 p4=1/3, BP=1 -> (5/6*3/5*2/4*1/3)^(1/4)
    expected = 100 * (5 / 6 * 3 / 5 * 2 / 4 * 1 / 3) ** 0.25
    got = corpus_bleu(hyp, ref)
    assert abs(got - expected) < 1e-9, (got, expected)
    short = corpus_bleu([["the", "cat", "sat", "on"]], [["the", "cat", "sat", "on", "the", "mat"]])
    import math
    assert abs(short - 100 * math.exp(1 - 6 / 4)) < 1e-9, short


@check
def bootstrap_interval_brackets_the_estimate():
    from bleu import bootstrap_interval
    hyps = [["a", "b", "c", "d"], ["a", "x", "c", "d"], ["q", "b", "c", "d", "e"]] * 10
    refs = [["a", "b", "c", "d"]] * 30
    low, high = bootstrap_interval(hyps, refs, resamples=200)
    assert low <= corpus_bleu(hyps, refs) <= high and low < high, (low, high)


@check
def paired_bootstrap_difference_is_paired():
    """dot − additive and its interval from resampling the same sentences for
    both: a system against itself differs by 0 in every resample; one better on
    every sentence has an interval above 0 that brackets the difference."""
    from bleu import paired_bootstrap_difference
    refs = [["a", "b", "c", "d"], ["e", "f", "g", "h"], ["i", "j", "k", "l"]] * 10
    worse = [["a", "b", "c", "x"], ["e", "f", "y", "h"], ["i", "j", "k", "l"]] * 10
    same, (lo, hi) = paired_bootstrap_difference(worse, worse, refs, resamples=200)
    assert same == 0.0 and lo == hi == 0.0, (same, lo, hi)
    gain, (lo, hi) = paired_bootstrap_difference(worse, refs, refs, resamples=200)
    assert abs(gain - (100.0 - corpus_bleu(worse, refs))) < 1e-9 and 0 < lo <= gain <= hi, (gain, lo, hi)
    loss, (lo2, hi2) = paired_bootstrap_difference(refs, worse, refs, resamples=200)
    assert abs(loss + gain) < 1e-9 and lo2 <= loss <= hi2 < 0, (loss, lo2, hi2)


@check
def report_runs_the_engine_on_the_test_models():
    """report.py end to end with the engine on the test models (additive as the
    default, dot beside it) and a toy UI test: the sharpness table, the argmax
    agreement, and the lesson's verdict with its paired bootstrap, whose
    numbers are the engine's translations scored here again; only the `ui`
    rows of test.tsv are the UI test, evenly spaced when capped."""
    import json
    import shutil
    import subprocess
    import random
    from toy_corpus import phrase
    from bleu import tokenize_13a
    root = os.path.join(TRAIN_DIR, "..", "..")
    cli, test_models = os.path.join(root, "build", "native", "alignscope"), os.path.join(root, "build", "test-models")
    assert os.path.exists(cli) and os.path.exists(os.path.join(test_models, "dot.alsc")), "run ./build.sh native and ./build.sh models first"
    rng = random.Random(7)
    pairs = [phrase(rng) for _ in range(30)]
    with tempfile.TemporaryDirectory() as tmp:
        models_dir, data = os.path.join(tmp, "models"), os.path.join(tmp, "data")
        os.makedirs(os.path.join(models_dir, "report"))
        os.makedirs(data)
        shutil.copy(os.path.join(test_models, "additive.alsc"), os.path.join(models_dir, "en-fr-int8.alsc"))
        shutil.copy(os.path.join(test_models, "additive.metrics.json"), os.path.join(models_dir, "en-fr-int8.metrics.json"))
        shutil.copy(os.path.join(test_models, "dot.alsc"), os.path.join(models_dir, "en-fr-dot.alsc"))
        shutil.copy(os.path.join(test_models, "dot.metrics.json"), os.path.join(models_dir, "report", "en-fr-dot.metrics.json"))
        with open(os.path.join(data, "test.tsv"), "w", encoding="utf-8") as f:
            for en, fr in pairs:
                f.write(f"{en}\t{fr}\tui\n")
                f.write("Print the page\tImprimer la page\tdocs\n")  # not the UI test
        run = subprocess.run([sys.executable, os.path.join(TRAIN_DIR, "report.py"), "--models", models_dir, "--data", data,
                              "--engine", cli, "--no-timing", "a check", "--max-sentences", "20"], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        text = open(os.path.join(models_dir, "REPORT.md"), encoding="utf-8").read()
        assert "UI test, 20 of its 30 sentences, evenly spaced, every decoder step" in text, text
        assert "| Luong dot |" in text and "% of " in text, text
        sample = [pairs[i * 30 // 20] for i in range(20)]
        own = {}
        for kind in ("additive", "dot"):
            out = subprocess.run([cli, "--model", os.path.join(models_dir, "en-fr-int8.alsc" if kind == "additive" else "en-fr-dot.alsc"),
                                  "--json", "--no-context", "--top-k", "0"], input="\n".join(en for en, _ in sample) + "\n",
                                 capture_output=True, text=True, check=True).stdout
            own[kind] = [tokenize_13a(json.loads(line)["translation"]) for line in out.splitlines() if line.strip()]
        refs = [tokenize_13a(fr) for _, fr in sample]
        a, d = corpus_bleu(own["additive"], refs), corpus_bleu(own["dot"], refs)
        assert f"Paired on the 20 sentences the engine translated below (the files above, cased BLEU {d:.2f} against {a:.2f}), dot − additive is {d - a:+.2f} BLEU" in text, (a, d, text)
        assert "90% paired bootstrap interval" in text and ("Agrees with the lesson" in text or "agree with the lesson" in text), text


def _fake_metrics(bleu_by_bucket, attention, updates=100):
    buckets = {label: {"sentences": 10, "bleu": v, "ci90": [v - 1, v + 1]} for label, v in bleu_by_bucket.items()}
    return {"attention": attention, "parameters": 1000, "updates": updates, "train_seconds": 60.0,
            "train_pairs": 500, "test_bleu": sum(bleu_by_bucket.values()) / len(bleu_by_bucket),
            "test_bleu_by_source_length": buckets}


def _report_on(tmp, metrics_by_id):
    """Write each {model id: metrics} (the additive one as the default's
    en-fr-int8, the others under report/) into tmp, run report.py there without
    test sets or bench, and return REPORT.md's text."""
    import json
    import subprocess
    os.makedirs(os.path.join(tmp, "report"), exist_ok=True)
    for model_id, m in metrics_by_id.items():
        with open(os.path.join(tmp, f"{model_id}.metrics.json"), "w") as f:
            json.dump(m, f)
    subprocess.run([sys.executable, os.path.join(TRAIN_DIR, "report.py"), "--models", tmp,
                    "--data", os.path.join(tmp, "no-data"), "--bench", os.path.join(tmp, "no-bench")],
                   check=True, capture_output=True)
    return open(os.path.join(tmp, "REPORT.md"), encoding="utf-8").read()


@check
def report_verdict_follows_the_numbers():
    """report.py's claim about the paper must come from the metrics, both ways."""
    import tempfile
    for none_long, expected in ((5.0, "Agrees with the paper"), (30.0, "Does not agree with the paper")):
        with tempfile.TemporaryDirectory() as tmp:
            # The additive model is the default's metrics (no file: nothing to measure with the engine).
            text = _report_on(tmp, {"en-fr-int8": _fake_metrics({"1-10": 40.0, "11-20": 30.0, "21-30": 20.0}, "additive"),
                                    "report/en-fr-none": _fake_metrics({"1-10": 38.0, "11-20": 25.0, "21-30": none_long}, "none")})
            assert expected in text, (expected, text)
            svg = open(os.path.join(tmp, "report", "bleu-by-length.svg"), encoding="utf-8").read()
            assert svg.startswith("<svg") and svg.count("<polyline") == 2, svg[:200]
            # each line's legend gives its training budget, from its metrics
            assert svg.count(">100 updates, 1 min</text>") == 2, svg
    from report import budget_text
    assert budget_text({"updates": 6000, "train_seconds": 16620.0, "train_cpu_seconds": 7260.0}) == "6,000 updates, 4 h 37 min (CPU 2 h 1 min)"
    assert budget_text({"updates": 6000, "train_cpu_seconds": 7260.0}) == "6,000 updates", "CPU time alone is not a training time"


@check
def report_lesson_verdict_and_fairness_follow_the_numbers():
    """The lesson's claim (dot as good as additive) is judged from the metrics both
    ways, and a comparison of unequal budgets says so."""
    import tempfile
    cases = ((29.5, 1000, "Agrees with the lesson", False), (20.0, 1000, "Does not agree with the lesson", False),
             (29.5, 300, "Agrees with the lesson", True))
    for dot_bleu, dot_updates, expected, unequal in cases:
        with tempfile.TemporaryDirectory() as tmp:
            text = _report_on(tmp, {"en-fr-int8": _fake_metrics({"1-10": 30.0, "11-20": 30.0}, "additive", updates=1000),
                                    "report/en-fr-dot": _fake_metrics({"1-10": dot_bleu, "11-20": dot_bleu}, "dot",
                                                                      updates=dot_updates)})
            assert expected in text, (expected, text)
            assert ("Not an equal budget" in text) == unequal, text


@check
def report_compares_only_models_measured_alike():
    """A model whose metrics use another BLEU (older lower-cased word metrics next
    to cased 13a) is named and left out of the by-length tables and verdicts,
    never compared number for number."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        buckets = {"1-10": {"sentences": 10, "bleu": 30.0, "ci90": [29.0, 31.0]},
                   "11-20": {"sentences": 10, "bleu": 25.0, "ci90": [24.0, 26.0]}}
        additive = {**_fake_metrics({"1-10": 30.0, "11-20": 25.0}, "additive", updates=1000),
                    "tests": {"ui_test": {"bleu_cased_13a": 28.0, "bleu_cased_13a_by_source_length": buckets}}}
        dot = _fake_metrics({"1-10": 10.0, "11-20": 8.0}, "dot", updates=1000)  # lower-cased words only
        text = _report_on(tmp, {"en-fr-int8": additive, "report/en-fr-dot": dot})
        assert "Left out: Luong dot (lower-cased word BLEU, older metrics)" in text, text
        assert "Agrees with the lesson" not in text and "agree with the lesson" not in text, text
        svg = open(os.path.join(tmp, "report", "bleu-by-length.svg"), encoding="utf-8").read()
        assert svg.count("<polyline") == 1, svg


@check
def report_fairness_compares_the_vocabulary_tables():
    """Two subword models are only comparable piece for piece when their files'
    vocabulary and merge tables agree: the report says which, from the files
    (the committed en-fr f16 and int8 files share theirs; one changed byte in
    the tables, or a damaged file, is told apart)."""
    import shutil
    from report import fairness
    models_dir = os.path.join(TRAIN_DIR, "..")
    f16, int8 = os.path.join(models_dir, "en-fr.alsc"), os.path.join(models_dir, "en-fr-int8.alsc")
    metrics = {"updates": 6000, "segmentation": "subwords"}
    same = fairness({"additive": {"metrics": metrics, "file": f16}, "dot": {"metrics": metrics, "file": int8}})
    assert len(same) == 1 and "same vocabulary and merge tables" in same[0], same
    with tempfile.TemporaryDirectory() as tmp:
        changed = os.path.join(tmp, "changed.alsc")
        shutil.copy(f16, changed)
        with open(changed, "r+b") as handle:
            handle.seek(96 + 40)  # past the 96-byte header: inside the tables
            byte = handle.read(1)
            handle.seek(96 + 40)
            handle.write(bytes([byte[0] ^ 1]))
        differ = fairness({"additive": {"metrics": metrics, "file": f16}, "dot": {"metrics": metrics, "file": changed}})
        assert len(differ) == 1 and "Not the same vocabulary" in differ[0] and "tables differ" in differ[0], differ
        damaged = os.path.join(tmp, "damaged.alsc")
        with open(damaged, "wb") as handle:
            handle.write(b"not a model")
        partial = fairness({"additive": {"metrics": metrics, "file": f16}, "dot": {"metrics": metrics, "file": damaged}})
        assert partial == [], partial
    assert fairness({"additive": {"metrics": metrics, "file": None}, "dot": {"metrics": metrics, "file": None}}) == []


@check
def card_time_note_follows_the_metrics():
    """card.py says how the time was measured from what train.py recorded, and
    keeps a hand-written note from its notes file (so re-exports keep it)."""
    from card import card_note, cpu_time_text, time_note
    assert cpu_time_text({"train_cpu_seconds": 5400.0}).startswith("; CPU time 90.0 min")
    assert cpu_time_text({"train_cpu_seconds": None}) == "" and cpu_time_text({}) == ""
    m = {"args": {"max_steps": 1000, "minutes": 600.0}, "train_seconds": 1340.0, "updates": 1000,
         "machine": {"cpus": 2, "torch_threads": 1, "openblas_threads": "1", "load_average_at_end": [4.04, 4.4, 4.1]}}
    note = time_note(m)
    assert "2-core machine" in note and "load average was 4.04" in note, note
    assert "1.34 s per update" in note and "1,000 updates" in note and "the model is the same" in note, note
    m2 = {"args": {"max_steps": 0, "minutes": 50.0}, "train_seconds": 3001.1, "updates": 6517}
    note2 = time_note(m2)
    assert "0.46 s per update" in note2 and "50 minutes of wall clock" in note2 and "core" not in note2, note2
    assert "OpenBLAS" not in note and "OpenBLAS" not in note2  # no phase recorded its kernels
    m3 = {**m, "phases": [{"updates": 4000, "device": "cpu"}, {"updates": 1000, "device": "cuda"},
                          {"updates": 2500, "device": "cpu", "openblas_core": "SkylakeX"},
                          {"updates": 500, "device": "cpu", "openblas_core": "Haswell"}]}
    assert ("1.34 s per update on average. OpenBLAS kernels, by updates: SkylakeX 2,500, Haswell 500, not recorded "
            "4,000 (phases from before train.py recorded them). The budget") in time_note(m3), time_note(m3)
    import json
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "notes.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"en-xx": "A note."}, f)
        assert card_note(path, "en-xx") == "A note." and card_note(path, "en-yy") == ""
        assert card_note(os.path.join(tmp, "absent.json"), "en-xx") == ""


@check
def card_names_the_recipes_changes():
    """card.py names a final phase and layer normalisation when the run had them, and
    says nothing of either when it did not."""
    from card import regularisation_text, sampling_text
    plain = {"domain_weights": {"ui": 0.5, "dialogue": 0.5}}
    assert sampling_text(plain) == "ui 0.5, dialogue 0.5"
    assert sampling_text({}) == "every pair alike"
    final = {**plain, "final_phase": {"after_update": 2400, "domain_weights": {"ui": 0.2, "dialogue": 0.8}}}
    assert sampling_text(final) == "ui 0.5, dialogue 0.5; after update 2,400 (the final phase): ui 0.2, dialogue 0.8"
    assert regularisation_text({"dropout": 0.2}) == "dropout 0.2"
    assert regularisation_text({"dropout": 0.2, "layer_norm": True}).endswith("layer normalisation (both GRUs, gate by gate, and the deep output)")


@check
def card_dims_are_the_models_own():
    """card.py's dims are those the attention kind gives the model (dot: a
    decoder as wide as the bidirectional annotation, and why; none: no
    attention layer), not the training arguments as typed."""
    from card import dims_text
    a = {"embed": 128, "hidden": 256, "decoder_hidden": 256, "attention_dim": 256, "output_dim": 256}
    assert dims_text({"attention": "additive", "args": a}) == \
        "embed 128, encoder 256×2 (bidirectional), decoder 256, attention 256, deep output 256"
    dot = dims_text({"attention": "dot", "args": a})
    assert "decoder 512 (= 2 × 256, as wide as the bidirectional annotation" in dot and "attention 256" not in dot, dot
    assert "decoder 512 (= 2 × 256" in dims_text({"attention": "scaled_dot", "args": a})
    assert "attention: W of 256 × 512 in sᵀWh" in dims_text({"attention": "general", "args": a})
    none = dims_text({"attention": "none", "args": a})
    assert "attention" not in none and "decoder 256" in none, none


@check
def card_learning_curve_follows_the_metrics():
    """card.py's learning curve: a row per evaluation, the last step's trend in
    words, a blank time for a point recovered from a log, a sentence without one."""
    from card import learning_curve
    m = {"args": {"dev_sentences": 600}, "learning_curve": [
        {"update": 500, "dev_bleu": 3.1, "hours": None}, {"update": 1000, "dev_bleu": 7.25, "hours": 0.41},
        {"update": 1500, "dev_bleu": 9.0, "hours": 0.62}]}
    text = learning_curve(m)
    assert "| 500 | 3.10 |  |" in text and "| 1,000 | 7.25 | 0.41 |" in text and "| 1,500 | 9.00 | 0.62 |" in text, text
    assert "last 500 updates dev BLEU moved by +1.75" in text and "still learning" in text, text
    m["learning_curve"][-1]["dev_bleu"] = 7.3
    assert "about levelled off" in learning_curve(m)
    assert "did not record its learning curve" in learning_curve({"args": {}})


@check
def eval_alsc_scores_engine_output_like_training():
    """eval_alsc.py runs model files through the native CLI on a corpus folder's
    UI and general tests: references equal to the engine's own output score 100,
    other references less; a sentence the model cannot read is refused and
    counted, not dropped (the toy test model; ./build.sh native and models)."""
    import eval_alsc
    root = os.path.join(TRAIN_DIR, "..", "..")
    cli, model = os.path.join(root, "build", "native", "alignscope"), os.path.join(root, "build", "test-models", "additive.alsc")
    assert os.path.exists(cli) and os.path.exists(model), "run ./build.sh native and ./build.sh models first"
    sentences = ["Show the new window", "Delete the selected document!", "Open the file"]  # two of 4+ words: 4-grams
    own, refused = eval_alsc.translate(cli, model, sentences)
    assert refused == 0 and all(own), own
    too_long = " ".join(["file"] * 150)
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "test.tsv"), "w", encoding="utf-8") as f:
            for src, ref in zip(sentences, own):
                f.write(f"{src}\t{ref}\tui\n")
            f.write("Print the page\tImprimer la page\tdocs\n")  # not ui: not in the UI test
        with open(os.path.join(tmp, "general_test.tsv"), "w", encoding="utf-8") as f:
            f.write(f"Open the file\tUne tout autre phrase ici\theldout\n{too_long}\tfichier\theldout\n")
        out = os.path.join(tmp, "out.json")
        import subprocess
        run = subprocess.run([sys.executable, os.path.join(TRAIN_DIR, "eval_alsc.py"), "--data", tmp, model, "--json", out],
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        import json
        with open(out, encoding="utf-8") as f:
            result = json.load(f)[model]
    assert result["ui_test"] == {"sentences": 3, "refused": 0, "bleu_cased_13a": 100.0, "bleu_lowercase_words": 100.0}, result
    assert result["general_test"]["sentences"] == 2 and result["general_test"]["refused"] == 1, result
    assert result["general_test"]["bleu_cased_13a"] < 100.0, result


def toy_model_with_metrics(tmp, layout):
    """The toy test model copied into TMP as en-fr-toy.alsc with its metrics beside it,
    written in LAYOUT ("train": train.py's indent 2 and final newline; "quantised":
    eval_quantised.py's indent 1, none) -> (model path, metrics dict)."""
    import json
    import shutil
    test_models = os.path.join(TRAIN_DIR, "..", "..", "build", "test-models")
    model = os.path.join(tmp, "en-fr-toy.alsc")
    shutil.copy(os.path.join(test_models, "additive.alsc"), model)
    with open(os.path.join(test_models, "additive.metrics.json"), encoding="utf-8") as f:
        metrics = json.load(f)
    with open(os.path.join(tmp, "en-fr-toy.metrics.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(metrics, indent=2) + "\n" if layout == "train" else json.dumps(metrics, indent=1))
    return model, metrics


@check
def eval_alsc_writes_beam_figures_for_the_card():
    """eval_alsc.py --write decodes both test sets by the engine's default beam search (5) and adds
    test_bleu_beam to the metrics beside the model (keeping its layout), which the
    card shows as a column beside greedy; --write without a beam, or without metrics
    beside the model, is refused (the toy test model)."""
    import json
    import shutil
    import subprocess
    import card
    import eval_alsc
    root = os.path.join(TRAIN_DIR, "..", "..")
    cli = os.path.join(root, "build", "native", "alignscope")
    sentences = ["Show the new window", "Delete the selected document!", "Open the file"]
    with tempfile.TemporaryDirectory() as tmp:
        model, metrics = toy_model_with_metrics(tmp, "train")
        beam_texts, refused = eval_alsc.translate(cli, model, sentences, ("--beam", "5", "--length-penalty", "1.0"))
        assert refused == 0 and all(beam_texts), beam_texts
        with open(os.path.join(tmp, "test.tsv"), "w", encoding="utf-8") as f:
            f.writelines(f"{s}\t{t}\tui\n" for s, t in zip(sentences, beam_texts))
        with open(os.path.join(tmp, "general_test.tsv"), "w", encoding="utf-8") as f:
            f.write("Open the file\tUne tout autre phrase ici\theldout\n")
        command = [sys.executable, os.path.join(TRAIN_DIR, "eval_alsc.py"), "--data", tmp, model, "--cli", cli]
        run = subprocess.run(command + ["--write"], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        with open(os.path.join(tmp, "en-fr-toy.metrics.json"), encoding="utf-8") as f:
            text = f.read()
        written = json.loads(text)
        beam = written["test_bleu_beam"]
        assert {k: v for k, v in written.items() if k != "test_bleu_beam"} == metrics
        assert text.startswith('{\n  "') and text.endswith("}\n"), "the metrics file's layout changed"
        # the references are the beam's own output: 100 on the UI test
        assert beam["beam_width"] == 5 and beam["length_penalty"] == 1.0, beam
        assert beam["ui_test"] == {"sentences": 3, "refused": 0, "bleu_cased_13a": 100.0, "bleu_lowercase_words": 100.0}, beam
        assert beam["general_test"]["sentences"] == 1 and beam["general_test"]["bleu_cased_13a"] < 100.0, beam
        shown = {**written, "tests": {"ui_test": {"sentences": 3, "bleu_cased_13a": 50.0, "bleu_lowercase_words": 51.0,
                                                  "unk_in_output": 0, "bleu_cased_13a_by_source_length": {},
                                                  "bleu_lowercase_words_by_source_length": {}}}}
        table = card.bleu_tables(shown)
        assert "| test set | sentences | cased BLEU (13a), greedy |" in table and "cased BLEU, beam 5 (length penalty 1) |" in table, table
        assert "| 3 | **50.00** | 51.00 | 0 | **100.00** |" in table, table
        assert "beam" not in card.bleu_tables({**shown, "test_bleu_beam": None}), "a card without beam figures grew a column"
        with_refused = {**shown, "test_bleu_beam": {**beam, "ui_test": {**beam["ui_test"], "refused": 2}}}
        assert "| 3 | **50.00** | 51.00 | 0 | **100.00** (2 refused) |" in card.bleu_tables(with_refused)
        for extra, message in ((["--write", "--beam", "1"], "give --beam 2..8"), (["--beam", "9"], "a width of 1..8")):
            refused_run = subprocess.run(command + extra, capture_output=True, text=True)
            assert refused_run.returncode != 0 and message in refused_run.stderr, (extra, refused_run.stderr)
        lonely = os.path.join(tmp, "lonely.alsc")
        shutil.copy(model, lonely)
        refused_run = subprocess.run(command[:-3] + [lonely, "--cli", cli, "--beam", "5", "--write"], capture_output=True, text=True)
        assert refused_run.returncode != 0 and "has no" in refused_run.stderr, refused_run.stderr


@check
def teacher_eval_scores_greedy_and_beam_into_the_metrics():
    """teacher_eval.py translates a teacher's set with the native CLI greedy
    (--beam 1) and with beam search, scores cased BLEU against the column of
    the language the model translates into, counts a refused sentence, and
    --write adds teacher_bleu to the metrics beside the model (keeping its
    layout), which the card and the catalogue then report (the toy test model)."""
    import json
    import subprocess
    import card
    import teacher_eval
    root = os.path.join(TRAIN_DIR, "..", "..")
    cli = os.path.join(root, "build", "native", "alignscope")
    test_models = os.path.join(root, "build", "test-models")
    assert os.path.exists(cli) and os.path.exists(os.path.join(test_models, "additive.alsc")), \
        "run ./build.sh native and ./build.sh models first"
    sentences = ["Show the new window", "Delete the selected document!", "Open the file", "Print the page now"]
    with tempfile.TemporaryDirectory() as tmp:
        model, metrics = toy_model_with_metrics(tmp, "quantised")
        greedy, refused, _ = teacher_eval.translate(cli, model, sentences, 1, 1.0)
        assert refused == 0 and all(greedy), greedy
        too_long = " ".join(["file"] * 150)
        teacher = os.path.join(tmp, "teacher.tsv")
        with open(teacher, "w", encoding="utf-8") as f:
            f.write("en\tfr\tde\tes\n")
            for source, own in zip(sentences, greedy):  # fr: the engine's own greedy output
                f.write(f"{source}\t{own}\tDas ist es nicht\tNo es eso\n")
            f.write(f"{too_long}\tfichier\tDatei\tarchivo\n")
        meta = os.path.join(tmp, "teacher.meta.json")
        with open(meta, "w", encoding="utf-8") as f:
            json.dump({"word_order_lines": [2, 3]}, f)
        out = os.path.join(tmp, "out.json")
        run = subprocess.run([sys.executable, os.path.join(TRAIN_DIR, "teacher_eval.py"), model, "--teacher", teacher,
                              "--meta", meta, "--cli", cli, "--write", "--json", out], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        with open(out, encoding="utf-8") as f:
            result = json.load(f)[model]
        t = result["teacher_bleu"]
        assert result["target"] == "fr" and result["translations"]["greedy"][:4] == greedy, result
        assert t["sentences"] == 5 and t["refused_greedy"] == t["refused_beam"] == 1, t
        # Four of five references are the greedy output itself; the refused one is empty.
        assert 0 < t["greedy"] < 100 and t["word_order_greedy"] == 100.0, t
        assert t["beam_width"] == 5 and 0 <= t["beam"] <= 100, t
        with open(os.path.join(tmp, "en-fr-toy.metrics.json"), encoding="utf-8") as f:
            text = f.read()
        written = json.loads(text)
        assert written["teacher_bleu"] == t and {k: v for k, v in written.items() if k != "teacher_bleu"} == metrics
        assert text.startswith('{\n "') and not text.endswith("\n"), "the metrics file's layout changed"
        table = card.teacher_table(written)
        assert f"| greedy | **{t['greedy']:.2f}** | 100.00 |" in table and f"**{t['beam']:.2f}**" in table, table
        run = subprocess.run([sys.executable, os.path.join(TRAIN_DIR, "catalogue.py"), "--models", tmp,
                              "--default", "en-fr-toy"], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        with open(os.path.join(tmp, "index.json"), encoding="utf-8") as f:
            entry = json.load(f)["models"][0]
        assert entry["teacherBleu"] == {"greedy": t["greedy"], "beam": t["beam"], "beamWidth": 5}, entry
        # a model trained with --layer-norm is named so under the picker (catalogue.py's layerNorm)
        assert "layerNorm" not in entry, entry
        written["args"] = {**written.get("args", {}), "layer_norm": True}
        with open(os.path.join(tmp, "en-fr-toy.metrics.json"), "w", encoding="utf-8") as f:
            json.dump(written, f)
        run = subprocess.run([sys.executable, os.path.join(TRAIN_DIR, "catalogue.py"), "--models", tmp,
                              "--default", "en-fr-toy"], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        with open(os.path.join(tmp, "index.json"), encoding="utf-8") as f:
            assert json.load(f)["models"][0]["layerNorm"] is True


@check
def report_step_costs_take_turns_in_the_native_bench():
    """report.py's cost per decoder step runs every model in the native bench
    (built by ./build.sh test and ./build.sh zoo), round by round, and names a
    model file the bench cannot run instead of guessing a number."""
    from report import step_costs
    repo = os.path.join(TRAIN_DIR, "..", "..")
    bench = os.path.join(repo, "build", "bench", "native_bench")
    models = {k: os.path.join(repo, "build", "test-models", f"{k}.alsc") for k in ("additive", "dot", "none")}
    assert os.path.exists(bench), f"{bench} is missing: ./build.sh test builds it (./build.sh bench --build-only alone)"
    cost = step_costs(bench, models, rounds=2)
    assert cost.keys() == models.keys() and all(c and c > 0 for c in cost.values()), cost
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        damaged = os.path.join(tmp, "damaged.alsc")
        with open(damaged, "wb") as f:
            f.write(open(models["dot"], "rb").read()[:100])
        try:
            step_costs(bench, {"additive": models["additive"], "dot": damaged}, rounds=1)
            raise AssertionError("a damaged model file was timed")
        except SystemExit as stop:
            assert "damaged.alsc stopped" in str(stop), stop


if __name__ == "__main__":
    failed = 0
    for fn in CHECKS:
        try:
            fn()
            print(f"ok {fn.__name__}")
        except AssertionError as err:
            failed += 1
            print(f"FAIL {fn.__name__}: {err}")
    sys.exit(1 if failed else 0)
