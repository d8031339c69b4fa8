"""Pretraining checkpoints (bertedu.training.checkpoint): complete, atomic, loadable by transformers, exact resume."""

import json
import os
import stat

import pytest
import torch

from bertedu.core.config import BertConfig
from bertedu.core.model import BertForPreTraining
from bertedu.training.checkpoint import (
    CHECKPOINT_FORMAT,
    TRAINER_STATE_NAME,
    is_checkpoint,
    load_checkpoint,
    prepare_output,
    save_checkpoint,
)
from bertedu.training.optim import make_optimizer
from bertedu.training.pretrain import pretrain


@pytest.mark.slow
def test_checkpoint_is_complete_and_loads_safely(tiny_run, tmp_path):
    out = tmp_path / "run"
    run = pretrain(tiny_run(), out, progress=False)
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
    assert ckpt.complete and ckpt.run_config == run.config.to_dict() and ckpt.metrics == run.metrics
    assert all(torch.equal(v, ckpt.model.state_dict()[k]) for k, v in run.model.state_dict().items())


@pytest.mark.slow
def test_checkpoint_loads_in_transformers_with_the_same_logits(tiny_run, tmp_path):
    transformers = pytest.importorskip("transformers")
    out = tmp_path / "run"
    run = pretrain(tiny_run(), out, progress=False)
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


def save_sdpa_checkpoint(directory, word_tokenizer) -> BertForPreTraining:
    """A 1-layer model that trains with the fused attention ("sdpa"), saved as a checkpoint at step 1 of 4."""
    tokenizer = word_tokenizer(["the", "cat", "sat", "on", "mat"])
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        attn_implementation="sdpa",
    )
    torch.manual_seed(0)
    model = BertForPreTraining(config)
    optimizer, scheduler = make_optimizer(model, lr=1e-3, weight_decay=0.01, warmup_steps=1, total_steps=4)
    save_checkpoint(
        directory,
        model=model,
        tokenizer=tokenizer,
        optimizer=optimizer,
        scheduler=scheduler,
        step=1,
        run_config={"steps": 4},
        history=[],
    )
    return model


def test_checkpoint_writes_config_json_once_with_the_teaching_attention(
    word_tokenizer, tmp_path, monkeypatch
):
    """The architecture review's 3.2: config.json was written by save_pretrained, then overwritten. It is written
    once now, with the same bytes as before: the explicit attention and the model's class."""
    written = []
    to_json_file = BertConfig.to_json_file
    monkeypatch.setattr(
        BertConfig, "to_json_file", lambda self, path: written.append(path.name) or to_json_file(self, path)
    )
    out = tmp_path / "run"
    model = save_sdpa_checkpoint(out, word_tokenizer)
    assert written == ["config.json"]
    expected = model.config.replace(attn_implementation="eager", architectures=["BertForPreTraining"])
    assert (out / "config.json").read_text(encoding="utf-8") == expected.to_json_string()
    assert model.config.attn_implementation == "sdpa"  # the model in memory keeps training with the fused one
    ckpt = load_checkpoint(out)
    assert ckpt.model.config.attn_implementation == "eager" and ckpt.step == 1 and not ckpt.complete
    assert all(torch.equal(v, ckpt.model.state_dict()[k]) for k, v in model.state_dict().items())


@pytest.mark.slow
def test_checkpoint_config_json_is_read_by_transformers(word_tokenizer, tmp_path):
    transformers = pytest.importorskip("transformers")
    out = tmp_path / "run"
    model = save_sdpa_checkpoint(out, word_tokenizer).eval()
    hf_model, info = transformers.BertForPreTraining.from_pretrained(out, output_loading_info=True)
    assert not info["missing_keys"] and not info["unexpected_keys"]
    assert hf_model.config.architectures == ["BertForPreTraining"]
    ids = torch.tensor([[2, 5, 6, 7, 3, 0]])  # [CLS] the cat sat [SEP] [PAD]
    mask = (ids != 0).long()
    with torch.no_grad():
        ours = model(ids, mask)
        theirs = hf_model.eval()(input_ids=ids, attention_mask=mask)
    torch.testing.assert_close(ours.prediction_logits, theirs.prediction_logits, atol=1e-5, rtol=1e-5)


@pytest.mark.slow
def test_a_failed_save_leaves_the_previous_checkpoint(tiny_run, tmp_path, monkeypatch):
    out = tmp_path / "run"
    pretrain(tiny_run(steps=4), out, progress=False)
    before = (out / "model.safetensors").read_bytes()

    def broken_save(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(torch, "save", broken_save)
    with pytest.raises(OSError, match="disk full"):
        pretrain(tiny_run(steps=4, seed=9), out, progress=False)
    assert is_checkpoint(out) and (out / "model.safetensors").read_bytes() == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


@pytest.mark.slow
def test_resume_gives_bit_identical_weights(tiny_run, tmp_path):
    config = tiny_run(steps=10, eval_every=3, checkpoint_every=4)
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


def test_pretrain_never_replaces_a_folder_of_other_files(tiny_run, tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "thesis.txt").write_text("precious", encoding="utf-8")
    with pytest.raises(ValueError, match="not a bertedu checkpoint"):
        pretrain(tiny_run(), folder, progress=False)
    assert (folder / "thesis.txt").read_text(encoding="utf-8") == "precious"


@pytest.mark.slow
def test_thread_setting_is_restored(tiny_run, monkeypatch):
    """num_threads=1 holds while training, and the caller's setting (here 3, not the machine's, so that
    the test means something on a one-thread machine too) comes back afterwards."""
    before = torch.get_num_threads()
    during = []
    forward = BertForPreTraining.forward
    monkeypatch.setattr(
        BertForPreTraining,
        "forward",
        lambda *a, **kw: during.append(torch.get_num_threads()) or forward(*a, **kw),
    )
    try:
        torch.set_num_threads(3)
        pretrain(tiny_run(num_threads=1, steps=2, eval_every=0), progress=False)
        assert set(during) == {1} and torch.get_num_threads() == 3
    finally:
        torch.set_num_threads(before)


@pytest.mark.slow
def test_resume_errors(tiny_run, tmp_path):
    with pytest.raises(FileNotFoundError, match="holds no checkpoint"):
        pretrain(tiny_run(), tmp_path / "nothing", resume=True, progress=False)
    pretrain(tiny_run(), tmp_path / "run", progress=False, stop_after=2)
    with pytest.raises(ValueError, match="learning_rate"):
        pretrain(tiny_run(learning_rate=1e-3), tmp_path / "run", resume=True, progress=False)


# --- crash safety, permissions, symlinks (issue 14) ------------------------------------------------------------
@pytest.mark.slow
def test_a_crash_between_the_renames_is_recovered_on_the_next_load(tiny_run, tmp_path):
    """What the review found after a kill between the two renames of a save: the folder gone, both copies
    in hidden siblings, and `--resume` saying "holds no checkpoint". The next load now puts the newer copy
    back (a `.new-` sibling is complete; an `.old-` one is the previous version) and deletes the rest."""
    out = tmp_path / "run"
    config = tiny_run(steps=6, eval_every=0, num_threads=1)
    pretrain(config, out, progress=False, stop_after=2)
    old = tmp_path / ".run.old-00000000000000000001-1"
    out.rename(old)
    pretrain(config, tmp_path / "newer", progress=False, stop_after=4)
    (tmp_path / "newer").rename(tmp_path / ".run.new-00000000000000000002-1")
    (tmp_path / ".run.tmp-00000000000000000003-1").mkdir()  # a half-written one: garbage
    assert load_checkpoint(out).step == 4
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []
    resumed = pretrain(config, out, resume=True, progress=False)
    assert resumed.step == 6


@pytest.mark.slow
def test_stale_temporary_folders_are_deleted_on_the_next_start(tiny_run, tmp_path):
    out = tmp_path / "run"
    pretrain(tiny_run(steps=2, eval_every=0, num_threads=1), out, progress=False)
    for name in (".run.tmp-x", ".run.new-00000000000000000001-1", ".run.old-00000000000000000002-1"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "model.safetensors").write_bytes(b"\0" * 1000)  # GBs for a large model
    pretrain(tiny_run(steps=2, eval_every=0, seed=5, num_threads=1), out, progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["inputs", "run"]


@pytest.mark.slow
@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_checkpoint_files_honour_the_umask(tiny_run, tmp_path, umask):
    """The review's #12: config.json, model.safetensors, vocab.txt were 0600 and the folder 0700 (mkstemp,
    mkdtemp) whatever the umask, so nobody else on a shared machine could read a checkpoint."""
    previous = os.umask(umask)
    try:
        pretrain(tiny_run(steps=2, eval_every=0, num_threads=1), tmp_path / "run", progress=False)
    finally:
        os.umask(previous)
    out = tmp_path / "run"
    assert stat.S_IMODE(out.stat().st_mode) == 0o777 & ~umask
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in out.iterdir()}
    assert modes and set(modes.values()) == {0o666 & ~umask}, modes


@pytest.mark.slow
def test_a_symlinked_output_folder_keeps_its_link(tiny_run, tmp_path):
    """The review's #11: resuming through a symlinked --output replaced the link by a folder and left the
    link's target with the stale checkpoint (and a `.link.old-*` symlink behind)."""
    real = tmp_path / "disk" / "real-run"
    real.parent.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    config = tiny_run(steps=6, eval_every=0, num_threads=1)
    pretrain(config, link, progress=False, stop_after=3)
    pretrain(config, link, resume=True, progress=False)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert load_checkpoint(real).step == 6 and load_checkpoint(link).step == 6
    assert sorted(p.name for p in tmp_path.iterdir()) == ["disk", "inputs", "link"]
    assert sorted(p.name for p in real.parent.iterdir()) == ["real-run"]


@pytest.mark.parametrize("output", [".", "", ".."])
def test_the_working_folder_is_refused_before_training(tiny_run, tmp_path, monkeypatch, output):
    """The review's #6: `--output .` trained to the end, then failed to rename '.' and lost the model."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    started = []
    monkeypatch.setattr("bertedu.training.pretrain.train_tokenizer", lambda *a, **k: started.append(1))
    with pytest.raises(ValueError, match="saving replaces the whole folder|output folder is empty"):
        pretrain(tiny_run(steps=2, eval_every=0, num_threads=1), output, progress=False)
    assert not started and list(work.iterdir()) == []


@pytest.mark.slow
def test_a_damaged_file_is_named(tiny_run, tmp_path):
    out = tmp_path / "run"
    pretrain(tiny_run(steps=2, eval_every=0, num_threads=1), out, progress=False)
    (out / "training_state.pt").write_bytes((out / "training_state.pt").read_bytes()[:500])
    with pytest.raises(ValueError, match="training_state.pt is damaged"):
        load_checkpoint(out)
    (out / "trainer_state.json").write_text("[]", encoding="utf-8")
    with pytest.raises(ValueError, match="trainer_state.json is damaged"):
        load_checkpoint(out)


def _fake_checkpoint(folder, settings):
    """The files of a checkpoint whose trainer state says it was run with ``settings`` (enough for the gate)."""
    folder.mkdir()
    for name in ("config.json", "model.safetensors", "vocab.txt", "training_state.pt"):
        (folder / name).write_text("x", encoding="utf-8")
    state = {"format": CHECKPOINT_FORMAT, "step": 1, "config": settings, "history": []}
    (folder / TRAINER_STATE_NAME).write_text(json.dumps(state), encoding="utf-8")


def test_one_gate_decides_whether_a_folder_is_written_resumed_or_refused(tmp_path):
    """Issue 26: prepare_output is the one decision pretrain(), the command line and load_course_model pass."""
    settings = {"steps": 10, "seed": 0}
    assert prepare_output(tmp_path / "new", settings) is None  # a new folder: a new run
    (tmp_path / "empty").mkdir()
    assert prepare_output(tmp_path / "empty", settings, overwrite=False) is None
    with pytest.raises(FileNotFoundError, match="holds no checkpoint"):
        prepare_output(tmp_path / "empty", settings, resume=True)
    _fake_checkpoint(tmp_path / "run", settings)
    assert prepare_output(tmp_path / "run", settings, resume=True) == settings  # continue it
    assert prepare_output(tmp_path / "run", {"seed": 0}, resume=True) == settings  # the settings given only
    with pytest.raises(ValueError, match=r"different settings \(seed: 0 saved vs 1 given\)"):
        prepare_output(tmp_path / "run", {"seed": 1}, resume=True)
    assert prepare_output(tmp_path / "run", settings) is None  # replaced by a new run (pretrain's default)
    with pytest.raises(ValueError, match="already holds a checkpoint; use --resume"):
        prepare_output(tmp_path / "run", settings, overwrite=False)
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "thesis.txt").write_text("mine", encoding="utf-8")
    for overwrite in (True, False):  # other files are never replaced
        with pytest.raises(ValueError, match=r"not a bertedu checkpoint \(thesis\.txt\)"):
            prepare_output(tmp_path / "notes", settings, overwrite=overwrite)
    with pytest.raises(ValueError, match="is a file, not a folder"):
        prepare_output(tmp_path / "notes" / "thesis.txt", settings)
