"""Notebook 07's recipes: fine-tuning settings per task and encoder (:func:`course_recipe`), the runs
(:func:`run_course_task`, :func:`learning_curve`, :func:`run_minilm`), the thresholds every run must reach,
the trivial baselines of the classification tasks (:func:`baseline_scores`) and the frozen-encoder alternative
to fine-tuning (:func:`run_feature_based`).

Part of :mod:`bertedu.course` (the course's recipes); introduced in notebook 07.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from tqdm.auto import tqdm

from bertedu.core.config import BertConfig
from bertedu.core.minilm import minilm_dir
from bertedu.core.tokenizer import BertTokenizer
from bertedu.core.validation import require_int
from bertedu.course.baselines import (
    ATTITUDE_VERBS,
    TIME_WORDS,
    content_words,
    majority_label,
    most_frequent_tag_scores,
    pair_baselines,
    sentence_baselines,
    span_baselines,
    stem,
)
from bertedu.course.pretraining import course_config, course_seed
from bertedu.language import msg
from bertedu.training.data import read_corpus
from bertedu.training.finetune import FineTuneConfig, FineTuneResult, build_task_model, evaluate, fine_tune
from bertedu.training.finetune_data import (
    SENTENCE_PAIR_CLASSIFICATION,
    SEQUENCE_CLASSIFICATION,
    SPAN_EXTRACTION,
    TOKEN_CLASSIFICATION,
    TaskDataset,
    check_task,
    label_budget,
    make_task_datasets,
    task_shape,
)
from bertedu.training.metrics import accuracy, macro_f1
from bertedu.training.optim import AdamW
from bertedu.utils import resolve_path

# ----------------------------------------------------------------------------------------------------------
# Notebook 07: fine-tuning


#: Peak learning rate = paper's 5e-5 times this factor, per encoder. See :func:`course_recipe`.
LR_SCALE = {"mini-bert": 20.0, "scratch": 20.0, "minilm": 4.0}
#: Test-set scores every course run must reach (asserted in notebook 07; reported by the benchmarks).
COURSE_THRESHOLDS = {
    SEQUENCE_CLASSIFICATION: {"accuracy": 0.85},
    SENTENCE_PAIR_CLASSIFICATION: {
        "accuracy": 0.55
    },  # facts never seen in fine-tuning (notebook 07 section 4)
    TOKEN_CLASSIFICATION: {"token_accuracy": 0.95},
    SPAN_EXTRACTION: {"f1": 0.20},  # the split dealt by fact (notebook 07 section 6): new questions are hard
}
COURSE_MAX_LENGTH = 64
#: Every mini-BERT run takes at least this many optimizer steps: with 8 or 40 labelled sentences, 10 epochs
#: are only 10-30 steps, too few for a model from scratch to learn anything, which would flatter pretraining.
COURSE_MIN_STEPS = 100
#: Dropout while fine-tuning, as in the paper (0.1), whatever the pretraining run used (notebook 06 turns it off).
COURSE_DROPOUT = {"hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1}


def course_recipe(task: str, encoder: str = "mini-bert", **overrides: Any) -> FineTuneConfig:
    """The fine-tuning settings notebook 07 uses for ``task`` and ``encoder`` ("mini-bert", "scratch", "minilm").

    Batch 16 and lr 5e-5 come from the paper's grid; ``lr_scale`` multiplies the learning rate for our
    models (:data:`LR_SCALE`), and the number of epochs is larger than the paper's 2-4 because our training
    sets give a few dozen steps per epoch, not thousands; a small label budget still gets at least
    :data:`COURSE_MIN_STEPS` steps. Early stopping on dev picks the epoch. MiniLM: 2 epochs of batch 32 (the paper's grid has 2-4).

    One CPU thread, as for pretraining (:func:`bertedu.course.course_config`): the same weights whatever the
    caller's thread setting, and robust on a shared machine (a mini-BERT run took 3.4 s with one thread and 3.7 s
    with two on an idle 2-core machine; with another program busy, 3.9 s and 8.8 s).
    """
    check_task(task)
    if encoder not in LR_SCALE:
        raise ValueError(f"encoder must be one of {list(LR_SCALE)}, got {encoder!r}.")
    epochs = {SEQUENCE_CLASSIFICATION: 10, TOKEN_CLASSIFICATION: 10, SPAN_EXTRACTION: 15}[task_shape(task)]
    batch_size, min_steps = 16, COURSE_MIN_STEPS
    if encoder == "minilm":  # a real 22.7M-parameter encoder: 2 epochs of batch 32, from the paper's grid
        epochs, batch_size, min_steps = 2, 32, 0
    recipe = FineTuneConfig(
        learning_rate=5e-5,
        lr_scale=LR_SCALE[encoder],
        batch_size=batch_size,
        epochs=epochs,
        warmup_ratio=0.1,
        patience=4,
        min_steps=min_steps,
        num_threads=1,
        progress=False,
    )
    return recipe.replace(**overrides)


def run_course_task(
    task: str,
    encoder: str,
    source,
    datasets: dict[str, TaskDataset],
    *,
    fraction: float = 1.0,
    seed: int = 0,
    progress: bool = False,
    **recipe_overrides: Any,
) -> tuple[FineTuneResult, dict]:
    """Fine-tune one model with the course recipe and score it on the test split: ``(result, test_metrics)``.

    ``encoder`` names the recipe ("mini-bert", "scratch", "minilm"); ``source`` is what
    :func:`build_task_model` starts from (the pretrained model, its ``config`` for "scratch", or a folder).
    ``fraction`` < 1 trains on :func:`label_budget` ``(train, fraction, seed)``.
    """
    if encoder == "scratch" and not isinstance(source, BertConfig):
        source = source.config  # the same architecture, random weights
    seed = course_seed(seed)  # + the claims sweep's offset (0 in the notebooks)
    train = datasets["train"] if fraction == 1 else label_budget(datasets["train"], fraction, seed)
    model = build_task_model(task, source, num_labels=train.num_labels, seed=seed, **COURSE_DROPOUT)
    config = course_recipe(task, encoder, seed=seed, progress=progress, **recipe_overrides)
    result = fine_tune(model, train, datasets["dev"], config=config)
    return result, evaluate(result.model, datasets["test"], max_answer_length=config.max_answer_length)


#: The grid :func:`dev_search` tries: learning-rate factors (times the paper's 5e-5) and numbers of epochs.
DEV_SEARCH = {"lr_scale": (5.0, 20.0, 80.0), "epochs": (10, 30)}


def dev_search(
    task: str,
    encoder: str,
    source,
    datasets: dict[str, TaskDataset],
    *,
    lr_scales=DEV_SEARCH["lr_scale"],
    epochs=DEV_SEARCH["epochs"],
    seed: int = 0,
    metric: str = "accuracy",
) -> tuple[tuple[float, int], dict[tuple[float, int], tuple[FineTuneResult, dict]]]:
    """Notebook 06's fair-baseline rule for fine-tuning: give a model its own learning rate and number of epochs,
    chosen on dev. Runs :func:`run_course_task` for every ``(lr_scale, epochs)`` of the grid and returns
    ``(best, runs)``: the setting with the best dev ``metric`` (ties: the first in grid order) and every run,
    ``runs[lr_scale, epochs] = (result, test_metrics)``. The test scores are for reading afterwards, never for
    the choice."""
    if not lr_scales or not epochs:
        raise ValueError("dev_search needs at least one learning-rate factor and one number of epochs.")
    runs = {}
    for scale in lr_scales:
        for n in epochs:
            runs[scale, n] = run_course_task(
                task, encoder, source, datasets, seed=seed, lr_scale=scale, epochs=n
            )
    best = max(runs, key=lambda k: (runs[k][0].best_metrics[metric], -list(runs).index(k)))
    return best, runs


def learning_curve(
    task: str,
    source,
    datasets: dict[str, TaskDataset],
    *,
    fractions=(0.1, 0.25, 0.5, 1.0),
    seeds=(0, 1, 2),
    encoders=("mini-bert", "scratch"),
    progress: bool = False,
    bag_of_words: bool = False,
    overrides: dict[str, dict] | None = None,
) -> list[dict]:
    """Test scores against the number of labelled training examples, for each encoder recipe.

    One record per (encoder, fraction, seed): ``{"encoder", "fraction", "n_train", "n_dev", "seed",
    **test_metrics}``; ``n_dev`` is the dev split's size, whose labels pick every run's epoch, so a run used
    ``n_train + n_dev`` labels in all. ``overrides``: recipe settings per encoder (the control from scratch gets
    its own learning rate and epochs: :func:`dev_search`).
    The full training set (fraction 1.0) is run with the first seed only (every seed would see the same
    examples). ``bag_of_words=True`` (classification tasks) adds a record with ``encoder="bag of words"`` and
    its test ``accuracy`` for every budget: naive Bayes trained on the very same examples
    (:func:`baseline_scores`), the baseline the models must beat. ``progress=True`` shows one bar over the
    runs.
    """
    records = []
    budgets = [(f, s) for f in fractions for s in (seeds if f < 1 else seeds[:1])]  # (fraction, seed)
    if bag_of_words:
        for fraction, seed in budgets:
            scores = baseline_scores(task, datasets, fraction=fraction, seed=seed)
            records.append(
                {
                    "encoder": "bag of words",
                    "fraction": fraction,
                    "n_train": _budget_size(datasets, fraction, seed),
                    "n_dev": 0,  # naive Bayes has no epochs to pick
                    "seed": seed,
                    "accuracy": scores["bag_of_words"],
                }
            )
    runs = [(encoder, fraction, seed) for encoder in encoders for fraction, seed in budgets]
    with tqdm(
        total=len(runs),
        desc=msg("learning curve ({task})", task=task),
        unit="run",
        disable=not progress,
        leave=False,
    ) as bar:
        for encoder, fraction, seed in runs:
            bar.set_postfix_str(
                msg(
                    "{encoder}, {fraction:.0%} of the labels, seed {seed}",
                    encoder=encoder,
                    fraction=fraction,
                    seed=seed,
                ),
                refresh=True,
            )
            extra = (overrides or {}).get(encoder, {})
            _, metrics = run_course_task(
                task, encoder, source, datasets, fraction=fraction, seed=seed, **extra
            )
            n_train, n_dev = _budget_size(datasets, fraction, seed), len(datasets["dev"])
            records.append(
                {"encoder": encoder, "fraction": fraction, "n_train": n_train, "n_dev": n_dev, "seed": seed}
                | metrics
            )
            bar.update(1)
    return records


def fact_key(sentence: str) -> frozenset[str]:
    """The fact a sentence of the pair task renders, as the set of its content words, stemmed, without time words
    or "likes to": "in the morning it sits on the mat", "it likes to sit on the mat" and "it sits on the mat" are
    one fact, ``{"sit", "mat"}``. Pairs that render the same two facts are not independent test items."""
    return frozenset(
        stem(w) for w in content_words(sentence) if w not in TIME_WORDS and w not in ATTITUDE_VERBS
    )


def pair_clusters(dataset: TaskDataset) -> list[frozenset]:
    """For each item of a sentence-pair dataset, the unordered pair of facts it renders (:func:`fact_key`): the
    clusters of :func:`bertedu.course.stats.cluster_se`."""
    return [frozenset((fact_key(e.text), fact_key(e.text_pair))) for e in dataset.examples]


def _budget_size(datasets: dict[str, TaskDataset], fraction: float, seed: int) -> int:
    if fraction == 1:
        return len(datasets["train"])
    return len(label_budget(datasets["train"], fraction, course_seed(seed)))


def baseline_scores(
    task: str, datasets: dict[str, TaskDataset], *, fraction: float = 1.0, seed: int = 0
) -> dict[str, float]:
    """Test scores of the trivial baselines of a task, trained on the training split (or on
    :func:`label_budget` ``(train, fraction, seed)``, the examples a fine-tuned model of that budget sees):

    - sentence classification (accuracy): ``majority`` (always the most frequent label), ``bag_of_words``
      (naive Bayes over the words, :mod:`bertedu.course.baselines`) and ``corpus_lookup`` (the corpus's
      subject->predicate table; it reads no label);
    - sentence pairs (accuracy): the first two, plus ``overlap`` (do A and B share a content word?),
      ``hypothesis_only`` (naive Bayes on segment B alone), ``first_only`` (on segment A alone),
      ``label_graph``, ``co_occurrence`` and ``subject_vote`` (the corpus's subjects; it reads no label);
    - token classification (token accuracy over words): ``majority`` (every word gets the most frequent
      tag) and ``word_majority`` (each word gets the tag it had most often in training; unseen words the
      most frequent tag).

    Span extraction's rules score spans, not labels: :func:`best_baseline` covers every task. A fine-tuned
    model's score means something only next to these.
    """
    check_task(task)
    if task == SPAN_EXTRACTION:
        raise ValueError(
            f"baseline_scores covers {SEQUENCE_CLASSIFICATION!r}, {SENTENCE_PAIR_CLASSIFICATION!r} and "
            f"{TOKEN_CLASSIFICATION!r}, not {task!r}."
        )
    train = (
        datasets["train"] if fraction == 1 else label_budget(datasets["train"], fraction, course_seed(seed))
    )
    test = datasets["test"]
    if train.task != task or test.task != task:
        raise ValueError(f"The datasets are {train.task!r} data; baseline_scores was asked for {task!r}.")
    if task == TOKEN_CLASSIFICATION:
        return _tagging_baselines(train.examples, test.examples)
    train_labels = [e.label for e in train.examples]
    test_labels = [e.label for e in test.examples]
    documents = read_corpus(resolve_path(course_config().corpus))  # the corpus rules read the corpus
    if task == SENTENCE_PAIR_CLASSIFICATION:
        return pair_baselines(
            [(e.text, e.text_pair) for e in train.examples],
            train_labels,
            [(e.text, e.text_pair) for e in test.examples],
            test_labels,
            documents=documents,
        )
    return sentence_baselines(
        [e.text for e in train.examples],
        train_labels,
        [e.text for e in test.examples],
        test_labels,
        documents=documents,
    )


def _tagging_baselines(train, test) -> dict[str, float]:
    """Token accuracy of the overall majority tag and of each word's most frequent training tag (ties: the
    alphabetically first tag)."""
    seen: dict[str, Counter] = defaultdict(Counter)
    for example in train:
        for word, tag in zip(example.words, example.tags):
            seen[word][tag] += 1
    overall = majority_label([tag for example in train for tag in example.tags])
    lookup = {word: majority_label(list(counts.elements())) for word, counts in seen.items()}
    gold = [tag for example in test for tag in example.tags]
    test_words = [word for example in test for word in example.words]
    return {
        "majority": accuracy([overall] * len(gold), gold),
        "word_majority": accuracy([lookup.get(w, overall) for w in test_words], gold),
    }


def span_baseline_scores(datasets: dict[str, TaskDataset]) -> dict[str, dict[str, float]]:
    """Test scores (``exact_match``, ``f1``) of the span rules of :func:`bertedu.course.baselines.span_baselines`
    (the sliding window, the template rule and the copy rule), fitted on the training split."""
    train, test = datasets["train"], datasets["test"]
    if train.task != SPAN_EXTRACTION or test.task != SPAN_EXTRACTION:
        raise ValueError(f"span_baseline_scores needs {SPAN_EXTRACTION!r} data, got {train.task!r}.")
    items = {
        split: [(e.question, e.context, e.answer) for e in ds.examples]
        for split, ds in (("train", train), ("test", test))
    }
    return span_baselines(items["train"], items["test"])


def best_baseline(task: str, datasets: dict[str, TaskDataset]) -> tuple[str, dict[str, float]]:
    """The strongest trivial rule of ``task`` on its test split, as ``(rule, {metric: score})`` in the metrics
    :func:`evaluate` reports for that task, so that the rule can sit as a row under the models' scores:

    - sentence and pair classification: the best of :func:`baseline_scores` by accuracy (``{"accuracy"}``);
    - token classification: each word's most frequent training tag (``{"token_accuracy", "macro_f1"}``);
    - span extraction: the best of :func:`bertedu.course.baselines.span_baselines` by F1 (the sliding
      window, the template rule and the copy rule, ``{"exact_match", "f1"}``).
    """
    check_task(task)
    train, test = datasets["train"], datasets["test"]
    if train.task != task or test.task != task:
        raise ValueError(f"The datasets are {train.task!r} data; best_baseline was asked for {task!r}.")
    if task == TOKEN_CLASSIFICATION:
        return "word's most frequent tag", most_frequent_tag_scores(train.examples, test.examples)
    if task == SPAN_EXTRACTION:
        scores = span_baseline_scores(datasets)
        rule = max(scores, key=lambda k: (scores[k]["f1"], k))
        return rule.replace("_", " "), scores[rule]
    scores = baseline_scores(task, datasets)
    rule = max(scores, key=lambda k: (scores[k], k))
    return rule.replace("_", " "), {"accuracy": scores[rule]}


def results_table(runs: dict, task: str, datasets: dict[str, TaskDataset], encoders=("mini-bert", "scratch")):
    """Notebook 07's table of one task: a row of test metrics per encoder (``runs[task, encoder] = (result,
    metrics)``), and as the last row the task's best trivial rule (:func:`best_baseline`), named, with the
    metrics it can be scored on (the others blank): a score is read next to what a rule gets."""
    import pandas as pd  # the notebooks' table library; only this table needs it

    rows = {encoder: dict(runs[task, encoder][1]) for encoder in encoders}
    rule, scores = best_baseline(task, datasets)
    rows[f"baseline: {rule}"] = scores
    return pd.DataFrame(rows).T


#: How :func:`run_feature_based` turns the token vectors of one layer into one vector per sentence.
POOLINGS = ("cls", "pooled", "mean")


@torch.no_grad()
def sentence_features(
    encoder, dataset: TaskDataset, *, pooling: str = "mean", layers: int = 1
) -> torch.Tensor:
    """One vector per example of a classification dataset from a frozen ``encoder`` (a ``BertModel``, run in
    eval mode): ``(N, layers * H)``.

    ``pooling``: ``"cls"`` the final vector of [CLS]; ``"pooled"`` the pooler's ``tanh(W T_[CLS] + b)`` (the
    input of BERT's classifier; last layer only); ``"mean"`` the average of the real tokens' vectors
    (padding excluded). ``layers``: how many of the top layers to concatenate (the paper's best
    feature-based NER concatenated the top four).
    """
    if pooling not in POOLINGS:
        raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}.")
    n_layers = encoder.config.num_hidden_layers
    require_int("layers", layers, 1, n_layers, hint="the encoder's layers")
    if pooling == "pooled" and layers != 1:
        raise ValueError("The pooler reads the last layer only: use layers=1 with pooling='pooled'.")
    was_training = encoder.training
    encoder.eval()
    rows = []
    try:
        for _, batch in dataset.batches(64):
            out = encoder(
                batch["input_ids"],
                batch["attention_mask"],
                batch["token_type_ids"],
                output_hidden_states=True,
            )
            if pooling == "pooled":
                rows.append(out.pooler_output)  # (B, H)
                continue
            top = out.hidden_states[-layers:]  # `layers` tensors (B, T, H)
            if pooling == "cls":
                rows.append(torch.cat([h[:, 0] for h in top], dim=-1))
            else:
                mask = batch["attention_mask"][:, :, None].to(top[0].dtype)  # (B, T, 1)
                rows.append(torch.cat([(h * mask).sum(1) / mask.sum(1) for h in top], dim=-1))
    finally:
        encoder.train(was_training)
    return torch.cat(rows)  # (N, layers * H)


def fit_frozen_classifier(
    x: dict[str, torch.Tensor],
    y: dict[str, torch.Tensor],
    num_labels: int,
    *,
    seed: int,
    steps: int,
    lr: float,
    weight_decay: float,
    dev_score: Callable[[list[int], list[int]], float],
    check_every: int = 1,
) -> tuple[list[int], float, int]:
    """Train only a linear classifier on frozen features: the feature-based approach's second half.

    ``x``/``y``: the ``"train"``, ``"dev"`` and ``"test"`` features ``(N, D)`` and labels ``(N,)``. The features
    are standardised with the training split's mean and spread; the classifier (initialised under ``seed``,
    the global random state left untouched) is trained with full-batch AdamW for ``steps`` steps, and every
    ``check_every`` steps it is scored on dev with ``dev_score(predicted, gold)``; the best step is kept (the
    first of equals), as early stopping does for fine-tuning. Returns ``(test predictions, best dev score,
    best step)``. Used by :func:`run_feature_based` and :func:`bertedu.course.ablations.frozen_feature_probe`.
    """
    mean, std = x["train"].mean(0), x["train"].std(0) + 1e-6
    x = {name: (v - mean) / std for name, v in x.items()}
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        classifier = torch.nn.Linear(x["train"].shape[1], num_labels)
    optimizer = AdamW(classifier.parameters(), lr=lr, weight_decay=weight_decay)
    best_dev, best_step, best_state = -1.0, 0, None
    for step in range(1, steps + 1):
        loss = F.cross_entropy(classifier(x["train"]), y["train"])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % check_every:
            continue
        with torch.no_grad():
            dev = dev_score(classifier(x["dev"]).argmax(-1).tolist(), y["dev"].tolist())
        if dev > best_dev:
            best_dev, best_step = dev, step
            best_state = {k: v.clone() for k, v in classifier.state_dict().items()}
    classifier.load_state_dict(best_state)
    with torch.no_grad():
        predicted = classifier(x["test"]).argmax(-1).tolist()
    return predicted, best_dev, best_step


def run_feature_based(
    task: str,
    source,
    datasets: dict[str, TaskDataset],
    *,
    pooling: str = "mean",
    layers: int = 1,
    seed: int = 0,
    steps: int = 300,
    lr: float = 1e-2,
    weight_decay: float = 0.01,
) -> dict[str, float]:
    """The feature-based alternative to fine-tuning, for a classification task: the encoder stays frozen.

    Its vectors are computed once per example (:func:`sentence_features`, standardised with the training
    split's mean and spread), and only a linear classifier on top is trained: full-batch AdamW for
    ``steps`` steps; the step with the best dev accuracy is kept (the first of equals), as early stopping
    does for fine-tuning. ``source`` is what :func:`build_task_model` reads (a pretrained model, a
    ``BertConfig`` for random features, or a folder). Returns ``{"accuracy", "macro_f1"}`` on the test split
    plus ``"dev_accuracy"`` and ``"best_step"``. Deterministic for a given ``seed``.
    """
    check_task(task)
    if task_shape(task) != SEQUENCE_CLASSIFICATION:
        raise ValueError(f"run_feature_based handles the classification tasks, not {task!r}.")
    require_int("steps", steps, 1)
    seed = course_seed(seed)  # + the claims sweep's offset (0 in the notebooks)
    train = datasets["train"]
    splits = {name: datasets[name] for name in ("train", "dev", "test")}
    encoder = build_task_model(task, source, num_labels=train.num_labels, seed=seed).bert
    x = {name: sentence_features(encoder, ds, pooling=pooling, layers=layers) for name, ds in splits.items()}
    y = {name: torch.tensor([f["labels"] for f in ds.features]) for name, ds in splits.items()}
    predicted, best_dev, best_step = fit_frozen_classifier(
        x, y, train.num_labels, seed=seed, steps=steps, lr=lr, weight_decay=weight_decay, dev_score=accuracy
    )
    gold = y["test"].tolist()
    return {
        "accuracy": accuracy(predicted, gold),
        "macro_f1": macro_f1(predicted, gold),
        "dev_accuracy": best_dev,
        "best_step": best_step,
    }


MINILM_MAX_LENGTH = 32


def run_minilm(*, progress: bool = False, **recipe_overrides: Any) -> tuple[FineTuneResult, dict]:
    """Fine-tune all-MiniLM-L6-v2 (every parameter) on the course's sentence classification: ``(result, test_metrics)``.

    The weights come from the installed package through our ``from_pretrained``; our ``BertTokenizer`` reads
    its ``vocab.txt``. Sequences are at most :data:`MINILM_MAX_LENGTH` tokens (the course sentences need fewer).
    """
    folder = minilm_dir()
    tokenizer = BertTokenizer.from_file(folder / "vocab.txt")
    datasets = make_task_datasets(SEQUENCE_CLASSIFICATION, tokenizer, max_length=MINILM_MAX_LENGTH)
    return run_course_task(
        SEQUENCE_CLASSIFICATION, "minilm", folder, datasets, progress=progress, **recipe_overrides
    )
