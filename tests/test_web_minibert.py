"""The mini-BERT in the web page: tools/export_onnx.py's ONNX model computes what PyTorch computes.

A small random BertForPreTraining (seed 0) on the course vocabulary is exported as the tool exports notebook
06's model; ONNX Runtime must then give PyTorch's MLM logits (within 1e-4) and top-5 words at every real position,
and its attention maps, at several sentence lengths and paddings, and on every item of data/mlm_eval.tsv both unpadded
(grouped by length) and all in one padded batch. The comparison itself is shown to fail on another model.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import torch

pytest.importorskip("onnxruntime", reason="onnxruntime is not installed (pip install onnxruntime)")
pytest.importorskip("onnx", reason="onnx is not installed (pip install onnx)")

import onnxruntime  # noqa: E402

from bertedu.course import course_tokenizer  # noqa: E402
from bertedu.training.evalsets import load_masked_word_items  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
import export_onnx  # noqa: E402  (tools/ is on pytest's path: pyproject.toml)

pytestmark = pytest.mark.integration  # exports a model and runs ONNX Runtime (a few seconds)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    tokenizer = course_tokenizer()
    model = export_onnx.random_model(tokenizer.vocab_size, seed=0)
    path = export_onnx.export_onnx(
        model, tmp_path_factory.mktemp("onnx") / "model.onnx", tokenizer.pad_token_id
    )
    return model, tokenizer, path


def test_onnx_matches_pytorch_at_several_lengths_and_paddings(exported):
    model, tokenizer, path = exported
    batches = [(1,), (5,), (9,), (20,), (9, 20), (20, 9, 2), (3, 12, 31, 64), (64,)]
    reports = export_onnx.compare(model, path, batches, pad_id=tokenizer.pad_token_id)
    assert [r["lengths"] for r in reports] == [list(b) for b in batches]
    for r in reports:
        assert r["max_logit_diff"] <= 1e-4 and r["top5_equal"], r
        assert r["max_attention_diff"] <= 1e-5, r


def test_onnx_outputs_have_the_documented_shapes_and_masking(exported):
    model, tokenizer, path = exported
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    assert [i.name for i in session.get_inputs()] == ["input_ids", "attention_mask", "token_type_ids"]
    assert [o.name for o in session.get_outputs()] == ["logits", "attentions"]
    batch = export_onnx.padded_example(model.config, [6, 11], tokenizer.pad_token_id)
    logits, attentions = session.run(None, {k: v.numpy() for k, v in batch.items()})
    c = model.config
    assert logits.shape == (2, 11, c.vocab_size)
    assert attentions.shape == (2, c.num_hidden_layers, c.num_attention_heads, 11, 11)
    att = torch.from_numpy(attentions)
    assert torch.allclose(
        att.sum(-1), torch.ones(2, c.num_hidden_layers, c.num_attention_heads, 11), atol=1e-5
    )
    assert att[0, :, :, :, 6:].abs().max() == 0  # no query attends to a padded key
    assert att[0, :, :, :, :6].min() > 0


def test_onnx_top5_equals_pytorch_on_every_mlm_eval_item(exported):
    model, tokenizer, path = exported
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    sentences = [item.sentence for item in load_masked_word_items(ROOT / "data" / "mlm_eval.tsv")]
    assert len(sentences) > 50

    def check(batch):
        with torch.no_grad():
            want = model(**batch).prediction_logits  # (B, T, V)
        got = torch.from_numpy(session.run(["logits"], {k: v.numpy() for k, v in batch.items()})[0])
        at_mask = batch["input_ids"] == tokenizer.mask_token_id  # (B, T): one [MASK] per sentence
        assert at_mask.sum() == len(batch["input_ids"])
        assert (got[at_mask] - want[at_mask]).abs().max() <= 1e-4
        assert torch.equal(got[at_mask].topk(5).indices, want[at_mask].topk(5).indices)

    check(tokenizer(sentences, padding=True, return_tensors="pt"))  # one padded batch
    by_length: dict[int, list[str]] = {}
    for sentence in sentences:
        by_length.setdefault(len(tokenizer.tokenize(sentence)), []).append(sentence)
    assert len(by_length) >= 3
    for group in by_length.values():  # every length, no padding
        check(tokenizer(group, padding=True, return_tensors="pt"))


def test_the_comparison_fails_for_another_model(exported):
    model, tokenizer, path = exported
    other = export_onnx.random_model(tokenizer.vocab_size, seed=1)
    (report,) = export_onnx.compare(other, path, [(9, 4)], pad_id=tokenizer.pad_token_id)
    assert report["max_logit_diff"] > 1e-2 and not report["top5_equal"]


def test_the_tool_says_how_to_make_a_missing_model(tmp_path, capsys):
    assert export_onnx.main(["--model", str(tmp_path / "nothing"), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "No trained course model" in err and "load_course_model()" in err and "--random" in err
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------- the page's JavaScript, in node


@pytest.fixture(scope="module")
def vendored_ort() -> Path:
    """onnxruntime-web's WebAssembly build, vendored by tools/vendor_web.py (npm ci of web/package-lock.json)."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the page's JavaScript cannot run")
    import vendor_web

    try:
        files = vendor_web.vendor()
    except FileNotFoundError as err:  # npm missing
        pytest.skip(str(err))
    return next(p for p in files if p.name == "ort.wasm.min.mjs")


@pytest.fixture(scope="module")
def tool_export(tmp_path_factory):
    """tools/export_onnx.py --random: the page's model folder (model.onnx, vocab.txt, minibert.json), checked."""
    out = tmp_path_factory.mktemp("minibert")
    assert export_onnx.main(["--random", "--out", str(out)]) == 0
    settings = json.loads((out / "minibert.json").read_text(encoding="utf-8"))
    assert all(r["max_logit_diff"] <= 1e-4 and r["top5_equal"] for r in settings["check"])
    return out


def test_the_pages_javascript_predicts_like_pytorch_on_every_mlm_eval_item(
    exported, vendored_ort, tool_export
):
    """web/minibert/model.js with onnxruntime-web: PyTorch's tokens, top-5 and logits (1e-4) at every [MASK], and its
    attention maps, for every item unpadded (grouped by length) and in padded batches of mixed lengths."""
    model, tokenizer, _ = exported  # the same random model (seed 0) as the tool's --random
    sentences = [item.sentence for item in load_masked_word_items(ROOT / "data" / "mlm_eval.tsv")]
    by_length: dict[int, list[str]] = {}
    for sentence in sentences:
        by_length.setdefault(len(tokenizer.tokenize(sentence)), []).append(sentence)
    # unpadded (one batch per length), one padded batch of all, three padded batches of mixed lengths
    batches = list(by_length.values()) + [sentences] + [sentences[i::3] for i in range(3)]
    request = {"ort": str(vendored_ort), "model": str(tool_export), "batches": batches}
    done = subprocess.run(
        ["node", str(ROOT / "web" / "minibert" / "predict_cli.mjs")],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    reply = json.loads(done.stdout)["batches"]
    with torch.no_grad():
        for texts, rows in zip(batches, reply):
            enc = tokenizer(texts, padding=True, return_tensors="pt")
            out = model(**enc, output_attentions=True)
            for b, (text, row) in enumerate(zip(texts, rows)):
                n = int(enc["attention_mask"][b].sum())
                assert row["tokens"] == tokenizer.convert_ids_to_tokens(enc["input_ids"][b, :n]), text
                (mask,) = row["masks"]
                want = out.prediction_logits[b, mask["position"]]
                assert enc["input_ids"][b, mask["position"]] == tokenizer.mask_token_id
                assert (torch.tensor(mask["logits"]) - want).abs().max() <= 1e-4, text
                assert mask["top_ids"] == want.topk(5).indices.tolist(), text
                att = torch.stack(out.attentions, dim=1)[b, :, :, :n, :n]  # (L, A, n, n)
                assert (torch.tensor(row["attentions"]) - att).abs().max() <= 1e-5, text


@pytest.mark.parametrize(
    "report",
    [
        {"lengths": [5], "max_logit_diff": 1e-6, "max_attention_diff": 0.0, "top5_equal": False},
        {"lengths": [5], "max_logit_diff": 1.0, "max_attention_diff": 0.0, "top5_equal": True},
    ],
    ids=["top5-differ", "logits-differ"],
)
def test_the_tool_fails_when_either_check_fails(tmp_path, monkeypatch, capsys, report):
    """Mutation review 2026-12-06, N13: the export must stop when ONNX Runtime's top 5 *or* its logits differ
    from PyTorch's (``or`` → ``and`` would publish a page whose predictions differ from notebook 06's)."""
    monkeypatch.setattr(export_onnx, "compare", lambda *args, **kwargs: [report])
    assert export_onnx.main(["--random", "--out", str(tmp_path / "out")]) == 1
    assert "ONNX Runtime and PyTorch differ" in capsys.readouterr().err
    assert not (tmp_path / "out" / "minibert.json").exists()
