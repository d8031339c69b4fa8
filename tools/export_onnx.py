"""Export notebook 06's mini-BERT to ONNX for the course's web page (the model runs in the browser).

    python tools/export_onnx.py [--model runs/mini-bert] [--out build/web/minibert] [--no-check]

writes into the output folder:

- ``model.onnx``: inputs ``input_ids``, ``attention_mask``, ``token_type_ids`` (int64, ``(B, T)``; 1 = real token,
  0 = padding), outputs ``logits`` (MLM, float32 ``(B, T, V)``) and ``attentions`` (every layer's and head's
  attention weights, float32 ``(B, L, A, T, T)``); batch and sequence axes are dynamic (T up to the model's
  ``max_position_embeddings``);
- ``vocab.txt`` and ``tokenizer_config.json``: the course tokenizer (WordPiece), for the page's tokenizer;
- ``minibert.json``: what the page needs to know (layers, heads, maximum length, special tokens and their ids,
  the tokenizer's settings) and the check below.

The model is exported with PyTorch's TorchScript exporter (``torch.onnx.export(..., dynamo=False)``), traced in
eval mode on a *padded* input. Two reasons: ``torch.export`` (the dynamo exporter) refuses ``BertModel.forward``
at its data-dependent branch ``bool(attention_mask.all())`` (the fast path that skips the mask when nothing is
padded), and tracing a padded input records the masked path, which is right for every input (a mask of ones
changes nothing). Then, unless ``--no-check``, ONNX Runtime is compared with PyTorch at several lengths and
paddings (:func:`compare`): logits within 1e-4 and the same top-5 at every real position, or the tool fails.

The model is notebook 06's, from ``runs/mini-bert`` (loaded with :func:`bertedu.course.load_course_model`).
When that folder holds no trained model, the tool says how to make one (a checkpoint of another recipe or corpus is
retrained by the loader, about a minute); ``--random`` exports a small model with random weights (seed 0) instead,
as the tests do. Introduced for the course's web site.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

import torch
from torch import nn

from bertedu.core.config import BertConfig
from bertedu.core.model import BertForPreTraining
from bertedu.core.tokenizer import BertTokenizer
from bertedu.files import atomic_write_text

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_MODEL = ROOT / "runs" / "mini-bert"
DEFAULT_OUT = ROOT / "build" / "web" / "minibert"
OPSET = 17  # LayerNormalization is an ONNX operator from 17 on; onnxruntime-web runs it
LOGITS_ATOL = 1e-4
MAKE_MODEL_HINT = (
    "Train it first (about a minute on one free CPU core): run notebook 06 "
    "(make notebooks NB=notebooks/06_mini_pretraining.ipynb), or "
    '.venv/bin/python -c "from bertedu.course import load_course_model; load_course_model()". '
    "Or export a small random model with --random."
)


class MaskedLmWithAttentions(nn.Module):
    """A ``BertForPreTraining`` seen as the page uses it: ids in, MLM logits and every attention map out.

    ``(input_ids, attention_mask, token_type_ids)`` each ``(B, T)`` → ``logits (B, T, V)``,
    ``attentions (B, L, A, T, T)``.
    """

    def __init__(self, model: BertForPreTraining):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask, token_type_ids):
        out = self.model(input_ids, attention_mask, token_type_ids, output_attentions=True)
        return out.prediction_logits, torch.stack(out.attentions, dim=1)  # (B, T, V), (B, L, A, T, T)


def random_model(vocab_size: int, seed: int = 0, **sizes) -> BertForPreTraining:
    """A small ``BertForPreTraining`` with random weights (seed ``seed``), in eval mode: for tests and demos."""
    torch.manual_seed(seed)
    settings = dict(
        num_hidden_layers=2,
        hidden_size=32,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
    )
    config = BertConfig(vocab_size=vocab_size, **{**settings, **sizes})
    return BertForPreTraining(config).eval()


def padded_example(config: BertConfig, lengths: Sequence[int], pad_id: int = 0) -> dict[str, torch.Tensor]:
    """A batch of random ids, one row per length in ``lengths``, padded to the longest with ``pad_id``."""
    generator = torch.Generator().manual_seed(len(lengths) * 1000 + max(lengths))
    T = max(lengths)
    input_ids = torch.randint(5, config.vocab_size, (len(lengths), T), generator=generator)
    attention_mask = torch.zeros(len(lengths), T, dtype=torch.long)
    for row, n in enumerate(lengths):
        attention_mask[row, :n] = 1
    input_ids = input_ids.masked_fill(attention_mask == 0, pad_id)
    return {
        "input_ids": input_ids,
        "attention_mask": attention_mask,
        "token_type_ids": torch.zeros_like(input_ids),
    }


def export_onnx(model: BertForPreTraining, path: str | Path, pad_id: int = 0) -> Path:
    """Write ``model`` (eval mode) to ``path`` as ONNX: traced on a padded batch, dynamic batch and sequence axes."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    model.eval()
    wrapper = MaskedLmWithAttentions(model).eval()
    example = padded_example(model.config, [12, 7], pad_id)  # padded: the traced graph keeps the key mask
    sequence = {0: "batch", 1: "sequence"}
    with torch.no_grad(), warnings.catch_warnings():
        # tracing turns the input checks' Python comparisons into constants: expected, and harmless here
        warnings.simplefilter("ignore", torch.jit.TracerWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(
            wrapper,
            (example["input_ids"], example["attention_mask"], example["token_type_ids"]),
            str(path),
            dynamo=False,
            opset_version=OPSET,
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["logits", "attentions"],
            dynamic_axes={
                "input_ids": sequence,
                "attention_mask": sequence,
                "token_type_ids": sequence,
                "logits": sequence,
                "attentions": {0: "batch", 3: "sequence", 4: "keys"},
            },
        )
    return path


def compare(
    model: BertForPreTraining,
    onnx_path: str | Path,
    batches: Sequence[Sequence[int]] = ((5,), (9,), (20,), (9, 20), (3, 12, 31), (64,)),
    pad_id: int = 0,
) -> list[dict]:
    """Run ONNX Runtime and PyTorch on padded batches (one per tuple of lengths); one report per batch.

    Each report: ``lengths``, ``max_logit_diff`` and ``max_attention_diff`` over the real positions, and
    ``top5_equal`` (the same five ids, in the same order, at every real position).
    """
    import onnxruntime

    session = onnxruntime.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    reports = []
    for lengths in batches:
        lengths = [min(n, model.config.max_position_embeddings) for n in lengths]
        batch = padded_example(model.config, lengths, pad_id)
        with torch.no_grad():
            out = model(**batch, output_attentions=True)
        logits, attentions = session.run(None, {k: v.numpy() for k, v in batch.items()})
        real = batch["attention_mask"].bool()  # (B, T)
        torch_logits = out.prediction_logits[real]  # (N, V)
        onnx_logits = torch.from_numpy(logits)[real]
        torch_att = torch.stack(out.attentions, dim=1)  # (B, L, A, T, T)
        att_diff = max(
            (torch.from_numpy(attentions)[b, :, :, :n, :n] - torch_att[b, :, :, :n, :n]).abs().max().item()
            for b, n in enumerate(lengths)
        )
        reports.append(
            {
                "lengths": list(lengths),
                "max_logit_diff": (onnx_logits - torch_logits).abs().max().item(),
                "max_attention_diff": att_diff,
                "top5_equal": bool(
                    (onnx_logits.topk(5, dim=-1).indices == torch_logits.topk(5, dim=-1).indices).all()
                ),
            }
        )
    return reports


def page_settings(model: BertForPreTraining, tokenizer: BertTokenizer) -> dict:
    """What the web page needs besides the weights: sizes, special tokens, the tokenizer's settings."""
    config = model.config
    special = {name: getattr(tokenizer, f"{name}_token") for name in ("pad", "unk", "cls", "sep", "mask")}
    return {
        "num_hidden_layers": config.num_hidden_layers,
        "num_attention_heads": config.num_attention_heads,
        "hidden_size": config.hidden_size,
        "vocab_size": config.vocab_size,
        "max_length": config.max_position_embeddings,
        "special_tokens": special,
        "special_ids": {name: tokenizer.convert_tokens_to_ids(tok) for name, tok in special.items()},
        "tokenizer": {
            "do_lower_case": tokenizer.do_lower_case,
            "strip_accents": tokenizer.strip_accents,
            "tokenize_chinese_chars": tokenizer.tokenize_chinese_chars,
        },
    }


def load_model(model_dir: Path | None, use_random: bool) -> tuple[BertForPreTraining, BertTokenizer]:
    """Notebook 06's model and tokenizer (or a random model on the course vocabulary with ``use_random``)."""
    if use_random:
        from bertedu.course import course_tokenizer

        tokenizer = course_tokenizer()
        return random_model(tokenizer.vocab_size), tokenizer
    from bertedu.training.checkpoint import is_checkpoint

    directory = DEFAULT_MODEL if model_dir is None else Path(model_dir)
    if not is_checkpoint(directory):
        raise FileNotFoundError(f"No trained course model in {directory}. {MAKE_MODEL_HINT}")
    from bertedu.course import load_course_model

    model, tokenizer = load_course_model(directory)
    return model.eval(), tokenizer


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python tools/export_onnx.py",
        description="Export notebook 06's mini-BERT to ONNX (MLM logits and attention maps) for the web page.",
    )
    parser.add_argument("--model", type=Path, default=None, help=f"model folder (default: {DEFAULT_MODEL})")
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help=f"output folder (default: {DEFAULT_OUT})"
    )
    parser.add_argument("--random", action="store_true", help="export a small random model (seed 0) instead")
    parser.add_argument("--no-check", action="store_true", help="skip the ONNX Runtime vs PyTorch comparison")
    args = parser.parse_args(argv)
    try:
        model, tokenizer = load_model(args.model, args.random)
    except FileNotFoundError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    onnx_path = export_onnx(model, args.out / "model.onnx", pad_id=tokenizer.pad_token_id)
    tokenizer.save_pretrained(args.out)  # vocab.txt and tokenizer_config.json
    settings = page_settings(model, tokenizer)
    if not args.no_check:
        reports = compare(model, onnx_path, pad_id=tokenizer.pad_token_id)
        settings["check"] = reports
        bad = [r for r in reports if r["max_logit_diff"] > LOGITS_ATOL or not r["top5_equal"]]
        if bad:
            print(f"error: ONNX Runtime and PyTorch differ: {bad}", file=sys.stderr)
            return 1
        worst = max(r["max_logit_diff"] for r in reports)
        print(
            f"ONNX Runtime matches PyTorch at lengths {[r['lengths'] for r in reports]}: logits within {worst:.1e}."
        )
    atomic_write_text(args.out / "minibert.json", json.dumps(settings, indent=1, ensure_ascii=False) + "\n")
    size = onnx_path.stat().st_size / 1e6
    print(f"Wrote {onnx_path} ({size:.1f} MB), vocab.txt and minibert.json to {args.out}.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
