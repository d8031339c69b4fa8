"""Notebook 10's ablations: the switches' settings, the objectives in the pretraining loop, the variants of the
recipe, the measurements (LTR masked-word scoring, the frozen-feature probe), summaries and the report."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch
from support import same_weights

import bertedu.training.pretrain as pretrain_module
from bertedu.core.config import BertConfig
from bertedu.core.losses import IGNORE_INDEX
from bertedu.core.model import BertForPreTraining
from bertedu.course import ablations, course_config, course_tokenizer
from bertedu.course.ablations import (
    FULL,
    REDUCED,
    TABLE_5,
    TABLE_8,
    VARIANTS,
    ablation_config,
    causal_fill_log_likelihood,
    direction,
    frozen_feature_probe,
    masked_word_scores,
    paper_comparison,
    paper_direction,
    summarise,
)
from bertedu.course.baselines import most_frequent_tag_scores
from bertedu.training.evalsets import MaskedWordItem
from bertedu.training.finetune_data import TOKEN_CLASSIFICATION, TaggingExample, make_task_datasets
from bertedu.training.pretrain import PretrainingConfig, objective_batch, pretrain

ROOT = Path(__file__).resolve().parents[1]


# --- the model switches in BertConfig -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"is_decoder": 1}, "is_decoder must be True or False"),
        ({"position_embedding_type": "relative_key"}, "relative positions"),
        ({"position_embedding_type": "sinusoidal"}, "position_embedding_type"),
        ({"layer_norm_position": "sandwich"}, "layer_norm_position"),
    ],
)
def test_config_switches_reject_bad_values(kwargs, message):
    with pytest.raises(ValueError, match=message):
        BertConfig(**kwargs)


def test_config_switches_round_trip_and_read_hf_configs(tmp_path):
    config = BertConfig.from_preset(
        "tiny", is_decoder=True, position_embedding_type="none", layer_norm_position="pre"
    )
    config.to_json_file(tmp_path / "config.json")
    data = json.loads((tmp_path / "config.json").read_text())
    assert (data["is_decoder"], data["position_embedding_type"], data["layer_norm_position"]) == (
        True,
        "none",
        "pre",
    )
    assert BertConfig.from_json_file(tmp_path) == config
    # a Hugging Face decoder config loads (causal self-attention); cross-attention is refused
    assert BertConfig.from_dict({"is_decoder": True, "position_embedding_type": None}).is_decoder
    assert BertConfig.from_dict({"position_embedding_type": None}).position_embedding_type == "absolute"
    with pytest.raises(ValueError, match="cross-attention"):
        BertConfig.from_dict({"is_decoder": True, "add_cross_attention": True})
    default = BertConfig()
    assert (default.is_decoder, default.position_embedding_type, default.layer_norm_position) == (
        False,
        "absolute",
        "post",
    )


# --- the pretraining loop's switches --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "change, message",
    [
        ({"objective": "clm"}, "objective must be one of"),
        ({"next_sentence_prediction": 0}, "next_sentence_prediction must be one of"),
        ({"mask_replace_prob": 0.9, "random_replace_prob": 0.2}, "exceeds 1"),
        ({"random_replace_prob": -0.1}, "random_replace_prob must be a probability"),
        ({"position_embedding_type": "rope"}, "position_embedding_type"),
        ({"layer_norm_position": "both"}, "layer_norm_position"),
        ({"objective": "ltr", "mlm_eval_file": "data/mlm_eval.tsv"}, "does not predict"),
        ({"next_sentence_prediction": False, "nsp_eval_file": "data/nsp_eval.tsv"}, "no trained NSP head"),
    ],
)
def test_pretraining_config_rejects_bad_ablation_settings(change, message):
    with pytest.raises(ValueError, match=message):
        PretrainingConfig(**change)


def test_old_run_configs_still_load_with_bert_defaults():
    """A checkpoint saved before the switches existed has none of their keys: it is BERT's recipe (masked LM
    with NSP, 80/10/10, absolute positions, post-LN), written out here, not read from the code under test."""
    bert = {
        "objective": "mlm",
        "next_sentence_prediction": True,
        "mask_replace_prob": 0.8,
        "random_replace_prob": 0.1,
        "position_embedding_type": "absolute",
        "layer_norm_position": "post",
    }
    old = {k: v for k, v in course_config().to_dict().items() if k not in bert}
    assert len(old) == len(course_config().to_dict()) - len(bert)
    assert PretrainingConfig.from_dict(old).to_dict() == {**old, **bert}


def mlm_batch():
    ids = torch.tensor([[2, 10, 4, 12, 3, 13, 3, 0], [2, 20, 21, 3, 22, 3, 0, 0]])
    labels = torch.full_like(ids, IGNORE_INDEX)
    labels[0, 2], labels[1, 4] = 11, 30  # position 2 was 11 (now [MASK]); position 4 was 30 (now random 22)
    mask = (ids != 0).long()
    return {
        "input_ids": ids,
        "token_type_ids": torch.zeros_like(ids),
        "attention_mask": mask,
        "labels": labels,
        "next_sentence_label": torch.tensor([0, 1]),
    }


def test_objective_batch_for_each_objective():
    batch = mlm_batch()
    assert objective_batch(batch, PretrainingConfig()) is batch  # BERT: unchanged
    no_nsp = objective_batch(batch, PretrainingConfig(next_sentence_prediction=False))
    assert "next_sentence_label" not in no_nsp and torch.equal(no_nsp["labels"], batch["labels"])
    ltr = objective_batch(batch, PretrainingConfig(objective="ltr", next_sentence_prediction=False))
    original = torch.tensor([[2, 10, 11, 12, 3, 13, 3, 0], [2, 20, 21, 3, 30, 3, 0, 0]])
    assert torch.equal(ltr["input_ids"], original)  # the masking is undone
    expected = torch.tensor([[10, 11, 12, 3, 13, 3, -100, -100], [20, 21, 3, 30, 3, -100, -100, -100]])
    assert torch.equal(ltr["labels"], expected)  # position i predicts token i + 1, never a [PAD]


@pytest.mark.slow
def test_pretraining_without_nsp_leaves_the_nsp_head_untouched(tiny_run):
    config = tiny_run(next_sentence_prediction=False, nsp_eval_file=None)
    run = pretrain(config, progress=False)
    torch.manual_seed(config.seed)  # the initial weights pretrain() started from
    untrained = BertForPreTraining(pretrain_module.model_config(config, run.tokenizer.vocab_size))
    assert torch.equal(run.model.cls.seq_relationship.weight, untrained.cls.seq_relationship.weight)
    train = [r for r in run.history if r["split"] == "train"]
    assert "nsp_loss" not in train[0] and all(r["loss"] == pytest.approx(r["mlm_loss"]) for r in train)
    with_nsp = pretrain(tiny_run(eval_every=0), progress=False)  # the same start, with NSP: the head moves
    assert not torch.equal(with_nsp.model.cls.seq_relationship.weight, untrained.cls.seq_relationship.weight)


@pytest.mark.slow
def test_left_to_right_run_builds_a_causal_model_and_learns(tiny_run):
    run = pretrain(
        tiny_run(
            objective="ltr", next_sentence_prediction=False, mlm_eval_file=None, nsp_eval_file=None, steps=16
        ),
        progress=False,
    )
    assert run.model.config.is_decoder
    train = [r for r in run.history if r["split"] == "train"]
    assert train[-1]["mlm_loss"] < train[0]["mlm_loss"]


@pytest.mark.slow
def test_masking_shares_reach_the_collator(tiny_run, monkeypatch):
    seen = {}
    original = pretrain_module.PretrainingCollator

    def spy(tokenizer, **kwargs):
        seen.update(kwargs)
        return original(tokenizer, **kwargs)

    monkeypatch.setattr(pretrain_module, "PretrainingCollator", spy)
    pretrain(tiny_run(mask_replace_prob=1.0, random_replace_prob=0.0, steps=2, eval_every=0), progress=False)
    assert (seen["mask_replace_prob"], seen["random_replace_prob"]) == (1.0, 0.0)


@pytest.mark.slow
@pytest.mark.parametrize("switch", ["position_embedding_type", "layer_norm_position"])
def test_model_switches_reach_the_model(tiny_run, switch):
    value = {"position_embedding_type": "none", "layer_norm_position": "pre"}[switch]
    run = pretrain(tiny_run(steps=2, eval_every=0, **{switch: value}), progress=False)
    assert getattr(run.model.config, switch) == value


# --- the variants -------------------------------------------------------------------------------------------
def test_each_variant_changes_exactly_its_declared_settings():
    reference = ablation_config("bert", steps=300, batch_size=32, seed=1).to_dict()
    assert (
        reference
        == course_config(
            steps=300,
            batch_size=32,
            warmup_steps=30,
            seed=1,
            num_threads=1,
            eval_every=0,
            mlm_eval_file=None,
            nsp_eval_file=None,
        ).to_dict()
    )
    for name, variant in VARIANTS.items():
        config = ablation_config(name, steps=300, batch_size=32, seed=1).to_dict()
        changed = {k for k in config if config[k] != reference[k]}
        assert changed == {k for k, v in variant.changes.items() if reference[k] != v}, name
        assert changed or name == "bert"
    assert not VARIANTS["ltr"].nsp and not VARIANTS["no-nsp"].nsp and VARIANTS["pre-ln"].nsp
    with pytest.raises(ValueError, match="Unknown variant"):
        ablation_config("no-attention")


def test_reduced_and_full_settings():
    assert set(REDUCED["variants"]) < set(FULL["variants"]) == set(VARIANTS)
    assert (
        REDUCED["steps"] == FULL["steps"] and REDUCED["stop_after"] < FULL["steps"]
    )  # a prefix of the schedule
    assert len(REDUCED["seeds"]) < len(FULL["seeds"])
    assert FULL["steps"] == course_config().steps and FULL["batch_size"] == course_config().batch_size


@pytest.mark.integration  # the left-to-right run trains in a second process
@pytest.mark.slow
def test_background_reduced_run_gives_the_records_of_the_plain_one(tmp_path, monkeypatch):
    """Notebook 10's reduced run trains its second variant in a second process while ``bert`` trains here: the
    same records (scores to float rounding; each run is one thread either way) as training both here, one after the
    other. (``no-nsp`` here, not ``ltr``: the same path, and its masked-word scores take a second, not twenty.)"""
    monkeypatch.setenv("BERTEDU_SIDE_RUNS", str(tmp_path / "cache"))  # a cache of its own
    assert REDUCED["background"] is True
    small = dict(steps=6, stop_after=3, batch_size=4, tasks=(), probe=False, progress=False)
    together = ablations.run_ablations(("bert", "no-nsp"), (0,), background=True, **small)
    with pretrain_module.cpu_threads(1):
        one_by_one = ablations.run_ablations(("bert", "no-nsp"), (0,), **small)
    assert [r["variant"] for r in together] == ["bert", "no-nsp"] == [r["variant"] for r in one_by_one]
    for a, b in zip(together, one_by_one):
        assert a["trained_steps"] == b["trained_steps"] == 3
        assert a["scores"].keys() == b["scores"].keys() and a["scores"]
        assert all(math.isclose(a["scores"][k], b["scores"][k], abs_tol=1e-6) for k in a["scores"]), (a, b)
    assert len(list((tmp_path / "cache").glob("no-nsp-*.pt"))) == 1  # the second process's run, cached
    with pytest.raises(ValueError, match="one seed"):
        ablations.run_ablations(("bert", "no-nsp"), (0, 1), background=True, **small)


# --- measuring ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tokenizer():
    return course_tokenizer()


def test_causal_fill_is_the_sentence_log_likelihood(tokenizer):
    torch.manual_seed(0)
    config = BertConfig.from_preset(
        "tiny",
        vocab_size=tokenizer.vocab_size,
        num_hidden_layers=1,
        max_position_embeddings=64,
        is_decoder=True,
    )
    model = BertForPreTraining(config).eval()
    sentence = "the cat [MASK] on the mat"
    scores = causal_fill_log_likelihood(model, tokenizer, sentence)
    for word in ("sits", "drinks"):  # brute force: log P(w_t | w_<t) summed from the mask on
        ids = tokenizer(sentence.replace("[MASK]", word), return_tensors="pt")["input_ids"]
        with torch.no_grad():
            log_p = torch.log_softmax(model(ids).prediction_logits[0], -1)
        expected = sum(float(log_p[t - 1, ids[0, t]]) for t in range(3, ids.size(1)))
        assert float(scores[tokenizer.convert_tokens_to_ids(word)]) == pytest.approx(expected, abs=1e-4)
    assert math.isinf(float(scores[tokenizer.cls_token_id]))  # special tokens are not candidates


def test_masked_word_scores_pick_the_head_by_model_kind(tokenizer, monkeypatch):
    items = [MaskedWordItem("the cat [MASK] milk", ("drinks",))]
    config = BertConfig.from_preset("tiny", vocab_size=tokenizer.vocab_size, max_position_embeddings=64)
    torch.manual_seed(0)
    mlm, ltr = BertForPreTraining(config), BertForPreTraining(config.replace(is_decoder=True))
    # steer the LTR scorer: the "right" answer scores highest, so top-1 must be 1
    target = tokenizer.convert_tokens_to_ids("drinks")
    fake = torch.full((tokenizer.vocab_size,), -5.0)
    fake[target] = 0.0
    monkeypatch.setattr(ablations, "causal_fill_log_likelihood", lambda *a: fake)
    assert masked_word_scores(ltr, tokenizer, items) == {"top1": 1.0, "top5": 1.0}
    scores = masked_word_scores(mlm, tokenizer, items)  # untouched by the fake: the MLM head is used
    assert set(scores) == {"top1", "top5"} and 0 <= scores["top1"] <= scores["top5"] <= 1


@pytest.mark.slow
def test_frozen_feature_probe_trains_only_the_classifier(tokenizer):
    datasets = make_task_datasets(TOKEN_CLASSIFICATION, tokenizer)
    config = BertConfig.from_preset("tiny", vocab_size=tokenizer.vocab_size, max_position_embeddings=64)
    torch.manual_seed(0)
    model = BertForPreTraining(config).train()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    result = frozen_feature_probe(model, datasets, steps=60)
    assert same_weights(model, before) and model.training  # frozen, and left in the mode it was in
    assert 0.5 < result["token_accuracy"] <= 1 and 0 < result["macro_f1"] <= 1  # word identity alone helps
    assert frozen_feature_probe(model, datasets, steps=60) == result  # deterministic


def test_most_frequent_tag_baseline():
    train = [
        TaggingExample(("the", "cat", "runs"), ("DET", "NOUN", "VERB")),
        TaggingExample(("the",), ("DET",)),
    ]
    test = [TaggingExample(("the", "dog", "runs"), ("DET", "NOUN", "VERB"))]
    scores = most_frequent_tag_scores(train, test)
    assert scores["token_accuracy"] == pytest.approx(2 / 3)  # unknown "dog" gets the most frequent tag, DET


def test_baselines_are_the_documented_ones():
    """The strongest rule per metric (data/README.md), the corpus rules of issue 39 included."""
    base = ablations.metric_baselines()
    assert base["mlm_top1"] == (62 / 79, "trigram model")  # the co-occurrence filler ties it (62 of 79)
    assert base["mlm_top5"] == (74 / 79, "co-occurrence naive Bayes")  # the trigram model: 73
    assert base["gen_top1"] == (22 / 40, "co-occurrence naive Bayes")  # the trigram model: 5
    assert base["gen_top5"] == (33 / 40, "co-occurrence naive Bayes")  # the trigram model: 10
    assert round(base["nsp"][0], 3) == 0.988 and base["nsp"][1] == "word overlap"
    assert round(base["nsp_hard"][0], 3) == 0.733 and base["nsp_hard"][1] == "order cue"  # overlap: 0.5
    assert base["sentence"] == (88 / 90, "corpus lookup") and base["order"] == (1.0, "corpus lookup")
    assert base["pair"] == (66 / 72, "subject vote")
    assert base["span"] == (1.0, "template") and base["tagging"] == base["probe"]


def test_every_metric_of_the_tables_has_a_baseline():
    """Notebook 10's and RESULTS.md's tables put a trivial baseline under every column: no score stands alone."""
    base = ablations.metric_baselines()
    assert set(ablations.METRICS) <= set(base), set(ablations.METRICS) - set(base)
    assert (
        base["tagging_acc"][0] > base["tagging"][0]
    )  # token accuracy counts the frequent tags, macro-F1 does not


# --- summaries and the paper ------------------------------------------------------------------------------------
def fake_records():
    records = []
    for seed, (bert, ltr) in enumerate([(0.80, 0.70), (0.90, 0.85), (0.70, 0.72)]):
        records.append(
            {"variant": "bert", "seed": seed, "scores": {"pair": bert, "sentence": 0.9, "nsp": 0.8}}
        )
        records.append({"variant": "ltr", "seed": seed, "scores": {"pair": ltr, "sentence": 0.8}})
    return records


def test_summarise_gives_min_median_max_and_paired_differences():
    summary = summarise(fake_records())
    assert list(summary) == ["bert", "ltr"]
    pair = summary["ltr"]["pair"]
    assert (pair["min"], pair["median"], pair["max"]) == (0.70, 0.72, 0.85)
    assert pair["delta"]["values"] == pytest.approx([-0.10, -0.05, 0.02])  # seed by seed, not medians
    assert summary["bert"]["pair"]["delta"] is None and "nsp" not in summary["ltr"]
    assert direction(pair["delta"]) == "unclear" and direction(summary["ltr"]["sentence"]["delta"]) == "down"
    # the seeds agree and the mean is 2.7 standard errors from 0, but within the test set's item noise: not a direction
    small = {"values": [0.002, 0.005, 0.009]}
    assert direction(small, noise=0.01) == "unclear" and direction(small) == "up"
    assert (
        direction({"values": [0.05, -0.04, 0.06]}) == "unclear"
    )  # the seeds disagree: within 2 standard errors
    assert (
        paper_direction(-2.3) == "down" and paper_direction(0.1) == "unclear" and paper_direction(0.5) == "up"
    )


def test_paper_comparison_uses_the_papers_numbers():
    rows = paper_comparison(summarise(fake_records()))
    by_column = {r["column"]: r for r in rows}
    assert set(by_column) == {"MNLI-m", "SST-2"}  # the columns we have a measurement for
    assert by_column["MNLI-m"]["paper_change"] == pytest.approx(82.1 - 84.4)
    assert by_column["SST-2"]["agree"] and not by_column["MNLI-m"]["agree"]
    assert TABLE_5["bert"][0] == 84.4 and TABLE_8["bert"] == (84.2, 95.4, 94.9)


def test_plot_has_the_three_groups():
    fig = ablations.plot_ablations(summarise(fake_records()))
    assert len(fig.axes) == 3 and "Table 5" in fig.axes[0].get_title()
    # one legend above the panels, none inside them (it covered bars); the y label broken after its last comma
    assert len(fig.legends) == 1 and not any(ax.get_legend() for ax in fig.axes)
    assert [t.get_text() for t in fig.legends[0].get_texts()] == [
        "ours: median, min-max over seeds",
        "the paper",
    ]
    assert fig.axes[0].get_ylabel() == "difference to BERT (same seed),\npercentage points"


# --- the report and the committed results -----------------------------------------------------------------------
def test_report_section_renders_records():
    import bench_ablations
    import run_all

    results = {
        "settings": {"variants": ["bert", "ltr"], "seeds": [0, 1, 2], "steps": 10, "batch_size": 4},
        "records": fake_records(),
        "baselines": {"pair": [0.514, "overlap"]},
        "seconds": 120.0,
        "run_seconds": 230.0,
        "cached": 0,
        "load_average": 1.5,
        "date": "today",
        "jobs": 2,
    }
    text = "\n".join(bench_ablations.section(results))
    assert (
        "0.700 / 0.720 / 0.850" in text and "0.514 (overlap)" in text and "| Table 5 | LTR & No NSP |" in text
    )
    report = "# Benchmarks\n\n## 4. Quality\n\nold\n\n## 5. Ablations old\n\nstale\n"
    merged = run_all.merge_ablations(report, bench_ablations.section(results))
    assert "stale" not in merged and "## 4. Quality\n\nold" in merged and merged.count("## 5. Ablations") == 1


def test_committed_results_are_the_full_run():
    """Notebook 10 shows benchmarks/results.json's ablations as "the full run": they must be one."""
    results = ablations.load_full_results()
    settings = results["settings"]
    assert settings["variants"] == list(FULL["variants"]) and settings["seeds"] == list(FULL["seeds"])
    assert (settings["steps"], settings["batch_size"]) == (FULL["steps"], FULL["batch_size"])
    assert len(results["records"]) == len(FULL["variants"]) * len(FULL["seeds"])


def test_missing_results_are_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="make bench"):
        ablations.load_full_results(tmp_path / "results.json")
    (tmp_path / "results.json").write_text("{}")
    with pytest.raises(ValueError, match="--only-ablations"):
        ablations.load_full_results(tmp_path / "results.json")
