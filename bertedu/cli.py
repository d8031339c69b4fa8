"""The command line ``python -m bertedu.cli``: pretrain a BERT on a text file and save a checkpoint.

    python -m bertedu.cli --corpus data/simple_sentences.txt --output runs/mini
    python -m bertedu.cli --output runs/mini --resume       # continue an interrupted run
    python -m bertedu.cli --help                            # every option
    torchrun --standalone --nproc_per_node=2 -m bertedu.cli --corpus ... --output ...   # 2 processes

The defaults are notebook 06's recipe (:func:`bertedu.course.course_config`), so the first command trains
the course mini-BERT. ``python -m bertedu.cli`` runs :func:`main`.
Errors a user can cause, and errors of the operating system (disk full, no permission, ...), end with one
line that says what went wrong and what to do (exit status 1; 2 for a bad option). Ctrl-C (SIGINT) or
SIGTERM (``kill``, a container stop) saves a checkpoint and exits with one line saying how to resume (exit
status 130 after SIGINT, 143 after SIGTERM). Under ``torchrun`` (several processes, docs/scaling.md) only
process 0 prints progress and results (every process prints its own errors); if a process dies, the others
end with one line saying so (exit status 1). Introduced in notebook 06.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import logging
import os
import sys
import warnings
from pathlib import Path

from bertedu.core.config import ATTN_IMPLEMENTATIONS, PRESETS
from bertedu.course import course_config
from bertedu.scaleout.distributed import ProcessGroupError, launched_rank
from bertedu.training.checkpoint import prepare_output
from bertedu.training.optim import TrainingDivergedError
from bertedu.training.pretrain import PretrainingConfig, TrainingInterrupted, pretrain
from bertedu.training.shards import is_shard_folder
from bertedu.utils import resolve_path


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage block): ``pretrain: error: ... (see --help)``."""

    def error(self, message: str):  # noqa: D401 - argparse's signature
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def _whole_number(minimum: int | None = None):
    """An argparse ``type`` reading a whole number (>= ``minimum`` if given: an option that is no setting of
    :class:`PretrainingConfig`; a setting's range is the config's to check), with a message that says what is
    wrong."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if minimum is not None and value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    return parse


def _number(example: str):
    """An argparse ``type`` reading a number (its range is the config's to check), with a message that says
    what is wrong."""

    def parse(text: str) -> float:
        try:
            return float(text)
        except ValueError:
            example_text = f" such as {example}" if example else ""
            raise argparse.ArgumentTypeError(f"expected a number{example_text}, got {text!r}") from None

    return parse


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m bertedu.cli``."""
    parser = _Parser(
        prog="python -m bertedu.cli",
        description="Pretrain a BERT with masked-LM + next-sentence prediction on a text corpus and save an "
        "HF-format checkpoint (config.json, model.safetensors, vocab.txt) plus the state needed to "
        "resume. Ctrl-C stops after the current step and saves a checkpoint.",
        epilog="Example: python -m bertedu.cli --corpus data/simple_sentences.txt --output runs/mini "
        "--mlm-eval data/mlm_eval.tsv --nsp-eval data/nsp_eval.tsv. Defaults are notebook 06's course "
        "recipe (bertedu.course.course_config), except the held-out files, which are only used when "
        "given.",
    )
    _add_folder_options(parser)
    _add_recipe_options(parser, _recipe())
    _add_run_options(parser)
    return parser


def _add_folder_options(parser: argparse.ArgumentParser) -> None:
    """Where the checkpoint goes (or which one continues). The corpus is a recipe option (``--corpus``)."""
    parser.add_argument(
        "--output", required=True, help="checkpoint folder to create (or to continue with --resume)"
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the interrupted run saved in --output "
        "with its own saved settings (other training options must be left out or equal)",
    )
    parser.add_argument("--overwrite", action="store_true", help="replace a checkpoint already in --output")


def _add_recipe_options(parser: argparse.ArgumentParser, recipe: PretrainingConfig) -> None:
    """One option per :class:`PretrainingConfig` field that has a ``flag``: the field's name (``dest``), help
    text and type (text to a number; the range is the config's to check, :func:`_settings`); the help shows
    the course recipe's value (``recipe``), the one used when the option is left out. Left out, an option is
    ``None`` (so ``--resume`` can tell what was given)."""
    for f in dataclasses.fields(PretrainingConfig):
        flag = f.metadata.get("flag")
        if flag is None:
            continue
        default = getattr(recipe, f.name)
        help_text = f.metadata["help"]
        kwargs: dict = {}
        if f.name == "model_size":
            sizes = ", ".join(
                f"{name} ({s['num_hidden_layers']}/{s['hidden_size']}/{s['num_attention_heads']})"
                for name, s in PRESETS.items()
            )
            help_text, kwargs["choices"] = f"{help_text}: {sizes}", list(PRESETS)
        elif f.name == "attn_implementation":
            kwargs["choices"] = list(ATTN_IMPLEMENTATIONS)
        elif "low" in f.metadata:  # a whole number (its range: PretrainingConfig checks it, _settings)
            kwargs["type"] = _whole_number()
        elif "bounds" in f.metadata:  # a number (its range: the field's bounds, checked by the config)
            kwargs["type"] = _number(f.metadata["bounds"].example)
        if f.name == "corpus":
            help_text, default = f"{help_text} (required unless --resume)", None
        if default is not None:
            help_text = f"{help_text} (default: {default})"
        metavar = None if "choices" in kwargs else flag[2:].replace("-", "_").upper()
        parser.add_argument(flag, dest=f.name, metavar=metavar, help=help_text.replace("%", "%%"), **kwargs)


def _recipe() -> PretrainingConfig:
    """A new run's settings for the options left out: notebook 06's, without its held-out files."""
    return course_config(mlm_eval_file=None, nsp_eval_file=None)


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    """How the run executes (the result does not depend on these): micro-batches, device, progress bar."""
    parser.add_argument(
        "--grad-accum",
        type=_whole_number(1),
        default=1,
        help="gradient accumulation: run each batch (--batch-size, the global batch of all processes) as N "
        "micro-batches one after the other, adding up their gradients: less memory, the same result (default: 1)",
    )
    parser.add_argument(
        "--device",
        default="auto",
        help="where to train: auto (a CUDA GPU if PyTorch sees one, else the CPU), cpu, cuda or cuda:N "
        "(default: auto)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def _settings(parser: argparse.ArgumentParser, args: argparse.Namespace) -> tuple[dict, PretrainingConfig]:
    """The settings given on the command line, and the recipe with them: ``(given, config)``.

    The command line checks no range of its own: building the config checks every setting against its field's
    range (``low``, ``bounds``), and a refused one is a bad option (exit status 2, nothing written yet)."""
    flags = {
        f.name: f.metadata["flag"] for f in dataclasses.fields(PretrainingConfig) if f.metadata.get("flag")
    }
    given = {name: getattr(args, name) for name in flags if getattr(args, name) is not None}
    try:
        return given, _recipe().replace(**given)
    except ValueError as err:
        message = str(err).rstrip(".")
        flag = next((flags[name] for name in given if message.startswith(f"{name} must be ")), None)
        parser.error(f"argument {flag}: {message}" if flag else message)


def _config_from_args(
    parser: argparse.ArgumentParser, args: argparse.Namespace, output: Path
) -> PretrainingConfig:
    given, config = _settings(parser, args)
    # may the run start in (or continue from) --output? The same gate pretrain() passes.
    saved = prepare_output(output, given, resume=args.resume, overwrite=args.overwrite)
    if args.resume:  # the saved run, with its own settings
        return PretrainingConfig.from_dict(saved)
    if "corpus" not in given:
        raise ValueError("--corpus is required (e.g. --corpus data/simple_sentences.txt).")
    for key, kind in (("corpus", "corpus"), ("mlm_eval_file", "evaluation"), ("nsp_eval_file", "evaluation")):
        if key in given:
            _check_input_file(given[key], kind)
    return config


def _check_input_file(name: str, kind: str) -> None:
    path = resolve_path(name)
    if kind == "corpus" and is_shard_folder(path):  # tokenized shards (python -m bertedu.training.shards)
        return
    if path.is_dir():
        raise ValueError(
            f"{kind} file {name} is a folder, not a file; give the text file itself "
            f"(e.g. {Path(name) / 'corpus.txt'})."
            if kind == "corpus"
            else f"{kind} file {name} is a folder, not a file; give the .tsv file itself."
        )
    if not path.is_file():
        raise ValueError(f"{kind} file {name} does not exist.")


def _format_metrics(metrics: dict[str, float], held_out: bool) -> str:
    names = (
        {"mlm_accuracy": "masked-word top-1", "mlm_top5_accuracy": "top-5", "nsp_accuracy": "NSP accuracy"}
        if held_out
        else {
            "loss": "loss",
            "mlm_loss": "MLM loss",
            "nsp_loss": "NSP loss",
            "mlm_accuracy": "MLM accuracy",
            "nsp_accuracy": "NSP accuracy",
        }
    )
    return ", ".join(f"{names[k]} {metrics[k]:.3f}" for k in names if k in metrics)


def _display_path(path: Path) -> str:
    """``path`` relative to the working directory when it is inside it (outputs never show home folders)."""
    with contextlib.suppress(ValueError):
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    return str(path)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m bertedu.cli``; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    output = Path(args.output) if args.output else args.output  # "" stays "": real_target names it
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    main_process = launched_rank() == 0  # under torchrun, process 0 does the talking
    try:
        config = _config_from_args(parser, args, output)
        with warnings.catch_warnings():  # warnings (a diverged run, a skipped line) as one line each

            def show(message, category, filename, lineno, file=None, line=None):
                print(f"{parser.prog}: warning: {_one_line(message)}", file=sys.stderr)

            warnings.showwarning = show
            if not main_process:  # torchrun's other processes: process 0 says it once
                warnings.simplefilter("ignore")
            run = pretrain(
                config,
                output,
                resume=args.resume,
                progress=not args.no_progress,
                grad_accum=args.grad_accum,
                device=args.device,
                overwrite=args.overwrite,
            )
    except ProcessGroupError as err:  # another process of a torchrun job stopped: this one cannot go on
        print(f"{parser.prog}: error: {_one_line(err)}", file=sys.stderr)
        _state["group_broken"] = True
        return 1
    except TrainingInterrupted as stop:
        if not main_process:
            return 130 if stop.signal == "SIGINT" else 143
        what = "interrupted" if stop.signal == "SIGINT" else "stopped by SIGTERM"
        print(
            f"{parser.prog}: {what} at step {stop.step}/{stop.total_steps}; checkpoint saved in "
            f"{_display_path(output)}. Resume with: {parser.prog} --output {_display_path(output)} --resume",
            file=sys.stderr,
        )
        return 130 if stop.signal == "SIGINT" else 143
    except KeyboardInterrupt:  # a second signal (or one before training started): stopped at once
        print(
            f"{parser.prog}: interrupted at once; the last checkpoint saved in {_display_path(output)}, if any, "
            "is kept (resume it with --resume)",
            file=sys.stderr,
        )
        return 130
    except (ValueError, OSError, TrainingDivergedError) as err:  # OSError: disk full, permissions, ...
        print(f"{parser.prog}: error: {_one_line(err)}", file=sys.stderr)
        return 1
    if not main_process:
        return 130 if run.interrupted else 0
    state = "stopped early" if run.interrupted else "finished"
    print(f"Training {state} at step {run.step}/{config.steps}. Checkpoint: {_display_path(output)}")
    if run.final_train_record:
        print(f"Last training steps: {_format_metrics(run.final_train_record, held_out=False)}")
    if run.metrics:
        print(f"Held-out: {_format_metrics(run.metrics, held_out=True)}")
    if run.interrupted:
        print(f"Resume with: {parser.prog} --output {_display_path(output)} --resume")
    return 130 if run.interrupted else 0


def _one_line(err: object) -> str:
    """A message on one line (``repr`` if it has no text)."""
    return " ".join(str(err).split()) or repr(err)


#: What ``main`` found that the program's exit must know.
_state = {"group_broken": False}


def _exit(status: int) -> None:
    """Exit with ``status``. After a torchrun partner died, leave at once (``os._exit``, the streams flushed):
    tearing down a process group whose peer is gone can abort in gloo's C++ threads ("terminate called without
    an active exception", exit status -6) after the clear message was already printed."""
    if _state["group_broken"]:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    sys.exit(status)


if __name__ == "__main__":
    _exit(main())
