"""The command line python -m bertedu.cli (bertedu.cli): help, training, one-line errors."""

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

import bertedu
from bertedu.cli import _settings, build_parser, main
from bertedu.core.config import PRESETS
from bertedu.training.checkpoint import load_checkpoint
from bertedu.training.pretrain import PretrainingConfig


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
    for preset in PRESETS:
        assert preset in text


def test_the_recipe_options_are_pretraining_configs_fields(capsys):
    """Issue 26: one name, one default, one help text: every option of the recipe is a PretrainingConfig field
    (its ``flag``), stored under the field's name, with the field's help, and the lowest value the config
    accepts is the lowest the command line accepts."""
    parser = build_parser()
    options = {a.dest: a for a in parser._actions}
    flagged = [f for f in dataclasses.fields(PretrainingConfig) if f.metadata.get("flag")]
    assert len(flagged) == 17
    for f in flagged:
        assert options[f.name].option_strings == [f.metadata["flag"]]
        assert options[f.name].help.replace("%%", "%").startswith(f.metadata["help"].split(":")[0])
    args = parser.parse_args(["--output", "o", "--lr", "0.01", "--threads", "2", "--mlm-eval", "m.tsv"])
    assert (args.learning_rate, args.num_threads, args.mlm_eval_file, args.steps) == (0.01, 2, "m.tsv", None)
    with pytest.raises(SystemExit):  # the command line checks by building the config
        _settings(parser, parser.parse_args(["--output", "o", "--max-length", "4"]))
    assert "--max-length: max_length must be an integer >= 5" in capsys.readouterr().err
    with pytest.raises(ValueError, match="max_length"):
        PretrainingConfig(max_length=4)


@pytest.mark.slow
def test_cli_trains_and_reports(corpus_files, tmp_path, capsys):
    out = tmp_path / "cli-run"
    code = main(
        [
            "--corpus",
            str(corpus_files / "corpus.txt"),
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
            str(corpus_files / "mlm.tsv"),
            "--nsp-eval",
            str(corpus_files / "nsp.tsv"),
            "--no-progress",
        ]
    )
    printed = capsys.readouterr().out
    assert code == 0
    assert "step 3/3" in printed and "cli-run" in printed
    assert "Last training steps: loss" in printed and "Held-out: masked-word top-1" in printed
    assert "NSP accuracy" in printed
    ckpt = load_checkpoint(out)
    config = ckpt.run_config
    assert config["steps"] == 3 and config["learning_rate"] == 1e-3 and config["model_size"] == "test"


def run_cli(args, cwd):
    env = dict(os.environ, PYTHONPATH=str(Path(bertedu.__file__).resolve().parents[1]))
    return subprocess.run(
        [sys.executable, "-m", "bertedu.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.mark.integration
def test_module_entry_point(corpus_files):
    result = run_cli(["--help"], cwd=corpus_files)
    assert result.returncode == 0 and "--resume" in result.stdout
    result = run_cli(["--corpus", "corpus.txt", "--output", "out", "--steps", "-5"], cwd=corpus_files)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "python -m bertedu.cli: error: argument --steps: steps must be a positive integer, got -5 (see --help)"
    )


@pytest.mark.parametrize(
    "args, message",
    [
        (["--corpus", "missing.txt", "--output", "out"], "corpus file missing.txt does not exist"),
        (
            ["--corpus", "corpus.txt", "--output", "out", "--steps", "0"],
            "--steps: steps must be a positive integer",
        ),
        (
            ["--corpus", "corpus.txt", "--output", "out", "--batch-size", "-1"],
            "--batch-size: batch_size must be a positive integer",
        ),
        (["--corpus", "corpus.txt", "--output", "out", "--lr", "fast"], "--lr: expected a number"),
        (
            ["--corpus", "corpus.txt", "--output", "out", "--lr", "3"],
            "--lr: learning_rate must be a number in (0, 1) (e.g. 1e-3)",
        ),
        (["--corpus", "corpus.txt", "--output", "corpus.txt/run"], "Cannot write to"),
        (["--corpus", "corpus.txt", "--output", "out", "--mlm-eval", "nope.tsv"], "evaluation file nope.tsv"),
        (["--output", "empty", "--resume"], "holds no checkpoint"),
        (["--output", "out"], "--corpus is required"),
        (["--corpus", "corpus.txt"], "--output"),
        (["--corpus", "corpus.txt", "--output", "out", "--preset", "giant"], "invalid choice"),
    ],
)
def test_cli_bad_arguments_give_one_line_errors(corpus_files, args, message, monkeypatch, capsys):
    monkeypatch.chdir(corpus_files)
    try:
        code = main(args)
    except SystemExit as exit_info:  # argparse's own checks
        code = exit_info.code
    err = capsys.readouterr().err
    assert code != 0
    assert message in err
    assert len(err.strip().splitlines()) == 1, err
    assert not (corpus_files / "out").exists()


@pytest.mark.slow
def test_cli_refuses_to_overwrite_or_change_a_resumed_run(corpus_files, tmp_path, capsys):
    out = tmp_path / "run"
    base = [
        "--corpus",
        str(corpus_files / "corpus.txt"),
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
    assert load_checkpoint(out).run_config["seed"] == 5


# --- issue 14: refused up front, named in one line ----------------------------------------------------------------
@pytest.mark.parametrize("output", [".", "", ".."])
def test_cli_refuses_the_working_folder_before_training(corpus_files, tmp_path, monkeypatch, capsys, output):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setattr("bertedu.cli.pretrain", lambda *a, **k: pytest.fail("training started"))
    code = main(
        ["--corpus", str(corpus_files / "corpus.txt"), "--output", output, "--threads", "1", "--no-progress"]
    )
    err = capsys.readouterr().err
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert "saving replaces the whole folder" in err or "output folder is empty" in err
    assert list(work.iterdir()) == []


def test_cli_says_a_corpus_folder_is_a_folder(corpus_files, capsys):
    code = main(["--corpus", str(corpus_files), "--output", str(corpus_files / "out")])
    err = capsys.readouterr().err
    assert code == 1 and "is a folder, not a file" in err and "does not exist" not in err


def test_cli_reports_a_diverged_run_in_one_line(corpus_files, tmp_path, capsys):
    args = [
        "--corpus",
        str(corpus_files / "corpus.txt"),
        "--output",
        str(tmp_path / "run"),
        "--preset",
        "test",
    ]
    args += [
        "--steps",
        "30",
        "--batch-size",
        "4",
        "--lr",
        "0.99",
        "--warmup",
        "0",
        "--seed",
        "1",
        "--no-progress",
    ]
    code = main(args)
    captured = capsys.readouterr()
    assert code == 0 and "Training finished at step 30/30" in captured.out
    warning = [line for line in captured.err.splitlines() if "warning" in line]
    assert len(warning) == 1, captured.err
    assert warning[0].startswith("python -m bertedu.cli: warning: Training diverged: the loss ended at")
    assert "lower learning rate (now 0.99" in warning[0]
