"""Checks of the project's own test sets, models/testsets/ (run by tests/corpus.test.mjs).

teacher.tsv: 200 sentences, four non-empty columns, 3-20 English words, no
sentence twice (nor one of the everyday sentences), at least 50 word-order
cases listed in teacher.meta.json, every line in one category, the length
buckets as the meta says, German starting with a capital, no tab, odd or
doubled whitespace, Spanish questions and exclamations opened with ¿ ¡.
everyday.tsv: the 20 sentences of models/train/everyday_sentences.en.txt in
their order, with references. Each rule is also run on a copy broken on
purpose, so that a check that cannot fail is itself caught.
Prints 'N passed, M failed'; exit status 1 when any failed.
"""
import copy
import json
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "models", "train"))
import testsets  # noqa: E402

META = os.path.join(testsets.TESTSETS, "teacher.meta.json")
EVERYDAY_EN = os.path.join(ROOT, "models", "train", "everyday_sentences.en.txt")
ODD_SPACE = re.compile(r"[^\S ]|  |^ | $")  # any whitespace but a single inner space
BUCKETS = (("3-7", 3, 7), ("8-12", 8, 12), ("13-20", 13, 20))


def text_problems(rows, first_line=2):
    """Rules every test-set row keeps -> ['line N: what'] (empty when all hold)."""
    problems = []
    for line, row in enumerate(rows, first_line):
        for column, text in row.items():
            if ODD_SPACE.search(text):
                problems.append(f"line {line}: {column} has a tab, odd or doubled whitespace: {text!r}")
        if not row["de"][0].isupper():
            problems.append(f"line {line}: German does not start with a capital: {row['de']!r}")
        for close, opening in (("?", "¿"), ("!", "¡")):
            if close in row["es"] and opening not in row["es"]:
                problems.append(f"line {line}: Spanish {close} without {opening}: {row['es']!r}")
        if re.search(r"\S[?!]", row["fr"]):
            problems.append(f"line {line}: French ? and ! take a space before them, as the corpus writes them: "
                            f"{row['fr']!r}")
    return problems


def teacher_problems(rows, meta, everyday):
    """teacher.tsv's own rules, with its meta and the everyday sentences -> problems."""
    problems = text_problems(rows)
    if len(rows) != 200:
        problems.append(f"{len(rows)} sentences, expected 200")
    seen = {testsets.english_key(r["en"]): "everyday.tsv" for r in everyday}
    counts = {name: 0 for name, _, _ in BUCKETS}
    for line, row in enumerate(rows, 2):
        n = len(row["en"].split())
        if not 3 <= n <= 20:
            problems.append(f"line {line}: {n} English words, expected 3-20")
        for name, low, high in BUCKETS:
            if low <= n <= high:
                counts[name] += 1
        key = testsets.english_key(row["en"])
        if key in seen:
            problems.append(f"line {line}: {row['en']!r} is also at {seen[key]}")
        seen[key] = f"line {line}"
    if counts != meta.get("length_buckets"):
        problems.append(f"length buckets {counts}, the meta says {meta.get('length_buckets')}")
    if any(c < 200 // 4 for c in counts.values()):
        problems.append(f"length buckets {counts}: each should hold about a third")
    lines = set(range(2, len(rows) + 2))
    listed = sorted(line for kind in meta.get("word_order", {}).values() for line in kind)
    if listed != meta.get("word_order_lines") or len(set(listed)) != len(listed):
        problems.append("word_order_lines is not the union of the word_order kinds, each line once")
    if len(listed) < 50:
        problems.append(f"{len(listed)} word-order cases listed, expected at least 50")
    if not set(listed) <= lines:
        problems.append(f"word-order lines outside the file: {sorted(set(listed) - lines)}")
    categorised = sorted(line for kind in meta.get("categories", {}).values() for line in kind)
    if categorised != sorted(lines):
        problems.append("the categories do not hold every line exactly once")
    return problems


def main():
    teacher = testsets.read_tsv(testsets.TEACHER)
    everyday = testsets.read_tsv(testsets.EVERYDAY)
    with open(META, encoding="utf-8") as f:
        meta = json.load(f)
    with open(EVERYDAY_EN, encoding="utf-8") as f:
        everyday_en = [line.rstrip("\n") for line in f if line.strip()]
    passed = failed = 0

    def check(name, problems, caught=None):
        """caught=None: no problem expected; else a problem containing `caught` must be found."""
        nonlocal passed, failed
        ok = not problems if caught is None else any(caught in p for p in problems)
        passed, failed = passed + ok, failed + (not ok)
        why = "; ".join(problems[:5]) if caught is None else f"no problem saying {caught!r} in {problems[:5]}"
        print(("ok " if ok else "FAIL ") + name + ("" if ok else ": " + why))

    check("teacher.tsv keeps its rules", teacher_problems(teacher, meta, everyday))
    check("everyday.tsv keeps the text rules", text_problems(everyday))
    check("everyday.tsv is everyday_sentences.en.txt in order",
          [] if [r["en"] for r in everyday] == everyday_en else ["its English column differs"])
    # Broken on purpose: each must be caught.
    broken = copy.deepcopy(teacher)
    broken[3]["de"] = broken[3]["de"].lower()
    check("a lower-case German sentence is caught", teacher_problems(broken, meta, everyday), "capital")
    broken = copy.deepcopy(teacher)
    broken[10]["en"] = teacher[20]["en"].upper()
    check("a duplicate is caught", teacher_problems(broken, meta, everyday), "is also at line 12")
    broken = copy.deepcopy(teacher)
    broken[7]["fr"] = broken[7]["fr"].replace(" ", "\u00a0", 1)
    check("odd whitespace is caught", teacher_problems(broken, meta, everyday), "odd or doubled whitespace")
    broken = copy.deepcopy(teacher)
    broken[1]["en"] = "Hello."
    check("a two-word sentence is caught", teacher_problems(broken, meta, everyday), "1 English words")
    broken_meta = copy.deepcopy(meta)
    broken_meta["word_order"] = {"adjective": meta["word_order"]["adjective"][:10]}
    broken_meta["word_order_lines"] = meta["word_order"]["adjective"][:10]
    check("too few word-order cases are caught", teacher_problems(teacher, broken_meta, everyday), "expected at least 50")
    check("fewer than 200 sentences are caught", teacher_problems(teacher[:199], meta, everyday), "expected 200")
    check("a sentence of everyday.tsv in teacher.tsv is caught",
          teacher_problems(teacher[:-1] + [everyday[2]], meta, everyday), "is also at everyday.tsv")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
