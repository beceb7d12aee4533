"""Reference tokeniser: the exact rules the C engine (src/tokenizer.c) implements.

Both sides must agree byte for byte, so this deliberately does NOT use
str.lower() or unicodedata: the rules are a small fixed table that C can copy.
The rules are specified in models/FORMAT.md, section "Text to tokens".
"""

# Characters folded to a plain ASCII form before anything else.
_FOLD = {
    0x00A0: " ", 0x2007: " ", 0x2009: " ", 0x202F: " ", 0x200B: " ",
    0x2018: "'", 0x2019: "'", 0x201B: "'", 0x02BC: "'", 0x0060: "'", 0x00B4: "'",
    0x201C: '"', 0x201D: '"', 0x201E: '"', 0x00AB: '"', 0x00BB: '"',
    0x2026: "...", 0x2013: "-", 0x2014: "-", 0x2212: "-",
}


def fold_char(cp):
    """One code point -> its folded, lower-cased text (may be several chars)."""
    if cp in _FOLD:
        return _FOLD[cp]
    if cp < 0x20 or cp == 0x7F:
        return " "  # controls (NUL, tab, newline...) separate words
    if 0x41 <= cp <= 0x5A:
        return chr(cp + 0x20)
    if 0xC0 <= cp <= 0xDE and cp != 0xD7:
        return chr(cp + 0x20)
    if cp == 0x0152:
        return "\u0153"
    if cp == 0x0178:
        return "\u00ff"
    return chr(cp)


def is_word_char(cp):
    """Letters, digits and everything non-ASCII that is not punctuation/symbol."""
    if cp < 0x80:
        return (0x30 <= cp <= 0x39) or (0x61 <= cp <= 0x7A) or (0x41 <= cp <= 0x5A)
    if cp < 0xC0 or cp in (0xD7, 0xF7):
        return False
    if 0x2000 <= cp <= 0x2BFF or 0x3000 <= cp <= 0x303F:
        return False
    return True


def tokenize(text):
    """Text -> list of (token, start, end) with character offsets into `text`.

    Runs of word characters form one token; every other non-space character is
    a token of its own; spaces (after folding) separate tokens. A folded
    character that expands (… -> ...) yields one token per resulting char,
    each spanning the original character.
    """
    tokens = []
    current, start = [], 0
    for index, ch in enumerate(text):
        for folded in fold_char(ord(ch)):
            cp = ord(folded)
            if is_word_char(cp):
                if not current:
                    start = index
                current.append(folded)
                continue
            if current:
                tokens.append(("".join(current), start, index))
                current = []
            if folded != " ":
                tokens.append((folded, index, index + 1))
    if current:
        tokens.append(("".join(current), start, len(text)))
    return tokens


def words(text):
    """Just the token strings."""
    return [token for token, _, _ in tokenize(text)]


# Detokenisation (display only): no space before these, no space after those.
_NO_SPACE_BEFORE = set(",.)]}%'-/")
_NO_SPACE_AFTER = set("([{'-/")


def detokenize(tokens):
    out = ""
    for i, token in enumerate(tokens):
        if i > 0 and token not in _NO_SPACE_BEFORE and tokens[i - 1] not in _NO_SPACE_AFTER:
            out += " "
        out += token
    return out


if __name__ == "__main__":
    import sys
    for line in sys.stdin:
        print(" ".join(words(line.rstrip("\n"))))
