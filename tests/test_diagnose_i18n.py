"""bertedu.training.diagnose speaks the student's language: its reports are templates of bertedu.language.msg
(the ground floor, which the training layer imports like any other). Every finding in Chinese with the English
report's numbers; English otherwise; the catalog test sees the templates. (That the training layer speaks Chinese
whatever was imported first: tests/test_language_room.py.)"""

from __future__ import annotations

import re
from collections import Counter
from types import SimpleNamespace

import pytest
import torch
from test_i18n_ui import ROOT, template_calls, untranslated

from bertedu import language as i18n
from bertedu.training.diagnose import LN2, diagnose, reference_band

CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
NUMBER = re.compile(r"\d+(?:\.\d+)?")


@pytest.fixture(autouse=True)
def english_by_default(monkeypatch):
    """Every test starts in English (no BERTEDU_LANG, no set_language) and leaves it so."""
    monkeypatch.delenv("BERTEDU_LANG", raising=False)
    i18n.set_language(None)
    yield
    i18n.set_language(None)


# Made-up curves, a made-up batch and model: every finding of the diagnosis, in milliseconds


def flat_curves(n: int = 20, mlm: float = 4.0, nsp: float = LN2) -> tuple[list[float], list[float]]:
    return [mlm - 0.02 * t + 0.01 * (-1) ** t for t in range(n)], [nsp + 0.005 * (-1) ** t for t in range(n)]


BAND = reference_band(lambda seed: flat_curves(20, 4.0 + 0.05 * seed), seeds=(0, 1, 2))
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]  # ids 0-4, as in the course's vocabularies


class Tokenizer:
    pad_token_id, vocab_size, all_special_ids = 0, 20, [0, 1, 2, 3, 4]

    def convert_ids_to_tokens(self, ids):
        return [SPECIALS[i] if i < 5 else f"w{i}" for i in ids]


def batch(bugs: bool) -> dict[str, torch.Tensor]:
    """Two pairs of 4 real tokens and 2 [PAD]; with ``bugs``: a label at [PAD], a [CLS] label, a mask of 1 on [PAD]."""
    ids = torch.tensor([[2, 10, 11, 3, 0, 0], [2, 12, 13, 3, 0, 0]])  # (B, T)
    mask = (ids != 0).long()
    labels = torch.full_like(ids, -100)
    labels[:, 1] = ids[:, 1]
    if bugs:
        labels[0, 0], labels[0, 4], mask[1, 4] = 2, 0, 1
    return {
        "input_ids": ids,
        "attention_mask": mask,
        "labels": labels,
        "next_sentence_label": torch.tensor([0, 1]),
    }


class NotNextIgnoringTheMask(torch.nn.Module):
    """Every token sees every other (the mask is dropped), and every pair is NotNext."""

    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        logits = input_ids.float().sum(1, keepdim=True).expand(input_ids.shape).unsqueeze(-1)  # (B, T, 1)
        nsp = torch.tensor([[-5.0, 5.0]]).expand(input_ids.size(0), 2)  # (B, 2)
        return SimpleNamespace(prediction_logits=logits, seq_relationship_logits=nsp)


def nan_at_13():
    mlm, nsp = flat_curves(mlm=4.05)
    mlm[12] = float("nan")
    return mlm, nsp


mlm, nsp = flat_curves(mlm=4.05)
CASES = {  # what diagnose finds -> how to get it
    ("learning_rate_too_high",): lambda: diagnose([x + 1.5 for x in mlm], nsp, BAND),
    ("learning_rate_too_high", "rose"): lambda: diagnose(mlm + [6.0] * 10, nsp + [LN2] * 10, BAND),
    ("learning_rate_too_high", "nan"): lambda: diagnose(*nan_at_13(), BAND),
    ("nsp_ignores_isnext",): lambda: diagnose(mlm, [0.01] * len(nsp), BAND),
    ("mlm_below_band",): lambda: diagnose([x - 1.5 for x in mlm], nsp, BAND),
    ("loss_over_pad", "special_tokens_masked", "padding_not_masked"): lambda: diagnose(
        mlm, nsp, BAND, batch=batch(bugs=True), tokenizer=Tokenizer()
    ),
    ("padding_not_masked", "nsp_ignores_isnext", "model"): lambda: diagnose(
        mlm, nsp, BAND, batch=batch(bugs=False), model=NotNextIgnoringTheMask(), tokenizer=Tokenizer()
    ),
    ("ok",): lambda: diagnose(mlm, nsp, BAND),
    ("ok", "probed"): lambda: diagnose(mlm, nsp, BAND, batch=batch(bugs=False), tokenizer=Tokenizer()),
}


@pytest.mark.parametrize("case", CASES, ids="-".join)
def test_every_report_speaks_chinese_with_the_english_reports_numbers(case):
    report = CASES[case]()
    assert report.names == [n for n in case if n not in ("rose", "nan", "model", "ok", "probed")]
    english, english_md = str(report), report._repr_markdown_()
    i18n.set_language("zh")
    report = CASES[case]()
    chinese, chinese_md = str(report), report._repr_markdown_()
    assert Counter(NUMBER.findall(chinese)) == Counter(NUMBER.findall(english))  # numbers included
    assert Counter(NUMBER.findall(chinese_md)) == Counter(NUMBER.findall(english_md))
    assert not CJK.search(english + english_md)
    for line in chinese.splitlines():  # every sentence translated (the findings' names stay as in the code)
        assert CJK.search(line), line
    assert "check:" not in chinese + chinese_md
    assert chinese_md.count("*检查*：") == english_md.count("*check:*") == len(report.findings)


def test_a_report_in_chinese_reads_as_the_english_one():
    english = str(diagnose([x + 1.5 for x in mlm], nsp, BAND)).splitlines()
    assert english[0] == "1 likely bug (steps 1-20 compared with the reference band):"
    assert english[1].startswith(
        "- learning_rate_too_high: the MLM loss is above the reference band on 100% of "
    )
    i18n.set_language("zh")
    chinese = str(diagnose([x + 1.5 for x in mlm], nsp, BAND)).splitlines()
    assert chinese[0] == "发现 1 个可能的错误（已将第 1-20 步与参考带比较）："
    worst, value, top = re.search(r"at step (\d+): ([\d.]+), the band's top ([\d.]+)", english[1]).groups()
    assert chinese[1] == (
        f"- learning_rate_too_high: 在第 11-20 步中，MLM 损失有 100% 的时候高于参考带（第 {worst} 步：{value}，"
        f"而参考带的上沿是 {top}）。"
    )
    assert chinese[2].startswith("  检查：学习率（及其预热）：峰值远高于配方的学习率")
    probed = diagnose(
        mlm, nsp, BAND, batch=batch(bugs=False), model=NotNextIgnoringTheMask(), tokenizer=Tokenizer()
    )
    assert str(probed).startswith(
        "发现 2 个可能的错误（已将第 1-20 步与参考带比较；另外检查了：批次和模型）："
    )


def test_the_language_comes_from_bertedu_lang_too_and_english_is_the_default(monkeypatch):
    assert str(diagnose(mlm, nsp, BAND)).startswith("Your loss curves lie inside the reference band")
    monkeypatch.setenv("BERTEDU_LANG", "zh_CN")
    assert (
        str(diagnose(mlm, nsp, BAND))
        == "你的损失曲线都在参考带之内：没有发现错误的迹象（已将第 1-20 步与参考带比较）。"
    )
    i18n.set_language("en")
    assert str(diagnose(mlm, nsp, BAND)) == (
        "Your loss curves lie inside the reference band: no sign of a bug (steps 1-20 compared with the reference band)."
    )


def test_the_catalog_test_sees_the_diagnosis_templates_and_names_a_missing_one():
    """tests/test_i18n_ui.py collects msg(...) templates in every folder of bertedu/ but bertedu/language, with
    template_calls: the training layer's too, so a template without Chinese fails it."""
    templates = {}
    for path in sorted((ROOT / "bertedu" / "training").glob("*.py")):
        where = str(path.relative_to(ROOT))
        templates |= {t: place for _, t, place in template_calls(path.read_text(encoding="utf-8"), where)}
    diagnose = [w for w in templates.values() if w.startswith("bertedu/training/diagnose.py:")]
    assert len(diagnose) >= 20  # and the progress bars of pretrain.py and finetune.py (desc=msg(...))
    assert {w.split(":")[0] for w in templates.values()} >= {"bertedu/training/pretrain.py"}
    assert untranslated(templates, i18n.catalog("zh")) == []
    dropped = "the attention mask is 1 at {count} [PAD] tokens."
    catalog = {en: zh for en, zh in i18n.catalog("zh").items() if en != dropped}
    [missing] = untranslated(templates, catalog)
    assert missing.startswith("bertedu/training/diagnose.py:") and missing.endswith(repr(dropped))
