"""An interrupted pretrain() in a notebook fails its cell with the reason (issue 20).

`make test` failed on a busy machine because nbval's cell time-out interrupted notebook 06's training:
pretrain() caught the interrupt, saved and returned as if it had finished, and the failure surfaced two
notebooks later as an unrelated stderr difference. Here a real kernel runs a cell that trains, nbclient
interrupts it on a time-out as nbval does, and the cell must end with a TrainingInterrupted error that says
where it stopped and how to resume, not with a normal result.
"""

from __future__ import annotations

import textwrap

import pytest

from bertedu.training.checkpoint import load_checkpoint

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

pytestmark = pytest.mark.integration  # a real Jupyter kernel

TRAIN_TIMEOUT_S = 8  # the training cell is interrupted after this long (nbval's --nbval-cell-timeout)


def test_an_interrupted_training_cell_fails_with_the_reason(corpus_files, tmp_path):
    out = tmp_path / "run"
    setup = textwrap.dedent(
        f"""
        import torch
        torch.set_num_threads(1)
        from bertedu.training.optim import make_optimizer
        from bertedu.training.pretrain import PretrainingConfig, pretrain
        config = PretrainingConfig(
            corpus={str(corpus_files / "corpus.txt")!r}, model_size="tiny", steps=1_000_000, batch_size=8,
            max_length=32, eval_every=0, checkpoint_every=0, num_threads=1,
        )
        make_optimizer(torch.nn.Linear(2, 2), lr=1e-3, weight_decay=0.0, warmup_steps=1, total_steps=2)  # warm up
        """
    )
    train = f"run = pretrain(config, {str(out)!r}, progress=False)\nprint('finished at step', run.step)"
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(setup),
        nbformat.v4.new_code_cell(train),
        nbformat.v4.new_code_cell("print('the kernel is still alive')"),
    ]
    client = nbclient.NotebookClient(
        nb,
        kernel_name="python3",
        timeout_func=lambda cell: TRAIN_TIMEOUT_S if "pretrain(config" in cell.source else 300,
        interrupt_on_timeout=True,
        allow_errors=True,
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()
    outputs = nb.cells[1].outputs
    assert not any("finished at step" in o.get("text", "") for o in outputs), outputs
    errors = [o for o in outputs if o.output_type == "error"]
    assert len(errors) == 1, outputs
    assert errors[0].ename == "TrainingInterrupted"
    message = errors[0].evalue
    assert message.startswith("Pretraining was interrupted") and "at step " in message
    assert f"A checkpoint is saved in {out}" in message and "resume=True" in message
    step = int(message.split("at step ")[1].split("/")[0])
    assert step >= 1 and load_checkpoint(out).step == step
    printed = "".join(o.get("text", "") for o in nb.cells[2].outputs)  # one print may come as two messages
    assert printed == "the kernel is still alive\n"
