"""The paper's ablations in miniature: what each design choice of BERT buys, measured on the course's world.

Every variant is notebook 06's recipe (:func:`bertedu.course.course_config`) changed in exactly one thing, by a
documented switch of the package (:class:`bertedu.training.pretrain.PretrainingConfig`, which sets the
:class:`bertedu.core.config.BertConfig` switches), never by a copy of the model:

    variant        what changes (everything else is notebook 06's recipe)   switch
    bert           nothing: masked LM (30 %, 80/10/10) + NSP, post-LN       -
    no-nsp         no NSP loss (the same sentence pairs as input)           next_sentence_prediction=False
    ltr            left-to-right LM: causal attention, next token, no NSP   objective="ltr" (is_decoder=True)
    no-positions   no position embeddings                                   position_embedding_type="none"
    pre-ln         LayerNorm before each sub-layer, plus a final one        layer_norm_position="pre"
    mask-100-0-0   every selected token becomes [MASK]                      mask_replace_prob=1, random_replace_prob=0
    mask-80-20-0   80 % [MASK], 20 % a random token, none kept              mask_replace_prob=0.8, random_replace_prob=0.2
    rate-15        15 % of the tokens selected (BERT's rate)                mlm_probability=0.15
    rate-40        40 % selected (Wettig et al., 2023)                      mlm_probability=0.4

Same budget: every variant gets the same optimizer steps of the same batch size, one CPU thread, and the
fine-tuning seed equals the pretraining seed. :func:`run_variant` pretrains one variant with one seed and
measures it (:data:`METRICS`): held-out masked words, held-out NSP (variants that train NSP), notebook 07's
four tasks fine-tuned with the course recipe, and a frozen-feature probe (the paper's feature-based NER: the
encoder frozen, only a linear classifier trained on its features). :func:`summarise` gives min / median / max
over seeds, also of each variant's difference to ``bert`` with the same seed; :data:`TABLE_5`,
:data:`TABLE_8` and :data:`DIRECTIONS` hold what the papers report.

Introduced in notebook 10; ``benchmarks/bench_ablations.py`` runs the full version for ``make bench``.
"""

from __future__ import annotations

import functools
import json
import os
import random
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from tqdm.auto import tqdm

from bertedu.core.losses import IGNORE_INDEX
from bertedu.course import course_config, course_tokenizer, run_course_task
from bertedu.course.background import BackgroundRuns, RunRegistry
from bertedu.course.baselines import (
    CooccurrenceFiller,
    NgramFiller,
    most_frequent_tag_scores,
    ngram_mlm_accuracy,
    order_cue_nsp_accuracy,
    overlap_nsp_accuracy,
    pair_baselines,
    sentence_baselines,
    span_baselines,
)
from bertedu.course.finetuning import fit_frozen_classifier
from bertedu.course.pretraining import course_seed, course_snapshot
from bertedu.course.stats import direction as stats_direction
from bertedu.course.stats import item_noise, mean_and_se
from bertedu.language import msg, translatable, translate
from bertedu.language.script import break_after_last_comma
from bertedu.training.checkpoint import is_checkpoint, load_checkpoint
from bertedu.training.data import read_corpus
from bertedu.training.evalsets import load_masked_word_items, load_nsp_items
from bertedu.training.finetune import evaluate
from bertedu.training.finetune_data import (
    SENTENCE_PAIR_CLASSIFICATION,
    SEQUENCE_CLASSIFICATION,
    SPAN_EXTRACTION,
    TASKS,
    TOKEN_CLASSIFICATION,
    TaskDataset,
    indirect_dataset,
    load_task_data,
    make_task_datasets,
    read_examples,
    task_data_dir,
    word_order_dataset,
)
from bertedu.training.metrics import macro_f1, token_accuracy
from bertedu.training.pretrain import PretrainingConfig, pretrain
from bertedu.training.probes import candidate_mask, evaluating, masked_word_accuracy, nsp_accuracy
from bertedu.utils import cpu_threads, data_path, repo_root, resolve_path

# ----------------------------------------------------------------------------------------------------------
# The variants


@dataclass(frozen=True)
class Variant:
    """One ablation: a short ``label``, what it changes (``what``) and the ``changes`` it makes to notebook
    06's recipe (keyword arguments of :class:`~bertedu.training.pretrain.PretrainingConfig`). ``nsp``: trains NSP."""

    name: str
    label: str
    what: str
    changes: dict = field(default_factory=dict)

    @property
    def nsp(self) -> bool:
        return self.changes.get("next_sentence_prediction", True)


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant("bert", "BERT", "notebook 06's recipe: masked LM (30 %, 80/10/10) + NSP, post-LN, positions"),
        Variant("no-nsp", translatable("No NSP"), "masked LM only", {"next_sentence_prediction": False}),
        Variant(
            "ltr",
            translatable("LTR & No NSP"),
            "left-to-right LM (causal attention, next token), no NSP",
            {"objective": "ltr", "next_sentence_prediction": False},
        ),
        Variant(
            "no-positions",
            translatable("no positions"),
            "no position embeddings",
            {"position_embedding_type": "none"},
        ),
        Variant(
            "pre-ln",
            translatable("pre-LN"),
            "LayerNorm before each sub-layer",
            {"layer_norm_position": "pre"},
        ),
        Variant(
            "mask-100-0-0",
            "100/0/0",
            "every selected token -> [MASK]",
            {"mask_replace_prob": 1.0, "random_replace_prob": 0.0},
        ),
        Variant(
            "mask-80-20-0",
            "80/20/0",
            "80 % [MASK], 20 % random, none kept (the paper's Table 8 writes it 80/0/20: MASK, SAME, RND)",
            {"mask_replace_prob": 0.8, "random_replace_prob": 0.2},
        ),
        Variant(
            "rate-15", translatable("mask 15 %"), "15 % of the tokens selected", {"mlm_probability": 0.15}
        ),
        Variant(
            "rate-40", translatable("mask 40 %"), "40 % of the tokens selected", {"mlm_probability": 0.4}
        ),
    )
}

#: The measurements, in table order: key -> (label, what it is, the paper's closest column).
METRICS: dict[str, tuple[str, str, str | None]] = {
    "mlm_top1": (translatable("masked words top-1"), "data/mlm_eval.tsv", None),
    "mlm_top5": (translatable("masked words top-5"), "data/mlm_eval.tsv", None),
    "gen_top1": (translatable("generalise top-1"), "data/mlm_eval_generalise.tsv", None),
    "gen_top5": (translatable("generalise top-5"), "data/mlm_eval_generalise.tsv", None),
    "nsp": (translatable("NSP"), "data/nsp_eval.tsv", None),
    "nsp_hard": (translatable("NSP, swapped order"), "data/nsp_eval_hard.tsv", None),
    "sentence": (translatable("sentence cls. acc."), "notebook 07, fine-tuned, test", "SST-2"),
    "order": (
        translatable("word-order pairs acc."),
        "notebook 07's sentence model on its word-order slice",
        None,
    ),
    "indirect": (
        translatable("indirect slice acc."),
        "notebook 07's sentence model on facts stated through another fact",
        None,
    ),
    "pair": (translatable("sentence pair acc."), "notebook 07, fine-tuned, test", "MNLI"),
    "tagging": (translatable("tagging macro-F1"), "notebook 07, fine-tuned, test", "NER fine-tune"),
    "tagging_acc": (translatable("tagging accuracy"), "notebook 07, fine-tuned, test", None),
    "span": (translatable("span F1"), "notebook 07, fine-tuned, test", "SQuAD"),
    "probe": (
        translatable("frozen probe macro-F1"),
        "token tags from frozen features, test",
        "NER feature-based",
    ),
    "probe_acc": (translatable("frozen probe accuracy"), "token tags from frozen features, test", None),
}
FINETUNE_METRIC = {
    SEQUENCE_CLASSIFICATION: ("sentence", "accuracy"),
    SENTENCE_PAIR_CLASSIFICATION: ("pair", "accuracy"),
    TOKEN_CLASSIFICATION: ("tagging", "macro_f1"),
    SPAN_EXTRACTION: ("span", "f1"),
}

# Devlin et al. (2019), Table 5 (BERT-base, dev sets) and Table 8 (BERT-base, dev sets; "feature-based" NER
# concatenates the last four layers and trains a BiLSTM on them). Copied from the paper.
TABLE_5 = {
    "columns": ("MNLI-m", "QNLI", "MRPC", "SST-2", "SQuAD"),
    "bert": (84.4, 88.4, 86.7, 92.7, 88.5),
    "no-nsp": (83.9, 84.9, 86.5, 92.6, 87.9),
    "ltr": (82.1, 84.3, 77.5, 92.1, 77.8),
}
TABLE_8 = {
    "columns": ("MNLI", "NER fine-tune", "NER feature-based"),
    "bert": (
        84.2,
        95.4,
        94.9,
    ),  # 80 % [MASK] / 10 % random / 10 % same (the course's order: MASK / RND / SAME)
    "mask-100-0-0": (84.3, 94.9, 94.0),
    "mask-80-20-0": (84.1, 95.2, 94.6),  # the paper's row "80 % MASK, 0 % SAME, 20 % RND"
}
#: Which of our metrics stands in for which paper column (our task is far smaller: see notebook 10).
PAPER_COLUMN = {
    "MNLI-m": "pair",
    "MNLI": "pair",
    "SST-2": "sentence",
    "SQuAD": "span",
    "NER fine-tune": "tagging",
    "NER feature-based": "probe",
}
#: Variants the BERT paper did not test: what the literature reports, as a direction only.
DIRECTIONS = {
    "no-positions": "not in the paper; without positions attention sees a bag of words, so expect losses "
    "where word order decides (who does what to whom)",
    "pre-ln": "not in the paper (BERT is post-LN); Xiong et al. (2020): pre-LN has well-scaled gradients at "
    "initialisation and trains without the long warm-up post-LN needs (a direction, not a number)",
    "rate-15": "Wettig et al. (2023): masking 40 % beats 15 % for BERT-large on GLUE and SQuAD, and larger "
    "models prefer higher rates (a direction, not a number)",
    "rate-40": "see rate-15",
}

#: The full run (``make bench``) and the reduced one notebook 10 runs in about a minute on one thread
#: (two variants, 40 % of the steps, held-out files and the frozen probe but no fine-tuning).
FULL = {
    "variants": tuple(VARIANTS),
    "seeds": (0, 1, 2, 3, 4),
    "steps": 1000,
    "batch_size": 64,
    "tasks": TASKS,
}
#: Notebook 10's reduced run: the first 400 steps of the full run's 1,000-step schedule (warm-up and decay as
#: in notebook 06, stopped early with ``stop_after``), so that its BERT is notebook 06's run at step 400. The
#: left-to-right run trains in a second process meanwhile (``background``): two cores, half the waiting.
REDUCED = {
    "variants": ("bert", "ltr"),
    "seeds": (0,),
    "steps": 1000,
    "stop_after": 400,
    "batch_size": 64,
    "tasks": (),
    "background": True,
}


def ablation_config(
    name: str, *, steps: int = 1000, batch_size: int = 64, seed: int = 0
) -> PretrainingConfig:
    """Notebook 06's recipe with variant ``name``'s one change, ``steps`` optimizer steps of ``batch_size``
    pairs (warm-up 10 % of the steps, as the recipe's 100 of 1,000), one CPU thread, no evaluation during
    training (:func:`run_variant` measures afterwards)."""
    if name not in VARIANTS:
        raise ValueError(f"Unknown variant {name!r}; choose one of {list(VARIANTS)}.")
    return course_config(
        steps=steps,
        batch_size=batch_size,
        warmup_steps=max(1, steps // 10),
        seed=seed,
        num_threads=1,
        eval_every=0,
        mlm_eval_file=None,
        nsp_eval_file=None,
        **VARIANTS[name].changes,
    )


# ----------------------------------------------------------------------------------------------------------
# Measuring a pretrained model


@torch.no_grad()
def causal_fill_log_likelihood(model, tokenizer, sentence: str) -> torch.Tensor:
    """A left-to-right model's answer to a masked-word item: for every vocabulary word w, the log-likelihood
    of the whole sentence with w in place of ``[MASK]``, ``(V,)`` (``-inf`` for non-candidates).

    Terms before the ``[MASK]`` are the same for every w and left out, so the ranking uses the right context
    too (a fair test of an LTR model; it never sees the right context while predicting w itself).
    """
    ids = tokenizer(sentence, return_tensors="pt")["input_ids"][0]  # (T,)
    position = int((ids == tokenizer.mask_token_id).nonzero()[0, 0])
    candidates = candidate_mask(tokenizer).nonzero()[:, 0]  # (C,)
    sequences = ids.repeat(len(candidates), 1)  # (C, T)
    sequences[:, position] = candidates
    with evaluating(model):
        logits = model(sequences).prediction_logits  # (C, T, V): position t predicts token t + 1
    log_p = torch.log_softmax(logits[:, position - 1 : -1], dim=-1)  # from predicting w to the end
    targets = sequences[:, position:]  # (C, T - position)
    scores = log_p.gather(-1, targets[..., None])[..., 0].sum(dim=1)  # (C,)
    out = torch.full((tokenizer.vocab_size,), float("-inf"))
    out[candidates] = scores
    return out


def masked_word_scores(model, tokenizer, items, k: int = 5) -> dict[str, float]:
    """``{"top1", "top5"}`` on masked-word items: the MLM head for a masked LM, whole-sentence likelihood
    (:func:`causal_fill_log_likelihood`) for a left-to-right model (``config.is_decoder``)."""
    if not model.config.is_decoder:
        result = masked_word_accuracy(model, tokenizer, items, k=k)
        return {"top1": result["top1"], "top5": result[f"top{k}"]}
    hits1 = hitsk = 0
    for item in items:
        top = torch.topk(causal_fill_log_likelihood(model, tokenizer, item.sentence), k).indices.tolist()
        answers = set(tokenizer.convert_tokens_to_ids(list(item.answers)))
        hits1 += top[0] in answers
        hitsk += bool(answers & set(top))
    return {"top1": hits1 / len(items), "top5": hitsk / len(items)}


def _heldout_items() -> dict[str, list]:
    return {
        "mlm": load_masked_word_items(data_path("mlm_eval.tsv")),
        "gen": load_masked_word_items(data_path("mlm_eval_generalise.tsv")),
        "nsp": load_nsp_items(data_path("nsp_eval.tsv")),
        "nsp_hard": load_nsp_items(data_path("nsp_eval_hard.tsv")),
    }


def heldout_scores(model, tokenizer, *, nsp: bool = True, max_length: int = 64) -> dict[str, float]:
    """Masked-word top-1 / top-5 on both masked-word files, and NSP accuracy on both NSP files if ``nsp``."""
    items = _heldout_items()
    mlm = masked_word_scores(model, tokenizer, items["mlm"])
    gen = masked_word_scores(model, tokenizer, items["gen"])
    scores = {
        "mlm_top1": mlm["top1"],
        "mlm_top5": mlm["top5"],
        "gen_top1": gen["top1"],
        "gen_top5": gen["top5"],
    }
    if nsp:
        for key in ("nsp", "nsp_hard"):
            scores[key] = nsp_accuracy(model, tokenizer, items[key], max_length=max_length)["accuracy"]
    return scores


@torch.no_grad()
def _token_features(encoder, dataset: TaskDataset, layers: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Frozen features ``(N, layers·H)`` of every tagged word (its first piece) and the tags ``(N,)``."""
    features, labels = [], []
    with evaluating(encoder):
        for _, batch in dataset.batches(64):
            out = encoder(
                batch["input_ids"],
                batch["attention_mask"],
                batch["token_type_ids"],
                output_hidden_states=True,
            )
            hidden = torch.cat(out.hidden_states[-layers:], dim=-1)  # (B, T, layers·H)
            tagged = batch["labels"] != IGNORE_INDEX  # (B, T): first piece of each word
            features.append(hidden[tagged])
            labels.append(batch["labels"][tagged])
    return torch.cat(features), torch.cat(labels)


def frozen_feature_probe(
    model, datasets: dict[str, TaskDataset], *, layers: int = 2, steps: int = 300, seed: int = 0
) -> dict[str, float]:
    """The paper's feature-based approach in miniature: the encoder stays frozen (eval mode, no gradient), the
    outputs of its last ``layers`` layers are concatenated (the paper: the last four of BERT-base's twelve)
    and standardised, and only a linear softmax classifier is trained on them (the paper: a BiLSTM), with
    Adam on the full training split, keeping the step with the best dev macro-F1. Returns test
    ``{"token_accuracy", "macro_f1"}``. ``datasets``: the token-classification splits."""
    encoder = model.bert
    features = {
        split: _token_features(encoder, datasets[split], layers) for split in ("train", "dev", "test")
    }
    predicted, _, _ = fit_frozen_classifier(
        {split: xy[0] for split, xy in features.items()},
        {split: xy[1] for split, xy in features.items()},
        datasets["train"].num_labels,
        seed=course_seed(seed),  # + the claims sweep's offset, as every course recipe
        steps=steps,
        lr=1e-2,
        weight_decay=0.0,  # Adam
        dev_score=macro_f1,
        check_every=10,
    )
    y_test = features["test"][1]
    return {
        "token_accuracy": token_accuracy(predicted, y_test.tolist()),
        "macro_f1": macro_f1(predicted, y_test.tolist()),
    }


# ----------------------------------------------------------------------------------------------------------
# Running variants


def task_datasets(tokenizer, tasks=TASKS) -> dict[str, dict[str, TaskDataset]]:
    """Notebook 07's train / dev / test datasets of ``tasks`` (plus token classification, for the probe); the
    sentence task also has its ``"word_order"`` slice (:func:`~bertedu.training.finetune_data.word_order_dataset`)."""
    names = dict.fromkeys([*tasks, TOKEN_CLASSIFICATION])
    out = {task: make_task_datasets(task, tokenizer) for task in names}
    if SEQUENCE_CLASSIFICATION in out:
        sentence = out[SEQUENCE_CLASSIFICATION]
        sentence["word_order"] = word_order_dataset(tokenizer, sentence["train"].labels)
        sentence["indirect"] = indirect_dataset(tokenizer, sentence["train"].labels)
    return out


def run_variant(
    name: str,
    *,
    seed: int = 0,
    steps: int = 1000,
    batch_size: int = 64,
    tasks=TASKS,
    probe: bool = True,
    datasets: dict | None = None,
    progress: bool = False,
    stop_after: int | None = None,
    model_dir: str | Path | None = None,
) -> dict[str, Any]:
    """Pretrain variant ``name`` with ``seed`` and measure it. ``stop_after``: stop after that many of the
    ``steps`` of the schedule (a prefix of the full run). ``model_dir``: keep the pretrained model there, and
    reuse it if it holds this very run (:func:`_pretrained`). Returns a JSON-ready record ``{"variant", "seed",
    "steps", "trained_steps", "batch_size", "scores": {metric: value}, "seconds": {"pretrain", "measure"}}``; the
    metrics are those of :data:`METRICS` that apply (no NSP scores without NSP, fine-tuning only for
    ``tasks``, the probe if ``probe``)."""
    config = ablation_config(name, steps=steps, batch_size=batch_size, seed=seed)
    model, tokenizer, pretrain_seconds = _pretrained(
        config, model_dir, progress=progress, stop_after=stop_after
    )
    began = time.perf_counter()
    scores = heldout_scores(model, tokenizer, nsp=VARIANTS[name].nsp, max_length=config.max_length)
    datasets = task_datasets(tokenizer, tasks) if datasets is None else datasets
    for task in tasks:
        key, metric = FINETUNE_METRIC[task]
        result, test = run_course_task(task, "mini-bert", model, datasets[task], seed=seed)
        scores[key] = test[metric]
        if task == SEQUENCE_CLASSIFICATION:  # the same fine-tuned model on the word-order and indirect slices
            scores["order"] = evaluate(result.model, datasets[task]["word_order"])["accuracy"]
            scores["indirect"] = evaluate(result.model, datasets[task]["indirect"])["accuracy"]
        if task == TOKEN_CLASSIFICATION:
            scores["tagging_acc"] = test["token_accuracy"]
    if probe:
        result = frozen_feature_probe(model, datasets[TOKEN_CLASSIFICATION], seed=seed)
        scores["probe"], scores["probe_acc"] = result["macro_f1"], result["token_accuracy"]
    return {
        "variant": name,
        "seed": seed,
        "steps": steps,
        "trained_steps": steps if stop_after is None else min(steps, stop_after),
        "batch_size": batch_size,
        "scores": scores,
        "seconds": {"pretrain": pretrain_seconds, "measure": time.perf_counter() - began},
    }


def _pretrained(config: PretrainingConfig, model_dir, *, progress: bool, stop_after: int | None):
    """``(model, tokenizer, training seconds)`` of ``config``, pretrained here, or loaded from ``model_dir`` if
    a finished run of exactly ``config`` is there (the full run keeps its pretrained models, so that its
    measurements can be redone when a task's data changes). With a ``model_dir``, the model measured is the one
    read back from it, so a cached and a fresh run measure the same weights the same way."""
    if model_dir is None:
        kept = course_snapshot(
            config, stop_after
        )  # notebook 10's BERT: the course model at step 400, if kept
        if kept is not None:
            return kept.model.eval(), kept.tokenizer, 0.0
        run = pretrain(config, progress=progress, stop_after=stop_after)
        return run.model, run.tokenizer, run.train_seconds
    model_dir = Path(model_dir)
    seconds_file = model_dir.parent / f"{model_dir.name}.seconds.json"
    expected = config.steps if stop_after is None else min(config.steps, stop_after)
    done = None
    if is_checkpoint(model_dir) and seconds_file.is_file():
        done = load_checkpoint(model_dir)
        if PretrainingConfig.from_dict(done.run_config) != config or done.step != expected:
            done = None
    if done is None:
        run = pretrain(config, model_dir, progress=progress, stop_after=stop_after)
        seconds_file.write_text(json.dumps({"pretrain": run.train_seconds}), encoding="utf-8")
        done = load_checkpoint(model_dir)
    seconds = json.loads(seconds_file.read_text(encoding="utf-8"))["pretrain"]
    return done.model.eval(), done.tokenizer, seconds


def _record_to_payload(name: str, record: dict) -> dict:
    return {"record": json.dumps(record)}  # a run_variant record is JSON: plain data for the cache


def _record_from_payload(name: str, payload: dict) -> dict:
    return json.loads(payload["record"])


def _variant_on_one_thread(name: str, *, progress: bool = False, **settings) -> dict:
    """:func:`run_variant` on one CPU thread (its measuring too), so the record is the same in either process."""
    with cpu_threads(1):
        return run_variant(name, progress=progress, **settings)


class VariantRuns(BackgroundRuns):
    """Variants pretrained and measured (:func:`run_variant`) in a second process while the notebook trains
    another one (:mod:`bertedu.course.background`: cached in ``runs/side-runs/``, trained here if no second
    process can start). A run's name is its variant's; its keyword arguments are :func:`run_variant`'s."""

    registry = RunRegistry(
        {name: functools.partial(_variant_on_one_thread, name) for name in VARIANTS},
        _record_to_payload,
        _record_from_payload,
        what=translatable("ablation run"),
    )


def background_runs(variants, seed: int, settings: dict) -> dict[str, dict]:
    """The runs ``run_ablations(variants, (seed,), background=True, **settings)`` trains in a second process (all
    but the first variant): their names and :func:`run_variant` keyword arguments, as :class:`VariantRuns` keys them."""
    return {v: dict(settings, seed=seed) for v in variants[1:]}


def reduced_background_runs() -> dict[str, dict]:
    """The runs notebook 10's reduced run (:data:`REDUCED`) trains in a second process (the left-to-right model)."""
    settings = {k: REDUCED[k] for k in ("steps", "batch_size", "stop_after")}
    settings |= {"tasks": tuple(REDUCED["tasks"]), "probe": True}
    return background_runs(REDUCED["variants"], REDUCED["seeds"][0], settings)


def run_ablations(
    variants=FULL["variants"],
    seeds=FULL["seeds"],
    *,
    steps: int = FULL["steps"],
    batch_size: int = FULL["batch_size"],
    tasks=FULL["tasks"],
    probe: bool = True,
    progress: bool = True,
    stop_after: int | None = None,
    background: bool = False,
) -> list[dict]:
    """:func:`run_variant` for every variant and seed (``bert`` first, so the differences have a reference),
    with a progress bar over the runs and one over each run's pretraining steps (``progress``).
    ``background``: the first variant trains here, the others meanwhile in a second process (one seed only;
    each run is one CPU thread, so a second core halves the wait). ``run_ablations(**REDUCED)`` is notebook
    10's reduced run."""
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        raise ValueError(f"Unknown variants {unknown}; choose from {list(VARIANTS)}.")
    settings = dict(
        steps=steps, batch_size=batch_size, tasks=tuple(tasks), probe=probe, stop_after=stop_after
    )
    if background:
        if len(seeds) != 1 or len(set(variants)) != len(variants):
            raise ValueError(
                f"background=True runs each variant once: give one seed (got {tuple(seeds)}) and no variant "
                "twice; for several seeds use background=False."
            )
        others = VariantRuns.start(background_runs(variants, seeds[0], settings))
        first = run_variant(variants[0], seed=seeds[0], progress=progress, **settings)
        return [first] + [others.result(v) for v in variants[1:]]
    datasets = task_datasets(course_tokenizer(), tasks)
    jobs = [(v, s) for s in seeds for v in variants]
    return [
        run_variant(name, seed=seed, datasets=datasets, progress=progress, **settings)
        for name, seed in tqdm(jobs, desc=msg("ablations"), unit="run", disable=not progress)
    ]


# ----------------------------------------------------------------------------------------------------------
# Summaries, baselines, the papers' numbers


def _stats(values: list[float]) -> dict[str, Any]:
    mean, se = mean_and_se(values)
    return {
        "values": values,
        "min": min(values),
        "median": statistics.median(values),
        "max": max(values),
        "mean": mean,
        "se": se,
    }


def summarise(records: list[dict], reference: str = "bert") -> dict[str, dict[str, dict]]:
    """min / median / max, mean and its standard error over seeds of every score: ``{variant: {metric: {"values",
    "min", "median", "max", "mean", "se", "delta"}}}``. ``delta`` is the same for ``variant - reference`` with the
    same seed (paired: the two runs share the seed of their data order and fine-tuning), ``None`` for the
    reference itself."""
    scores: dict[str, dict[str, dict[int, float]]] = defaultdict(lambda: defaultdict(dict))
    for record in records:
        for metric, value in record["scores"].items():
            scores[record["variant"]][metric][record["seed"]] = value
    summary: dict[str, dict[str, dict]] = {}
    for variant in [v for v in VARIANTS if v in scores]:
        summary[variant] = {}
        for metric, by_seed in scores[variant].items():
            entry = _stats([by_seed[s] for s in sorted(by_seed)])
            base = scores.get(reference, {}).get(metric, {})
            paired = [by_seed[s] - base[s] for s in sorted(by_seed) if s in base]
            entry["delta"] = _stats(paired) if paired and variant != reference else None
            summary[variant][metric] = entry
    return summary


@functools.lru_cache(maxsize=1)
def test_units() -> dict[str, int]:
    """How many independent units each metric's test set has (:func:`bertedu.course.stats.item_noise`): its
    items, or fewer where items share something: a swapped-order twin counts once, a word-order minimal pair
    once, a tagging sentence once (its tokens are not independent), the sentence pairs by the distinct sentences
    they are made of, the span questions by the distinct questions."""
    items = _heldout_items()
    data = {task: load_task_data(task) for task in TASKS}
    order = read_examples(SEQUENCE_CLASSIFICATION, task_data_dir(SEQUENCE_CLASSIFICATION) / "word_order.tsv")
    pair_test = data[SENTENCE_PAIR_CLASSIFICATION]["test"]
    tagging = len(data[TOKEN_CLASSIFICATION]["test"])
    return {
        "mlm_top1": len(items["mlm"]),
        "mlm_top5": len(items["mlm"]),
        "gen_top1": len(items["gen"]),
        "gen_top5": len(items["gen"]),
        "nsp": len(items["nsp"]),
        "nsp_hard": len(items["nsp_hard"]) // 2,
        "sentence": len(data[SEQUENCE_CLASSIFICATION]["test"]),
        "order": len(order) // 2,
        "indirect": len(
            read_examples(SEQUENCE_CLASSIFICATION, task_data_dir(SEQUENCE_CLASSIFICATION) / "indirect.tsv")
        )
        // 4,
        "pair": len({e.text for e in pair_test} | {e.text_pair for e in pair_test}),
        "tagging": tagging,
        "tagging_acc": tagging,
        "probe": tagging,
        "probe_acc": tagging,
        "span": len({e.question for e in data[SPAN_EXTRACTION]["test"]}),
    }


def noise(summary: dict, metric: str, reference: str = "bert") -> float:
    """The test set's item noise of ``metric`` at the ``reference`` variant's median score
    (:func:`bertedu.course.stats.item_noise` over :func:`test_units`)."""
    return item_noise(summary[reference][metric]["median"], test_units()[metric])


def direction(delta: dict | None, noise: float = 0.0) -> str:
    """``"up"`` / ``"down"`` if the mean paired difference over the seeds exceeds 2 standard errors over the seeds
    *and* the test set's item ``noise`` (:func:`noise`), else ``"unclear"``
    (:func:`bertedu.course.stats.direction`)."""
    if delta is None or len(delta["values"]) < 2:
        return "unclear"
    return stats_direction(delta["values"], noise)


def metric_direction(summary: dict, variant: str, metric: str, reference: str = "bert") -> str:
    """:func:`direction` of ``variant - reference`` on ``metric``, with that metric's item noise."""
    if metric not in summary.get(variant, {}) or metric not in summary.get(reference, {}):
        return "unclear"
    return direction(summary[variant][metric]["delta"], noise(summary, metric, reference))


def directions(summary: dict, variants, metrics, reference: str = "bert") -> dict[tuple[str, str], str]:
    """:func:`metric_direction` for every ``(variant, metric)`` that both ``variant`` and ``reference`` have."""
    return {
        (v, m): metric_direction(summary, v, m, reference)
        for v in variants
        for m in metrics
        if m in summary.get(v, {}) and m in summary.get(reference, {})
    }


def sign_flip_directions(
    summary: dict, variants, metrics, *, draws: int = 200, seed: int = 0, reference: str = "bert"
) -> float:
    """How many directions the rule finds, on average, when every seed's paired difference gets a random sign:
    differences of the same sizes but no effect at all. Compare it with the directions the real differences give,
    and with :func:`bertedu.course.stats.false_positive_rate` times the number of comparisons."""
    rng = random.Random(seed)
    cells = [
        (summary[v][m]["delta"]["values"], noise(summary, m, reference))
        for v, m in directions(summary, variants, metrics, reference)
        if summary[v][m]["delta"] is not None
    ]
    fired = 0
    for _ in range(draws):
        for values, item_noise_ in cells:
            flipped = [d if rng.random() < 0.5 else -d for d in values]
            fired += stats_direction(flipped, item_noise_) != "unclear"
    return fired / draws


def paper_direction(change: float, noise: float = 0.5) -> str:
    """The sign of a difference the paper reports, in points; below ``noise`` (0.5 points, about the spread of
    BERT-base's dev scores between runs) it is ``"unclear"`` too."""
    return "up" if change >= noise else "down" if change <= -noise else "unclear"


def paper_comparison(summary: dict) -> list[dict]:
    """Each number of Table 5 and Table 8 we can put next to one of ours: ``{"table", "variant", "column",
    "metric", "paper_bert", "paper_variant", "paper_change", "paper_direction", "ours_change" (median
    difference, in points), "ours_min", "ours_max", "ours_mean", "ours_se", "ours_direction" (:func:`metric_direction`),
    "agree"}``."""
    rows = []
    for table_name, table in (("Table 5", TABLE_5), ("Table 8", TABLE_8)):
        for variant in (v for v in table if v not in ("columns", "bert")):
            for i, column in enumerate(table["columns"]):
                metric = PAPER_COLUMN.get(column)
                if metric is None or variant not in summary or metric not in summary[variant]:
                    continue
                delta = summary[variant][metric]["delta"]
                change = table[variant][i] - table["bert"][i]
                ours = metric_direction(summary, variant, metric)
                rows.append(
                    {
                        "table": table_name,
                        "variant": variant,
                        "column": column,
                        "metric": metric,
                        "paper_bert": table["bert"][i],
                        "paper_variant": table[variant][i],
                        "paper_change": round(change, 1),
                        "paper_direction": paper_direction(change),
                        "ours_change": None if delta is None else 100 * delta["median"],
                        "ours_min": None if delta is None else 100 * delta["min"],
                        "ours_max": None if delta is None else 100 * delta["max"],
                        "ours_mean": None if delta is None else 100 * delta["mean"],
                        "ours_se": None if delta is None else 100 * delta["se"],
                        "ours_direction": ours,
                        "agree": ours == paper_direction(change),
                    }
                )
    return rows


def metric_baselines() -> dict[str, tuple[float, str]]:
    """The trivial baselines (:mod:`bertedu.course.baselines`) of every metric a rule can be scored on:
    ``{metric: (score, which rule)}``, the strongest rule where there are several: the better of the trigram
    model and the co-occurrence filler on the masked-word files (top-1 and top-5 each), word overlap and the
    order-cue rule on the NSP files, the bag-of-words, majority and corpus-lookup rules on the sentence task and
    its word-order slice, those and the overlap, label-graph, co-occurrence and subject-vote rules on the pair
    task, the word's most frequent tag on tagging (and the probe), the sliding window, the template and the
    copy rule on spans (F1)."""
    documents = read_corpus(resolve_path(course_config().corpus))
    out = _masked_word_baselines([s for doc in documents for s in doc])
    items = _heldout_items()
    for key in ("nsp", "nsp_hard"):
        triples = [(it.sentence_a, it.sentence_b, it.next_sentence_label) for it in items[key]]
        rules = {"word_overlap": overlap_nsp_accuracy(triples), "order_cue": order_cue_nsp_accuracy(triples)}
        out[key] = _best(rules)
    data = load_task_data(SEQUENCE_CLASSIFICATION)
    texts = {split: ([e.text for e in data[split]], [e.label for e in data[split]]) for split in data}
    out["sentence"] = _best(sentence_baselines(*texts["train"], *texts["test"], documents=documents))
    order = read_examples(SEQUENCE_CLASSIFICATION, task_data_dir(SEQUENCE_CLASSIFICATION) / "word_order.tsv")
    order_texts = ([e.text for e in order], [e.label for e in order])
    out["order"] = _best(sentence_baselines(*texts["train"], *order_texts, documents=documents))
    indirect = read_examples(SEQUENCE_CLASSIFICATION, task_data_dir(SEQUENCE_CLASSIFICATION) / "indirect.tsv")
    indirect_texts = ([e.text for e in indirect], [e.label for e in indirect])
    out["indirect"] = _best(sentence_baselines(*texts["train"], *indirect_texts, documents=documents))
    data = load_task_data(SENTENCE_PAIR_CLASSIFICATION)
    pairs = {s: ([(e.text, e.text_pair) for e in data[s]], [e.label for e in data[s]]) for s in data}
    out["pair"] = _best(pair_baselines(*pairs["train"], *pairs["test"], documents=documents))
    data = load_task_data(TOKEN_CLASSIFICATION)
    tags = most_frequent_tag_scores(data["train"], data["test"])
    out["tagging"] = out["probe"] = (tags["macro_f1"], "most frequent tag of the word")
    out["tagging_acc"] = out["probe_acc"] = (tags["token_accuracy"], "most frequent tag of the word")
    data = load_task_data(SPAN_EXTRACTION)
    spans = {s: [(e.question, e.context, e.answer) for e in data[s]] for s in ("train", "test")}
    out["span"] = _best(
        {rule: scores["f1"] for rule, scores in span_baselines(spans["train"], spans["test"]).items()}
    )
    return out


def _masked_word_baselines(sentences: list[str]) -> dict[str, tuple[float, str]]:
    """``mlm_top1`` ... ``gen_top5``: for each, the better of the trigram model and the co-occurrence filler."""
    fillers = {
        "trigram model": NgramFiller(sentences),
        "co-occurrence naive Bayes": CooccurrenceFiller(sentences),
    }
    items = _heldout_items()
    out = {}
    for key, name in (("mlm_top1", "mlm"), ("gen_top1", "gen")):
        pairs = [(it.sentence, it.answers) for it in items[name]]
        scores = {rule: ngram_mlm_accuracy(filler, pairs, k=5) for rule, filler in fillers.items()}
        for metric in ("top1", "top5"):
            out[key.replace("top1", metric)] = _best({rule: s[metric] for rule, s in scores.items()})
    return out


def _best(scores: dict[str, float]) -> tuple[float, str]:
    name = max(scores, key=lambda k: (scores[k], k))
    return scores[name], name.replace("_", " ")


def load_full_results(path: str | Path | None = None) -> dict:
    """The full ablation run recorded by ``make bench``: ``benchmarks/results.json``'s ``"ablations"`` entry
    (``$BERTEDU_ABLATION_RESULTS`` names another file)
    ``{"records", "settings", "date", "seconds", ...}``. Raises ``FileNotFoundError`` / ``ValueError`` with
    what to run if it is missing."""
    if path is None:  # the claims sweep points notebook 10 at the run made under another CPU's kernels
        path = os.environ.get("BERTEDU_ABLATION_RESULTS") or repo_root() / "benchmarks" / "results.json"
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(
            f"No benchmark results at {path}; run `make bench` (or the ablations alone: "
            "python benchmarks/run_all.py --only-ablations)."
        )
    results = json.loads(path.read_text(encoding="utf-8"))
    if "ablations" not in results:
        raise ValueError(
            f"{path} has no ablation results; run python benchmarks/run_all.py --only-ablations."
        )
    return results["ablations"]


# ----------------------------------------------------------------------------------------------------------
# The plot

PLOT_GROUPS = (
    (translatable("Table 5: pre-training tasks"), ("no-nsp", "ltr"), ("pair", "sentence", "span"), TABLE_5),
    (
        translatable("Table 8: masking strategies"),
        ("mask-100-0-0", "mask-80-20-0"),
        ("pair", "tagging", "probe"),
        TABLE_8,
    ),
    (
        translatable("not in the BERT paper"),
        ("no-positions", "pre-ln", "rate-15", "rate-40"),
        ("mlm_top1", "gen_top1", "pair", "span"),
        None,
    ),
)


def plot_ablations(summary: dict, title: str | None = None):
    """Each variant's difference to ``bert`` per metric: our median with the min-max range over seeds as a
    bar with an error bar, the paper's difference as a hatched bar next to it where the paper has one.
    ``title`` is the y-axis label (default: "difference to BERT (same seed), percentage points", in the course's
    language). Returns the Figure (closed, so a notebook shows it once)."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2), layout="constrained", width_ratios=(6, 6, 16))
    for ax, (name, variants, metrics, table) in zip(axes, PLOT_GROUPS):
        x, labels, legend = 0, [], set()
        for variant in variants:
            for metric in metrics:
                entry = summary.get(variant, {}).get(metric)
                if entry and entry["delta"]:
                    d = entry["delta"]
                    med = 100 * d["median"]
                    err = [[med - 100 * d["min"]], [100 * d["max"] - med]]
                    label = msg("ours: median, min-max over seeds") if "ours" not in legend else None
                    ax.bar(x - 0.2, med, 0.4, yerr=err, color="C0", capsize=3, label=label)
                    legend.add("ours")
                paper = _paper_change(table, variant, metric)
                if paper is not None:
                    label = msg("the paper") if "paper" not in legend else None
                    ax.bar(x + 0.2, paper, 0.4, color="white", edgecolor="C1", hatch="//", label=label)
                    ax.annotate(
                        f"{paper:+.1f}",
                        (x + 0.2, paper),
                        ha="center",
                        va="top",
                        fontsize=6,
                        color="C1",
                        xytext=(0, -2),
                        textcoords="offset points",
                    )
                    legend.add("paper")
                labels.append(f"{translate(VARIANTS[variant].label)}\n{translate(METRICS[metric][0])}")
                x += 1
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.set_xticks(range(len(labels)), labels, rotation=60, ha="right", fontsize=7)
        ax.set_title(translate(name), fontsize=10)
    # One legend for the three panels, above them (inside, it covered bars and error bars); the y label on two
    # lines, broken after its last comma (on one it ran past the top of the figure, in Chinese most of all).
    drawn = {name: handle for ax in axes for handle, name in zip(*ax.get_legend_handles_labels())}
    names = [name for name in (msg("ours: median, min-max over seeds"), msg("the paper")) if name in drawn]
    fig.legend(
        [drawn[n] for n in names], names, loc="outside upper center", ncols=2, fontsize=8, frameon=False
    )
    label = title or msg("difference to BERT (same seed), percentage points")
    axes[0].set_ylabel(break_after_last_comma(label), fontsize=9)
    plt.close(fig)
    return fig


def _paper_change(table, variant: str, metric: str) -> float | None:
    if table is None or variant not in table:
        return None
    for i, column in enumerate(table["columns"]):
        if PAPER_COLUMN.get(column) == metric:
            return table[variant][i] - table["bert"][i]
    return None
