"""Notebook 06's recipe: the course mini-BERT's pretraining settings (:func:`course_config`), its tokenizer,
where its model is saved and how notebooks 07 and 08 get it back (:func:`load_course_model`: loaded, resumed
or retrained, never half-trained), and the one-layer MiniBert trained on the same sentences.

Part of :mod:`bertedu.course` (the course's recipes); introduced in notebook 06.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
from pathlib import Path
from typing import Any

from bertedu.core.model import BertForPreTraining
from bertedu.core.tokenizer import BertTokenizer, train_tokenizer
from bertedu.files import directory_lock, write_directory_atomically
from bertedu.language import msg
from bertedu.training.checkpoint import (
    CHECKPOINT_FILES,
    NotWritableError,
    is_checkpoint,
    load_checkpoint,
    prepare_output,
    recover_checkpoint,
)
from bertedu.training.data import read_corpus
from bertedu.training.pretrain import (
    PretrainingConfig,
    PretrainingRun,
    TrainingInterrupted,
    load_eval_items,
    pretrain,
)
from bertedu.training.probes import evaluate_pretraining
from bertedu.utils import file_sha256, output_root, resolve_path, runs_dir, seed_offset

logger = logging.getLogger(__name__)


#: Where notebook 06 saves the course model and notebooks 07 and 08 look for it (relative to the repo root).
COURSE_CHECKPOINT = Path("runs") / "mini-bert"
#: Environment variable naming another folder for the course model (the claims sweep: one per CPU kernel set).
COURSE_MODEL_ENV = "BERTEDU_COURSE_MODEL"


def course_seed(seed: int = 0) -> int:
    """A seed of the course's recipes: ``seed`` plus :func:`bertedu.utils.seed_offset` (0 unless the claims
    sweep re-runs the notebooks on other seeds, ``benchmarks/bench_claims.py``)."""
    return seed + seed_offset()


# ----------------------------------------------------------------------------------------------------------
# Notebook 06: pretraining the course mini-BERT


def course_config(**overrides: Any) -> PretrainingConfig:
    """Notebook 06's recipe for the course mini-BERT (BERT-Tiny's shape: 2 layers, H = 128, 2 heads) on
    ``data/simple_sentences.txt``,
    evaluated on ``data/mlm_eval.tsv`` and ``data/nsp_eval.tsv``. ``overrides`` change single settings.

    Where it departs from the paper's settings (``PretrainingConfig``'s defaults), a budget of about a minute
    on one CPU thread is the reason: 30 % of the tokens are selected for MLM instead of 15 % (twice the prediction targets per
    batch), dropout is off (the risk in 1,000 steps is learning too little, not overfitting), and the
    learning rate is 3e-3 instead of 1e-4 (a tiny model tolerates, and needs, bigger steps). Training uses
    the fused attention kernel (``attn_implementation="sdpa"``, the same maths; at our ~20 tokens per example
    it is within a few per cent of the explicit path: the speed table in ``benchmarks/RESULTS.md`` §2 shows
    what each of the recipe's optimisations buys).

    One CPU thread, fixed. Fixed, because floating-point sums depend on how work is split between threads:
    the same recipe then gives the same weights on a given machine whatever thread setting the caller has.
    One, because it is robust: the matrices of this tiny model are too small for threads to pay off much
    (two threads save a fifth to a quarter of the time on an idle machine), while threads wait for each other
    hundreds of times per step, so on a two-core machine where another program keeps a core busy two
    threads made training 3-12 times slower, and one thread was not slower at all (``make bench`` measures
    both, idle and loaded: ``benchmarks/RESULTS.md``).
    """
    recipe = PretrainingConfig(
        corpus="data/simple_sentences.txt",
        model_size="tiny",
        max_length=64,
        max_sentences=2,
        mlm_probability=0.3,
        dropout=0.0,
        steps=1000,
        batch_size=64,
        learning_rate=3e-3,
        warmup_steps=100,
        eval_every=100,
        attn_implementation="sdpa",  # fast path: the fused kernel while training (same maths)
        num_threads=1,  # robust under load, and the same weights whatever the caller's setting
        mlm_eval_file="data/mlm_eval.tsv",
        nsp_eval_file="data/nsp_eval.tsv",
    )
    overrides["seed"] = course_seed(overrides.get("seed", 0))  # 0 (+ the sweep's offset)
    return recipe.replace(**overrides)


def course_checkpoint_dir() -> Path:
    """Where notebook 06 saves the course model: ``mini-bert/`` in the course's runs folder
    (:func:`bertedu.utils.runs_dir`: ``runs/`` under the repository root, or ``$BERTEDU_RUNS``, on a class's hub
    each student's own); with a seed offset (the claims sweep), ``mini-bert-seed{offset}/``;
    ``$BERTEDU_COURSE_MODEL`` if it is set."""
    override = os.environ.get(COURSE_MODEL_ENV, "").strip()
    if override:
        return Path(override)
    return runs_dir() / _course_folder_name()


def _course_folder_name() -> str:
    offset = seed_offset()
    return COURSE_CHECKPOINT.name if offset == 0 else f"{COURSE_CHECKPOINT.name}-seed{offset}"


def pretrained_course_dir() -> Path:
    """Where an instructor pre-trains the course model once for a class: ``runs/mini-bert/`` under the repository
    root, on a hub next to the shared course package, which students read but cannot write
    (docs/instructor_guide.md). Without ``$BERTEDU_RUNS`` the same folder as :func:`course_checkpoint_dir`; for an
    installed course, under the current folder (:func:`bertedu.utils.output_root`)."""
    return output_root() / COURSE_CHECKPOINT.parent / _course_folder_name()


def course_documents() -> list[list[str]]:
    """The pretraining corpus of notebook 06's recipe, as documents (lists of sentences): what the corpus rules of
    :mod:`bertedu.course.baselines` read."""
    return read_corpus(resolve_path(course_config().corpus))


def _pretrained_course_checkpoint(own: Path, expected: PretrainingConfig, corpus_sha: str):
    """The class's pre-trained course model (:func:`pretrained_course_dir`, read only) when ``own`` holds no
    checkpoint and that folder holds the finished course recipe on today's corpus; else ``None``."""
    with contextlib.suppress(FileNotFoundError):  # no repository, no package folder with data/
        shared = pretrained_course_dir()
        if os.path.realpath(shared) != os.path.realpath(own) and not recover_checkpoint(own):
            checkpoint, _ = _course_checkpoint(shared, expected, corpus_sha)
            if checkpoint is not None and checkpoint.complete:
                return shared, checkpoint
    return None


def course_model_dir() -> Path:
    """The folder :func:`load_course_model` reads when given no path: :func:`course_checkpoint_dir` (yours),
    unless it holds no checkpoint and the class's pre-trained course model (:func:`pretrained_course_dir`)
    is there."""
    own, expected = course_checkpoint_dir(), course_config()
    found = _pretrained_course_checkpoint(own, expected, file_sha256(resolve_path(expected.corpus)))
    return found[0] if found else own


def course_tokenizer() -> BertTokenizer:
    """The course vocabulary: WordPiece trained on ``data/simple_sentences.txt``, every word one token."""
    config = course_config()
    return train_tokenizer(read_corpus(resolve_path(config.corpus)), config.vocab_size)


def load_course_model(
    path: str | os.PathLike | None = None, *, progress: bool = True
) -> tuple[BertForPreTraining, BertTokenizer]:
    """The course mini-BERT and its tokenizer, as notebook 06 trained them: ``(model, tokenizer)``.

    Loads the checkpoint at ``path`` (default :func:`course_checkpoint_dir`, ``runs/mini-bert/`` under the
    repository root; where that holds no checkpoint, the class's pre-trained model of
    :func:`pretrained_course_dir`, read only) if it is a complete run of :func:`course_config` on today's
    corpus. Never returns a half-trained model: an
    unfinished run of the recipe (notebook 06 interrupted) is resumed to the end; a missing, damaged or
    foreign checkpoint is trained again with exactly the recipe (deterministic: the same weights on the same
    machine). While it trains it says why on stderr and shows a progress bar (``progress=False``: none);
    loading prints nothing. Two processes calling it at once (two notebooks) take turns through a lock
    file: the model is trained once and never read half-written. If no complete model can be made, the
    error says why (:class:`bertedu.training.pretrain.TrainingInterrupted` after a kernel interrupt, with the step
    reached; :class:`bertedu.files.SaveError` for a full disk, ...). The model is in eval mode.
    """
    run = course_run(path, progress=progress)
    return run.model, run.tokenizer


def course_run(path: str | os.PathLike | None = None, *, progress: bool = True) -> PretrainingRun:
    """Notebook 06's run of the recipe, ``pretrain(course_config(), runs/mini-bert/)``, with its history: loaded
    at once if ``path`` (default :func:`course_checkpoint_dir`) holds it finished, resumed if it holds it
    unfinished, trained otherwise (:func:`load_course_model` says more; this is the same, with the history)."""
    directory = course_checkpoint_dir() if path is None else Path(path)
    expected = course_config()
    corpus_sha = file_sha256(resolve_path(expected.corpus))
    pretrained = None if path is not None else _pretrained_course_checkpoint(directory, expected, corpus_sha)
    if pretrained is not None:  # the class's pre-trained model, read only: yours is not there
        logger.info("Loaded the course model pre-trained for the class from %s.", pretrained[0])
        return _finished_run(pretrained[1], expected, pretrained[0])
    wait = f"Another process is training or saving the course model in {directory}; waiting for it."
    with contextlib.suppress(OSError):  # the lock file lives next to the folder (runs/ on a fresh clone)
        directory.parent.mkdir(parents=True, exist_ok=True)
    with directory_lock(directory, required=False, wait_message=wait):
        checkpoint, problem = _course_checkpoint(directory, expected, corpus_sha)
        if checkpoint is not None and checkpoint.complete:
            logger.info("Loaded the course model from %s.", directory)
            return _finished_run(checkpoint, expected, directory)
        return _train_course_model(
            directory, expected, problem, start=None if checkpoint is None else checkpoint.step,
            progress=progress, yours=path is None,
        )  # fmt: skip


def _finished_run(checkpoint, expected: PretrainingConfig, directory: Path) -> PretrainingRun:
    """The finished run a checkpoint holds, history included (eval mode)."""
    return PretrainingRun(
        checkpoint.model.eval(), checkpoint.tokenizer, expected, checkpoint.history, checkpoint.metrics,
        checkpoint.step, directory,
    )  # fmt: skip


def _train_course_model(
    directory: Path,
    expected: PretrainingConfig,
    problem: str,
    *,
    start: int | None,
    progress: bool,
    yours: bool,
):
    """Train (or finish) the course model in ``directory``, saying why; the caller holds the folder's lock.
    ``start``: the step of the unfinished run there to resume (``None``: train from the start). On its way it
    keeps its checkpoint at :data:`SNAPSHOT_STEP` beside it (:func:`course_snapshot`).
    ``yours``: the default folder (not a path the caller gave), whose errors say what a notebook user can do."""
    resume = start is not None
    if not resume:
        _remove_broken_checkpoint(directory)
        try:
            prepare_output(directory)  # refuses a file, a folder of other files or one you cannot write
        except NotWritableError as err:
            if not yours:
                raise
            raise ValueError(f"Cannot write to {err.folder} ({err.why}). {_not_writable(directory)}") from err
    logger.warning(
        "%s: %s the course model (about a minute on one free CPU core).",
        problem,
        "resuming it to finish" if resume else "training",
    )
    try:
        # the first SNAPSHOT_STEP steps, their checkpoint kept, then the rest: the very run of one call
        if (start or 0) < SNAPSHOT_STEP < expected.steps:
            pretrain(expected, directory, resume=resume, progress=progress, stop_after=SNAPSHOT_STEP)
            _keep_snapshot(directory)
            resume = True
        run = pretrain(expected, directory, resume=resume, progress=progress)
    except TrainingInterrupted as stop:
        raise TrainingInterrupted(
            stop.run, stop.total_steps, stop.signal, resume_hint="Run load_course_model() again to resume."
        ) from None
    if run.step < expected.steps or not is_checkpoint(directory):  # pretrain raises first; a safety net
        raise RuntimeError(
            f"Training the course model stopped at step {run.step}/{expected.steps} without an error; "
            f"delete {directory} and run load_course_model() again."
        )
    logger.info("Trained the course model and saved it to %s.", directory)
    return run


#: Notebook 10's reduced run is the course recipe's first 400 steps (``bertedu.course.ablations.REDUCED``): the
#: course model's checkpoint at that step is kept beside it (``runs/mini-bert-step400/``), and notebook 10 loads
#: its BERT from there instead of training the same 400 steps again.
SNAPSHOT_STEP = 400


def _snapshot_dir(directory: Path) -> Path:
    return directory.with_name(f"{directory.name}-step{SNAPSHOT_STEP}")


def _keep_snapshot(directory: Path) -> None:
    """Copy the checkpoint in ``directory`` (the course run at :data:`SNAPSHOT_STEP`) beside it, whole or not at all."""
    write_directory_atomically(
        _snapshot_dir(directory),
        lambda tmp: shutil.copytree(directory, tmp, dirs_exist_ok=True),
        is_complete=is_checkpoint,
        what=f"the course model at step {SNAPSHOT_STEP}",
    )


def course_snapshot(config: PretrainingConfig, step: int | None):
    """The checkpoint of the course model at ``step`` (kept while it trained, beside the folder
    :func:`load_course_model` reads) if ``config`` is the course recipe, its held-out evaluation aside, and
    ``step`` is :data:`SNAPSHOT_STEP`; else ``None`` (also if no such checkpoint was kept: a model trained before
    snapshots existed). Its weights are those of ``pretrain(config, stop_after=step)`` on this machine, since
    evaluating does not touch the training's random state (``tests/test_course.py`` checks it)."""
    recipe = course_config()
    held_out = {"eval_every": 0, "mlm_eval_file": None, "nsp_eval_file": None}
    if step != SNAPSHOT_STEP or config.replace(**held_out) != recipe.replace(**held_out):
        return None
    directory = _snapshot_dir(course_model_dir())
    checkpoint, _ = _course_checkpoint(directory, recipe, file_sha256(resolve_path(recipe.corpus)))
    return checkpoint if checkpoint is not None and checkpoint.step == step else None


def course_eval_history(path: str | os.PathLike | None = None) -> list[dict]:
    """Notebook 06's held-out evaluations of the course model, one record per evaluation (every 100 steps):
    ``{"step", "mlm_accuracy", "mlm_top5_accuracy", "nsp_accuracy", ...}`` on notebook 06's held-out files.
    The model is made first if it is missing (:func:`load_course_model`, deterministic on one machine), so the
    curve is that of the model the other notebooks load. Notebook 10 draws its reduced run beside it."""
    load_course_model(path)
    directory = course_model_dir() if path is None else Path(path)
    return [record for record in load_checkpoint(directory).history if record.get("split") == "eval"]


def _course_checkpoint(directory: Path, expected: PretrainingConfig, corpus_sha: str):
    """``(checkpoint, "")`` if ``directory`` holds a run of the course recipe (finished or not) that loads,
    else ``(None, why not)``."""
    if not recover_checkpoint(directory):
        if not directory.exists():
            return None, f"{directory} does not exist yet"
        return None, f"{directory} holds no complete checkpoint"
    try:
        checkpoint = load_checkpoint(directory)
        same_recipe = PretrainingConfig.from_dict(checkpoint.run_config) == expected
    except Exception as err:  # any damaged file (truncated weights, broken JSON, ...): train it again
        return None, f"The checkpoint in {directory} cannot be read ({err})"
    if not same_recipe:
        return None, f"{directory} holds a run of other settings than the course recipe"
    if checkpoint.corpus_sha256 != corpus_sha:
        return None, f"The corpus changed since {directory} was trained"
    if not checkpoint.complete:
        return checkpoint, f"{directory} holds an unfinished run (step {checkpoint.step}/{expected.steps})"
    return checkpoint, ""


def _not_writable(folder: Path) -> str:
    """What a notebook user can do when the course model cannot be saved where the course keeps its runs."""
    return msg(
        "The course model cannot be saved in {folder}. In a notebook, choose a folder of your own for the "
        "course's runs: run `import os; os.environ['BERTEDU_RUNS'] = os.path.expanduser('~/bertedu-runs')` in a "
        "cell, then this cell again. On a class's server, your instructor can pre-train the course model for "
        "everyone (docs/instructor_guide.md).",
        folder=folder,
    )


def _remove_broken_checkpoint(directory: Path) -> None:
    """Delete an incomplete checkpoint (a folder of checkpoint files only) before training a new one there;
    anything else is left to :func:`~bertedu.training.checkpoint.prepare_output` (a complete checkpoint is replaced
    when the new one is saved; other files are never deleted)."""
    if directory.is_dir() and not is_checkpoint(directory):
        if all(p.name in CHECKPOINT_FILES for p in directory.iterdir()):
            shutil.rmtree(directory)


def evaluate_course_model(path: str | os.PathLike | None = None) -> dict[str, float]:
    """Held-out scores of the course model (loaded or retrained by :func:`load_course_model`):
    ``{"mlm_top1", "mlm_top5", "nsp_accuracy", "mlm_items", "nsp_items"}``. For the benchmarks.
    """
    model, tokenizer = load_course_model(path)
    config = course_config()
    mlm_items, nsp_items = load_eval_items(config)
    scores = evaluate_pretraining(
        model, tokenizer, mlm_items=mlm_items, nsp_items=nsp_items, max_length=config.max_length
    )
    return {**scores, "mlm_items": len(mlm_items), "nsp_items": len(nsp_items)}
