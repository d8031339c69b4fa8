"""Several processes (bertedu.scaleout.distributed, torchrun): 2 CPU processes with gloo train exactly what 1 process
trains with the same global batch; gradient accumulation k x b equals one batch of k*b; a run resumes with
another number of processes; a killed process ends the whole run with a clear message and an intact
checkpoint.

The processes are started the way torchrun starts them (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and
MASTER_PORT in the environment), on 127.0.0.1 and a free port, one torch thread each: no network, a few
seconds per run on a busy 2-core machine. One test uses torchrun itself.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from support import TEST_PRESET, global_norm
from torch.optim.optimizer import register_optimizer_step_pre_hook

from bertedu.scaleout.distributed import DistributedContext, micro_batches, select_device, shard_batch
from bertedu.training.checkpoint import is_checkpoint, load_checkpoint
from bertedu.training.pretrain import PretrainingConfig, pretrain

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 300  # seconds for a whole 2-process run (a few seconds normally; generous for a busy machine)

# One process of a run: reads its settings from a JSON file, trains, and writes what it ended with.
WORKER = """
import json, sys, torch
torch.set_num_threads(1)
from bertedu.core.config import PRESETS
from bertedu.training.pretrain import PretrainingConfig, pretrain
job = json.loads(open(sys.argv[1], encoding="utf-8").read())
PRESETS["test"] = job["preset"]
if job.get("gradient"):  # one step of plain SGD (lr 1) on a saved batch, per grad_accum: the weights move by -gradient
    from test_distributed import sgd_step_change
    from bertedu.scaleout.distributed import processes
    with processes("cpu") as ctx:
        batch = torch.load(job["gradient"])
        changes = {k: sgd_step_change(ctx, batch, k) for k in job["kwargs"]["grad_accum"]}
    torch.save(changes, job["result"] + f".{job['rank']}")
    sys.exit(0)
if job.get("runs"):  # several runs one after the other in one process group (a start costs seconds: torch, gloo)
    from bertedu.scaleout.distributed import processes
    results = []
    with processes("cpu"):
        for one in job["runs"]:
            run = pretrain(PretrainingConfig.from_dict(one["config"]), None, progress=False, **one["kwargs"])
            results.append({"history": run.history, "weights": run.model.state_dict(), "step": run.step})
    torch.save(results, job["result"] + f".{job['rank']}")
    sys.exit(0)
run = pretrain(PretrainingConfig.from_dict(job["config"]), job["output"], progress=False, **job["kwargs"])
torch.save({"history": run.history, "weights": run.model.state_dict(), "step": run.step},
           job["result"] + f".{job['rank']}")
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def process_env(rank: int, world_size: int, port: int) -> dict[str, str]:
    """The environment torchrun gives process ``rank`` (plus one thread and the repository on the path)."""
    env = {
        **os.environ,
        "RANK": str(rank),
        "LOCAL_RANK": str(rank),
        "WORLD_SIZE": str(world_size),
        "LOCAL_WORLD_SIZE": str(world_size),
        "MASTER_ADDR": "127.0.0.1",
        "MASTER_PORT": str(port),
        "OMP_NUM_THREADS": "1",
        "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "tests"), os.environ.get("PYTHONPATH", "")]),
    }
    if sys.platform.startswith("linux"):
        env["GLOO_SOCKET_IFNAME"] = "lo"  # the loopback interface: never the network
    return env


def start(command: list[str], world_size: int, cwd: Path) -> list[subprocess.Popen]:
    port = free_port()
    return [
        subprocess.Popen(
            command,
            cwd=cwd,
            env=process_env(rank, world_size, port),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for rank in range(world_size)
    ]


def finish(procs: list[subprocess.Popen], timeout: float = TIMEOUT) -> list[tuple[int, str, str]]:
    """Wait for every process (killing all of them if one hangs); returns ``(exit status, stdout, stderr)``."""
    results = []
    try:
        deadline = time.monotonic() + timeout
        for p in procs:
            out, err = p.communicate(timeout=max(deadline - time.monotonic(), 1))
            results.append((p.returncode, out, err))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()
    return results


def run_processes(
    tmp_path: Path, config, world_size: int, output=None, gradient=None, runs=None, **kwargs
) -> list:
    """Train ``config`` in ``world_size`` processes; returns each process's ``{history, weights, step}``
    (with ``gradient``, a saved batch: each process's weight change after one SGD step on it; with ``runs``, a list
    of ``(config, kwargs)`` trained one after the other in the same processes: each process's list of results)."""
    procs = []
    port = free_port()
    script = tmp_path / "worker.py"
    script.write_text(WORKER, encoding="utf-8")
    for rank in range(world_size):
        job = {
            "config": config and config.to_dict(),
            "gradient": gradient and str(gradient),
            "preset": TEST_PRESET,
            "output": None if output is None else str(output),
            "kwargs": kwargs,
            "runs": runs and [{"config": c.to_dict(), "kwargs": kw} for c, kw in runs],
            "result": str(tmp_path / "result"),
            "rank": rank,
        }
        (tmp_path / f"job{rank}.json").write_text(json.dumps(job), encoding="utf-8")
        procs.append(
            subprocess.Popen(
                [sys.executable, str(script), str(tmp_path / f"job{rank}.json")],
                cwd=tmp_path,
                env=process_env(rank, world_size, port),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    for rank, (status, _, err) in enumerate(finish(procs)):
        assert status == 0, f"process {rank} failed:\n{err[-3000:]}"
    return [torch.load(tmp_path / f"result.{rank}", weights_only=True) for rank in range(world_size)]


def saved_step(output: Path) -> int:
    """The step of the checkpoint in ``output`` (-1 if there is none yet)."""
    try:
        return json.loads((output / "trainer_state.json").read_text(encoding="utf-8"))["step"]
    except (OSError, ValueError, KeyError):
        return -1


def train_losses(history: list[dict]) -> list[tuple[float, float, float]]:
    """(loss, MLM loss, NSP loss) of each training record; a part the run did not train is 0."""
    return [
        (r["loss"], r.get("mlm_loss", 0.0), r.get("nsp_loss", 0.0)) for r in history if r["split"] == "train"
    ]


def assert_same_run(a_history, a_weights, b_history, b_weights, rtol=1e-4):
    """Loss per step and final weights equal to float rounding (and the same steps).

    Rounding differences (another summation order) grow a little with every step: AdamW divides each
    update by the gradient's own size, so it magnifies them where a gradient is tiny. The weights are
    therefore compared as a whole, relative to their size: ``||a - b|| <= rtol * ||a||``, not element by
    element against a fixed number that one more step, or another recipe, can exceed. Rounding leaves ~5e-7
    here (3e-6 with 80/20/0 masking); micro-batches weighted equally instead of by their masked tokens 2e-2."""
    assert [r["step"] for r in a_history] == [r["step"] for r in b_history]
    for a, b in zip(train_losses(a_history), train_losses(b_history), strict=True):
        assert a == pytest.approx(b, rel=1e-5, abs=1e-6)
    assert a_weights.keys() == b_weights.keys()
    difference = sum(((a_weights[k].double() - b_weights[k].double()) ** 2).sum() for k in a_weights) ** 0.5
    size = sum((a_weights[k].double() ** 2).sum() for k in a_weights) ** 0.5
    assert difference <= rtol * size, f"the weights differ by {difference / size:.1e} of their norm"


@pytest.fixture
def exact_run(tiny_run):
    """8 steps of 4 rows on a 13-pair corpus (each epoch ends with a batch of 1 row, so one process gets
    none), no dropout (its masks differ between processes), one history record per step."""
    return tiny_run(
        dropout=0.0, log_every=1, eval_every=0, num_threads=1, mlm_eval_file=None, nsp_eval_file=None
    )


# --- splitting a global batch --------------------------------------------------------------------------------
def test_shards_and_micro_batches_cover_the_batch_once():
    batch = {
        "input_ids": torch.arange(7 * 5).view(7, 5),
        "attention_mask": torch.tensor([[1] * n + [0] * (5 - n) for n in (1, 2, 2, 3, 4, 5, 5)]),
        "next_sentence_label": torch.arange(7),
    }
    shards = [shard_batch(batch, r, 2) for r in range(2)]
    assert [s["next_sentence_label"].tolist() for s in shards] == [[0, 2, 4, 6], [1, 3, 5]]
    parts = micro_batches(shards[0], 3)
    assert [p["next_sentence_label"].tolist() for p in parts] == [[0], [2], [4, 6]]
    assert [p["input_ids"].shape[1] for p in parts] == [1, 2, 5]  # trailing padding dropped per part
    empty = micro_batches(shard_batch({k: v[:1] for k, v in batch.items()}, 1, 2), 2)
    assert [p["input_ids"].shape[0] for p in empty] == [0, 0]  # the 1-row batch: process 1 gets no row


def test_batch_must_split_into_processes_and_micro_batches():
    with pytest.raises(
        ValueError, match=r"2 process\(es\) x grad_accum 3 = 6 equal parts; use --grad-accum 4 "
    ):
        DistributedContext(world_size=2).check_batch(32, 3)
    DistributedContext(world_size=2).check_batch(32, 4)  # 8 parts of 4 rows: fine


def test_device_selection_and_a_clear_error_without_a_gpu():
    assert select_device("cpu") == torch.device("cpu")
    assert select_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    with pytest.raises(ValueError, match="device must be"):
        select_device("tpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="no CUDA GPU"):
            select_device("cuda")


# --- the gradient of one step ------------------------------------------------------------------------------
def gradient_batch(rows: int = 7) -> dict[str, torch.Tensor]:
    """A batch of ``rows`` rows of different lengths, with masked positions and NSP labels (7 rows split
    unevenly into 2 processes and into micro-batches)."""
    g = torch.Generator().manual_seed(5)
    lengths = torch.randint(4, 12, (rows,), generator=g)
    mask = (torch.arange(12)[None, :] < lengths[:, None]).long()  # (rows, 12)
    labels = torch.randint(5, 97, (rows, 12), generator=g)
    selected = (torch.rand(rows, 12, generator=g) < 0.3) & mask.bool()
    return {
        "input_ids": torch.randint(5, 97, (rows, 12), generator=g) * mask,
        "token_type_ids": (torch.arange(12)[None, :] >= lengths[:, None] // 2).long() * mask,
        "attention_mask": mask,
        "labels": labels.masked_fill(~selected, -100),
        "next_sentence_label": torch.randint(0, 2, (rows,), generator=g),
    }


def sgd_step_change(ctx, batch, grad_accum: int) -> dict[str, torch.Tensor]:
    """How the weights of a fresh small BERT (no dropout) move in one train_step (this process's share of the
    batch, in grad_accum parts) with SGD, lr 1, no clipping: minus the gradient of the global batch's loss."""
    from support import small_bert_config

    from bertedu.core.model import BertForPreTraining
    from bertedu.training.pretrain import train_step

    torch.manual_seed(0)
    model = BertForPreTraining(small_bert_config(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0))
    before = {k: v.clone() for k, v in model.state_dict().items()}
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0)
    trainer = ctx.wrap(model)
    params = list(model.parameters())
    train_step(trainer, batch, optimizer, scheduler, params, 0.0, 0, ctx=ctx, grad_accum=grad_accum)
    return {k: before[k] - v for k, v in model.state_dict().items()}


def reference_gradient(batch) -> dict[str, torch.Tensor]:
    """The gradient of the whole batch's loss in one process, the plain way: ``model(**batch).loss.backward()``."""
    from support import small_bert_config

    from bertedu.core.model import BertForPreTraining

    torch.manual_seed(0)
    model = BertForPreTraining(small_bert_config(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0))
    model(**batch).loss.backward()
    params = dict(model.named_parameters())
    tied = {"cls.predictions.decoder.weight": "bert.embeddings.word_embeddings.weight"}
    return {k: params[tied.get(k, k)].grad for k in model.state_dict() if tied.get(k, k) in params}


def assert_gradient(change, reference):
    for name, grad in reference.items():
        assert torch.allclose(change[name], grad, atol=1e-6, rtol=1e-4), name


@pytest.mark.slow
@pytest.mark.parametrize("k", [1, 2, 3])
def test_micro_batches_add_up_to_the_batch_gradient(k):
    """k micro-batches (7 rows: 3+2+2 for k = 3) give exactly the gradient of the whole batch."""
    batch = gradient_batch()
    assert_gradient(sgd_step_change(DistributedContext(), batch, k), reference_gradient(batch))


@pytest.mark.integration
def test_two_processes_add_up_to_the_batch_gradient(tmp_path):
    """7 rows in 2 processes (4 + 3, each in 1 or 2 parts): DDP's average times 2 is the whole gradient. Both
    grad_accum values in one start of the two processes (a start costs seconds: torch, gloo)."""
    batch = gradient_batch()
    torch.save(batch, tmp_path / "batch.pt")
    ranks = run_processes(tmp_path, None, 2, gradient=tmp_path / "batch.pt", grad_accum=[1, 2])
    reference = reference_gradient(batch)
    for changes in ranks:
        assert sorted(changes) == [1, 2]
        for change in changes.values():
            assert_gradient(change, reference)


# --- gradient accumulation ---------------------------------------------------------------------------------
@pytest.mark.parametrize("k", [2, 4])
def test_grad_accumulation_k_micro_batches_equals_one_batch(exact_run, monkeypatch, k):
    """grad_accum=k runs k micro-batches of b = 4/k rows per step and ends where one batch of k*b = 4 does."""
    whole = pretrain(exact_run, progress=False)
    calls = []
    forward = type(whole.model).forward
    monkeypatch.setattr(
        type(whole.model), "forward", lambda m, *a, **kw: calls.append(1) or forward(m, *a, **kw)
    )
    parts = pretrain(exact_run, progress=False, grad_accum=k)
    assert len(calls) == k * exact_run.steps  # really k forward passes per step
    assert_same_run(whole.history, whole.model.state_dict(), parts.history, parts.model.state_dict())


@pytest.mark.parametrize("grad_accum", [1, 2])
def test_every_step_clips_the_global_gradient_norm(exact_run, grad_accum):
    """The gradient AdamW steps with has the global L2 norm max_grad_norm, one batch or k micro-batches."""
    norms = []

    def before_the_step(optimizer, args, kwargs):
        norms.append(
            global_norm([p.grad for g in optimizer.param_groups for p in g["params"] if p.grad is not None])
        )

    hook = register_optimizer_step_pre_hook(before_the_step)
    try:
        pretrain(exact_run.replace(steps=4, max_grad_norm=0.0), progress=False, grad_accum=grad_accum)
        unclipped = norms[:]
        norms.clear()
        pretrain(exact_run.replace(steps=4, max_grad_norm=1e-3), progress=False, grad_accum=grad_accum)
    finally:
        hook.remove()
    assert min(unclipped) > 0.1  # so 1e-3 clips every step
    assert norms == pytest.approx([1e-3] * 4, rel=1e-3)


def test_grad_accum_must_divide_the_batch(exact_run):
    with pytest.raises(ValueError, match="batch_size=4 is the global batch"):
        pretrain(exact_run, progress=False, grad_accum=3)
    with pytest.raises(ValueError, match="grad_accum"):
        pretrain(exact_run, progress=False, grad_accum=0)


# --- several processes ---------------------------------------------------------------------------------------
@pytest.mark.integration
def test_two_processes_train_what_one_process_trains(tmp_path, exact_run):
    """In one batch or in 2 parts per process (grad_accum); both runs in one start of the two processes."""
    one = pretrain(exact_run, progress=False)
    ranks = run_processes(
        tmp_path, None, 2, runs=[(exact_run, {"grad_accum": 1}), (exact_run, {"grad_accum": 2})]
    )
    for grad_accum in (0, 1):
        for rank in ranks:  # both processes hold the same weights, equal to the single process's
            run = rank[grad_accum]
            assert run["step"] == exact_run.steps
            assert_same_run(one.history, one.model.state_dict(), run["history"], run["weights"])
        assert ranks[0][grad_accum]["history"] == ranks[1][grad_accum]["history"]


@pytest.mark.integration
def test_two_processes_train_every_objective_as_one_does(tmp_path, exact_run):
    """Without NSP the pooler and the NSP head get no gradient: the run freezes them (pretrain.untrained_parts), so
    DDP needs no find_unused_parameters; NSP alone (every MLM label -100) runs through the same step. Both
    objectives in one start of the two processes."""
    objectives = {
        "no-nsp": {"next_sentence_prediction": False, "nsp_eval_file": None},
        "nsp-only": {"objective": "nsp", "mlm_eval_file": None},
    }
    configs = {name: exact_run.replace(**objective) for name, objective in objectives.items()}
    ranks = run_processes(tmp_path, None, 2, runs=[(config, {}) for config in configs.values()])
    for k, (name, config) in enumerate(configs.items()):
        one = pretrain(config, progress=False)
        for rank in ranks:
            assert rank[k]["step"] == config.steps, name
            assert_same_run(one.history, one.model.state_dict(), rank[k]["history"], rank[k]["weights"])
        # the model handed over trains like any other
        assert all(p.requires_grad for p in one.model.parameters())


@pytest.mark.integration
def test_a_two_process_run_resumes_with_one_process(tmp_path, exact_run):
    one = pretrain(exact_run, progress=False)
    output = tmp_path / "run"
    first = run_processes(tmp_path, exact_run, 2, output=str(output), stop_after=3)
    assert first[0]["step"] == 3 and is_checkpoint(output)
    assert len(torch.load(output / "training_state.pt", weights_only=True)["process_rng"]) == 2
    resumed = pretrain(exact_run, output, resume=True, progress=False, grad_accum=2)  # 1 process, 2 parts
    assert_same_run(one.history, one.model.state_dict(), resumed.history, resumed.model.state_dict())


@pytest.mark.integration
def test_a_killed_process_ends_the_run_and_the_checkpoint_stays(tmp_path, corpus_files):
    """SIGKILL process 1 mid-run: process 0 stops by itself with one clear line (exit status 1), saves
    nothing more, and the last checkpoint loads and resumes."""
    output = tmp_path / "run"
    command = [
        sys.executable,
        "-m",
        "bertedu.cli",
        "--corpus",
        str(corpus_files / "corpus.txt"),
    ]
    command += ["--output", str(output), "--preset", "tiny", "--max-length", "32", "--steps", "100000"]
    command += ["--batch-size", "4", "--checkpoint-every", "2", "--threads", "1", "--no-progress"]
    procs = start(command, 2, tmp_path)
    try:
        deadline = time.monotonic() + TIMEOUT
        while saved_step(output) < 4:
            assert all(p.poll() is None for p in procs), procs[0].communicate()[1][-3000:]
            assert time.monotonic() < deadline, "no checkpoint was written"
            time.sleep(0.2)
        procs[1].send_signal(signal.SIGKILL)
        (status, out, err), (killed, *_) = finish(procs, timeout=120)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert killed == -signal.SIGKILL
    assert status == 1, err[-3000:]
    lines = [line for line in err.splitlines() if line.strip()]
    assert "another process of this run stopped" in lines[-1] and "--resume" in lines[-1], err[-3000:]
    assert "Traceback" not in err
    checkpoint = load_checkpoint(output)  # intact: loads, and resumes
    assert checkpoint.step >= 4 and checkpoint.step % 2 == 0
    config = PretrainingConfig.from_dict(checkpoint.run_config)
    run = pretrain(config, output, resume=True, progress=False, stop_after=checkpoint.step + 1)
    assert run.step == checkpoint.step + 1


@pytest.mark.integration
@pytest.mark.skipif(not Path(sys.executable).with_name("torchrun").exists(), reason="torchrun not installed")
def test_torchrun_runs_the_command_line(tmp_path, corpus_files):
    """`torchrun --nproc_per_node=2 -m bertedu.cli ... --grad-accum 2`: one report, from process 0,
    and the checkpoint one process writes with the same settings."""
    args = ["--corpus", str(corpus_files / "corpus.txt"), "--preset", "tiny", "--max-length", "32", "--steps"]
    args += [
        "6",
        "--batch-size",
        "4",
        "--dropout",
        "0",
        "--threads",
        "1",
        "--no-progress",
        "--eval-every",
        "0",
    ]
    env = {**process_env(0, 1, 0), "PYTHONWARNINGS": "ignore"}
    for name in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(name)
    torchrun = [str(Path(sys.executable).with_name("torchrun")), "--nnodes=1", "--nproc_per_node=2"]
    torchrun += ["--master_addr=127.0.0.1", f"--master_port={free_port()}"]
    two = subprocess.run(
        [*torchrun, "-m", "bertedu.cli", *args, "--output", "two", "--grad-accum", "2"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert two.returncode == 0, two.stderr[-3000:]
    assert two.stdout.count("Training finished at step 6/6") == 1  # process 1 prints nothing
    one = subprocess.run(
        [sys.executable, "-m", "bertedu.cli", *args, "--output", "one", "--device", "cpu"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert one.returncode == 0, one.stderr[-3000:]
    a, b = load_checkpoint(tmp_path / "one"), load_checkpoint(tmp_path / "two")
    assert_same_run(a.history, a.model.state_dict(), b.history, b.model.state_dict())


@pytest.mark.integration
def test_a_signal_to_one_process_stops_all_of_them_after_the_same_step(tmp_path, corpus_files):
    """SIGTERM reaches process 1 only: the processes agree (after every step) to stop after the same
    step, process 0 saves a checkpoint of that step, and both exit as stopped runs."""
    output = tmp_path / "run"
    command = [
        sys.executable,
        "-m",
        "bertedu.cli",
        "--corpus",
        str(corpus_files / "corpus.txt"),
    ]
    command += ["--output", str(output), "--preset", "tiny", "--max-length", "32", "--steps", "100000"]
    command += ["--batch-size", "4", "--checkpoint-every", "2", "--threads", "1", "--no-progress"]
    procs = start(command, 2, tmp_path)
    try:
        deadline = time.monotonic() + TIMEOUT
        while saved_step(output) < 2:
            assert all(p.poll() is None for p in procs), procs[0].communicate()[1][-3000:]
            assert time.monotonic() < deadline, "no checkpoint was written"
            time.sleep(0.2)
        procs[1].send_signal(signal.SIGTERM)
        (status0, _, err0), (status1, _, err1) = finish(procs, timeout=120)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert status1 == 143 and status0 in (130, 143), (err0[-2000:], err1[-2000:])
    assert "checkpoint saved in" in err0 and "--resume" in err0 and not err1.strip()
    step = int(err0.split(" at step ", 1)[1].split("/", 1)[0])
    checkpoint = load_checkpoint(output)
    assert checkpoint.step == step  # the step both processes stopped after, saved by process 0
    assert len(checkpoint.training_state["process_rng"]) == 2


@pytest.mark.parametrize(
    "options, message",
    [
        (
            ["--grad-accum", "3"],
            "must split into 1 process(es) x grad_accum 3 = 3 equal parts; use --grad-accum 4",
        ),
        (["--grad-accum", "0"], "--grad-accum: must be at least 1"),
        (["--device", "tpu"], "device must be 'auto', 'cpu', 'cuda' or 'cuda:N'"),
    ],
)
def test_command_line_options_for_scaling_fail_with_what_to_do(
    tmp_path, corpus_files, capsys, options, message
):
    from bertedu.cli import main

    argv = ["--corpus", str(corpus_files / "corpus.txt"), "--output", str(tmp_path / "run"), "--steps", "2"]
    try:
        status = main([*argv, "--batch-size", "4", "--no-progress", *options])
    except SystemExit as exit_:  # argparse refuses a bad option value with exit status 2
        status = exit_.code
    err = capsys.readouterr().err
    assert status in (1, 2) and message in err and "Traceback" not in err
    assert not (tmp_path / "run").exists()  # refused before any training


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message on a machine without a GPU")
def test_asking_for_a_gpu_without_one_says_so(tmp_path, corpus_files, capsys):
    from bertedu.cli import main

    argv = [
        "--corpus",
        str(corpus_files / "corpus.txt"),
        "--output",
        str(tmp_path / "run"),
        "--device",
        "cuda",
    ]
    assert main(argv) == 1
    assert "PyTorch sees no CUDA GPU here" in capsys.readouterr().err
