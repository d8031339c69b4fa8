"""bertedu.training.evalsets: one reader of the held-out files, shared by the model's scores and the baselines."""

from __future__ import annotations

import pytest

from bertedu.course.baselines import NgramFiller, ngram_mlm_accuracy, read_masked_word_items, read_nsp_items
from bertedu.training.evalsets import (
    MaskedWordItem,
    NSPItem,
    has_one_mask,
    load_masked_word_items,
    load_nsp_items,
    split_answers,
)
from bertedu.training.finetune_data import SEQUENCE_CLASSIFICATION, ClassificationExample, read_examples


def test_a_byte_order_mark_is_dropped(tmp_path):
    path = tmp_path / "nsp.tsv"
    path.write_bytes(
        "sentence_a\tsentence_b\tlabel\nthe cat sits\tthe sun shines\tNotNext\n".encode("utf-8-sig")
    )
    assert load_nsp_items(path) == [NSPItem("the cat sits", "the sun shines", 1)]
    assert read_nsp_items(path) == [("the cat sits", "the sun shines", 1)]


@pytest.mark.parametrize(
    ("sentence", "ok"),
    [
        ("the cat drinks [MASK]", True),
        ("[MASK] cat", True),
        ("the cat drinks milk", False),
        ("the [MASK] drinks [MASK]", False),
        ("the cat drinks[MASK]", False),  # not a word of its own
        ("the cat drinks [mask]", False),  # the special token is upper-case
    ],
)
def test_one_mask_rule_is_the_same_for_model_and_baselines(tmp_path, sentence, ok):
    assert has_one_mask(sentence) is ok
    path = tmp_path / "mlm.tsv"
    path.write_text(f"sentence\tanswers\n{sentence}\tmilk\n", encoding="utf-8")
    filler = NgramFiller(["the cat drinks milk"])
    if ok:
        assert load_masked_word_items(path) == [MaskedWordItem(sentence, ("milk",))]
        assert read_masked_word_items(path) == [(sentence, ("milk",))]
        assert ngram_mlm_accuracy(filler, [(sentence, "milk")], k=1)["n"] == 1
        return
    for read in (load_masked_word_items, read_masked_word_items):
        with pytest.raises(ValueError, match="exactly one \\[MASK\\]"):
            read(path)
    with pytest.raises(ValueError, match="exactly one \\[MASK\\]"):
        ngram_mlm_accuracy(filler, [(sentence, "milk")], k=1)


def test_split_answers():
    assert split_answers("chases | Catches||") == ("chases", "catches")
    assert split_answers(["Milk", " ", "water "]) == ("milk", "water")


def test_the_fine_tuning_files_are_read_by_the_same_reader(tmp_path):
    # one TSV reader: a byte-order mark, blank lines and stray spaces are handled as for the held-out files
    path = tmp_path / "train.tsv"
    path.write_bytes("Sentence\tlabel\n\nthe cat sits \t plausible\n".encode("utf-8-sig"))
    assert read_examples(SEQUENCE_CLASSIFICATION, path) == [
        ClassificationExample("the cat sits", "plausible")
    ]
    path.write_text(
        "sentence\tlabel\nthe cat sits\tplausible\nthe sun\tshines\tplausible\n", encoding="utf-8"
    )
    with pytest.raises(ValueError, match=r"train.tsv, line 3: expected 2 tab-separated fields .*one tab"):
        read_examples(SEQUENCE_CLASSIFICATION, path)
    path.write_text("", encoding="utf-8")
    with pytest.raises(ValueError, match="is empty; it needs a header line"):
        read_examples(SEQUENCE_CLASSIFICATION, path)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        read_examples(SEQUENCE_CLASSIFICATION, tmp_path / "missing.tsv")
