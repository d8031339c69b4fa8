"""Notebook 12's pretraining step on one core: tokens per second, ours and transformers', and how much of the core's
measured peak it uses (issue 42).

The shape is the real-English run's (data/wordnet/README.md): BERT-tiny (2 layers, H = 128), an 8,000-token
vocabulary, rows packed to 64 tokens (no padding), 64 rows a batch, 15 % masked, no NSP. Both models hold the
same weights and see the same batch; one torch thread, as the course trains. Timings alternate ours (fast path:
MLM logits only at the masked positions, the course's default; teaching path: logits everywhere) and theirs in
every repeat, so a change of load hits all three alike.

**Peak.** A core's floating-point peak is measured, not looked up: the best rate of a large single-precision
matrix product on one thread (``torch.mm`` of two ``n x n`` matrices is ``2 n^3`` operations). **Work per step**
is counted by PyTorch (``torch.utils.flop_counter.FlopCounterMode``: every matrix product and attention of the
forward and backward pass; the optimizer's element-wise work is not counted). The share of the peak a step reaches
is ``work per step x steps per second / peak``: the rest goes to what a matrix unit cannot speed up (softmax,
LayerNorm, GELU, dropout, the optimizer, Python; which of them weighs most is not measured here).
"""

from __future__ import annotations

import time

import torch
from bench_speed import train_step_fn, twin_models
from common import Summary

from bertedu.core.config import BertConfig
from bertedu.core.masking import mask_tokens
from bertedu.core.model import BertForPreTraining
from bertedu.utils import cpu_threads

#: data/wordnet/README.md's recipe: BERT-tiny, an 8,000-token vocabulary, 64 packed rows of 64 tokens.
VOCAB_SIZE, BATCH_SIZE, SEQ_LEN = 8000, 64, 64
SPECIAL_IDS = (0, 1, 2, 3, 4)  # [PAD] [UNK] [CLS] [SEP] [MASK]


def wordnet_config() -> BertConfig:
    return BertConfig.from_preset("tiny", vocab_size=VOCAB_SIZE, max_position_embeddings=SEQ_LEN)


def packed_batch(config: BertConfig, batch_size: int, seq_len: int, seed: int = 0) -> dict:
    """A packed MLM batch: every row full (sentences joined by [SEP]), 15 % masked, no NSP label."""
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(len(SPECIAL_IDS), config.vocab_size, (batch_size, seq_len), generator=g)
    ids[:, 0] = 2  # [CLS]
    ids[:, 12::13] = 3  # a [SEP] after every sentence of about a dozen tokens
    ids[:, -1] = 3
    masked, labels = mask_tokens(
        ids, mask_token_id=4, vocab_size=config.vocab_size, special_token_ids=SPECIAL_IDS, generator=g
    )
    ones = torch.ones_like(ids)
    return {"input_ids": masked, "attention_mask": ones, "token_type_ids": ones * 0, "labels": labels}


def mlm_loss(model, batch: dict, *, ours: bool, fast: bool) -> torch.Tensor:
    """The masked-word loss. transformers' ``BertForPreTraining`` returns a loss only with an NSP label, so its
    loss is computed here from its logits, as its ``BertForMaskedLM`` does (logits at every position)."""
    if ours:
        return model(**batch, mlm_logits_at_labels_only=fast).loss
    inputs = {k: v for k, v in batch.items() if k != "labels"}
    logits = model(**inputs).prediction_logits  # (B, T, V)
    return torch.nn.functional.cross_entropy(
        logits.flatten(0, 1), batch["labels"].flatten(), ignore_index=-100
    )


def flops_per_step(model, batch: dict, *, ours: bool, fast: bool) -> int:
    """Floating-point operations of one forward and backward pass, as PyTorch counts them."""
    from torch.utils.flop_counter import FlopCounterMode

    counter = FlopCounterMode(display=False)
    with counter:
        mlm_loss(model, batch, ours=ours, fast=fast).backward()
    model.zero_grad(set_to_none=True)
    return int(counter.get_total_flops())


def peak_flops(n: int = 1024, repeats: int = 5, threads: int = 1) -> float:
    """The best rate (operations per second) of an ``n x n`` single-precision matrix product on ``threads``."""
    a, b = torch.randn(n, n), torch.randn(n, n)
    best = 0.0
    with cpu_threads(threads):
        torch.mm(a, b)  # warm-up: the library picks its kernel
        for _ in range(repeats):
            start = time.perf_counter()
            torch.mm(a, b)
            best = max(best, 2 * n**3 / (time.perf_counter() - start))
    return best


def measure(quick: bool = False, *, config: BertConfig | None = None) -> dict:
    """Steps per second of the three steps on one thread, their tokens per second, work and share of the peak."""
    config = config or wordnet_config()
    batch_size, seq_len = (8, 32) if quick else (BATCH_SIZE, SEQ_LEN)
    repeats, steps = (2, 2) if quick else (5, 10)
    batch = packed_batch(config, batch_size, seq_len)
    with cpu_threads(1):
        fast_model, theirs_model = twin_models(config)
        teaching_model, _ = twin_models(config)
        recipe_model = BertForPreTraining(config.replace(attn_implementation="sdpa")).train()
        recipe_model.load_state_dict(fast_model.state_dict())
        models = {
            "ours_recipe": recipe_model,
            "ours_fast": fast_model,
            "ours_teaching": teaching_model,
            "transformers": theirs_model,
        }
        kinds = {k: (k != "transformers", k in ("ours_recipe", "ours_fast")) for k in models}
        work = {k: flops_per_step(m, batch, ours=kinds[k][0], fast=kinds[k][1]) for k, m in models.items()}
        fns = {
            k: train_step_fn(m, batch, ours=kinds[k][0], fast=kinds[k][1], loss_fn=mlm_loss)
            for k, m in models.items()
        }
        for fn in fns.values():  # warm-up: allocator, kernels, optimizer state
            fn()
        times: dict[str, list[float]] = {k: [] for k in fns}
        for _ in range(repeats):
            for k, fn in fns.items():
                start = time.perf_counter()
                for _ in range(steps):
                    fn()
                times[k].append((time.perf_counter() - start) / steps)
    size = 512 if quick else 1024
    peak = peak_flops(size)
    tokens = batch_size * seq_len
    return {
        "config": f"L={config.num_hidden_layers} H={config.hidden_size} A={config.num_attention_heads} "
        f"V={config.vocab_size}",
        "batch": f"{batch_size} x {seq_len}",
        "peak_gflops": peak / 1e9,
        "peak_size": size,
        "rows": {
            k: {
                "tokens_per_s": Summary([tokens / t for t in v], "tokens/s"),
                "gflop_per_step": work[k] / 1e9,
                "share_of_peak": Summary([work[k] / t / peak for t in v], ""),
            }
            for k, v in times.items()
        },
        "ratio_fast": Summary([a / b for a, b in zip(times["ours_fast"], times["transformers"])], ""),
    }


NAMES = {
    "ours_recipe": "ours, the course's recipe (fast, fused attention)",
    "ours_fast": "ours, fast (MLM logits at the masked positions)",
    "ours_teaching": "ours, teaching (logits everywhere)",
    "transformers": "transformers `BertForPreTraining`",
}


def section(result: dict) -> list[str]:
    """The report's lines (a sub-section of RESULTS.md's real-corpus section)."""
    lines = [
        "### Notebook 12's pretraining step on one core",
        "",
        f"BERT-tiny as notebook 12 pretrains it ({result['config']}), a packed batch of {result['batch']} tokens "
        "(15 % masked, no NSP), one torch thread, AdamW with clipping; the same weights and batch on every row, the "
        "rows alternating in each repeat (min / median / max). *Work*: the forward and backward pass's "
        "operations as `torch.utils.flop_counter` counts them. *Share of the peak*: work x steps per second / this "
        f"core's measured peak, **{result['peak_gflops']:.1f} GFLOP/s** (the best single-precision "
        f"{result['peak_size']} x {result['peak_size']} matrix product on one thread). Eager attention on every "
        "row but the first, which is the course's recipe (PyTorch's fused attention, `sdpa`).",
        "",
        "| step | tokens per second | work per step (GFLOP) | share of one core's peak |",
        "|---|---|---|---|",
    ]
    for key, row in result["rows"].items():
        lines.append(
            f"| {NAMES[key]} | {row['tokens_per_s'].fmt(0)} | {row['gflop_per_step']:.2f} | "
            f"{row['share_of_peak'].fmt(3)} |"
        )
    ratio = result["ratio_fast"]
    lines += [
        "",
        f"Our fast step takes {ratio.median:.2f}x transformers' time (median of the repeats; "
        f"{ratio.fmt(2)}). The rest of a step's time goes to what the count leaves out or a matrix unit does "
        "not speed up (softmax, LayerNorm, GELU, the optimizer, Python); this run does not measure which of them "
        "weighs most.",
        "",
    ]
    return lines
