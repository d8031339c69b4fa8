"""The pretraining loop: schedule, history, NaN guard, atomic checkpoints, HF loading, exact resume, CLI."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from bertedu import pretrain as pt
from bertedu.pretrain import (
    PretrainingConfig,
    TrainingDivergedError,
    build_parser,
    course_tokenizer,
    is_checkpoint,
    linear_schedule,
    load_checkpoint,
    main,
    pretrain,
)

CORPUS = """the cat sits on the mat
the cat drinks milk
then the cat sleeps by the fire

the dog runs in the park
the dog drinks water
the dog sleeps under the table

the sun rises in the east
the sun shines in the sky
the sun sets in the west

the man reads the book
the man drinks coffee
the woman drinks tea
"""
MLM_EVAL = "sentence\tanswers\nthe cat drinks [MASK]\tmilk\nthe [MASK] rises in the east\tsun\n"
NSP_EVAL = (
    "sentence_a\tsentence_b\tlabel\nthe cat sits on the mat\tthe cat drinks milk\tIsNext\n"
    "the cat sits on the mat\tthe sun sets in the west\tNotNext\n"
)
TINY = {"num_hidden_layers": 1, "hidden_size": 16, "num_attention_heads": 2, "intermediate_size": 32}


@pytest.fixture(autouse=True)
def tiny_size(monkeypatch):
    monkeypatch.setitem(pt.MODEL_SIZES, "test", TINY)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "corpus.txt").write_text(CORPUS, encoding="utf-8")
    (tmp_path / "mlm.tsv").write_text(MLM_EVAL, encoding="utf-8")
    (tmp_path / "nsp.tsv").write_text(NSP_EVAL, encoding="utf-8")
    return tmp_path


def tiny_config(files, **kw):
    base = dict(
        corpus=str(files / "corpus.txt"),
        model_size="test",
        max_length=32,
        steps=8,
        batch_size=4,
        learning_rate=5e-3,
        warmup_steps=2,
        log_every=2,
        eval_every=4,
        seed=3,
        mlm_eval_file=str(files / "mlm.tsv"),
        nsp_eval_file=str(files / "nsp.tsv"),
    )
    return PretrainingConfig(**{**base, **kw})


def weights(model):
    return {k: v.clone() for k, v in model.state_dict().items()}


# --- settings and schedule ---------------------------------------------------------------------------------
def test_linear_schedule_warms_up_then_decays_to_zero():
    f = linear_schedule(warmup_steps=4, total_steps=10)
    assert [round(f(s), 4) for s in range(11)] == [
        0.25,
        0.5,
        0.75,
        1.0,
        1.0,
        0.8333,
        0.6667,
        0.5,
        0.3333,
        0.1667,
        0.0,
    ]
    assert linear_schedule(0, 5)(0) == 1.0  # no warm-up: start at the peak
    opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, f)
    lrs = []
    for _ in range(10):
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    assert (
        lrs[0] == pytest.approx(0.025)
        and max(lrs) == pytest.approx(0.1)
        and lrs[-1] == pytest.approx(0.1 / 6)
    )


@pytest.mark.parametrize(
    "change, message",
    [
        ({"steps": 0}, "steps must be an integer >= 1"),
        ({"batch_size": -2}, "batch_size"),
        ({"learning_rate": 0.0}, "learning_rate"),
        ({"model_size": "huge"}, "model_size"),
        ({"max_length": 3}, "max_length"),
        ({"mlm_probability": 0.0}, "mlm_probability"),
        ({"attn_implementation": "flash"}, "attn_implementation"),
    ],
)
def test_config_rejects_bad_settings(change, message):
    with pytest.raises(ValueError, match=message):
        PretrainingConfig(**change)


def test_course_tokenizer_keeps_every_word_whole(files):
    docs = [[s for s in d.splitlines() if s] for d in CORPUS.split("\n\n")]
    tok = course_tokenizer(docs)
    words = {w for d in docs for s in d for w in s.split()}
    assert all(tok.tokenize(w) == [w] for w in words)
    assert tok.convert_ids_to_tokens([0, 1, 2, 3, 4]) == ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def test_course_config_is_notebook_06_recipe():
    config = pt.course_config()
    assert config.model_size == "tiny" and config.mlm_eval_file == "data/mlm_eval.tsv"
    assert pt.course_config(steps=5).steps == 5
    bert = pt.model_config(config, vocab_size=500)
    assert bert.attn_implementation == "eager"
    assert (bert.num_hidden_layers, bert.hidden_size, bert.num_attention_heads) == (2, 128, 2)
    assert bert.max_position_embeddings == config.max_length and bert.hidden_dropout_prob == config.dropout


# --- batches -------------------------------------------------------------------------------------------------
def test_bucketed_batches_cover_each_epoch_pad_less_and_resume_exactly(files):
    from bertedu.data import PretrainingCollator, PretrainingDataset, read_corpus

    docs = read_corpus(files / "corpus.txt")
    tok = course_tokenizer(docs)
    ds = PretrainingDataset(docs, tok, max_length=32, seed=1, num_pairs=40)
    collate = PretrainingCollator(tok)
    stream = pt.bucketed_batches(ds, collate, 4, bucket_batches=5)
    batches = [next(stream) for _ in range(25)]  # 10 batches per epoch: 2.5 epochs
    assert [s for s, _ in batches] == list(range(25))
    assert sum(len(b["next_sentence_label"]) for _, b in batches[:10]) == 40  # every pair once per epoch

    def padding(bucket):
        stream = pt.bucketed_batches(
            PretrainingDataset(docs, tok, max_length=32, seed=1, num_pairs=40),
            collate,
            4,
            bucket_batches=bucket,
        )
        bs = [next(stream)[1] for _ in range(20)]
        return sum(int((b["attention_mask"] == 0).sum()) for b in bs)

    assert padding(5) < padding(1)
    for start in (0, 3, 5, 9, 10, 17):
        fresh = PretrainingDataset(docs, tok, max_length=32, seed=1, num_pairs=40)
        resumed = pt.bucketed_batches(fresh, collate, 4, start_step=start, bucket_batches=5)
        for step, batch in batches[start : start + 6]:
            s, b = next(resumed)
            assert s == step and all(torch.equal(batch[k], b[k]) for k in batch)


# --- the loop ------------------------------------------------------------------------------------------------
def test_pretrain_records_history_and_metrics(files):
    from bertedu.viz import plot_loss_curves

    run = pretrain(tiny_config(files), progress=False)
    train = [r for r in run.history if r["split"] == "train"]
    evals = [r for r in run.history if r["split"] == "eval"]
    assert [r["step"] for r in train] == [2, 4, 6, 8] and [r["step"] for r in evals] == [4, 8]
    assert {"loss", "mlm_loss", "nsp_loss", "mlm_accuracy", "nsp_accuracy", "lr"} <= set(train[0])
    for r in train:
        assert r["loss"] == pytest.approx(r["mlm_loss"] + r["nsp_loss"], rel=1e-5)
        assert 0 <= r["mlm_accuracy"] <= 1 and 0 <= r["nsp_accuracy"] <= 1
    assert set(run.metrics) == {"mlm_accuracy", "mlm_top5_accuracy", "nsp_accuracy"}
    assert run.step == 8 and not run.interrupted and run.output_dir is None
    assert not run.model.training and run.model.config.attn_implementation == "eager"
    assert train[-1]["lr"] == 0.0  # decayed to zero at the last step
    fig = plot_loss_curves(run.history)
    assert len(fig.axes) == 2


def test_pretrain_is_deterministic_and_seed_dependent(files):
    a = pretrain(tiny_config(files, eval_every=0), progress=False)
    b = pretrain(tiny_config(files, eval_every=0), progress=False)
    c = pretrain(tiny_config(files, eval_every=0, seed=4), progress=False)
    wa, wb, wc = weights(a.model), weights(b.model), weights(c.model)
    assert all(torch.equal(wa[k], wb[k]) for k in wa)
    assert not all(torch.equal(wa[k], wc[k]) for k in wa)
    assert a.history == b.history


def test_eager_and_fused_attention_train_the_same_function(files):
    a = pretrain(tiny_config(files, attn_implementation="eager", dropout=0.0, eval_every=0), progress=False)
    b = pretrain(tiny_config(files, attn_implementation="sdpa", dropout=0.0, eval_every=0), progress=False)
    wa, wb = weights(a.model), weights(b.model)
    assert all(torch.allclose(wa[k], wb[k], atol=1e-4) for k in wa)


def test_nan_loss_stops_with_advice(files, monkeypatch):
    original = pt.BertForPreTraining.forward

    def poisoned(self, *args, **kwargs):
        out = original(self, *args, **kwargs)
        out.loss = out.loss * float("nan")
        return out

    monkeypatch.setattr(pt.BertForPreTraining, "forward", poisoned)
    with pytest.raises(TrainingDivergedError, match="step 1.*lower learning rate.*check the data"):
        pretrain(tiny_config(files), progress=False)


def test_infinite_gradient_norm_stops(files, monkeypatch):
    monkeypatch.setattr(
        torch.nn.utils, "clip_grad_norm_", lambda params, max_norm: torch.tensor(float("inf"))
    )
    with pytest.raises(TrainingDivergedError, match="gradient norm is not finite"):
        pretrain(tiny_config(files), progress=False)


# --- checkpoints -------------------------------------------------------------------------------------------
def test_checkpoint_is_complete_and_loads_safely(files, tmp_path):
    out = tmp_path / "run"
    run = pretrain(tiny_config(files), out, progress=False)
    assert is_checkpoint(out)
    names = {p.name for p in out.iterdir()}
    assert {
        "config.json",
        "model.safetensors",
        "vocab.txt",
        "training_state.pt",
        "trainer_state.json",
    } <= names
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary folders left
    state = torch.load(out / "training_state.pt", weights_only=True)  # tensors and plain containers only
    assert state["step"] == 8 and {"torch", "python", "numpy"} <= set(state["rng"])
    trainer = json.loads((out / "trainer_state.json").read_text())
    assert trainer["complete"] and trainer["config"]["seed"] == 3 and trainer["history"] == run.history
    assert json.loads((out / "config.json").read_text())["attn_implementation"] == "eager"
    ckpt = load_checkpoint(out)
    assert ckpt.complete and ckpt.config == run.config and ckpt.metrics == run.metrics
    assert all(torch.equal(v, ckpt.model.state_dict()[k]) for k, v in run.model.state_dict().items())


def test_checkpoint_loads_in_transformers_with_the_same_logits(files, tmp_path):
    transformers = pytest.importorskip("transformers")
    out = tmp_path / "run"
    run = pretrain(tiny_config(files), out, progress=False)
    hf_model = transformers.BertForPreTraining.from_pretrained(out).eval()
    hf_tok = transformers.BertTokenizer.from_pretrained(out)
    text = ["the cat drinks [MASK]", "the sun sets in the west"]
    ours = run.tokenizer(text, padding=True, return_tensors="pt")
    theirs = hf_tok(text, padding=True, return_tensors="pt")
    for key in ("input_ids", "token_type_ids", "attention_mask"):
        assert torch.equal(ours[key], theirs[key])
    with torch.no_grad():
        a = run.model(**ours)
        b = hf_model(**theirs)
    torch.testing.assert_close(a.prediction_logits, b.prediction_logits, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(a.seq_relationship_logits, b.seq_relationship_logits, atol=1e-5, rtol=1e-5)


def test_a_failed_save_leaves_the_previous_checkpoint(files, tmp_path, monkeypatch):
    out = tmp_path / "run"
    pretrain(tiny_config(files, steps=4), out, progress=False)
    before = (out / "model.safetensors").read_bytes()

    def broken_save(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(pt.torch, "save", broken_save)
    with pytest.raises(OSError, match="disk full"):
        pretrain(tiny_config(files, steps=4, seed=9), out, progress=False)
    assert is_checkpoint(out) and (out / "model.safetensors").read_bytes() == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_resume_gives_bit_identical_weights(files, tmp_path):
    config = tiny_config(files, steps=10, eval_every=3, checkpoint_every=4)
    full = pretrain(config, tmp_path / "full", progress=False)
    part = pretrain(config, tmp_path / "part", progress=False, stop_after=5)
    assert part.interrupted and part.step == 5 and part.metrics == {}
    assert not load_checkpoint(tmp_path / "part").complete
    resumed = pretrain(config, tmp_path / "part", resume=True, progress=False)
    assert resumed.step == 10
    a, b = full.model.state_dict(), resumed.model.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert resumed.history == full.history and resumed.metrics == full.metrics
    # The saved optimizer state matches too, so a later resume would continue identically.
    sa = torch.load(tmp_path / "full" / "training_state.pt", weights_only=True)["optimizer"]["state"]
    sb = torch.load(tmp_path / "part" / "training_state.pt", weights_only=True)["optimizer"]["state"]
    assert all(torch.equal(sa[i]["exp_avg_sq"], sb[i]["exp_avg_sq"]) for i in sa)
    # Resuming a finished run trains nothing and returns it.
    again = pretrain(config, tmp_path / "part", resume=True, progress=False)
    assert again.step == 10 and again.history == full.history


def test_pretrain_never_replaces_a_folder_of_other_files(files, tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "thesis.txt").write_text("precious", encoding="utf-8")
    with pytest.raises(ValueError, match="not a bertedu checkpoint"):
        pretrain(tiny_config(files), folder, progress=False)
    assert (folder / "thesis.txt").read_text(encoding="utf-8") == "precious"


def test_thread_setting_is_restored(files):
    before = torch.get_num_threads()
    pretrain(tiny_config(files, num_threads=1, steps=2, eval_every=0), progress=False)
    assert torch.get_num_threads() == before


def test_resume_errors(files, tmp_path):
    with pytest.raises(FileNotFoundError, match="holds no checkpoint"):
        pretrain(tiny_config(files), tmp_path / "nothing", resume=True, progress=False)
    pretrain(tiny_config(files), tmp_path / "run", progress=False, stop_after=2)
    with pytest.raises(ValueError, match="learning_rate"):
        pretrain(tiny_config(files, learning_rate=1e-3), tmp_path / "run", resume=True, progress=False)


# --- the course model ----------------------------------------------------------------------------------------
def test_load_course_model_trains_once_then_loads(files, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(pt, "course_config", lambda **kw: tiny_config(files, **kw))
    path = tmp_path / "mini-bert"
    model_a, tok_a = pt.load_course_model(path)  # missing: trains and saves
    first = capsys.readouterr()
    assert is_checkpoint(path)
    stamp = (path / "model.safetensors").stat().st_mtime_ns
    model_b, tok_b = pt.load_course_model(path)  # present: loads
    second = capsys.readouterr()
    assert (path / "model.safetensors").stat().st_mtime_ns == stamp
    assert first.out == second.out == ""  # the same (empty) output either way
    assert all(torch.equal(v, model_b.state_dict()[k]) for k, v in model_a.state_dict().items())
    assert tok_a.get_vocab() == tok_b.get_vocab() and not model_b.training
    scores = pt.evaluate_course_model(path)
    assert set(scores) == {"mlm_top1", "mlm_top5", "nsp_accuracy", "mlm_items", "nsp_items"}
    # A checkpoint of another recipe is not used: the course model is retrained with the right one.
    monkeypatch.setattr(pt, "course_config", lambda **kw: tiny_config(files, seed=11, **kw))
    model_c, _ = pt.load_course_model(path)
    assert load_checkpoint(path).config.seed == 11
    assert not all(torch.equal(v, model_c.state_dict()[k]) for k, v in model_a.state_dict().items())


# --- command line --------------------------------------------------------------------------------------------
def test_help_documents_every_option(capsys):
    parser = build_parser()
    with pytest.raises(SystemExit) as exit_info:
        parser.parse_args(["--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    for action in parser._actions:
        for flag in action.option_strings:
            assert flag in text
        if action.option_strings and action.dest != "help":
            assert action.help and len(action.help) > 10, action.dest
    for preset in pt.MODEL_SIZES:
        assert preset in text


def test_cli_trains_and_reports(files, tmp_path, capsys):
    out = tmp_path / "cli-run"
    code = main(
        [
            "--corpus",
            str(files / "corpus.txt"),
            "--output",
            str(out),
            "--preset",
            "test",
            "--steps",
            "3",
            "--batch-size",
            "4",
            "--lr",
            "1e-3",
            "--warmup",
            "1",
            "--seed",
            "1",
            "--mlm-eval",
            str(files / "mlm.tsv"),
            "--nsp-eval",
            str(files / "nsp.tsv"),
            "--no-progress",
        ]
    )
    printed = capsys.readouterr().out
    assert code == 0
    assert "step 3/3" in printed and "cli-run" in printed
    assert "Last training steps: loss" in printed and "Held-out: masked-word top-1" in printed
    assert "NSP accuracy" in printed
    ckpt = load_checkpoint(out)
    assert ckpt.config.steps == 3 and ckpt.config.learning_rate == 1e-3 and ckpt.config.model_size == "test"


def run_cli(args, cwd):
    env = dict(os.environ, PYTHONPATH=str(Path(pt.__file__).resolve().parents[1]))
    return subprocess.run(
        [sys.executable, "-m", "bertedu.pretrain", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_module_entry_point(files):
    result = run_cli(["--help"], cwd=files)
    assert result.returncode == 0 and "--resume" in result.stdout
    result = run_cli(["--corpus", "corpus.txt", "--output", "out", "--steps", "-5"], cwd=files)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "python -m bertedu.pretrain: error: argument --steps: must be at least 1, got -5 (see --help)"
    )


@pytest.mark.parametrize(
    "args, message",
    [
        (["--corpus", "missing.txt", "--output", "out"], "corpus file missing.txt does not exist"),
        (["--corpus", "corpus.txt", "--output", "out", "--steps", "0"], "--steps: must be at least 1"),
        (
            ["--corpus", "corpus.txt", "--output", "out", "--batch-size", "-1"],
            "--batch-size: must be at least 1",
        ),
        (["--corpus", "corpus.txt", "--output", "out", "--lr", "fast"], "--lr: expected a number"),
        (["--corpus", "corpus.txt", "--output", "out", "--lr", "3"], "--lr: must be between 0 and 1"),
        (["--corpus", "corpus.txt", "--output", "corpus.txt/run"], "Cannot write to"),
        (["--corpus", "corpus.txt", "--output", "out", "--mlm-eval", "nope.tsv"], "evaluation file nope.tsv"),
        (["--output", "empty", "--resume"], "holds no checkpoint"),
        (["--output", "out"], "--corpus is required"),
        (["--corpus", "corpus.txt"], "--output"),
        (["--corpus", "corpus.txt", "--output", "out", "--preset", "giant"], "invalid choice"),
    ],
)
def test_cli_bad_arguments_give_one_line_errors(files, args, message, monkeypatch, capsys):
    monkeypatch.chdir(files)
    try:
        code = main(args)
    except SystemExit as exit_info:  # argparse's own checks
        code = exit_info.code
    err = capsys.readouterr().err
    assert code != 0
    assert message in err
    assert len(err.strip().splitlines()) == 1, err
    assert not (files / "out").exists()


def test_cli_refuses_to_overwrite_or_change_a_resumed_run(files, tmp_path, capsys):
    out = tmp_path / "run"
    base = [
        "--corpus",
        str(files / "corpus.txt"),
        "--output",
        str(out),
        "--preset",
        "test",
        "--steps",
        "2",
        "--batch-size",
        "4",
        "--no-progress",
    ]
    assert main(base) == 0
    capsys.readouterr()
    assert main(base) == 1
    assert "already holds a checkpoint" in capsys.readouterr().err
    assert main(["--output", str(out), "--resume", "--lr", "0.01", "--no-progress"]) == 1
    assert "differ" in capsys.readouterr().err
    assert main(["--output", str(out), "--resume", "--no-progress"]) == 0  # finished run: nothing to do
    assert main([*base, "--overwrite", "--seed", "5"]) == 0
    assert load_checkpoint(out).config.seed == 5
