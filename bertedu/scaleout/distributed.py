"""Where a pretraining run executes: the device, CPU threads, and several processes (DistributedDataParallel).

One command trains on one CPU core, a GPU, or N processes (docs/scaling.md has the whole story)::

    python -m bertedu.cli --corpus data/simple_sentences.txt --output runs/mini          # 1 process
    torchrun --standalone --nproc_per_node=2 -m bertedu.cli --corpus ... --output ...   # 2 processes

``torchrun`` starts N copies of the program and tells each one, in environment variables, who it is: ``RANK``
(0 ... N-1), ``WORLD_SIZE`` (N), ``LOCAL_RANK`` (which GPU of this machine is its own), ``MASTER_ADDR`` and
``MASTER_PORT`` (where the copies meet). :func:`processes` reads them and joins the *process group*: gloo on
CPU, NCCL on a GPU. Without them (a notebook, ``python -m bertedu.cli``) nothing changes: one process,
no group, and :func:`bertedu.training.pretrain.train_step` runs as notebook 06 shows it.

Data parallelism, and why the result does not depend on N. Every process builds the same global batch of
step s (a pure function of ``(seed, s)``, :mod:`bertedu.training.data`) and keeps every N-th row of it
(:func:`shard_batch`); ``grad_accum`` cuts those rows again into micro-batches (:func:`micro_batches`) that
are run one after the other, adding up their gradients, so that a big global batch fits in a small memory.
The loss of each part is weighted by its share of the global batch (its masked tokens for MLM, its rows for
NSP), so the parts' losses add up to exactly the global batch's loss; ``DistributedDataParallel`` (DDP)
averages the gradients over the N processes during ``backward``, so each process multiplies its loss by N.
Every process then holds the gradient of the global batch, clips it, and takes the same AdamW step: the N
copies of the weights stay equal, and equal (to float rounding) to what one process computes with the same
global batch. The step itself is :func:`bertedu.training.pretrain.train_step`, the same for one process and for N;
this module gives it the parts (:meth:`DistributedContext.parts`) and the sums over the processes
(:meth:`DistributedContext.sum_over_processes`); ``tests/test_distributed.py`` checks it with 2 processes.
Dropout draws different random masks in each process, so with dropout the runs agree in distribution only.

Only process 0 writes checkpoints and shows a progress bar; the others wait (:meth:`DistributedContext.on_main`).
A signal (Ctrl-C, SIGTERM) reaches the processes at different moments, so they agree after every step
whether to stop (:meth:`DistributedContext.any_process`). If one process dies (killed, out of memory), the
others' next collective call fails; :func:`processes` turns that into a :class:`ProcessGroupError` that says
so, and nothing more is saved, so the last checkpoint stays as it was (:mod:`bertedu.training.checkpoint`).

On a GPU the forward pass runs under bf16 autocast (:func:`autocast`: bfloat16 matrix products, float32
weights, no loss scaling needed); on a CPU it stays float32. Used by :mod:`bertedu.training.pretrain`; beyond
notebook 06 (docs/scaling.md).
"""

from __future__ import annotations

import contextlib
import gc
import os
from dataclasses import dataclass, field

import torch
import torch.distributed as dist

from bertedu.utils import stable_seed

#: Words in the error of a collective call whose partner process is gone (gloo, NCCL, the TCP store).
_PEER_GONE = ("gloo", "nccl", "connection", "peer", "timed out", "timeout", "broken pipe", "socket", "store")


# ----------------------------------------------------------------------------------------------------------
# Devices and threads


def select_device(device: str | torch.device | None = None, local_rank: int = 0) -> torch.device:
    """The device to train on: ``None`` or ``"auto"``: this process's GPU (``cuda:LOCAL_RANK``) if PyTorch sees
    one, else the CPU; ``"cpu"``, ``"cuda"`` or ``"cuda:N"`` force it (``ValueError`` if there is no GPU)."""
    name = "auto" if device is None else str(device)
    if name == "auto":
        return torch.device(f"cuda:{local_rank}") if torch.cuda.is_available() else torch.device("cpu")
    if name == "cpu":
        return torch.device("cpu")
    if name == "cuda" or name.startswith("cuda:"):
        if not torch.cuda.is_available():
            raise ValueError(
                f"device {name!r}: PyTorch sees no CUDA GPU here (torch {torch.__version__}; a '+cpu' build has "
                "no GPU support). Use --device cpu (or auto, which picks the GPU when there is one)."
            )
        index = local_rank if name == "cuda" else int(name.split(":", 1)[1])
        if index >= torch.cuda.device_count():
            raise ValueError(f"device {name!r}: only {torch.cuda.device_count()} GPU(s) are visible.")
        return torch.device(f"cuda:{index}")
    raise ValueError(f"device must be 'auto', 'cpu', 'cuda' or 'cuda:N', got {name!r}.")


def autocast(device: torch.device):
    """bf16 autocast on a GPU that has bfloat16 (matrix products in bfloat16, weights and loss in float32);
    no change on a CPU (float32), or on an older GPU without bfloat16."""
    if device.type == "cuda" and torch.cuda.is_bf16_supported():
        return torch.autocast(device_type="cuda", dtype=torch.bfloat16)
    return contextlib.nullcontext()


# ----------------------------------------------------------------------------------------------------------
# Processes


class ProcessGroupError(RuntimeError):
    """Another process of a multi-process run stopped (killed, out of memory, an error) or cannot be reached,
    so this one cannot go on either; nothing was saved after it happened. Beyond notebook 06."""


@dataclass
class DistributedContext:
    """Who this process is in the run: ``rank`` of ``world_size`` processes, training on ``device``.
    ``DistributedContext()``: one process on the CPU (notebook 06)."""

    rank: int = 0
    world_size: int = 1
    device: torch.device = field(default_factory=lambda: torch.device("cpu"))
    owns_group: bool = False

    @property
    def parallel(self) -> bool:
        return self.world_size > 1

    @property
    def is_main(self) -> bool:
        """Process 0: the one that writes checkpoints, logs and shows a progress bar."""
        return self.rank == 0

    def wrap(self, model: torch.nn.Module) -> torch.nn.Module:
        """``model`` moved to this process's device and, with several processes, wrapped in
        ``DistributedDataParallel`` (which all-reduces the gradients during ``backward``). Every parameter that
        requires a gradient must get one in each step (freeze the parts an objective does not train)."""
        model.to(self.device)
        if not self.parallel:
            return model
        return torch.nn.parallel.DistributedDataParallel(
            model,
            device_ids=[self.device.index] if self.device.type == "cuda" else None,
            forward_sync_buffers=False,  # the model's buffers (position ids) are constants
        )

    def check_batch(self, batch_size: int, grad_accum: int) -> None:
        """``ValueError`` unless the global batch splits evenly into ``world_size`` x ``grad_accum`` parts."""
        parts = self.world_size * grad_accum
        if batch_size % parts:
            fits = [k for k in range(1, batch_size + 1) if batch_size % (self.world_size * k) == 0]
            # the nearest grad_accum that fits, a larger one first
            near = min(fits, key=lambda k: (k < grad_accum, abs(k - grad_accum))) if fits else None
            hint = (
                f"use --grad-accum {near}" if fits else "use a number of processes that divides it"
            ) + " (or a batch size that is a multiple of the parts)"
            raise ValueError(
                f"batch_size={batch_size} is the global batch (all processes, all accumulation steps) and "
                f"must split into {self.world_size} process(es) x grad_accum {grad_accum} = {parts} equal "
                f"parts; {hint}. The batch size itself stays fixed, so that a run (and its resumption, with any "
                "number of processes) trains on the same batches."
            )

    def seed_process_rng(self, seed: int, step: int, saved: list | None) -> None:
        """Give each process its own random stream (dropout): process 0 keeps the single-process one; process
        r > 0 restores its saved state if the checkpoint has one per process (same world size), else seeds
        from ``(seed, r, step)``."""
        if saved is not None and len(saved) == self.world_size:
            torch.set_rng_state(saved[self.rank]["torch"])
            if "cuda" in saved[self.rank] and self.device.type == "cuda":
                torch.cuda.set_rng_state(saved[self.rank]["cuda"], self.device)
        elif self.rank > 0:
            torch.manual_seed(stable_seed(seed, "process", self.rank, step))

    def parts(self, batch: dict[str, torch.Tensor], grad_accum: int) -> list[dict[str, torch.Tensor]]:
        """This process's rows of the global ``batch`` (:func:`shard_batch`) in ``grad_accum`` micro-batches
        (:func:`micro_batches`), on its device. One process, ``grad_accum=1``: one part, the batch itself."""
        parts = micro_batches(shard_batch(batch, self.rank, self.world_size), grad_accum)
        return [{k: v.to(self.device, non_blocking=True) for k, v in part.items()} for part in parts]

    def sum_over_processes(self, values: list[float]) -> list[float]:
        """``values`` added up element by element over the processes (a collective call: every process makes
        it); one process: ``values`` unchanged."""
        if not self.parallel:
            return values
        total = torch.tensor(values, dtype=torch.float64, device=self.collective_device)
        dist.all_reduce(total)
        return total.tolist()

    def any_process(self, flag: bool) -> bool:
        """Whether ``flag`` is true in any process (a collective call); one process: ``flag``. The processes
        agree this way after every step whether one of them was asked to stop (a signal)."""
        return self.sum_over_processes([float(flag)])[0] > 0

    def rng_states(self) -> list[dict] | None:
        """Every process's torch (and CUDA) random state, for a checkpoint (a collective call); ``None`` for a
        single process on a CPU, whose state the checkpoint already holds."""
        if not self.parallel and self.device.type != "cuda":
            return None
        state = {"torch": torch.get_rng_state()}
        if self.device.type == "cuda":
            state["cuda"] = torch.cuda.get_rng_state(self.device)
        if not self.parallel:
            return [state]
        states: list = [None] * self.world_size
        dist.all_gather_object(states, state)
        return states

    def on_main(self, fn, what: str) -> None:
        """Run ``fn()`` in process 0 only (e.g. write a checkpoint) while the others wait; if it fails, process
        0 raises its error and the others a :class:`ProcessGroupError` naming ``what``."""
        if not self.parallel:
            fn()
            return
        error = None
        if self.is_main:
            try:
                fn()
            except Exception as err:  # re-raised below, after telling the other processes
                error = err
        failed = torch.tensor([float(error is not None)], device=self.collective_device)
        dist.broadcast(failed, src=0)
        if error is not None:
            raise error
        if failed.item():
            raise ProcessGroupError(
                f"process 0 failed while {what} (its message says why); process {self.rank} stops too."
            )

    @property
    def collective_device(self) -> torch.device:
        """Where tensors for collective calls live: NCCL needs them on the GPU, gloo on the CPU."""
        return self.device if self.device.type == "cuda" else torch.device("cpu")

    def failure(self, err: BaseException, output_dir) -> ProcessGroupError:
        """The error to raise when a collective call failed because another process is gone."""
        where = f"in {output_dir} " if output_dir is not None else ""
        cause = " ".join(str(err).split())[:200]
        return ProcessGroupError(
            f"process {self.rank} of {self.world_size}: another process of this run stopped or cannot be "
            f"reached (killed, out of memory, or an error it printed), so the run cannot go on ({cause}). "
            f"Nothing was saved after it stopped: the last checkpoint {where}is intact. Fix the cause, then "
            "resume it with --resume, with this or another number of processes (torchrun --nproc_per_node=N)."
        )

    def close(self, finished: bool = False) -> None:
        """Leave the process group this context joined. After a run that ``finished`` in every process, first
        drop the run's unreferenced DDP wrappers (their pending gloo work must not outlive the group) and wait
        for the other processes, so that no process tears the group down while another still talks to it (that
        race can abort a process at exit: "terminate called without an active exception")."""
        if self.owns_group and dist.is_initialized():
            if finished:
                gc.collect()
                with contextlib.suppress(RuntimeError):
                    dist.barrier()
            dist.destroy_process_group()
            self.owns_group = False


def is_collective_failure(err: BaseException) -> bool:
    """Whether ``err`` looks like a collective call that lost its partner process (not a bug of ours)."""
    if isinstance(err, getattr(dist, "DistError", ())):
        return True
    return isinstance(err, RuntimeError) and any(word in str(err).lower() for word in _PEER_GONE)


def launched_rank() -> int:
    """This process's rank as ``torchrun`` set it (``RANK``; 0 when there is no ``torchrun``): known before any
    process group exists, e.g. to let process 0 alone print."""
    return int(os.environ.get("RANK", "0"))


@contextlib.contextmanager
def processes(device: str | torch.device | None = None, output_dir=None):
    """``with processes(device) as ctx:`` this process's :class:`DistributedContext`. Under ``torchrun``
    (``WORLD_SIZE`` > 1) it joins the process group (gloo on CPU, NCCL on GPU; left again at the end if it
    started it) and turns a failed collective call into a :class:`ProcessGroupError`; otherwise it is one
    process on ``select_device(device)``."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world <= 1:
        yield DistributedContext(device=select_device(device))
        return
    missing = [name for name in ("RANK", "MASTER_ADDR", "MASTER_PORT") if name not in os.environ]
    if missing and not dist.is_initialized():
        raise ValueError(
            f"WORLD_SIZE={world} is set but {', '.join(missing)} is not: start several processes with torchrun "
            "(torchrun --standalone --nproc_per_node=N -m bertedu.cli ...), or unset WORLD_SIZE."
        )
    rank, local_rank = launched_rank(), int(os.environ.get("LOCAL_RANK", "0"))
    ctx = DistributedContext(rank=rank, world_size=world, device=select_device(device, local_rank))
    if ctx.device.type == "cuda":
        torch.cuda.set_device(ctx.device)
    if not dist.is_initialized():
        dist.init_process_group("nccl" if ctx.device.type == "cuda" else "gloo")
        ctx.owns_group = True
    finished = False
    try:
        yield ctx
        finished = True
    except RuntimeError as err:
        if isinstance(err, ProcessGroupError) or not is_collective_failure(err):
            raise
        raise ctx.failure(err, output_dir) from err
    finally:
        ctx.close(finished)


# ----------------------------------------------------------------------------------------------------------
# Splitting a global batch


def shard_batch(batch: dict[str, torch.Tensor], rank: int, world_size: int) -> dict[str, torch.Tensor]:
    """Process ``rank``'s rows of a global batch: every ``world_size``-th row from row ``rank`` (a batch of
    :func:`bertedu.training.data.bucketed_batches` is sorted by length, so striding gives every process the same mix
    of lengths). The last batch of an epoch can be smaller and split unevenly (a process may get no row):
    the loss weights of :func:`bertedu.training.pretrain.train_step` keep the sum right."""
    return {k: v[rank::world_size] for k, v in batch.items()}


def micro_batches(batch: dict[str, torch.Tensor], k: int) -> list[dict[str, torch.Tensor]]:
    """``batch`` cut into ``k`` runs of rows (equal when the rows divide by ``k``; some may be empty), each
    without the padding columns none of its rows needs (positions count from the left, so dropping trailing
    padding changes nothing but the work)."""
    rows = batch["input_ids"].size(0)
    bounds = [rows * i // k for i in range(k + 1)]
    parts = []
    for start, stop in zip(bounds, bounds[1:]):
        part = {key: v[start:stop] for key, v in batch.items()}
        length = max(int(part["attention_mask"].sum(1).max()) if stop > start else 1, 1)  # longest row
        parts.append({key: v[:, :length] if v.dim() == 2 else v for key, v in part.items()})
    return parts
