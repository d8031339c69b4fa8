"""Quality targets of notebooks 06 and 07, re-measured over several seeds.

Pretraining (issues 7 and 15): the course mini-BERT (``bertedu.course.course_config``) is pre-trained with
``seeds`` different seeds; each run is scored on every held-out file of notebook 06 (masked words:
``mlm_eval.tsv`` and ``mlm_eval_generalise.tsv``, top-1 / top-5; next sentence: ``nsp_eval.tsv`` and
``nsp_eval_hard.tsv``), next to the trivial baseline of that file (a trigram model of the corpus, the
word-overlap rule; deterministic, so one value each) and to the blog post's one-layer MiniBert trained to its
loss plateau with the same seed (notebook 06's budget, ``bertedu.course.minibert_plateau_run``). The targets of
issue 7 are checked on the medians.

Fine-tuning (issues 8 and 15): the seed-0 course model (the checkpoint notebook 06 saves) is fine-tuned on
the four course tasks (sentence classification, sentence pairs, tagging, spans) with ``seeds`` fine-tuning
seeds, pretrained and from scratch, next to each task's trivial baselines (``course.baseline_scores``:
majority class, bag of words, word overlap, hypothesis-only, word lookup; deterministic, so one value each);
the sentence-classification gap at the smallest label budget (10 %) is measured per seed, next to a bag of
words trained on the same 10 %; all-MiniLM-L6-v2 is fine-tuned once (seed 0) and its wall-clock time
compared with the two-minute budget.
"""

from __future__ import annotations

import tempfile
import time

from common import Summary, verdict

from bertedu.core.config import BertConfig
from bertedu.course import (
    COURSE_THRESHOLDS,
    MINIBERT_LEARNING_RATE,
    MINIBERT_PLATEAU_STEPS,
    baseline_scores,
    course_config,
    course_tokenizer,
    load_course_model,
    minibert_plateau_run,
    run_course_task,
    run_minilm,
    span_baseline_scores,
)
from bertedu.course.baselines import (
    NgramFiller,
    ngram_mlm_accuracy,
    overlap_nsp_accuracy,
    read_masked_word_items,
    read_nsp_items,
)
from bertedu.training.data import read_corpus
from bertedu.training.evalsets import load_masked_word_items, load_nsp_items
from bertedu.training.finetune import MAIN_METRIC
from bertedu.training.finetune_data import (
    SEQUENCE_CLASSIFICATION,
    SPAN_EXTRACTION,
    TASKS,
    make_task_datasets,
    task_shape,
)
from bertedu.training.pretrain import model_config, pretrain
from bertedu.training.probes import masked_word_accuracy, nsp_accuracy
from bertedu.utils import data_path, resolve_path

# The targets of issue 7 (notebook 06 asserts margins below them: results vary by a few points between CPUs).
PRETRAIN_TARGETS = {"mlm_top1": 0.6, "mlm_top5": 0.9, "nsp_accuracy": 0.85}
#: Notebook 06's held-out files (in data/): masked words ("mlm") or sentence pairs ("nsp").
HELD_OUT = {
    "mlm_eval.tsv": "mlm",
    "mlm_eval_generalise.tsv": "mlm",
    "nsp_eval.tsv": "nsp",
    "nsp_eval_hard.tsv": "nsp",
}
#: The held-out file and metric each target of issue 7 is about.
TARGET_SCORES = {
    "mlm_top1": ("mlm_eval.tsv", "top1"),
    "mlm_top5": ("mlm_eval.tsv", "top5"),
    "nsp_accuracy": ("nsp_eval.tsv", "accuracy"),
}
#: What each held-out file's trivial baseline is, and what the file asks.
BASELINE_NAMES = {"mlm": "trigram model", "nsp": "word overlap"}
FILE_NOTES = {
    "mlm_eval.tsv": "new sentences, but every item has a 3-word window seen in the corpus",
    "mlm_eval_generalise.tsv": "no 3-word window around the gap occurs in the corpus, so the trigram model is at its "
    "floor by construction; the strongest rule there, the order-blind co-occurrence rule, beats every model "
    "(section 5's baseline row, notebook 06)",
    "nsp_eval.tsv": "NotNext from other documents: topic matching solves it",
    "nsp_eval_hard.tsv": "NotNext = the same pair swapped: any order-blind rule, word overlap too, scores 0.5 by "
    "construction; a rule that reads order, the order cue, is in section 5's baseline row",
}
SMALLEST_BUDGET = 0.1
#: A check of the bench only, on the median run: notebook 07 withdrew this claim (the gap at 10 % of the labels
#: varies with the seed; its ledger entry 07-curve-gap-10 asserts nothing).
SMALLEST_BUDGET_MARGIN = 0.05
MINILM_BUDGET_S = 120
#: The pretrained mini-BERT must beat this trivial baseline of a task by this much (asserted in notebook 07 too,
#: through the claims ledger). The *best* rule of each task is shown beside it without a target: a rule that reads
#: the corpus (the lookup, the subject vote, the template rule) beats the model on every task but one
#: (notebook 07: the toy world's limit).
BASELINE_MARGIN = {SEQUENCE_CLASSIFICATION: ("bag_of_words", 0.10)}


def course_model_config() -> BertConfig:
    """The architecture of notebook 06's mini-BERT (BERT-Tiny's shape, the course vocabulary)."""
    config = course_config()
    tokenizer = course_tokenizer()
    return model_config(config, tokenizer.vocab_size)


def held_out_baselines() -> dict[str, dict[str, float]]:
    """The trivial baseline of every held-out file of notebook 06 (deterministic): the trigram model of the
    corpus (``top1``, ``top5``) for masked words, the word-overlap rule (``accuracy``) for sentence pairs."""
    corpus = [s for doc in read_corpus(resolve_path(course_config().corpus)) for s in doc]
    filler = NgramFiller(corpus)
    out = {}
    for name, kind in HELD_OUT.items():
        if kind == "mlm":
            scores = ngram_mlm_accuracy(filler, read_masked_word_items(data_path(name)), k=5)
            out[name] = {"top1": scores["top1"], "top5": scores["top5"]}
        else:
            out[name] = {"accuracy": overlap_nsp_accuracy(read_nsp_items(data_path(name)))}
    return out


def held_out_scores(model, tokenizer, *, nsp: bool = True) -> dict[str, dict[str, float]]:
    """A model's scores on every held-out file of notebook 06 (``nsp=False``: masked words only)."""
    max_length = course_config().max_length
    out = {}
    for name, kind in HELD_OUT.items():
        if kind == "mlm":
            scores = masked_word_accuracy(model, tokenizer, load_masked_word_items(data_path(name)), k=5)
            out[name] = {"top1": scores["top1"], "top5": scores["top5"]}
        elif nsp:
            items = load_nsp_items(data_path(name))
            out[name] = {"accuracy": nsp_accuracy(model, tokenizer, items, max_length=max_length)["accuracy"]}
    return out


def pretraining_quality(seeds: int) -> dict:
    model_scores: dict[str, dict[str, list[float]]] = {}
    minibert_scores: dict[str, dict[str, list[float]]] = {}
    seconds = []
    for seed in range(seeds):
        config = course_config(seed=seed)
        with tempfile.TemporaryDirectory() as tmp:
            run = pretrain(config, f"{tmp}/run", progress=False)
        seconds.append(run.train_seconds)
        for name, metrics in held_out_scores(run.model, run.tokenizer).items():
            for metric, value in metrics.items():
                model_scores.setdefault(name, {}).setdefault(metric, []).append(value)
        minibert = minibert_plateau_run(seed=seed)
        for name, metrics in held_out_scores(minibert.model, minibert.tokenizer, nsp=False).items():
            for metric, value in metrics.items():
                minibert_scores.setdefault(name, {}).setdefault(metric, []).append(value)
    summarise = lambda scores: {  # noqa: E731
        name: {metric: Summary(values, "") for metric, values in metrics.items()}
        for name, metrics in scores.items()
    }
    held_out = summarise(model_scores)
    return {
        "scores": {target: held_out[name][metric] for target, (name, metric) in TARGET_SCORES.items()},
        "held_out": held_out,
        "minibert": summarise(minibert_scores),
        "minibert_budget": {"steps": MINIBERT_PLATEAU_STEPS, "learning_rate": MINIBERT_LEARNING_RATE},
        "baselines": held_out_baselines(),
        "train_seconds": Summary(seconds, "s"),
        "seeds": seeds,
    }


def pretraining_section(pre: dict) -> list[str]:
    """The report's pre-training table: every held-out file, model next to baseline and MiniBert."""
    budget = pre["minibert_budget"]
    lines = [
        f"### Pre-training (notebook 06 recipe, {pre['seeds']} pre-training seed(s))",
        "",
        "Every held-out file of notebook 06: the course mini-BERT next to the file's trivial baseline (a "
        "trigram model of the corpus for masked words, the word-overlap rule for sentence pairs; "
        "deterministic, one value) and to the blog post's one-layer MiniBert trained to its loss plateau "
        f"with the same seeds ({budget['steps']:,} steps of 64 sentences at a constant "
        f"{budget['learning_rate']:g}). Training time per mini-BERT run: {pre['train_seconds'].fmt(1)}.",
        "",
        "| held-out file | metric | mini-BERT (min / median / max) | trivial baseline | one-layer MiniBert "
        "(min / median / max) | target | |",
        "|---|---|---|---|---|---|---|",
    ]
    # (file, metric) -> target
    targets = {TARGET_SCORES[name]: target for name, target in PRETRAIN_TARGETS.items()}
    for name, kind in HELD_OUT.items():
        for metric, summary in pre["held_out"][name].items():
            baseline = pre["baselines"][name][metric]
            minibert = pre["minibert"].get(name, {}).get(metric)
            target = targets.get((name, metric))
            target_cells = (
                f"≥ {target} | {verdict(summary.median >= target)}" if target is not None else "— |"
            )
            lines.append(
                f"| `{name}` | {metric} | {summary.fmt(3)} | {baseline:.3f} ({BASELINE_NAMES[kind]}) | "
                f"{minibert.fmt(3) if minibert else '(no NSP head)'} | {target_cells} |"
            )
    lines += ["", "What each file asks: " + "; ".join(f"`{k}`: {v}" for k, v in FILE_NOTES.items()) + "."]
    return lines


def finetuning_quality(seeds: int) -> dict:
    pretrained, tokenizer = load_course_model()
    tasks: dict[str, dict] = {}
    for task in TASKS:
        datasets = make_task_datasets(task, tokenizer)
        metric = MAIN_METRIC[task_shape(task)]
        per_encoder = {}
        for encoder in ("mini-bert", "scratch"):
            per_encoder[encoder] = Summary(
                [
                    run_course_task(task, encoder, pretrained, datasets, seed=seed)[1][metric]
                    for seed in range(seeds)
                ],
                "",
            )
        tasks[task] = {"metric": metric, "threshold": COURSE_THRESHOLDS[task][metric], **per_encoder}
        if task == SPAN_EXTRACTION:  # the trivial baselines (deterministic: one value each), in F1 for spans
            rules = span_baseline_scores(datasets)
            tasks[task]["baselines"] = {rule: scores[metric] for rule, scores in rules.items()}
        else:
            tasks[task]["baselines"] = baseline_scores(task, datasets)
    datasets = make_task_datasets(SEQUENCE_CLASSIFICATION, tokenizer)
    gaps, smallest_bow = [], []
    for seed in range(seeds):
        pre, scratch = (
            run_course_task(
                SEQUENCE_CLASSIFICATION, encoder, pretrained, datasets, fraction=SMALLEST_BUDGET, seed=seed
            )[1]["accuracy"]
            for encoder in ("mini-bert", "scratch")
        )
        gaps.append(pre - scratch)
        smallest_bow.append(
            baseline_scores(SEQUENCE_CLASSIFICATION, datasets, fraction=SMALLEST_BUDGET, seed=seed)[
                "bag_of_words"
            ]
        )
    start = time.perf_counter()
    minilm_result, minilm_test = run_minilm()
    minilm_seconds = time.perf_counter() - start
    return {
        "tasks": tasks,
        "smallest_budget_gap": Summary(gaps, ""),
        "smallest_budget_bag_of_words": Summary(smallest_bow, ""),
        "seeds": seeds,
        "minilm": {
            "accuracy": minilm_test["accuracy"],
            "macro_f1": minilm_test["macro_f1"],
            "seconds": minilm_seconds,
            "train_seconds": minilm_result.train_seconds,
        },
    }


def measure(seeds: int) -> dict:
    return {"pretraining": pretraining_quality(seeds), "finetuning": finetuning_quality(seeds)}


def section(results: dict) -> list[str]:
    pre = results["pretraining"]
    lines = [
        "## 4. Quality: what notebooks 06 and 07 promise, over several seeds",
        "",
        *pretraining_section(pre),
    ]
    ft = results["finetuning"]
    lines += [
        "",
        f"### Fine-tuning (notebook 07 recipe, {ft['seeds']} fine-tuning seed(s), test split)",
        "",
        "The best trivial baseline of each task is trained on the same training split (deterministic, one "
        "value); the last column checks the pretrained mini-BERT's margin over it where the notebook asserts "
        "one.",
        "",
        "| task | metric | pretrained mini-BERT | from scratch | threshold | | best trivial baseline "
        "| margin over it |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for task, r in ft["tasks"].items():
        best = _best_baseline(r)
        if best is None:
            baseline_cells = "— | —"
        else:
            name, value = best
            check = "(no target)"
            rule, margin = BASELINE_MARGIN.get(task, (None, None))
            if rule in (r.get("baselines") or {}):
                above = r["mini-bert"].median >= r["baselines"][rule] + margin
                check = f"over the {rule.replace('_', ' ')}: ≥ {margin} {verdict(above)}"
            baseline_cells = f"{value:.3f} ({name.replace('_', ' ')}) | {check}"
        lines.append(
            f"| {task} | {r['metric']} | {r['mini-bert'].fmt(3)} | {r['scratch'].fmt(3)} | "
            f"≥ {r['threshold']} | {verdict(r['mini-bert'].median >= r['threshold'])} | {baseline_cells} |"
        )
    every = [
        f"{task}: "
        + ", ".join(f"{name.replace('_', ' ')} {value:.3f}" for name, value in r["baselines"].items())
        for task, r in ft["tasks"].items()
        if r.get("baselines")
    ]
    if every:
        lines += ["", "Every trivial baseline (test split): " + "; ".join(every) + "."]
    gap = ft["smallest_budget_gap"]
    minilm = ft["minilm"]
    bow = ft.get("smallest_budget_bag_of_words")
    lines += [
        "",
        f"- Sentence classification with {SMALLEST_BUDGET:.0%} of the labels: pretrained minus scratch test "
        f"accuracy {gap.fmt(3)}; bench check on the median ≥ {SMALLEST_BUDGET_MARGIN} "
        f"{verdict(gap.median >= SMALLEST_BUDGET_MARGIN)} (notebook 07 asserts no gap here: it varies with the seed)"
        + (f"; a bag of words trained on the same {SMALLEST_BUDGET:.0%}: {bow.fmt(3)}" if bow else ""),
        f"- all-MiniLM-L6-v2 fine-tuned on sentence classification: test accuracy {minilm['accuracy']:.3f}, "
        f"macro-F1 {minilm['macro_f1']:.3f}; {minilm['seconds']:.0f} s including loading "
        f"(budget {MINILM_BUDGET_S} s) {verdict(minilm['seconds'] < MINILM_BUDGET_S)}",
        "",
    ]
    return lines


def _best_baseline(task_result: dict) -> tuple[str, float] | None:
    """``(name, test score)`` of the best trivial baseline of a task, or None if it has none."""
    scores = task_result.get("baselines") or {}
    return max(scores.items(), key=lambda item: item[1]) if scores else None


def missed(results: dict) -> list[str]:
    """The quality targets the median run misses (``make bench`` fails if there is any)."""
    out = []
    for name, target in PRETRAIN_TARGETS.items():
        if results["pretraining"]["scores"][name].median < target:
            out.append(f"pre-training {name} below {target}")
    ft = results["finetuning"]
    for task, r in ft["tasks"].items():
        if r["mini-bert"].median < r["threshold"]:
            out.append(f"fine-tuning {task} {r['metric']} below {r['threshold']}")
        rule, margin = BASELINE_MARGIN.get(task, (None, None))
        if rule in (r.get("baselines") or {}):
            if r["mini-bert"].median < r["baselines"][rule] + margin:
                out.append(
                    f"fine-tuning {task}: the pretrained mini-BERT is less than {margin} above the "
                    f"{rule.replace('_', ' ')} baseline ({r['baselines'][rule]:.3f})"
                )
    if ft["smallest_budget_gap"].median < SMALLEST_BUDGET_MARGIN:
        out.append(
            f"pretrained vs scratch gap at {SMALLEST_BUDGET:.0%} of the labels below {SMALLEST_BUDGET_MARGIN}"
        )
    if ft["minilm"]["seconds"] >= MINILM_BUDGET_S:
        out.append(
            f"all-MiniLM-L6-v2 fine-tuning took {ft['minilm']['seconds']:.0f} s (budget {MINILM_BUDGET_S} s)"
        )
    return out


if __name__ == "__main__":  # a quick look without the speed benchmarks
    print("\n".join(section(measure(seeds=1))))
