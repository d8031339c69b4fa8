"""Side runs: training that a notebook needs later, done in a second process while the notebook goes on
(:func:`start_side_runs`; the process and the cache of finished runs are :mod:`bertedu.course.background`).
Notebook 06's: the short runs that test its claims (no positions, NSP only) and the one-layer MiniBert to its
loss plateau. Notebook 07's: the learning curve of sentence classification and the fine-tuning of
all-MiniLM-L6-v2.

Part of :mod:`bertedu.course` (the course's recipes); introduced in notebook 06.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from bertedu.core.minilm import MINILM_PACKAGE
from bertedu.core.model import BertForPreTraining
from bertedu.core.tokenizer import BertTokenizer, train_tokenizer
from bertedu.course.background import BackgroundRuns, RunRegistry
from bertedu.course.finetuning import dev_search, learning_curve, run_minilm
from bertedu.course.minibert import MiniBert, train_minibert
from bertedu.course.pretraining import course_config, course_seed, course_tokenizer, load_course_model
from bertedu.language import translatable
from bertedu.training.data import read_corpus
from bertedu.training.finetune import MAIN_METRIC, evaluate
from bertedu.training.finetune_data import (
    SENTENCE_PAIR_CLASSIFICATION,
    SEQUENCE_CLASSIFICATION,
    SPAN_EXTRACTION,
    TOKEN_CLASSIFICATION,
    indirect_dataset,
    make_task_datasets,
    task_shape,
    word_order_dataset,
)
from bertedu.training.pretrain import (
    PretrainingConfig,
    PretrainingRun,
    model_config,
    pretrain,
)
from bertedu.utils import cpu_threads, resolve_path

# ----------------------------------------------------------------------------------------------------------
# Notebook 06: the runs its comparisons need

#: Notebook 06's budget for the one-layer MiniBert: "to its loss plateau". The course mini-BERT's peak learning
#: rate (3e-3, constant, with Adam as in the post) and 3,000 steps of 64 sentences (290 epochs of the corpus);
#: the last 500 steps lower its mean training loss by less than 0.05, a few per cent of where it started, while
#: its held-out accuracy stopped rising long before. (The post: 500 epochs of one sentence per update at 1e-3;
#: at 1e-3 with batches of 64, the plateau comes after about 5,000 steps.)
MINIBERT_LEARNING_RATE = 3e-3
MINIBERT_PLATEAU_STEPS = 3000
#: Notebook 06's short runs stop after this many of the course recipe's 1,000 steps; their learning-rate
#: schedule still plans for 1,000, so their step t compares with the full run's step t.
NO_POSITIONS_STEPS = 300
NSP_ONLY_STEPS = 600


@dataclass
class MiniBertRun:
    """A trained :class:`bertedu.course.minibert.MiniBert` (eval mode) with its tokenizer, training history
    (``{"step", "split": "train", "mlm_loss", "mlm_accuracy"}``, means over 10 steps), learning rate and
    number of steps. Introduced in notebook 06."""

    model: MiniBert
    tokenizer: BertTokenizer
    history: list[dict]
    learning_rate: float
    steps: int


def minibert_plateau_run(
    steps: int = MINIBERT_PLATEAU_STEPS, *, learning_rate: float = MINIBERT_LEARNING_RATE, seed: int = 0
) -> MiniBertRun:
    """The blog post's one-layer MiniBert (:mod:`bertedu.course.minibert`) trained on the course corpus's sentences
    with the course vocabulary, in batches of 64 sentences (one [MASK] each), with Adam at a constant
    ``learning_rate``, for ``steps`` steps: by default to its loss plateau (:data:`MINIBERT_PLATEAU_STEPS`).
    On one CPU thread, so the weights do not depend on the caller's thread setting.
    """
    config = course_config()
    documents = read_corpus(resolve_path(config.corpus))
    tokenizer = train_tokenizer(documents, config.vocab_size)
    sentences = [s for doc in documents for s in doc]
    with cpu_threads(1), torch.random.fork_rng(devices=[]):  # the caller's random state stays as it was
        model, history = train_minibert(
            sentences,
            tokenizer,
            steps=steps,
            batch_size=config.batch_size,
            learning_rate=learning_rate,
            d_model=128,
            seed=course_seed(seed),  # + the claims sweep's offset, as every course recipe
        )
    return MiniBertRun(model, tokenizer, history, learning_rate, steps)


def no_positions_run(
    steps: int = NO_POSITIONS_STEPS, *, seed: int = 0, progress: bool = False
) -> PretrainingRun:
    """Notebook 06's short ablation: the course recipe without position embeddings
    (``position_embedding_type="none"``), stopped after ``steps`` of its 1,000 steps. Its history holds the
    held-out evaluation every 100 steps, comparable with the full run's at the same step. Notebook 10 runs the
    whole recipe over several seeds.
    """
    config = course_config(position_embedding_type="none", seed=seed)
    return pretrain(config, None, progress=progress, stop_after=steps)


def nsp_only_run(steps: int = NSP_ONLY_STEPS, *, seed: int = 0, progress: bool = False) -> list[dict]:
    """Notebook 06's test of the hypothesis "NSP learns late because it needs what MLM builds first": the
    first ``steps`` steps of the course recipe with the MLM loss removed (``objective="nsp"``: every MLM label
    -100, so ``L = L_NSP``), everything else as in the full run: the same initial weights, the same batches
    (masked inputs included), the same optimizer and learning-rate schedule, through :func:`pretrain`'s one step.

    Returns its history (:func:`bertedu.training.pretrain.pretrain`'s): training records every 10 steps
    (``loss``, ``nsp_loss``, ``nsp_accuracy``: means over them; no MLM figures) and held-out records every 100
    steps (``nsp_accuracy`` on ``data/nsp_eval.tsv``).
    """
    config = course_config(objective="nsp", mlm_eval_file=None, seed=seed)
    return pretrain(config, None, progress=progress, stop_after=steps).history


# ----------------------------------------------------------------------------------------------------------
# Notebook 07: the fine-tuning runs that do not depend on the notebook's other cells

#: Notebook 07's learning curve of sentence classification: the labelled-data budgets and the seeds.
CURVE_FRACTIONS = (0.1, 0.5)
CURVE_SEEDS = (0, 1, 2)


def learning_curve_run(
    *,
    model_dir: str | os.PathLike | None = None,
    fractions: tuple[float, ...] = CURVE_FRACTIONS,
    seeds: tuple[int, ...] = CURVE_SEEDS,
    encoders: tuple[str, ...] = ("mini-bert", "scratch"),
    progress: bool = False,
) -> dict:
    """Notebook 07's learning curve: :func:`bertedu.course.learning_curve` of sentence classification, at
    ``fractions`` of the labels with ``seeds``, with the bag-of-words baseline on the same examples. The control
    from scratch first gets its own learning rate and epochs on the full training set (:func:`scratch_control`,
    six settings picked on dev) and keeps them at every budget. Returns ``{"records": [...], "control": the
    control's dev search or None}``. The pretrained encoder is the course model (:func:`load_course_model`), or
    the model and ``vocab.txt`` saved in ``model_dir``. One CPU thread, so it is the same wherever it runs."""
    with cpu_threads(1):
        model, tokenizer = _encoder(model_dir, progress)
        datasets = make_task_datasets(SEQUENCE_CLASSIFICATION, tokenizer)
        control, overrides = None, {}
        if "scratch" in encoders:
            control = scratch_control(SEQUENCE_CLASSIFICATION, model, tokenizer, datasets)
            overrides["scratch"] = dict(zip(("lr_scale", "epochs"), control["best"]))
        records = learning_curve(
            SEQUENCE_CLASSIFICATION,
            model,
            datasets,
            fractions=fractions,
            seeds=seeds,
            encoders=encoders,
            bag_of_words=True,
            progress=progress,
            overrides=overrides,
        )
    return {"records": records, "control": control}


def _encoder(model_dir, progress: bool):
    """The course model and its tokenizer, or the model and ``vocab.txt`` saved in ``model_dir``."""
    if model_dir is None:
        return load_course_model(progress=progress)
    model = BertForPreTraining.from_pretrained(model_dir).eval()
    return model, BertTokenizer.from_file(Path(model_dir) / "vocab.txt")


def minilm_run(*, progress: bool = False, **recipe_overrides: Any) -> dict:
    """Notebook 07's fine-tuning of all-MiniLM-L6-v2 on sentence classification (:func:`run_minilm`), on one
    CPU thread: ``{"epochs_run", "steps", "best_epoch", "best_metrics", "history", "test"}`` (the fine-tuned
    model itself is not kept: the notebook needs only its scores)."""
    with cpu_threads(1):
        result, test = run_minilm(progress=progress, **recipe_overrides)
    return {
        "epochs_run": result.epochs_run,
        "steps": result.steps,
        "best_epoch": result.best_epoch,
        "best_metrics": result.best_metrics,
        "history": result.history,
        "test": test,
    }


def scratch_control_run(
    task: str, *, model_dir: str | os.PathLike | None = None, progress: bool = False
) -> dict:
    """Notebook 07's control from scratch for ``task`` (:func:`scratch_control`) on one CPU thread, so that it is
    the same wherever it runs; the pretrained model only lends its configuration."""
    with cpu_threads(1):
        model, tokenizer = _encoder(model_dir, progress)
        return scratch_control(task, model, tokenizer, make_task_datasets(task, tokenizer))


def scratch_control(task: str, model, tokenizer, datasets) -> dict:
    """The control from scratch for ``task``, trained fairly: :func:`bertedu.course.dev_search` gives it its own
    learning rate and number of epochs, chosen on dev among six settings (notebook 06's rule for a fair
    baseline). Returns plain data: ``{"best": [lr_scale, epochs], "search": [{"lr_scale", "epochs", "dev",
    "test"}], "test": the chosen run's test metrics, "slices": {"word_order", "indirect"}}`` (the slices for the
    sentence task: the chosen model's accuracy on them)."""
    metric = MAIN_METRIC[task_shape(task)]
    best, runs = dev_search(task, "scratch", model, datasets, metric=metric)
    search = [
        {"lr_scale": scale, "epochs": epochs, "dev": result.best_metrics[metric], "test": test}
        for (scale, epochs), (result, test) in runs.items()
    ]
    slices = {}
    if task == SEQUENCE_CLASSIFICATION:
        chosen, labels = runs[best][0].model, datasets["train"].labels
        for name, dataset in (("word_order", word_order_dataset), ("indirect", indirect_dataset)):
            slices[name] = evaluate(chosen, dataset(tokenizer, labels))["accuracy"]
    return {"best": list(best), "search": search, "test": runs[best][1], "slices": slices}


#: Every side run, by name -> function (called with keyword arguments only). Notebook 06 starts the first three
#: (the default of :func:`start_side_runs`), notebook 07 the last two; in the order they are needed.
SIDE_RUNS = {
    "nsp_only": nsp_only_run,
    "minibert": minibert_plateau_run,
    "no_positions": no_positions_run,
    "learning_curve": learning_curve_run,
    "minilm": minilm_run,
    **{
        f"scratch_{short}": functools.partial(scratch_control_run, task)
        for short, task in (
            ("pair", SENTENCE_PAIR_CLASSIFICATION),
            ("tagging", TOKEN_CLASSIFICATION),
            ("spans", SPAN_EXTRACTION),
        )
    },
}
#: Notebook 07's side runs: the learning curve (with the sentence task's control from scratch and its dev search),
#: the other three controls from scratch, each with its dev search, and MiniLM.
FINETUNING_SIDE_RUNS = (
    "learning_curve",
    "scratch_pair",
    "scratch_tagging",
    "scratch_spans",
    "minilm",
)
#: Notebook 06's side runs (started when :func:`start_side_runs` is given no names).
PRETRAINING_SIDE_RUNS = ("nsp_only", "minibert", "no_positions")


def _to_payload(name: str, result: Any) -> dict:
    """A side run's result as plain data (tensors, numbers and strings; see :func:`_from_payload`)."""
    if isinstance(result, MiniBertRun):
        return {
            "state": result.model.state_dict(),
            "history": result.history,
            "learning_rate": result.learning_rate,
            "steps": result.steps,
        }
    if isinstance(result, PretrainingRun):
        return {
            "state": result.model.state_dict(),
            "history": result.history,
            "step": result.step,
            "config": result.config.to_dict(),
            "metrics": result.metrics,
        }
    return {"history": result}  # plain data: lists, dicts, numbers


def _from_payload(name: str, payload: dict):
    """Side run ``name``'s result rebuilt from :func:`_to_payload` (the same weights, in eval mode)."""
    if name in ("nsp_only", "learning_curve", "minilm") or name.startswith("scratch_"):
        return payload["history"]
    tokenizer = course_tokenizer()
    if name == "minibert":
        model = MiniBert(tokenizer.vocab_size, 128)
        model.load_state_dict(payload["state"])
        return MiniBertRun(
            model.eval(), tokenizer, payload["history"], payload["learning_rate"], payload["steps"]
        )
    config = PretrainingConfig.from_dict(payload["config"])
    model = BertForPreTraining(
        model_config(config, tokenizer.vocab_size)
    )  # explicit attention, as pretrain returns
    model.load_state_dict(payload["state"])
    return PretrainingRun(
        model.eval(),
        tokenizer,
        config,
        payload["history"],
        payload["metrics"],
        payload["step"],
        interrupted=payload["step"] < config.steps,
    )


class SideRuns(BackgroundRuns):
    """Side runs (:data:`SIDE_RUNS`), started by :func:`start_side_runs` in a second process
    (:mod:`bertedu.course.background`).

    ``result(name)`` waits for run ``name`` and returns what its function returns (a :class:`MiniBertRun`, a
    :class:`bertedu.training.pretrain.PretrainingRun`, a history list). If the second process could not start, was
    interrupted or failed, the run is trained here instead, with the same result: every run is deterministic
    and trains on one CPU thread, wherever it runs. Introduced in notebook 06.
    """

    registry = RunRegistry(
        SIDE_RUNS, _to_payload, _from_payload, packages=(MINILM_PACKAGE,), what=translatable("side run")
    )


def start_side_runs(runs: dict[str, dict] | None = None) -> SideRuns:
    """Start side runs in a second process and return at once; :meth:`SideRuns.result` collects them. ``runs``
    maps names of :data:`SIDE_RUNS` to keyword arguments of their functions, in the order they are needed
    (default: notebook 06's three, :data:`PRETRAINING_SIDE_RUNS`, with their defaults).

    Why a second process: the course trains on one CPU thread, so on a computer with two or more cores a core
    is free while the notebook trains; the side runs use it and cost no waiting time. The process is
    spawned (a fresh Python that imports bertedu), prints nothing, and on Linux ends with the notebook's kernel.
    On a one-core computer, or if no process can start, nothing is started and each run trains when
    ``result`` asks for it.

    Finished runs are kept in :func:`bertedu.course.background.cache_dir` (``runs/side-runs/``), one file per
    run, named by a key of everything its result depends on (:func:`bertedu.course.background.run_key`):
    running a notebook again collects them at once instead of training them again, and a changed setting, data
    file or line of bertedu's code trains them afresh.
    """
    runs = (
        {name: {} for name in PRETRAINING_SIDE_RUNS}
        if runs is None
        else {k: dict(v) for k, v in runs.items()}
    )
    return SideRuns.start(runs)


def train_course_minibert(
    steps: int | None = None, *, learning_rate: float = 1e-3, seed: int | None = None
) -> tuple[MiniBert, BertTokenizer]:
    """The one-layer MiniBert of notebook 06, trained on the sentences of the course corpus with the course
    vocabulary, in batches of as many sentences as the course mini-BERT's batches hold pairs, for as many
    steps (``steps`` overrides that), at the blog post's constant learning rate 1e-3 (``learning_rate``
    overrides it). Returns ``(model, tokenizer)``; :func:`minibert_plateau_run` also returns the history.
    """
    run = minibert_plateau_run(
        course_config().steps if steps is None else steps,
        learning_rate=learning_rate,
        seed=0 if seed is None else seed,
    )
    return run.model, run.tokenizer
