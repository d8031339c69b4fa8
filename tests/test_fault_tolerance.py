"""Nothing a run saved is lost (issue 14): checkpoints survive kills, failed renames, full disks and signals.

- a save killed between any two of its steps, or failing at any step, leaves the old or the new checkpoint,
  never a mixture and never nothing, and the next reader cleans up;
- `python -m bertedu.cli --checkpoint-every 1` killed with SIGKILL at random moments and resumed, again
  and again, always finds its last checkpoint, ends bit for bit where an uninterrupted run ends, and leaves
  no temporary folders behind;
- SIGINT and SIGTERM save a checkpoint and exit with one line; a full disk or another OS error is named.
"""

from __future__ import annotations

import errno
import json
import multiprocessing
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import fault_helpers
import pytest
import torch
from safetensors.torch import load_file

import bertedu
from bertedu import files
from bertedu.cli import main
from bertedu.training.checkpoint import load_checkpoint
from bertedu.training.pretrain import pretrain

TESTS = Path(__file__).resolve().parent


# These tests train on one thread (quick, and robust beside other work): conftest.py's one_torch_thread.
pytestmark = pytest.mark.usefixtures("one_torch_thread")


def cli_env() -> dict:
    """The environment of a command-line subprocess: the bertedu under test, and the tests' helpers."""
    package = Path(bertedu.__file__).resolve().parents[1]
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(package), str(TESTS)]), PYTHONHASHSEED="0")


# --- a save killed or failing at every step -------------------------------------------------------------------
@pytest.mark.integration
def test_a_save_killed_between_any_two_steps_leaves_the_old_or_the_new_checkpoint(tmp_path):
    """Each run of the helper kills (os._exit) a save of checkpoint 2 over checkpoint 1 before its k-th
    step (a mkdir, rename, exchange, file write, deletion), for every k, with Linux's atomic exchange and
    with the rename-aside fallback of other systems; after each kill the next reader must find checkpoint 1
    or 2, complete, and no temporary folder may stay behind."""
    result = subprocess.run(
        [sys.executable, str(TESTS / "fault_helpers.py"), str(tmp_path), "exchange", "fallback"],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    for mode, runs in json.loads(result.stdout.strip().splitlines()[-1]).items():
        kills = [r for r in runs if r["killed"]]
        assert len(kills) >= 15, (mode, runs)  # every step of a save was a crash point
        assert not runs[-1]["killed"] and runs[-1]["step"] == 2  # the last run saved completely
        for r in runs:
            assert "error" not in r, (mode, r)  # a complete checkpoint was always found ...
            assert r["step"] in (1, 2) and r["same"], (mode, r)  # ... old or new, never a mixture
            assert r["after"] == [], (mode, r)  # and reading cleaned up what the kill left
        # Both outcomes happen: killed before the swap (old) and after it (new); and some kills left
        # temporary folders that the reader then deleted.
        assert {r["step"] for r in kills} == {1, 2}, mode
        assert any(any(".tmp-" in n or ".new-" in n for n in r["left"]) for r in kills), mode


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["exchange", "fallback"])
def test_a_save_failing_at_any_step_keeps_the_previous_checkpoint(tmp_path, monkeypatch, mode):
    """An OSError (EIO) at the k-th step of a save, for every k: the save raises an error that says so and
    what it was saving, and the folder still holds the previous complete checkpoint."""
    out = tmp_path / "run"
    if mode == "fallback":
        monkeypatch.setattr(files, "_exchange", lambda a, b: False, raising=False)
    failures = 0
    for at in range(1, 200):
        fault_helpers.save_version(out, 1)

        def fail():
            raise OSError(errno.EIO, "Input/output error")

        calls, undo = fault_helpers.inject(at, fail)
        try:
            fault_helpers.save_version(out, 2)
            completed = True
        except OSError as err:
            completed = False
            assert "Could not save the checkpoint" in str(err) and "input/output error" in str(err)
        finally:
            undo()
        found = fault_helpers.read_version(out)
        assert "error" not in found, (at, found)
        assert found["same"] and found["step"] == (2 if completed else 1), (at, found)
        assert fault_helpers.siblings(out) == [], at
        if calls[0] < at:  # the save ran out of steps before the failure point: every step was tried
            break
        failures += not completed
    assert failures >= 9  # every step of a save (9 file-system steps since config.json is written once)


def test_a_failed_rename_into_place_keeps_the_previous_checkpoint(tiny_run, tmp_path, monkeypatch):
    """The review's defect #1: when the rename that puts the new checkpoint in place failed, both the old
    and the new checkpoint were deleted (the output folder vanished)."""
    out = tmp_path / "run"
    config = tiny_run(steps=6, eval_every=0, num_threads=1)
    pretrain(config, out, progress=False, stop_after=3)
    before = (out / "model.safetensors").read_bytes()

    def refuse(*args, **kwargs):
        raise OSError(errno.EIO, "Input/output error")

    real_rename, real_replace = os.rename, os.replace

    def rename(src, dst, *args, **kwargs):  # renames into `out` fail; others (inside the tmp folder) work
        if Path(dst) == out:
            refuse()
        return real_rename(src, dst, *args, **kwargs)

    def replace(src, dst, *args, **kwargs):
        if Path(dst) == out:
            refuse()
        return real_replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "rename", rename)
    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(files, "_exchange", refuse, raising=False)
    with pytest.raises(OSError, match="input/output error"):
        pretrain(config, out, resume=True, progress=False)
    monkeypatch.undo()
    assert (out / "model.safetensors").read_bytes() == before
    assert load_checkpoint(out).step == 3
    assert [p.name for p in tmp_path.iterdir() if p.name != "inputs"] == ["run"]


# --- a full disk ----------------------------------------------------------------------------------------------
TORCH_DISK_FULL = "[enforce fail at inline_container.cc:672] . unexpected pos 276992 vs 276880"
SAFETENSORS_DISK_FULL = "Error while serializing: I/O error: No space left on device (os error 28)"


@pytest.mark.parametrize("writer", ["torch.save", "safetensors"])
def test_a_full_disk_is_named_and_the_previous_checkpoint_stays(tiny_run, tmp_path, monkeypatch, writer):
    out = tmp_path / "run"
    config = tiny_run(steps=6, eval_every=0, num_threads=1)
    pretrain(config, out, progress=False, stop_after=3)
    before = (out / "model.safetensors").read_bytes()
    if writer == "torch.save":

        def full(*args, **kwargs):
            raise RuntimeError(TORCH_DISK_FULL)  # what torch.save says when the disk fills up

        monkeypatch.setattr(torch, "save", full)
    else:
        from safetensors import SafetensorError

        import bertedu.core.serialization as serialization

        def full(*args, **kwargs):
            raise SafetensorError(SAFETENSORS_DISK_FULL)

        monkeypatch.setattr(serialization, "save_file", full)
    with pytest.raises(OSError) as info:
        pretrain(config, out, resume=True, progress=False)
    message = str(info.value)
    assert info.value.errno == errno.ENOSPC
    assert "Could not save the checkpoint" in message and "the disk is full" in message
    assert "free on the drive" in message and "is intact" in message
    monkeypatch.undo()
    assert (out / "model.safetensors").read_bytes() == before and load_checkpoint(out).step == 3
    assert [p.name for p in tmp_path.iterdir() if p.name != "inputs"] == ["run"]


def test_the_cli_names_a_full_disk_in_one_line(corpus_files, tmp_path, monkeypatch, capsys):
    def full(*args, **kwargs):
        raise RuntimeError(TORCH_DISK_FULL)

    monkeypatch.setattr(torch, "save", full)
    args = ["--corpus", str(corpus_files / "corpus.txt"), "--output", str(tmp_path / "run")]
    code = main([*args, "--preset", "test", "--steps", "2", "--batch-size", "4", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert err.startswith("python -m bertedu.cli: error: Could not save the checkpoint")
    assert "the disk is full" in err and "Traceback" not in err


@pytest.fixture
def small_tmpfs(tmp_path):
    """``mount(size_bytes)``: a tmpfs of that size (root only; skipped where mounting is not allowed)."""
    mounted = []

    def mount(size: int) -> Path:
        if os.geteuid() != 0 or not sys.platform.startswith("linux"):
            pytest.skip("mounting a small tmpfs needs root on Linux")
        point = tmp_path / f"tmpfs{len(mounted)}"
        point.mkdir()
        result = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(point)], capture_output=True
        )
        if result.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {result.stderr.decode().strip()}")
        mounted.append(point)
        return point

    yield mount
    for point in mounted:
        subprocess.run(["umount", "-l", str(point)], check=False)


@pytest.mark.integration
def test_a_really_full_disk(tiny_run, tmp_path, small_tmpfs, capsys, corpus_files):
    """A tmpfs with room for one checkpoint but not for the second one the next save writes beside it."""
    pretrain(tiny_run(steps=2, eval_every=0, num_threads=1), tmp_path / "probe", progress=False)
    size = sum(p.stat().st_size for p in (tmp_path / "probe").iterdir())
    disk = small_tmpfs(int(size * 1.5) // 4096 * 4096 + 4096)
    out = disk / "run"
    args = ["--corpus", str(corpus_files / "corpus.txt"), "--output", str(out), "--preset", "test"]
    args += [
        "--steps",
        "4",
        "--batch-size",
        "4",
        "--checkpoint-every",
        "2",
        "--eval-every",
        "0",
        "--no-progress",
    ]
    code = main(args)
    err = capsys.readouterr().err
    assert code == 1, err
    assert "Could not save the checkpoint" in err and "the disk is full" in err and "is intact" in err
    assert len(err.strip().splitlines()) == 1
    assert load_checkpoint(out).step == 2  # the checkpoint of step 2 survived the failed save of step 4
    assert sorted(p.name for p in disk.iterdir()) == ["run"]  # no half-written temporary folder


# --- kill -9 at random moments, resume, again and again -------------------------------------------------------
KILLS_PER_CHAIN = 12


def kill_args(corpus: Path, out: Path) -> list[str]:
    return [
        *("--corpus", str(corpus), "--output", str(out), "--preset", "tiny", "--steps", "24"),
        *("--batch-size", "8", "--max-length", "32", "--warmup", "2", "--eval-every", "0"),
        *("--checkpoint-every", "1", "--threads", "1", "--seed", "1", "--no-progress"),
    ]


def run_cli(args: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "bertedu.cli", *args],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=300,
        **kwargs,
    )


def hidden(out: Path) -> list[str]:
    """Temporary siblings of ``out`` (a lock file left by a killed process is not one: it holds no data)."""
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.") and p.is_dir())


def inode(path: Path) -> int | None:
    """Changes with every save (the folder is swapped for a new one)."""
    try:
        return path.stat().st_ino
    except FileNotFoundError:
        return None


@pytest.mark.integration
def test_kill_9_at_random_moments_then_resume(corpus_files, tmp_path):
    """`python -m bertedu.cli --checkpoint-every 1` killed with SIGKILL at random moments, 24 times,
    and resumed after every kill: a checkpoint is always found, its step never goes back, the kills leave no
    temporary folders after the next start, and the resumed run ends bit for bit where an uninterrupted run
    ends. The first kill and the last resume are real `python -m bertedu.cli` processes; the others
    run `bertedu.cli.main` in processes forked from a server that has imported torch already, so that a kill
    does not cost an interpreter start-up (the same code from `main` on, killed the same way)."""
    corpus = corpus_files / "corpus.txt"
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["bertedu.cli", "fault_helpers"])

    def start(args: list[str], real: bool):
        if real:
            process = subprocess.Popen(
                [sys.executable, "-m", "bertedu.cli", *args],
                env=cli_env(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            return process, lambda: process.poll(), process.wait
        process = context.Process(target=fault_helpers.cli, args=(args,))
        process.start()
        return process, lambda: process.exitcode if not process.is_alive() else None, process.join

    def finish(args: list[str], real: bool) -> None:
        if real:
            done = run_cli(args)
            assert done.returncode == 0 and "Training finished at step 24/24" in done.stdout, done.stderr
        else:
            process, status, wait = start(args, real=False)
            wait()
            assert status() == 0

    reference = tmp_path / "reference" / "run"
    finish(kill_args(corpus, reference), real=False)
    rng = random.Random(14)
    kills = during_save = chain = 0
    target = 2 * KILLS_PER_CHAIN
    # However fast or busy the machine, the test makes `target` kills: a chain of runs that reaches its last
    # step before it is killed is finished and checked, and the next chain starts from scratch.
    while kills < target:
        out = tmp_path / f"chain{chain}" / "run"
        out.parent.mkdir()
        last_step = 0  # the step of the last checkpoint seen (0: none yet)
        first = True
        while kills < target:
            args = (
                ["--output", str(out), "--resume", "--no-progress"] if last_step else kill_args(corpus, out)
            )
            before = inode(out)
            process, status, wait = start(args, real=chain == 0 and first)
            first = False
            if rng.random() < 0.75:  # mostly while it trains and saves: after its next save ...
                deadline = time.monotonic() + 120
                while inode(out) == before and status() is None and time.monotonic() < deadline:
                    time.sleep(0.005)
                time.sleep(rng.uniform(0.0, 0.3))
            else:  # ... sometimes at any moment, start-up included
                time.sleep(rng.uniform(0.0, 0.8))
            if status() is not None:  # it finished (or failed) before the kill
                assert status() == 0, f"the command line failed with status {status()}"
                break
            os.kill(process.pid, signal.SIGKILL)
            wait()
            kills += 1
            during_save += bool(hidden(out))
            if last_step == 0 or kills % 2 == 0:  # read it as the next program would (recover, load) ...
                try:
                    step = load_checkpoint(out).step
                except FileNotFoundError:
                    assert last_step == 0, f"kill {kills}: the checkpoint of step {last_step} was lost"
                    continue
                assert step >= last_step, f"kill {kills}: back from step {last_step} to {step}"
                assert hidden(out) == [], hidden(out)
                last_step = step
            # ... or, every other time, let the next start of the command line recover it
        finish(["--output", str(out), "--resume", "--no-progress"], real=chain == 0)
        assert sorted(p.name for p in out.parent.iterdir()) == ["run"]  # nothing left behind
        a, b = load_file(reference / "model.safetensors"), load_file(out / "model.safetensors")
        assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
        sa = torch.load(reference / "training_state.pt", weights_only=True)["optimizer"]["state"]
        sb = torch.load(out / "training_state.pt", weights_only=True)["optimizer"]["state"]
        assert all(torch.equal(sa[i]["exp_avg_sq"], sb[i]["exp_avg_sq"]) for i in sa)
        assert load_checkpoint(out).history == load_checkpoint(reference).history
        chain += 1
    # shown with pytest -s; the kills that land inside a save vary with the machine's speed (every instant of
    # a save is tested deterministically by test_a_save_killed_between_any_two_steps_...)
    print(f"kills survived: {kills} in {chain} chains, of which during a save: {during_save}")
    assert kills == target


# --- signals --------------------------------------------------------------------------------------------------
@pytest.mark.integration
def test_sigterm_and_sigint_save_a_checkpoint_and_exit_with_one_line(corpus_files, tmp_path):
    """SIGTERM (kill, a container stop, a kernel shutdown) as SIGINT (Ctrl-C): the command line finishes
    the step, saves a checkpoint (even with the default --checkpoint-every 0) and says how to resume. Both
    runs go side by side, each sent its signal once its progress bar shows 3 steps."""
    runs = {}
    for signum in (signal.SIGTERM, signal.SIGINT):
        out = tmp_path / signum.name
        args = ["--corpus", str(corpus_files / "corpus.txt"), "--output", str(out), "--preset", "tiny"]
        args += ["--steps", "100000", "--batch-size", "8", "--max-length", "32", "--threads", "1"]
        runs[signum] = (
            out,
            subprocess.Popen(
                [sys.executable, "-m", "bertedu.cli", *args],
                env=cli_env(),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            ),
        )
    for signum, (_, process) in runs.items():
        seen = ""
        while not any(int(n) >= 3 for n in re.findall(r"(\d+)/100000", seen[-300:])):
            char = process.stderr.read(1)  # the progress bar: wait until a few steps are done
            assert char, f"the run ended early: {seen[-2000:]}"
            seen += char
        process.send_signal(signum)
    for signum, (out, process) in runs.items():
        code, words = {signal.SIGTERM: (143, "stopped by SIGTERM"), signal.SIGINT: (130, "interrupted")}[
            signum
        ]
        _, stderr = process.communicate(timeout=120)
        assert process.returncode == code, stderr[-2000:]
        last = stderr.strip().splitlines()[-1].split("\r")[-1]
        assert last.startswith(f"python -m bertedu.cli: {words} at step "), last
        assert "checkpoint saved in" in last and "--resume" in last and "Traceback" not in stderr
        step = int(last.split(" at step ")[1].split("/")[0])
        assert load_checkpoint(out).step == step and 3 <= step < 100000


# --- other errors the operating system raises ------------------------------------------------------------------
def test_save_pretrained_names_what_is_in_the_way(tmp_path, monkeypatch):
    from safetensors import SafetensorError

    import bertedu.core.serialization as serialization
    from bertedu.core.model import BertModel

    model = BertModel(fault_helpers.version(1)[0].config)
    afile = tmp_path / "afile"
    afile.write_text("not a folder", encoding="utf-8")
    with pytest.raises(ValueError, match="it is a file, not a folder"):
        model.save_pretrained(afile)
    with pytest.raises(OSError, match=r"a part of the path .*afile/sub is a file, not a folder"):
        model.save_pretrained(afile / "sub")
    (tmp_path / "model2" / "model.safetensors").mkdir(parents=True)
    with pytest.raises(OSError, match=r"model2/model.safetensors is a folder where a file was expected"):
        model.save_pretrained(tmp_path / "model2")

    def full(*args, **kwargs):
        raise SafetensorError(SAFETENSORS_DISK_FULL)

    monkeypatch.setattr(serialization, "save_file", full)
    with pytest.raises(OSError, match="Could not save the model to .*: the disk is full"):
        model.save_pretrained(tmp_path / "model")


def test_a_folder_that_became_unwritable_is_named_in_one_line(corpus_files, tmp_path, monkeypatch, capsys):
    """The output folder's parent stops accepting new folders once training runs (as for a user without
    write permission there; root may write anywhere, so the refusal is simulated): one line names it."""
    real_mkdir = os.mkdir

    def denied(path, *args, **kwargs):
        if Path(path).name.startswith(".run.tmp-"):  # the save's temporary folder; the early check passes
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_mkdir(path, *args, **kwargs)

    monkeypatch.setattr(os, "mkdir", denied)
    args = [
        "--corpus",
        str(corpus_files / "corpus.txt"),
        "--output",
        str(tmp_path / "run"),
        "--preset",
        "test",
    ]
    code = main([*args, "--steps", "2", "--batch-size", "4", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert (
        "Could not save the checkpoint" in err and f"permission denied: you cannot write to {tmp_path}" in err
    )
