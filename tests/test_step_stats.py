"""StepStats.add (bertedu.training.pretrain): a part without NSP labels adds only its MLM loss, with no
"no NSP" None in between; a part with NSP labels adds L_MLM + L_NSP; a part with no NSP rows adds a zero."""

from __future__ import annotations

from types import SimpleNamespace

import torch

from bertedu.training.pretrain import StepStats


def _out(nsp_rows: int):
    return SimpleNamespace(
        mlm_loss=torch.tensor(2.0),
        nsp_loss=torch.tensor(0.5) if nsp_rows else torch.tensor(float("nan")),  # the mean of no rows
        prediction_logits=torch.tensor([[0.0, 1.0], [1.0, 0.0]]),  # predicts 1, 0
        seq_relationship_logits=torch.zeros(nsp_rows, 2, requires_grad=True),
    )


def _part(nsp_rows: int | None):
    part = {"labels": torch.tensor([[1, -100, 1]])}  # two labelled tokens
    if nsp_rows is not None:
        part["next_sentence_label"] = torch.zeros(nsp_rows, dtype=torch.long)
    return part


def test_a_part_without_nsp_labels_adds_its_mlm_loss_only():
    stats = StepStats()
    loss = stats.add(_out(2), _part(None), masked=4, rows=4)
    assert float(loss) == 1.0  # 2.0 x 2/4 of the batch's labelled tokens
    assert (stats.loss, stats.mlm_loss, stats.nsp_loss, stats.nsp_total) == (1.0, 1.0, 0.0, 0)
    assert (stats.mlm_correct, stats.mlm_total) == (1, 2)


def test_a_part_with_nsp_labels_adds_both_losses_and_one_without_rows_a_zero():
    stats = StepStats()
    loss = stats.add(_out(2), _part(2), masked=4, rows=4)
    assert float(loss) == 1.25 and (stats.nsp_loss, stats.nsp_correct, stats.nsp_total) == (0.25, 2, 2)
    empty = StepStats()
    loss = empty.add(_out(0), _part(0), masked=4, rows=4)
    assert (
        float(loss.detach()) == 1.0 and empty.nsp_loss == 0.0 and empty.nsp_total == 0
    )  # not the mean's NaN
    assert loss.requires_grad  # the NSP head stays in the graph (every process runs the same backward)
