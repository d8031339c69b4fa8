"""What each optimisation of notebook 06's training step buys: a speed table with one row per optimisation.

The rows are cumulative: each adds one optimisation to the row above it, from a plain step to the course
recipe (:func:`bertedu.course.course_config`), and every optimisation keeps the maths (the same loss, the same
gradients up to float rounding):

1. *plain*: every batch padded to ``max_length``, plain shuffled batches (``bucket_batches=1``), MLM logits at
   every position, eager attention, PyTorch's thread setting;
2. + pad each batch only to its longest example (the collator's default);
3. + length buckets (the recipe's ``bucket_batches``);
4. + MLM logits only at the masked positions (``mlm_logits_at_labels_only=True``);
5. + the fused attention kernel (``attn_implementation="sdpa"``);
6. + one thread: the recipe.

Then rows 5 and 6 again beside a busy core (one ``while True: pass`` process, ``common.HOG``).

Every row trains the course model from the same initial weights (the recipe's seed) on batches of the same
stream, ``bertedu.training.pretrain.pretraining_batches`` with the recipe's seed: rows 1 and 2 on the very same
batches (``bucket_batches=1``; row 1's widened to ``max_length`` by :func:`pad_to`, with padding the model
ignores), rows 3 to 8 on the same bucketed ones (the same shuffled examples, grouped by length). So only the
speed differs. The batches are built before the clock starts; what is timed is the step: forward, backward,
gradient clipping, AdamW and the schedule (the package's ``pretrain.recipe_optimizer`` and ``optim.optimizer_step``,
as in ``bertedu.training.pretrain.train_step``; that one has no switch to turn the MLM fast path off, so
:func:`switchable_step` here is the smallest step with one). Each row: ``WARMUP`` untimed steps, then ``STEPS``
timed ones, ``REPEATS`` times; the rows alternate within each repeat, so drift on the machine hits them all
alike. All rows run in one fresh process (:func:`measure`); each row sets its thread count and restores it.

    python benchmarks/bench_speedups.py [--quick]     # print the table only (run_all.py writes the reports)
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
import time
from dataclasses import dataclass

import torch
from bench_course import cpu_hog
from common import Summary, run_json_subprocess

from bertedu.core.losses import IGNORE_INDEX
from bertedu.core.model import BertForPreTraining
from bertedu.core.tokenizer import train_tokenizer
from bertedu.course import course_config
from bertedu.training.data import read_corpus
from bertedu.training.optim import optimizer_step
from bertedu.training.pretrain import (
    PretrainingConfig,
    model_config,
    pretraining_batches,
    recipe_optimizer,
)
from bertedu.utils import cpu_threads, resolve_path

HEADING = "### What each optimisation buys (the course recipe)"
TRAINING_HEADING = "## 2. Training speed"  # the section of RESULTS.md the table belongs to
WARMUP, STEPS, REPEATS = 10, 60, 3
QUICK = {"warmup": 5, "steps": 20, "repeats": 1}
HOG_START_S = 0.5  # let the busy process take its core before the row starts


@dataclass(frozen=True)
class Setting:
    """How a row trains: the recipe's step with some of its optimisations off (the defaults: all off)."""

    pad_to_max_length: bool = True
    bucket_batches: int = 1
    mlm_logits_at_labels_only: bool = False
    attn_implementation: str = "eager"
    num_threads: int | None = None  # None: PyTorch's setting
    loaded: bool = False  # beside one busy core


@dataclass(frozen=True)
class Row:
    name: str
    setting: Setting
    why: str


def recipe() -> PretrainingConfig:
    """Notebook 06's recipe, without evaluation (only the training step is timed)."""
    return course_config(eval_every=0, mlm_eval_file=None, nsp_eval_file=None)


def rows(config: PretrainingConfig | None = None) -> list[Row]:
    """The table's rows: six cumulative ones (each adds one optimisation to the one above), the last of them
    ``config``'s setting (default: the recipe), then rows 5 and 6 beside a busy core."""
    config = config or recipe()
    steps = [
        ("plain", {}, f"the starting point: every example padded to max_length = {config.max_length} tokens"),
        (
            "+ pad to the batch's longest example",
            {"pad_to_max_length": False},
            "a batch is only as wide as its longest example: fewer padding columns to compute",
        ),
        (
            f"+ length buckets (bucket_batches={config.bucket_batches})",
            {"bucket_batches": config.bucket_batches},
            "examples of similar length share a batch, so the longest one is close to the rest",
        ),
        (
            "+ MLM logits only at the masked positions",
            {"mlm_logits_at_labels_only": True},
            f"the H × V vocabulary projection runs at the {config.mlm_probability:.0%} of tokens with a label",
        ),
        (
            f"+ fused attention ({config.attn_implementation})",
            {"attn_implementation": config.attn_implementation},
            "one kernel for softmax(QKᵀ/√d)V: no (B, heads, T, T) tensors written and read back",
        ),
        (
            f"+ {config.num_threads} thread{'s' if config.num_threads != 1 else ''} (the recipe)",
            {"num_threads": config.num_threads},
            "no thread waits for another, so a busy core cannot stall the step (rows 7, 8); idle, two may be faster",
        ),
    ]
    out, setting = [], Setting()
    for name, change, why in steps:
        setting = dataclasses.replace(setting, **change)
        out.append(Row(name, setting, why))
    out += [
        Row(
            "row 5 beside a busy core",
            dataclasses.replace(out[4].setting, loaded=True),
            "every step waits for the thread that shares its core with the busy process",
        ),
        Row(
            "row 6 (the recipe) beside a busy core",
            dataclasses.replace(out[5].setting, loaded=True),
            "one thread has the free core to itself",
        ),
    ]
    return out


# ----------------------------------------------------------------------------------------------------------
# The batches


def pad_to(batch: dict[str, torch.Tensor], length: int, pad_token_id: int) -> dict[str, torch.Tensor]:
    """``batch`` widened to ``length`` tokens with padding the model ignores: [PAD] ids, token type 0,
    attention mask 0 and label -100 (what ``PretrainingCollator(pad_to_multiple_of=length)`` pads with)."""
    extra = length - batch["input_ids"].size(1)
    if extra < 0:
        raise ValueError(f"The batch is {batch['input_ids'].size(1)} tokens wide, more than length={length}.")
    fill = {"input_ids": pad_token_id, "token_type_ids": 0, "attention_mask": 0, "labels": IGNORE_INDEX}
    return {
        key: torch.nn.functional.pad(value, (0, extra), value=fill[key]) if key in fill else value
        for key, value in batch.items()
    }  # (B, length)


def padding_stats(batches: list[dict[str, torch.Tensor]]) -> tuple[float, float]:
    """``(tokens computed per step, share of them that is padding)`` over ``batches``: B × T per batch,
    padding included, and the share of those positions whose attention mask is 0."""
    if not batches:
        raise ValueError("padding_stats needs at least one batch.")
    computed = sum(b["attention_mask"].numel() for b in batches)
    real = sum(int(b["attention_mask"].sum()) for b in batches)
    return computed / len(batches), 1 - real / computed


def layout(setting: Setting) -> tuple[bool, int]:
    """What a row's batches depend on: ``(pad_to_max_length, bucket_batches)``."""
    return setting.pad_to_max_length, setting.bucket_batches


def course_batches(config: PretrainingConfig, n: int) -> tuple[dict[tuple[bool, int], list], int]:
    """The first ``n`` batches of the recipe's stream for every :func:`layout` of :func:`rows`, and the
    vocabulary size. Every layout's batches hold the same examples in the same order (the same seed)."""
    corpus = read_corpus(resolve_path(config.corpus))
    tokenizer = train_tokenizer(corpus, config.vocab_size)
    out = {}
    for pad_to_max_length, buckets in sorted({layout(r.setting) for r in rows(config)}):
        stream = pretraining_batches(config.replace(bucket_batches=buckets), corpus, tokenizer)
        batches = [next(stream)[1] for _ in range(n)]
        if pad_to_max_length:
            batches = [pad_to(b, config.max_length, tokenizer.pad_token_id) for b in batches]
        out[pad_to_max_length, buckets] = batches
    return out, tokenizer.vocab_size


# ----------------------------------------------------------------------------------------------------------
# The step and its timing


def switchable_step(
    model, batch, optimizer, scheduler, params, config: PretrainingConfig, setting: Setting
) -> None:
    """The step the speed table times: one training step as ``bertedu.training.pretrain.train_step`` takes it
    (without its accuracy counts), with a switch that one lacks, the MLM fast path on or off: forward
    (L = L_MLM + L_NSP), backward, clipping, AdamW, schedule."""
    model.train()
    optimizer.zero_grad(set_to_none=True)
    out = model(**batch, mlm_logits_at_labels_only=setting.mlm_logits_at_labels_only)
    out.loss.backward()
    optimizer_step(
        optimizer,
        scheduler,
        params,
        config.max_grad_norm,
        out.loss.item(),
        lambda what, value: f"the {what} became {value} in the speed table's training step",
    )


def time_row(
    setting: Setting, batches: list, vocab_size: int, config: PretrainingConfig, warmup: int
) -> tuple[float, float]:
    """Milliseconds per step of ``setting`` over ``batches`` after the first ``warmup`` of them (untimed),
    training the recipe's model from its initial weights (the seed's) with the recipe's AdamW and schedule;
    and the 1-minute load average at the end."""
    torch.manual_seed(config.seed)
    bert_config = model_config(config, vocab_size).replace(attn_implementation=setting.attn_implementation)
    model = BertForPreTraining(bert_config)
    optimizer, scheduler = recipe_optimizer(model, config)
    params = [p for p in model.parameters() if p.requires_grad]
    busy = cpu_hog() if setting.loaded else contextlib.nullcontext()
    with cpu_threads(setting.num_threads), busy:  # the previous thread count is restored after the row
        if setting.loaded:
            time.sleep(HOG_START_S)
        for batch in batches[:warmup]:
            switchable_step(model, batch, optimizer, scheduler, params, config, setting)
        start = time.perf_counter()
        for batch in batches[warmup:]:
            switchable_step(model, batch, optimizer, scheduler, params, config, setting)
        ms = 1000 * (time.perf_counter() - start) / len(batches[warmup:])
        return ms, os.getloadavg()[0]  # how busy the machine was (the busy process still running)


def measure_here(warmup: int = WARMUP, steps: int = STEPS, repeats: int = REPEATS) -> dict:
    """Every row's milliseconds per step in this process, ``repeats`` times (the rows alternate within each
    repeat), with its tokens per step and padding share over its timed batches. JSON-ready."""
    config = recipe()
    table = rows(config)
    batches, vocab_size = course_batches(config, warmup + steps)
    default_threads = torch.get_num_threads()
    times: list[list[float]] = [[] for _ in table]
    loads: list[list[float]] = [[] for _ in table]
    for _ in range(repeats):
        for i, row in enumerate(table):
            ms, load = time_row(row.setting, batches[layout(row.setting)], vocab_size, config, warmup)
            times[i].append(ms)
            loads[i].append(load)
    out = []
    for row, values, load in zip(table, times, loads, strict=True):
        tokens, padding = padding_stats(batches[layout(row.setting)][warmup:])
        out.append(
            {
                "name": row.name,
                "why": row.why,
                "setting": dataclasses.asdict(row.setting),
                "threads": row.setting.num_threads or default_threads,
                "ms_per_step": values,
                "load_average": load,
                "tokens_per_step": tokens,
                "padding_share": padding,
            }
        )
    return {
        "rows": out,
        "default_threads": default_threads,
        "batch_size": config.batch_size,
        "max_length": config.max_length,
        "warmup": warmup,
        "steps": steps,
        "repeats": repeats,
    }


def measure(quick: bool = False) -> dict:
    """:func:`measure_here` in a fresh process (nothing the caller allocated or set disturbs it), with the
    milliseconds per step as :class:`common.Summary` objects."""
    settings = QUICK if quick else {"warmup": WARMUP, "steps": STEPS, "repeats": REPEATS}
    code = (
        "import json, sys\n"
        "sys.path.insert(0, 'benchmarks')\n"
        "import bench_speedups\n"
        f"print(json.dumps(bench_speedups.measure_here(**{settings!r})))\n"
    )
    result = run_json_subprocess(code, timeout=1800)
    for row in result["rows"]:
        row["ms_per_step"] = Summary(row["ms_per_step"], "ms")
        row["load_average"] = Summary(row["load_average"], "")
    return result


# ----------------------------------------------------------------------------------------------------------
# The report


def speedups(rows: list[dict]) -> list[float]:
    """Each row's speed-up over the first ("plain"): the plain row's median time / the row's median time."""
    plain = rows[0]["ms_per_step"].median
    return [plain / r["ms_per_step"].median for r in rows]


def section(results: dict) -> list[str]:
    """The table's Markdown lines (a sub-section of RESULTS.md's "Training speed")."""
    table = results["rows"]
    lines = [
        HEADING,
        "",
        "Notebook 06's training step (`bertedu.course.course_config`: batch "
        f"{results['batch_size']}, max_length {results['max_length']}), one optimisation added per row, each "
        "keeping the maths. Every row trains the same model from the same initial weights on the same batches "
        "(the same seed: rows 1 and 2 the very same batches, row 1's padded to max_length; rows 3 to 8 the "
        "same bucketed ones), so only the speed differs. Timed: forward, backward, clipping, AdamW and the "
        f"schedule (the batches are built beforehand), {results['steps']} steps after {results['warmup']} "
        f"untimed, min / median / max over {results['repeats']} repeat(s), the rows alternating in each. "
        "*Tokens per step*: B × T, padding included. *Speed-up*: plain's median / the row's median. The last "
        "two rows repeat rows 5 and 6 beside one `while True: pass` process (a busy core).",
        "",
        "| row | threads | ms per step (min / median / max) | tokens per step | padding | speed-up vs plain | why it helps |",
        "|---|---|---|---|---|---|---|",
    ]
    for i, (row, speedup) in enumerate(zip(table, speedups(table), strict=True), start=1):
        lines.append(
            f"| {i}. {row['name']} | {row['threads']} | {row['ms_per_step'].fmt(1)} | "
            f"{row['tokens_per_step']:.0f} | {row['padding_share']:.0%} | {speedup:.2f}× | {row['why']} |"
        )
    lines += ["", step_gains(table)]
    notes = []
    for row in table:
        if row["setting"]["loaded"]:
            idle = next(r for r in table if r["setting"] == {**row["setting"], "loaded": False})
            ratio = row["ms_per_step"].median / idle["ms_per_step"].median
            notes.append(f"{ratio:.2f}× its idle time with {row['threads']} thread(s)")
    if notes:
        lines += ["", "Beside a busy core, a step took " + "; ".join(notes) + "."]
    return lines + ["", load_note(table), ""]


def headline(results: dict) -> str:
    """The README's line: the recipe's step against the plain one, idle and beside a busy core."""
    table = results["rows"]
    recipe = max(i for i, r in enumerate(table) if not r["setting"]["loaded"])
    gains = speedups(table)
    loaded = next(r for r in table if r["setting"] == {**table[recipe]["setting"], "loaded": True})
    return (
        f"Notebook 06's training step: {table[recipe]['ms_per_step'].median:.0f} ms, {gains[recipe]:.2f}× "
        f"faster than a plain step (padding to max_length, no buckets: {table[0]['padding_share']:.0%} "
        f"padding); beside a busy core {loaded['ms_per_step'].median / table[recipe]['ms_per_step'].median:.2f}× "
        "its idle time (the speed table in RESULTS.md §2)."
    )


#: A row whose median is within this share of the row above bought nothing this run can tell apart from noise.
NOISE = 0.10  # three repeats of 60 steps on a shared 2-core machine vary by about this much


def step_gains(table: list[dict]) -> str:
    """One sentence: what each idle row changed over the row above (ratio of medians), naming the rows that
    bought nothing measurable (within :data:`NOISE`) or cost time, so the table is read as measured."""
    idle = [(i, r) for i, r in enumerate(table, start=1) if not r["setting"]["loaded"]]
    steps = [
        (i, prev["ms_per_step"].median / row["ms_per_step"].median)
        for (_, prev), (i, row) in zip(idle, idle[1:])
    ]
    parts = [f"row {i}: {gain:.2f}×" for i, gain in steps]
    flat = [f"{i}" for i, gain in steps if abs(gain - 1) <= NOISE]
    slower = [f"{i}" for i, gain in steps if gain < 1 - NOISE]
    text = "Each row against the row above (idle, ratio of medians): " + ", ".join(parts) + "."
    if flat:
        text += f" Within {NOISE:.0%} of the row above, so nothing this run can tell from noise: row(s) {', '.join(flat)}."
    if slower:
        text += f" Slower than the row above on an idle machine: row(s) {', '.join(slower)}."
    return text


def load_note(table: list[dict]) -> str:
    """How busy the machine was: the medians of the 1-minute load averages read after the idle and the
    loaded rows (two-thread rows suffer most from any other program running)."""
    idle = [v for r in table if not r["setting"]["loaded"] for v in r["load_average"].values]
    loaded = [v for r in table if r["setting"]["loaded"] for v in r["load_average"].values]
    median = lambda values: Summary(values, "").median if values else float("nan")  # noqa: E731
    return (
        f"Load average (1 minute, read after each row; medians): {median(idle):.1f} after the idle rows, "
        f"{median(loaded):.1f} after the loaded ones. On an otherwise idle 2-core machine this run keeps them "
        "near 1-2 and 2-3; more means other programs ran too, which slows the two-thread rows most."
    )


def merge(report: str, lines: list[str], heading: str = HEADING) -> str:
    """``report`` (RESULTS.md) with the sub-section ``heading`` (default: this one) replaced by ``lines``;
    without one, inserted at the end of the section "## 2. Training speed" (at the report's end if it has none)."""
    text = "\n".join(lines).rstrip("\n") + "\n"
    if heading in report:
        before, rest = report.split(heading, 1)
        ends = [i for i in (rest.find("\n## "), rest.find("\n### ")) if i >= 0]
        after = rest[min(ends) :] if ends else ""
        return before + text + after
    section_2 = report.find(TRAINING_HEADING)
    end = report.find("\n## ", section_2 + 1) if section_2 >= 0 else -1
    if end < 0:
        return report.rstrip("\n") + "\n\n" + text
    return report[:end].rstrip("\n") + "\n\n" + text + report[end:]


if __name__ == "__main__":  # python benchmarks/bench_speedups.py [--quick]: print the table only
    print("\n".join(section(measure(quick="--quick" in sys.argv))))
