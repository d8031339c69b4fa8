"""Training and inference speed, and inference peak memory: bertedu vs Hugging Face transformers.

Both models hold identical weights (ours saved with ``save_pretrained`` and loaded by transformers), see
the same batch and use the same optimizer. Timings alternate ours / theirs in every repeat so that a
change in machine load hits both sides alike; the ratio is taken per repeat.
"""

from __future__ import annotations

import json
import tempfile
import textwrap
import time

import torch
from common import Summary, run_json_subprocess

from bertedu.core.config import BertConfig
from bertedu.core.masking import mask_tokens
from bertedu.core.model import BertForPreTraining

SPECIAL_IDS = (0, 1, 2, 3, 4)  # [PAD] [UNK] [CLS] [SEP] [MASK] in course vocabularies


def make_pretraining_batch(config: BertConfig, batch_size: int, seq_len: int, seed: int = 0) -> dict:
    """A random pretraining batch with 15 % masking, a little padding and NSP labels."""
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(5, config.vocab_size, (batch_size, seq_len), generator=g)
    ids[:, 0] = 2  # [CLS]
    ids[:, seq_len // 2] = 3  # [SEP]
    ids[:, -1] = 3
    attention_mask = torch.ones_like(ids)
    for row in range(0, batch_size, 4):  # every 4th sequence padded over its last quarter
        ids[row, -seq_len // 4 :] = 0
        ids[row, -seq_len // 4 - 1] = 3
        attention_mask[row, -seq_len // 4 :] = 0
    token_type_ids = torch.zeros_like(ids)
    token_type_ids[:, seq_len // 2 + 1 :] = 1
    token_type_ids[attention_mask == 0] = 0
    masked, labels = mask_tokens(
        ids, mask_token_id=4, vocab_size=config.vocab_size, special_token_ids=SPECIAL_IDS, generator=g
    )
    return {
        "input_ids": masked,
        "attention_mask": attention_mask,
        "token_type_ids": token_type_ids,
        "labels": labels,
        "next_sentence_label": torch.randint(0, 2, (batch_size,), generator=g),
    }


def twin_models(config: BertConfig):
    """Our BertForPreTraining and transformers' with the same weights, both in train mode, eager attention."""
    import transformers

    torch.manual_seed(0)
    ours = BertForPreTraining(config)
    with tempfile.TemporaryDirectory() as folder:
        ours.save_pretrained(folder)
        theirs = transformers.BertForPreTraining.from_pretrained(folder, attn_implementation="eager")
    return ours.train(), theirs.train()


def train_step_fn(model, batch, *, ours: bool, fast: bool, loss_fn=None):
    """One training step (forward, backward, clipping, AdamW) of ``model`` on ``batch``; ``loss_fn(model, batch,
    ours=, fast=)`` computes the loss (default: the model's own, MLM + NSP)."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01)

    def step():
        optimizer.zero_grad(set_to_none=True)
        if loss_fn is not None:
            loss = loss_fn(model, batch, ours=ours, fast=fast)
        elif ours:
            loss = model(**batch, mlm_logits_at_labels_only=fast).loss
        else:
            loss = model(**batch).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()

    return step


def time_steps(step, n_steps: int) -> float:
    start = time.perf_counter()
    for _ in range(n_steps):
        step()
    return (time.perf_counter() - start) / n_steps


def training_speed(
    name: str, config: BertConfig, *, batch_size: int, seq_len: int, repeats: int, steps: int
) -> dict:
    """Seconds per training step for ours (teaching path and fast path) and theirs, alternating."""
    batch = make_pretraining_batch(config, batch_size, seq_len)
    ours_fast_model, theirs_model = twin_models(config)
    ours_teach_model, _ = twin_models(config)
    fns = {
        "ours_fast": train_step_fn(ours_fast_model, batch, ours=True, fast=True),
        "ours_teaching": train_step_fn(ours_teach_model, batch, ours=True, fast=False),
        "transformers": train_step_fn(theirs_model, batch, ours=False, fast=False),
    }
    for fn in fns.values():  # warm-up: allocator, oneDNN kernels, optimizer state
        time_steps(fn, 2)
    times = {k: [] for k in fns}
    for _ in range(repeats):
        for k, fn in fns.items():
            times[k].append(time_steps(fn, steps))
    ratio_fast = [a / b for a, b in zip(times["ours_fast"], times["transformers"])]
    ratio_teach = [a / b for a, b in zip(times["ours_teaching"], times["transformers"])]
    return {
        "name": name,
        "config": f"L={config.num_hidden_layers} H={config.hidden_size} A={config.num_attention_heads} "
        f"V={config.vocab_size}",
        "batch": f"{batch_size} x {seq_len}",
        "steps_per_s": {k: Summary([1 / t for t in v], "steps/s") for k, v in times.items()},
        "ratio_fast": Summary(ratio_fast, ""),
        "ratio_teaching": Summary(ratio_teach, ""),
    }


# ---------------------------------------------------------------------------------------------- inference

_INFERENCE_CODE = textwrap.dedent("""
    import gc, json, re, time, sys
    import torch
    which, attn, batch_size, seq_len, repeats, mode = sys.argv[1:] if len(sys.argv) > 1 else ({args})
    batch_size, seq_len, repeats = int(batch_size), int(seq_len), int(repeats)
    torch.manual_seed(0)

    def rss():
        s = open("/proc/self/status").read()
        return {{k: int(re.search(k + r":\\s+(\\d+)", s).group(1)) / 1024 for k in ("VmRSS", "VmHWM")}}

    from bertedu.core.minilm import minilm_dir
    folder = str(minilm_dir())
    if which == "ours":
        from bertedu.core.model import BertModel
        model = BertModel.from_pretrained(folder, attn_implementation=attn).eval()
    else:
        import transformers
        model = transformers.BertModel.from_pretrained(folder, attn_implementation=attn).eval()
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(1000, 30000, (batch_size, seq_len), generator=g)
    ids[:, 0] = 101; ids[:, -1] = 102
    mask = torch.ones_like(ids)
    mask[::2, seq_len // 2:] = 0      # half the sentences are padded to half length
    ids[mask == 0] = 0
    types = torch.zeros_like(ids)
    out = {{}}
    if mode == "memory":
        gc.collect()
        open("/proc/self/clear_refs", "w").write("5")   # reset the peak (VmHWM) to the current RSS
        before = rss()["VmRSS"]
        with torch.no_grad():
            model(input_ids=ids, attention_mask=mask, token_type_ids=types)
        after = rss()
        out = {{"forward_peak_mib": after["VmHWM"] - before, "process_peak_mib": after["VmHWM"]}}
    else:
        with torch.no_grad():
            for _ in range(2):
                model(input_ids=ids, attention_mask=mask, token_type_ids=types)
            times = []
            for _ in range(repeats):
                t = time.perf_counter()
                model(input_ids=ids, attention_mask=mask, token_type_ids=types)
                times.append(time.perf_counter() - t)
        out = {{"times": times}}
    print(json.dumps(out))
""")


def _inference_run(which: str, attn: str, batch_size: int, seq_len: int, repeats: int, mode: str) -> dict:
    args = repr((which, attn, str(batch_size), str(seq_len), str(repeats), mode))
    return run_json_subprocess(_INFERENCE_CODE.format(args=args))


def inference(*, batch_size: int, seq_len: int, repeats: int, memory_repeats: int) -> dict:
    """Forward latency and peak memory on the real all-MiniLM-L6-v2 weights, ours vs transformers.

    Latency: one process per side, ``repeats`` timed forwards after 2 warm-up calls, alternating
    processes over rounds. Memory: a fresh process per measurement; the peak resident memory during the
    first forward pass above the resident memory just before it (model loaded, batch built).
    """
    result = {}
    for attn in ("eager", "sdpa"):
        lat = {"ours": [], "transformers": []}
        for _ in range(2):  # two rounds, alternating, each in a fresh process
            for which in ("ours", "transformers"):
                lat[which] += _inference_run(which, attn, batch_size, seq_len, repeats, "latency")["times"]
        mem = {"ours": [], "transformers": []}
        for _ in range(memory_repeats):
            for which in ("ours", "transformers"):
                mem[which].append(_inference_run(which, attn, batch_size, seq_len, 0, "memory"))
        result[attn] = {
            "latency_ms": {k: Summary([1000 * t for t in v], "ms") for k, v in lat.items()},
            "latency_ratio": Summary(
                [a / b for a, b in zip(sorted(lat["ours"]), sorted(lat["transformers"]))], ""
            ),
            "forward_peak_mib": {
                k: Summary([m["forward_peak_mib"] for m in v], "MiB") for k, v in mem.items()
            },
            "process_peak_mib": {
                k: Summary([m["process_peak_mib"] for m in v], "MiB") for k, v in mem.items()
            },
        }
        ours_mem = result[attn]["forward_peak_mib"]["ours"].median
        theirs_mem = result[attn]["forward_peak_mib"]["transformers"].median
        result[attn]["memory_ratio"] = ours_mem / theirs_mem
    result["batch"] = f"{batch_size} x {seq_len} (half the rows padded to half length)"
    return result


# ---------------------------------------------------------------------------- several processes (issue 18)

_PROCESS_CODE = textwrap.dedent("""
    import json, sys
    import torch
    torch.set_num_threads(int(sys.argv[2]))
    from bertedu.training.pretrain import PretrainingConfig, pretrain
    run = pretrain(PretrainingConfig.from_dict(json.loads(sys.argv[1])), progress=False)
    print(json.dumps({"seconds": run.train_seconds}))
""")


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _train_in_processes(config, processes: int, threads: int, timeout: int = 900) -> float:
    """Seconds process 0 spent in the training loop of ``pretrain(config)`` run by ``processes`` processes
    of ``threads`` torch threads each, started as torchrun starts them (gloo on 127.0.0.1)."""
    import os
    import subprocess
    import sys

    from common import ROOT

    port, env = _free_port(), dict(os.environ, PYTHONHASHSEED="0", HF_HUB_OFFLINE="1")
    args = [sys.executable, "-c", _PROCESS_CODE, json.dumps(config.replace(num_threads=threads).to_dict())]
    procs = []
    for rank in range(processes):
        world = {"RANK": rank, "LOCAL_RANK": rank, "WORLD_SIZE": processes, "MASTER_ADDR": "127.0.0.1"}
        world.update(MASTER_PORT=port, OMP_NUM_THREADS=threads)
        if processes == 1:
            world = {"OMP_NUM_THREADS": threads}
        env_r = {**env, **{k: str(v) for k, v in world.items()}}
        procs.append(
            subprocess.Popen(
                [*args, str(threads)],
                cwd=ROOT,
                env=env_r,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    outputs = []
    try:
        for p in procs:
            outputs.append(p.communicate(timeout=timeout))
            if p.returncode != 0:
                raise RuntimeError(f"benchmark process failed:\n{outputs[-1][1][-3000:]}")
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    return json.loads(outputs[0][0].strip().splitlines()[-1])["seconds"]


def _tokens(config) -> int:
    """Real (non-padding) tokens in the first ``config.steps`` batches of the run, the same for any number of
    processes (they share each global batch)."""
    from bertedu.core.tokenizer import train_tokenizer
    from bertedu.training.data import read_corpus
    from bertedu.training.pretrain import pretraining_batches
    from bertedu.utils import resolve_path

    documents = read_corpus(resolve_path(config.corpus))
    tokenizer = train_tokenizer(documents, config.vocab_size)
    batches = pretraining_batches(config, documents, tokenizer)
    return sum(int(next(batches)[1]["attention_mask"].sum()) for _ in range(config.steps))


def processes_speed(name: str, config, *, repeats: int) -> dict:
    """Training tokens per second of ``pretrain(config)`` in 1 process (1 thread), 2 processes (1 thread each,
    DistributedDataParallel over gloo) and 1 process with 2 threads, alternating in every repeat; the
    ratios are taken against the 1-process peer of the same repeat. Each timing is the training loop of a
    fresh run (start-up, tokenizer and data preparation excluded)."""
    tokens = _tokens(config)
    setups = {"1 process": (1, 1), "2 processes": (2, 1), "1 process, 2 threads": (1, 2)}
    seconds = {k: [] for k in setups}
    for _ in range(repeats):
        for key, (processes, threads) in setups.items():
            seconds[key].append(_train_in_processes(config, processes, threads))
    one = seconds["1 process"]
    return {
        "name": name,
        "config": f"{config.model_size}, batch {config.batch_size} x <= {config.max_length} tokens, "
        f"{config.steps} steps, {config.attn_implementation} attention",
        "tokens_per_step": tokens / config.steps,
        "tokens_per_s": {k: Summary([tokens / t for t in v], "tokens/s") for k, v in seconds.items()},
        "ratio_2_processes": Summary([a / b for a, b in zip(one, seconds["2 processes"])], ""),
        "ratio_2_threads": Summary([a / b for a, b in zip(one, seconds["1 process, 2 threads"])], ""),
    }


if __name__ == "__main__":  # quick look: python benchmarks/bench_speed.py
    torch.set_num_threads(torch.get_num_threads())
    cfg = BertConfig.from_preset("mini", vocab_size=2000)
    r = training_speed("mini", cfg, batch_size=16, seq_len=64, repeats=3, steps=3)
    print(
        json.dumps(
            {k: (v.fmt(3) if isinstance(v, Summary) else v) for k, v in r.items() if k != "steps_per_s"},
            indent=1,
        )
    )
    inf = inference(batch_size=8, seq_len=64, repeats=3, memory_repeats=1)
    print(
        {
            attn: (inf[attn]["latency_ratio"].fmt(3), round(inf[attn]["memory_ratio"], 3))
            for attn in ("eager", "sdpa")
        }
    )
