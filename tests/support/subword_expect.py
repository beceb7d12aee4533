"""What models/train/subword.py makes of texts, for tests/subword.test.mjs.

  /usr/bin/python3 tests/support/subword_expect.py CHECKPOINT_OR_SUBWORDS_JSON < texts.json

stdin: a JSON list of strings; stdout: a JSON list, per text, of
{ids, spans (UTF-8 byte offsets, as the C engine reports them), words}.
With --tsv FILE... instead of stdin, the English column of corpus TSV files.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models", "train"))
import subword  # noqa: E402


def load_source_segmenter(path):
    if path.endswith(".json"):
        return subword.load(path)[0]
    from checkpoints import load_own  # (imports PyTorch: only for a checkpoint)
    segmentation = load_own(path)["segmentation"]
    return subword.Segmenter.from_json(segmentation["source"])


def byte_offsets(text):
    """Code point index -> UTF-8 byte offset, for every index 0..len(text)."""
    out, at = [0], 0
    for ch in text:
        at += len(ch.encode("utf-8", errors="surrogatepass"))
        out.append(at)
    return out


def main():
    segmenter = load_source_segmenter(sys.argv[1])
    if len(sys.argv) > 2 and sys.argv[2] == "--tsv":
        texts = []
        for path in sys.argv[3:]:
            with open(path, encoding="utf-8") as f:
                texts += [line.split("\t", 1)[0] for line in f if line.strip()]
    else:
        texts = json.load(sys.stdin)
    results = []
    for text in texts:
        offsets = byte_offsets(text)
        pieces = segmenter.encode(text)
        results.append({"text": text, "ids": [p[0] for p in pieces],
                        "spans": [[offsets[p[1]], offsets[p[2]]] for p in pieces],
                        "words": [p[3] for p in pieces]})
    json.dump(results, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
