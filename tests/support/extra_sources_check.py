#!/usr/bin/python3
"""Offline checks of models/train/extra_sources.py parsing (no apt, no network).

Builds tiny synthetic Translation-en/-fr indexes, LibreOffice help pages and GIMP
help pages in a temporary directory and checks the pairs produced.
Run: /usr/bin/python3 tests/support/extra_sources_check.py
"""

import gzip
import os
import subprocess
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "models", "train"))

import extra_sources as es  # noqa: E402
import dictionary_sources as ds  # noqa: E402
import bible_sources as bs  # noqa: E402

TRANSLATION_EN = """\
Package: alpha
Description-md5: 11111111111111111111111111111111
Description-en: fast text editor
 Alpha is a small text editor. It is
 very fast.
 .
 It supports plugins.

Package: beta
Description-md5: 22222222222222222222222222222222
Description-en: image viewer
 Beta shows images.
 .
 Features:
  * zoom
  * rotate
 .
 This package contains the binary.

Package: gamma
Description-md5: 33333333333333333333333333333333
Description-en: sound mixer
 Gamma mixes sound.
 .
 Second paragraph.

Package: delta
Description-md5: 44444444444444444444444444444444
Description-en: only in English
 Nobody translated this.

Package: epsilon
Description-md5: 55555555555555555555555555555555
Description-en: GNU Emacs
 Same &amp; same.
"""

TRANSLATION_FR = """\
Package: beta
Description-md5: 22222222222222222222222222222222
Description-fr: visionneuse d'images
 Beta affiche des
 images.
 .
 Fonctionnalités :
  * zoom
  * rotation
 .
 Ce paquet contient le binaire.

Package: alpha
Description-md5: 11111111111111111111111111111111
Description-fr: éditeur de texte rapide
 Alpha est un petit éditeur de texte. Il est très rapide.
 .
 Il gère les greffons.

Package: gamma
Description-md5: 33333333333333333333333333333333
Description-fr: mélangeur de son
 Gamma mélange le son. Deuxième paragraphe fusionné.

Package: epsilon
Description-md5: 55555555555555555555555555555555
Description-fr: GNU Emacs
 Pareil &amp; pareil.

Package: zeta
Description-md5: 99999999999999999999999999999999
Description-fr: sans original
 Pas d'anglais.
"""

LO_EN = """<!DOCTYPE html><html lang="en-US"><head><title>Advanced</title>
<script>var x = "<p id='par_id0'>no</p>";</script></head><body>
<h1 id="par_idN10558" dir="auto">Advanced</h1>
<p id="par_idN10568" class="paragraph">Specifies the <span class="emph">Java</span>
   options &amp; features.</p>
<p class="embedded">Choose <span class="switchinline"><span hidden="true" class="MAC">
<span class="emph">LibreOffice - Preferences</span></span><span hidden="true" id="default1">
<span class="emph">Tools - Options</span></span></span> - Advanced.</p>
<p id="hd_id3150">Choose <span class="switchinline"><span hidden="true" class="MAC">LibreOffice - Preferences</span><span hidden="true" id="d2">Tools - Options</span></span> now.</p>
<p id="par_id200" class="code">x = 1</p>
<p id="par_id300" class="paragraph">Only in English.</p>
<p id="par_id400">Same<br>text</p>
<p id="par_id500">Repeated</p>
<div><p id="par_id500">Repeated second</p></div>
</body></html>
"""

LO_FR = """<!DOCTYPE html><html lang="fr"><head><title>Avancé</title></head><body>
<p id="par_id500">Répété</p>
<h1 id="par_idN10558" dir="auto">Avancé</h1>
<p id="par_idN10568" class="paragraph">Spécifie les options <span class="emph">Java</span> et fonctionnalités.</p>
<p id="hd_id3150">Choisissez <span class="switchinline"><span hidden="true" class="MAC">LibreOffice - Préférences</span><span hidden="true" id="d2">Outils - Options</span></span> maintenant.</p>
<p id="par_id200" class="code">x = 1 (fr)</p>
<p id="par_id400">Same text</p>
<p id="par_id500">Répété deuxième</p>
</body></html>
"""

GIMP_EN = """<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Crop</title></head><body>
<div class="navheader"><table><tr><th>4.4. Crop</th></tr></table></div>
<div class="sect2"><h3 class="title"><a id="gimp-tool-crop"></a>4.4. Crop</h3>
<p>
    The Crop Tool is used to crop an image. Hold the
    <span class="keycap"><strong>Shift</strong></span> key.
  </p>
<div class="itemizedlist"><ul><li><p>First item.</p></li><li><p>Second item.</p></li></ul></div>
<pre class="programlisting">gimp --batch</pre>
<table><tr><td>Cell&nbsp;one</td><td>GIMP</td></tr></table>
</div>
<div class="navfooter"><p>Home</p></div>
</body></html>
"""

GIMP_FR = """<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Découpage</title></head><body>
<div class="navheader"><table><tr><th>4.4. Découpage</th></tr></table></div>
<div class="sect2"><h3 class="title"><a id="gimp-tool-crop"></a>4.4. Découpage</h3>
<p>L’outil de découpage sert à découper une image. Maintenez la touche
    <span class="keycap"><strong>Maj</strong></span>.</p>
<div class="itemizedlist"><ul><li><p>Premier élément.</p></li><li><p>Deuxième élément.</p></li></ul></div>
<pre class="programlisting">gimp --batch</pre>
<table><tr><td>Cellule un</td><td>GIMP</td></tr></table>
</div>
<div class="navfooter"><p>Accueil</p></div>
</body></html>
"""

# Same page with one extra paragraph in French: structure differs, must be skipped.
GIMP_EN_MISMATCH = "<html><body><p>One.</p><p>Two.</p></body></html>"
GIMP_FR_MISMATCH = "<html><body><p>Un.</p><p>Ajout.</p><p>Deux.</p></body></html>"


def write(path, text, compress=False):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if compress:
        with gzip.open(path, "wt", encoding="utf-8") as handle:
            handle.write(text)
    else:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)


def check_descriptions(tmp):
    en_path = os.path.join(tmp, "lists", "x_dists_bookworm_main_i18n_Translation-en")
    fr_path = os.path.join(tmp, "lists", "x_dists_bookworm_main_i18n_Translation-fr.gz")
    write(en_path, TRANSLATION_EN)
    write(fr_path, TRANSLATION_FR, compress=True)
    assert es._translation_files(os.path.join(tmp, "lists"), "fr") == [fr_path]
    stats = {}
    pairs = es.parse_description_files([en_path], [fr_path], "fr", stats)
    expected = [
        ("image viewer", "visionneuse d'images"),
        ("Beta shows images.", "Beta affiche des images."),
        ("This package contains the binary.", "Ce paquet contient le binaire."),
        ("fast text editor", "éditeur de texte rapide"),
        ("Alpha is a small text editor. It is very fast.",
         "Alpha est un petit éditeur de texte. Il est très rapide."),
        ("It supports plugins.", "Il gère les greffons."),
        ("sound mixer", "mélangeur de son"),  # paragraph counts differ: long text skipped
        ("Same &amp; same.", "Pareil &amp; pareil."),  # not HTML: kept verbatim
    ]
    assert pairs == expected, pairs
    assert stats["records_matched"] == 4 and stats["records_unmatched"] == 1, stats
    assert stats["paragraph_count_mismatch"] == 1 and stats["paragraphs_skipped_list"] == 1, stats
    assert stats["dropped_identical"] == 1, stats  # "GNU Emacs"


def check_libreoffice(tmp):
    en_root = os.path.join(tmp, "lo", "en-US")
    fr_root = os.path.join(tmp, "lo", "fr")
    write(os.path.join(en_root, "text", "shared", "optionen", "java.html"), LO_EN)
    write(os.path.join(fr_root, "text", "shared", "optionen", "java.html"), LO_FR)
    # same id in another file must not pair with java.html
    write(os.path.join(en_root, "text", "shared", "other.html"),
          '<p id="par_idN10558">Other file</p>')
    write(os.path.join(fr_root, "text", "shared", "other.html"),
          '<p id="par_idN10558">Autre fichier</p>')
    stats = {}
    pairs = es.pair_libreoffice_trees(en_root, fr_root, stats)
    expected = [
        ("Advanced", "Avancé"),
        ("Specifies the Java options & features.",
         "Spécifie les options Java et fonctionnalités."),
        ("Choose Tools - Options now.", "Choisissez Outils - Options maintenant."),
        ("Repeated", "Répété"),
        ("Repeated second", "Répété deuxième"),
        ("Other file", "Autre fichier"),
    ]
    assert pairs == expected, pairs
    assert stats["files_paired"] == 2 and stats["dropped_identical"] == 1, stats  # par_id400


def check_gimp(tmp):
    en_root = os.path.join(tmp, "gimp", "en")
    fr_root = os.path.join(tmp, "gimp", "fr")
    write(os.path.join(en_root, "gimp-tool-crop.html"), GIMP_EN)
    write(os.path.join(fr_root, "gimp-tool-crop.html"), GIMP_FR)
    write(os.path.join(en_root, "mismatch.html"), GIMP_EN_MISMATCH)
    write(os.path.join(fr_root, "mismatch.html"), GIMP_FR_MISMATCH)
    write(os.path.join(en_root, "only-en.html"), "<p>Lonely.</p>")
    stats = {}
    pairs = es.pair_gimp_trees(en_root, fr_root, stats)
    expected = [
        ("Crop", "Découpage"),
        ("The Crop Tool is used to crop an image. Hold the Shift key.",
         "L’outil de découpage sert à découper une image. Maintenez la touche Maj."),
        ("First item.", "Premier élément."),
        ("Second item.", "Deuxième élément."),
        ("Cell one", "Cellule un"),
    ]
    assert pairs == expected, pairs
    assert stats["pages_compared"] == 2 and stats["pages_same_structure"] == 1, stats


def check_units_text():
    units = es.gimp_units("<div><p>a<b>b</b></p>c<p>x</p><dl><dt>T</dt><dd><p>D</p></dd></dl></div>")
    assert units == [("p", "ab"), ("p", "x"), ("dt", "T"), ("dd", ""), ("p", "D")], units
    lo = es.libreoffice_units('<p id="par_id1">A<div>B</div>C</p><h2 id="hd_id2">H &lt;x&gt;</h2>'
                              '<p id="other">no</p>')
    assert lo == {("par_id1", 0): "A B C", ("hd_id2", 0): "H <x>"}, lo


def check_deterministic(tmp):
    a = es.pair_gimp_trees(os.path.join(tmp, "gimp", "en"), os.path.join(tmp, "gimp", "fr"))
    b = es.pair_gimp_trees(os.path.join(tmp, "gimp", "en"), os.path.join(tmp, "gimp", "fr"))
    assert a == b and a


def _dictd_number(value):
    digits = ds._DICTD_B64
    out = ""
    while True:
        out = digits[value % 64] + out
        value //= 64
        if not value:
            return out


def write_dictd(tmp, entries):
    """A tiny dictd pair (.index, .dict.dz) of made-up entries: [(headword, body)]."""
    body, index = b"", []
    for headword, text in entries:
        data = f"{headword} /x/\n{text}\n".encode("utf-8")
        index.append(f"{headword}\t{_dictd_number(len(body))}\t{_dictd_number(len(data))}")
        body += data
    index_path, dict_path = os.path.join(tmp, "toy.index"), os.path.join(tmp, "toy.dict.dz")
    write(index_path, "00-database-info\tA\tB\n" + "\n".join(index) + "\n")
    with open(dict_path, "wb") as handle:
        handle.write(gzip.compress(body))
    return index_path, dict_path


def check_freedict(tmp):
    index_path, dict_path = write_dictd(tmp, [
        ("lamp", "lampe <fem>"), ("kettle", "1. bouilloire\n2. chaudron"), ("garden", "jardin, potager"),
        ("pear", "poire\n see: {pears}"), ("give sth.", "donner qch"), ("radio", "radio")])
    pairs, counts = ds.read_freedict_files(index_path, dict_path)
    assert pairs == [("lamp", "lampe"), ("garden", "jardin"), ("pear", "poire")], pairs
    assert counts["entries"] == 6 and counts["several_senses"] == 1 and counts["unusable"] == 1, counts
    assert counts["dropped_identical"] == 1, counts
    # A body that is not gzip, and an index of another format: a clear error, never an empty source.
    with open(dict_path, "wb") as handle:
        handle.write(b"not gzip at all")
    try:
        ds.read_freedict_files(index_path, dict_path)
        raise AssertionError("a damaged .dict.dz was read")
    except RuntimeError as error:
        assert "cannot be read" in str(error) and "toy.dict.dz" in str(error), error
    index_path, dict_path = write_dictd(tmp, [("lamp", "lampe")])
    write(index_path, "".join(f"word{i} and no offsets\n" for i in range(50)))
    try:
        ds.read_freedict_files(index_path, dict_path)
        raise AssertionError("a foreign index was read")
    except RuntimeError as error:
        assert "50 of 50 entries unreadable" in str(error), error


def check_ding(tmp):
    text = "\n".join([
        "# a made-up Ding file",
        "Lampe {f} [elektr.] | Lampen {pl} :: lamp | lamps",
        "Gartentor {n}; Gartenpforte {f} :: garden gate; wicket",
        "aufstehen {vi} :: to get up",
        "Der Zug ist schon weg. :: The train has already gone.",
        "etw. holen :: to fetch sth.",
        "Eins | Zwei :: one",
        "Die Kanne steht auf dem Tisch in der Küche neben dem Brot. :: The jug is on the kitchen table beside the bread",
    ]) + "\n"
    sentences, phrases, counts = ds.parse_ding(text)
    assert sentences == [("The train has already gone.", "Der Zug ist schon weg.")], sentences
    assert phrases == [("lamp", "Lampe"), ("lamps", "Lampen"), ("garden gate", "Gartentor"), ("get up", "aufstehen")], phrases
    assert counts["entries"] == 7 and counts["unreadable"] == 1 and counts["unusable"] == 2, counts
    path = os.path.join(tmp, "de-en")
    write(path, "just some text\nwith no separators\n")
    try:
        ds.read_ding_file(path)
        raise AssertionError("a foreign file was read as Ding")
    except RuntimeError as error:
        assert "2 of 2 entries unreadable" in str(error), error
    with open(path, "wb") as handle:
        handle.write(b"\xff\xfe broken")
    try:
        ds.read_ding_file(path)
        raise AssertionError("an undecodable file was read")
    except RuntimeError as error:
        assert "cannot be read" in str(error), error
    try:
        ds.ding_sentence_pairs("fr", tmp)
        raise AssertionError("Ding gave French pairs")
    except RuntimeError as error:
        assert "German only" in str(error), error


TOY_BIDIX = """<?xml version="1.0" encoding="UTF-8"?>
<dictionary>
  <alphabet/>
  <sdefs>
    <sdef n="n"/><sdef n="vblex"/><sdef n="num"/><sdef n="m"/><sdef n="f"/><sdef n="det"/>
  </sdefs>
  <section id="main" type="standard">
    <e><p><l>lamp<s n="n"/></l><r>lámpara<s n="n"/><s n="f"/></r></p></e>
    <e><p><l>book<s n="n"/></l><r>libro<s n="n"/><s n="m"/></r></p></e>
    <e><p><l>book<s n="vblex"/></l><r>reservar<s n="vblex"/></r></p></e>
    <e><p><l>station<s n="n"/></l><r>estación<s n="n"/><s n="f"/></r></p></e>
    <e><p><l>station<s n="n"/></l><r>emisora<s n="n"/><s n="f"/></r></p></e>
    <e><p><l>prison<b/>camp<s n="n"/></l><r>campamento<g><b/>para<b/>prisioneros</g><s n="n"/><s n="m"/></r></p></e>
    <e><p><l>the<s n="det"/></l><r>el<s n="det"/></r></p></e>
    <e><p><l>radio<s n="n"/></l><r>radio<s n="n"/><s n="f"/></r></p></e>
  </section>
  <section id="numbers" type="inconditional">
    <e><re>[0-9]+</re><p><l><s n="num"/></l><r><s n="num"/></r></p></e>
  </section>
</dictionary>
"""


def check_apertium(tmp):
    """A made-up Apertium bilingual dictionary, compiled by lttoolbox's lt-comp as the
    package's are, read back through lt-print: single-translation lemmas only."""
    dix, binary = os.path.join(tmp, "toy.dix"), os.path.join(tmp, "toy.autobil.bin")
    write(dix, TOY_BIDIX)
    compiled = subprocess.run(["lt-comp", "lr", dix, binary], capture_output=True, text=True)
    assert compiled.returncode == 0, compiled.stderr
    pairs, counts = ds.read_apertium_chain([binary])
    # book: a noun and a verb; station: two nouns; the: a determiner; radio: the same word;
    # the numbers' pattern (a cycle through digits) is not walked.
    assert pairs == [("lamp", "lámpara"), ("prison camp", "campamento para prisioneros")], pairs
    assert counts["entries"] == 8 and counts["several_senses"] == 2 and counts["unusable"] == 1, counts
    assert counts["dropped_identical"] == 1, counts
    # Through a second dictionary (French's pivot through Spanish): a lemma goes on only where the
    # second gives its translation one translation of the same part of speech.
    pivot_dix, pivot = os.path.join(tmp, "pivot.dix"), os.path.join(tmp, "pivot.autobil.bin")
    write(pivot_dix, TOY_BIDIX.replace(TOY_BIDIX[TOY_BIDIX.index('<section id="main"'):TOY_BIDIX.index("</dictionary>")], """<section id="main" type="standard">
    <e><p><l>lámpara<s n="n"/></l><r>lampe<s n="n"/><s n="f"/></r></p></e>
    <e><p><l>campamento<b/>para<b/>prisioneros<s n="vblex"/></l><r>camp<s n="vblex"/></r></p></e>
  </section>
"""))
    compiled = subprocess.run(["lt-comp", "lr", pivot_dix, pivot], capture_output=True, text=True)
    assert compiled.returncode == 0, compiled.stderr
    pairs, counts = ds.read_apertium_chain([binary, pivot])
    assert pairs == [("lamp", "lampe")], pairs
    assert counts["no_pivot"] == 2 and counts["entries"] == 10, counts  # prison camp (a verb there), radio (absent)
    # A file that is not a transducer, a missing lt-print, a language without a dictionary: named errors.
    with open(binary, "wb") as handle:
        handle.write(bytes(range(256)) * 4)
    expect_named_errors(((("lt-print cannot read it", "toy.autobil.bin"), lambda: ds.read_apertium_chain([binary])),
                         (("no Apertium English bilingual dictionary for 'de'",), lambda: ds.apertium_pairs("de", tmp)),
                         (("lt-print cannot read it", "toy.autobil.bin"), lambda: ds.read_apertium_chain([pivot, binary]))))
    expect_named_errors(((("lt-print (lttoolbox-dev) is needed", "./build.sh deps"), lambda: ds.read_apertium_chain([binary])),),
                        path="/nonexistent")


def expect_named_errors(cases, path=None):
    """Each (phrases, action) of CASES raises a RuntimeError whose message holds every
    phrase; with PATH, the actions run with that PATH (a tool missing from it)."""
    saved = os.environ["PATH"]
    if path is not None:
        os.environ["PATH"] = path
    try:
        for phrases, action in cases:
            try:
                action()
                raise AssertionError(f"no error: {phrases[0]}")
            except RuntimeError as error:
                assert all(p in str(error) for p in phrases), (phrases, str(error))
    finally:
        os.environ["PATH"] = saved


def make_sword_module(root, module, verses):
    """A made-up zText Bible module at ROOT (its mods.d/ and modules/), written by
    libsword-utils' imp2vs from {key: OSIS markup}, as the Debian packages ship them."""
    data = os.path.join(root, "modules", "texts", "ztext", module.lower())
    os.makedirs(data, exist_ok=True)
    os.makedirs(os.path.join(root, "mods.d"), exist_ok=True)
    imp = os.path.join(root, f"{module}.imp")
    with open(imp, "w", encoding="utf-8") as f:
        f.write("".join(f"$$${key}\n{text}\n" for key, text in verses.items()))
    made = subprocess.run(["imp2vs", imp, "-z", "z", "-o", data + "/"], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    with open(os.path.join(root, "mods.d", f"{module.lower()}.conf"), "w", encoding="utf-8") as f:
        f.write(f"[{module}]\nDataPath=./modules/texts/ztext/{module.lower()}/\nModDrv=zText\nSourceType=OSIS\n"
                "Encoding=UTF-8\nCompressType=ZIP\nBlockType=BOOK\nVersification=KJV\n")


def check_sword_bible(tmp):
    """Two made-up SWORD modules (English, Spanish) read through mod2imp and paired verse by
    verse: notes and editors' headings dropped, a canonical title kept, 1909 spelling brought
    to today's; a key only one side has is counted; a damaged module is named, not empty."""
    # Genesis 1-4 as the KJV versification counts them: 31, 25, 24 and 26 verses
    genesis = [(chapter, verse) for chapter, last in ((1, 31), (2, 25), (3, 24), (4, 26)) for verse in range(1, last + 1)]
    english = {f"Genesis {c}:{v}": f"<w lemma='x'>Verse</w> {c} {v} in English." for c, v in genesis}
    spanish = {f"Genesis {c}:{v}": f"<w lemma='x'>Versículo</w> {c} {v} en castellano." for c, v in genesis}
    english["Genesis 1:1"] = ('<w lemma="strong:H7225">In</w> the beginning, <w>God</w><note placement="foot">'
                              '<reference type="annotateRef">1:1 </reference>a &amp; note</note><w>created</w> it.')
    spanish["Genesis 1:1"] = "<w>EN el principio</w> crió Dios á todo: y <w>JEHOVÁ</w> lo vió, y fué bueno ó malo."
    english["Genesis 1:2"] = ('<title type="x-section">A heading</title><title canonical="true" type="psalm">'
                              'A Psalm.</title> <l level="1"/>Line one;<l level="2"/>line two .')
    spanish["Genesis 1:2"] = "Salmo. Línea uno; línea dos."
    del spanish["Genesis 4:26"]  # a verse one versification has and the other lacks
    english["Genesis 4:25"] = '<note placement="foot">only a note</note>'
    make_sword_module(os.path.join(tmp, "sword-en"), "TestEnglish", english)
    make_sword_module(os.path.join(tmp, "sword-es"), "TestSpanish", spanish)
    pairs, counts = bs.read_module_pair(os.path.join(tmp, "sword-en"), "TestEnglish",
                                        os.path.join(tmp, "sword-es"), "TestSpanish", "es")
    assert pairs[0] == ("In the beginning, God created it.",
                        "En el principio crió Dios a todo: y Jehová lo vio, y fue bueno o malo."), pairs[0]
    assert pairs[1] == ("A Psalm. Line one; line two.", "Salmo. Línea uno; línea dos."), pairs[1]
    assert pairs[2] == ("Verse 1 3 in English.", "Versículo 1 3 en castellano."), pairs[2]
    assert counts["english_verses"] == 106 and counts["entries"] == 105, counts
    assert counts["only_english"] == 1 and counts["empty"] == 1 and counts["paired"] == 104, counts
    assert len(pairs) == 104 and counts["pairs"] == 104, counts
    # a damaged module: its compressed text cut short
    with open(os.path.join(tmp, "sword-es", "modules", "texts", "ztext", "testspanish", "ot.bzz"), "r+b") as f:
        f.truncate(40)
    expect_named_errors(
        ((("TestSpanish in", "verses read", "skipped"), lambda: bs.read_module_pair(
            os.path.join(tmp, "sword-en"), "TestEnglish", os.path.join(tmp, "sword-es"), "TestSpanish", "es")),
         (("NoSuchModule in", "skipped"), lambda: bs.read_module(os.path.join(tmp, "sword-en"), "NoSuchModule")),
         (("no SWORD Bible pair for 'fr'", "only es"), lambda: bs.sword_bible_pairs("fr", tmp))))
    expect_named_errors(((("mod2imp (libsword-utils) is needed", "./build.sh deps"),
                          lambda: bs.read_module(os.path.join(tmp, "sword-en"), "TestEnglish")),), path="/nonexistent")


def main():
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, check in (("descriptions", lambda: check_descriptions(tmp)),
                            ("libreoffice", lambda: check_libreoffice(tmp)),
                            ("gimp", lambda: check_gimp(tmp)),
                            ("units_text", check_units_text),
                            ("freedict", lambda: check_freedict(tmp)),
                            ("ding", lambda: check_ding(tmp)),
                            ("apertium", lambda: check_apertium(tmp)),
                            ("sword_bible", lambda: check_sword_bible(tmp)),
                            ("deterministic", lambda: check_deterministic(tmp))):
            try:
                check()
                passed += 1
                print(f"ok   {name}")
            except Exception:  # noqa: BLE001 - report every failure
                failed += 1
                print(f"FAIL {name}")
                traceback.print_exc()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
