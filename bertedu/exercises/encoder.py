"""Exercises for notebook 05 (the Transformer encoder): count a layer's parameters, fix two real bugs.

- :data:`layer_parameters`: write ``layer_parameters(H, d_ff)``, the parameter count of one encoder layer.
- :data:`merge_heads`: find the bug: heads merged without moving the head axis back first.
- :data:`post_ln_layer`: find the bug: a layer written in pre-LN order (and the LayerNorm ``eps`` trap).

Each exercise wraps a plain checker ``check_xxx(answer) -> (passed, message)`` that the unit tests call.
The checkers compare against the package (``bertedu.model.parameter_breakdown``; merging must undo
``bertedu.attention.BertSelfAttention.split_heads``; ``bertedu.encoder.BertLayer``), so the reference is the
code the course teaches, and they name the typical mistakes. (Notebook 01 has the split-side twin of the
merge exercise.)

Introduced in notebook 05.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable

import torch
import torch.nn.functional as F

from bertedu.attention import BertSelfAttention
from bertedu.config import BertConfig
from bertedu.encoder import BertLayer
from bertedu.exercises.core import Exercise
from bertedu.model import parameter_breakdown

__all__ = [
    "check_layer_parameters",
    "check_merge_heads",
    "check_post_ln_layer",
    "layer_parameters",
    "merge_heads",
    "post_ln_layer",
]


# ------------------------------------------------------------------------------------------------------
# 1. Parameters of one encoder layer.
# ------------------------------------------------------------------------------------------------------
# (H, d_ff) pairs the student's function is tried on. Some have d_ff != 4H, so "12 H²" cannot pass by luck.
_SIZES = ((768, 3072), (128, 512), (384, 1536), (64, 100), (10, 7))


def _reference_layer_parameters(H: int, d_ff: int) -> int:
    """The package's count for one layer (``bertedu.model.parameter_breakdown``)."""
    config = BertConfig(hidden_size=H, num_attention_heads=1, intermediate_size=d_ff, num_hidden_layers=1)
    return parameter_breakdown(config)["encoder_layer"]


# Typical wrong formulas and what each one forgot. Checked in this order; the first that matches every
# (H, d_ff) pair names the mistake.
_LAYER_MISTAKES: tuple[tuple[Callable[[int, int], int], str], ...] = (
    (
        lambda H, d_ff: 12 * H * H,
        "that is the rough rule 12·H² (weight matrices only, and it assumes d_ff = 4H). Count exactly: the FFN "
        "matrices are H×d_ff and d_ff×H, every dense layer has a bias, every LayerNorm a γ and a β.",
    ),
    (
        lambda H, d_ff: 4 * H * H + 2 * H * d_ff,
        "you counted the weight matrices only. Add the biases (one per output unit of each dense layer) and "
        "the two LayerNorms (γ and β, H numbers each).",
    ),
    (
        lambda H, d_ff: 4 * H * H + 2 * H * d_ff + 5 * H + d_ff,
        "weights and biases are right, but the two LayerNorms are missing: each has γ and β of size H (4H in all).",
    ),
    (
        lambda H, d_ff: 4 * H * H + 2 * H * d_ff + 7 * H + d_ff,
        "one LayerNorm is missing: a BERT layer has two (after attention and after the FFN), each with γ and β.",
    ),
    (
        lambda H, d_ff: 4 * H * H + 2 * H * d_ff + 4 * H,
        "the weight matrices and LayerNorms are right, but the biases are missing: 4H for Q, K, V and the "
        "attention output, d_ff for the first FFN layer and H for the second.",
    ),
    (
        lambda H, d_ff: 3 * H * H + 2 * H * d_ff + 8 * H + d_ff,
        "you forgot the attention output projection W^O (an H×H matrix and its bias) that follows the "
        "concatenation of the heads.",
    ),
    (
        lambda H, d_ff: 4 * H * H + H * d_ff + 8 * H,
        "the FFN has two dense layers (H→d_ff and d_ff→H), each with its own weights and bias; you counted one.",
    ),
    (
        lambda H, d_ff: 4 * H * H + 2 * H * d_ff + 13 * H,
        "you used 4H for the FFN's inner bias; use d_ff (it is given separately and need not be 4H).",
    ),
)


def check_layer_parameters(fn: Callable[[int, int], int]) -> tuple[bool, str]:
    """``fn(H, d_ff)`` must return the parameter count of one BERT encoder layer for every size tried."""
    if not callable(fn):
        return False, "pass your function itself, e.g. `check(layer_parameters)` (no parentheses)."
    got = {}
    for H, d_ff in _SIZES:
        value = fn(H, d_ff)
        if value is Ellipsis:
            return False, "your function still returns `...`: replace it with the formula in H and d_ff."
        if isinstance(value, torch.Tensor) and value.numel() == 1:
            value = value.item()
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            return False, f"layer_parameters({H}, {d_ff}) returned {value!r}; return a whole number (an int)."
        if float(value) != int(value):
            return (
                False,
                f"layer_parameters({H}, {d_ff}) returned {value}, which is not a whole number of parameters.",
            )
        got[(H, d_ff)] = int(value)
    expected = {size: _reference_layer_parameters(*size) for size in _SIZES}
    if got == expected:
        return True, (
            f"4H² + 2H·d_ff + 9H + d_ff. For BERT-base (H = 768, d_ff = 3072) that is {expected[(768, 3072)]:,} "
            "parameters per layer."
        )
    for formula, message in _LAYER_MISTAKES:
        if all(got[size] == formula(*size) for size in _SIZES):
            return False, f"Close: {message}"
    H, d_ff = next(size for size in _SIZES if got[size] != expected[size])
    diff = got[(H, d_ff)] - expected[(H, d_ff)]
    return False, (
        f"for H = {H}, d_ff = {d_ff} your function gives {got[(H, d_ff)]:,}, which is {abs(diff):,} too "
        f"{'many' if diff > 0 else 'few'}. List the tensors of one layer: query, key, value and attention "
        "output dense (H×H + H each), LayerNorm (2H), intermediate dense (H×d_ff + d_ff), output dense "
        "(d_ff×H + H), LayerNorm (2H)."
    )


layer_parameters = Exercise(
    name="layer_parameters",
    prompt=(
        "Write `layer_parameters(H, d_ff)`: the number of parameters of one BERT encoder layer with hidden "
        "size H and feed-forward size d_ff (the config's intermediate_size), biases and LayerNorms included."
    ),
    checker=check_layer_parameters,
    hints=[
        "Walk through `BertLayer`: `attention.self.query/key/value`, `attention.output.dense`, "
        "`attention.output.LayerNorm`, `intermediate.dense`, `output.dense`, `output.LayerNorm`.",
        "An `nn.Linear(a, b)` has a·b weights and b biases; an `nn.LayerNorm(H)` has γ and β, H each.",
        "Attention: 4·(H² + H). LayerNorms: 2·2H. FFN: (H·d_ff + d_ff) + (d_ff·H + H). Add them up.",
    ],
    solution_code="""
def layer_parameters(H, d_ff):
    attention = 4 * (H * H + H)              # W_Q, W_K, W_V, W_O with their biases
    ffn = (H * d_ff + d_ff) + (d_ff * H + H)  # H -> d_ff -> H, with biases
    layer_norms = 2 * (2 * H)                # two LayerNorms, gamma and beta each
    return attention + ffn + layer_norms     # = 4H² + 2H·d_ff + 9H + d_ff
""",
)


# ------------------------------------------------------------------------------------------------------
# 2. Find the bug: merging heads (Concat(head_1, ..., head_A)).
# ------------------------------------------------------------------------------------------------------
def _split_with_package(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """``BertSelfAttention.split_heads`` for a config with H = x.size(-1): (B, T, H) -> (B, A, T, d)."""
    config = BertConfig(
        hidden_size=x.size(-1), num_attention_heads=num_heads, num_hidden_layers=1, intermediate_size=4
    )
    return BertSelfAttention(config).split_heads(x)


def check_merge_heads(fn: Callable[[torch.Tensor], torch.Tensor]) -> tuple[bool, str]:
    """``fn(context)`` must turn ``(B, A, T, d)`` back into ``(B, T, H)``: the inverse of ``split_heads``."""
    if not callable(fn):
        return False, "pass your function itself, e.g. `check(merge_heads)` (no parentheses)."
    for B, T, H, A in ((2, 5, 12, 3), (1, 6, 8, 4), (3, 7, 16, 2)):  # T != A, so shapes tell axes apart
        d = H // A
        x = torch.arange(B * T * H, dtype=torch.float32).view(
            B, T, H
        )  # every number tells where it came from
        context = _split_with_package(x, A).contiguous()  # (B, A, T, d), contiguous like weights @ V
        try:
            out = fn(context.clone())
        except RuntimeError as err:
            if "view" in str(err) and "stride" in str(err):
                return False, (
                    "`view` failed: after `transpose` the tensor is no longer contiguous in memory. Use "
                    "`.reshape(B, T, H)` (or `.contiguous().view(B, T, H)`) after the transpose."
                )
            raise
        if out is Ellipsis:
            return False, "your function still returns `...`: return the (B, T, H) tensor."
        if not isinstance(out, torch.Tensor):
            return False, f"merge_heads returned {type(out).__name__}; return a torch.Tensor."
        if tuple(out.shape) == (B, T, A, d):
            return False, (
                f"the shape is (B, T, heads, d) = {tuple(out.shape)}: you moved the head axis back but did not "
                "concatenate the heads. Finish with `.reshape(B, T, H)`."
            )
        if tuple(out.shape) != (B, T, H):
            return False, (
                f"for a context of shape (B, heads, T, d) = {(B, A, T, d)} the result must be (B, T, H) = "
                f"{(B, T, H)}, got {tuple(out.shape)}."
            )
        if torch.equal(out, x):
            continue
        if torch.equal(out, context.reshape(B, T, H)):
            return False, (
                "the shape is right but the numbers are not: `reshape(B, T, H)` on a (B, heads, T, d) tensor "
                "reads memory in order, so 'token 0' receives the first tokens of head 1 instead of every "
                "head's output for token 0. Move the head axis back first: `.transpose(1, 2)`, then reshape."
            )
        if torch.equal(out, context.permute(0, 2, 3, 1).reshape(B, T, H)):
            return False, (
                "the heads are interleaved: Concat(head_1, ..., head_A) puts head 1's d features first, then "
                "head 2's, and so on. Transpose to (B, T, heads, d), not (B, T, d, heads), before reshaping."
            )
        return False, (
            f"the shape {tuple(out.shape)} is right but the values are not: out[b, t, j·d:(j+1)·d] must be "
            "head j's output for token t, context[b, j, t]."
        )
    return True, (
        "(B, heads, T, d) → transpose (B, T, heads, d) → reshape (B, T, H): each token gets the outputs of all "
        "its heads side by side, Concat(head_1, ..., head_A). It undoes `split_heads` exactly."
    )


merge_heads = Exercise(
    name="merge_heads",
    prompt=(
        "Find the bug: `merge_heads(context)` should turn the attention output of shape (B, heads, T, d) into "
        "(B, T, H), token t holding [head_1 | head_2 | ... ] for that token. It has the right shape but wrong "
        "numbers."
    ),
    checker=check_merge_heads,
    hints=[
        "Merging must undo `split_heads`, which was `view(B, T, heads, d)` then `transpose(1, 2)`. Undo the "
        "steps in reverse order.",
        "`reshape` never moves numbers; it re-reads memory in order. In a (B, heads, T, d) tensor all tokens of "
        "head 1 come first, so the head axis must be moved next to d before you flatten.",
        "`context.transpose(1, 2).reshape(B, T, heads * d)`.",
    ],
    solution_code="""
def merge_heads(context):
    B, A, T, d = context.shape
    return context.transpose(1, 2).reshape(B, T, A * d)   # (B, T, heads, d) -> (B, T, H)
""",
)


# ------------------------------------------------------------------------------------------------------
# 3. Find the bug: a layer in pre-LN order.
# ------------------------------------------------------------------------------------------------------
def _test_layer() -> BertLayer:
    """A small BertLayer with non-trivial LayerNorm γ, β (so forgetting one shows), dropout off."""
    config = BertConfig(
        hidden_size=16,
        num_attention_heads=4,
        intermediate_size=64,
        num_hidden_layers=1,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
    )
    generator = torch.Generator().manual_seed(5)
    layer = BertLayer(config).eval()
    with torch.no_grad():
        for p in layer.parameters():
            p.copy_(torch.randn(p.shape, generator=generator) * (0.3 if p.dim() > 1 else 0.1))
        for ln in (layer.attention.output.LayerNorm, layer.output.LayerNorm):
            ln.weight.add_(1.0)  # γ around 1, β around 0
    return layer


def _pre_ln(layer: BertLayer, x: torch.Tensor, final_norm: bool) -> torch.Tensor:
    attn, out = layer.attention, layer.output
    context, _ = attn.self(attn.output.LayerNorm(x))
    h = x + attn.output.dense(context)
    y = h + out.dense(layer.intermediate(out.LayerNorm(h)))
    return F.layer_norm(y, y.shape[-1:]) if final_norm else y


def _post_ln_eps(layer: BertLayer, x: torch.Tensor, eps: float) -> torch.Tensor:
    attn, out = layer.attention, layer.output
    ln1, ln2 = attn.output.LayerNorm, out.LayerNorm
    context, _ = attn.self(x)
    h = F.layer_norm(x + attn.output.dense(context), ln1.normalized_shape, ln1.weight, ln1.bias, eps)
    y = h + out.dense(layer.intermediate(h))
    return F.layer_norm(y, ln2.normalized_shape, ln2.weight, ln2.bias, eps)


def _no_residual(layer: BertLayer, x: torch.Tensor) -> torch.Tensor:
    attn, out = layer.attention, layer.output
    context, _ = attn.self(x)
    h = attn.output.LayerNorm(attn.output.dense(context))
    return out.LayerNorm(out.dense(layer.intermediate(h)))


def _ffn_reads_input(layer: BertLayer, x: torch.Tensor) -> torch.Tensor:
    attn, out = layer.attention, layer.output
    context, _ = attn.self(x)
    h = attn.output.LayerNorm(x + attn.output.dense(context))
    return out.LayerNorm(h + out.dense(layer.intermediate(x)))


def _close(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and torch.allclose(a, b, rtol=1e-5, atol=1e-6)


def check_post_ln_layer(fn: Callable[[BertLayer, torch.Tensor], torch.Tensor]) -> tuple[bool, str]:
    """``fn(layer, x)`` must compute ``BertLayer``'s post-LN forward from the layer's submodules."""
    if not callable(fn):
        return False, "pass your function itself, e.g. `check(encoder_layer)` (no parentheses)."
    layer = _test_layer()
    generator = torch.Generator().manual_seed(6)
    # Small activations (std 0.02), as in a freshly initialised BERT: there the LayerNorm eps matters.
    x = torch.randn(2, 5, 16, generator=generator) * 0.02
    with torch.no_grad():
        out = fn(layer, x.clone())
        if isinstance(out, tuple) and out and isinstance(out[0], torch.Tensor):
            out = out[0]
        if out is Ellipsis:
            return False, "your function still returns `...`: return the layer's output (B, T, H)."
        if not isinstance(out, torch.Tensor):
            return False, f"your function returned {type(out).__name__}; return the (B, T, H) tensor."
        expected, _ = layer(x)
        if out.shape != expected.shape:
            return (
                False,
                f"the output must have the input's shape (B, T, H) = {tuple(x.shape)}, got {tuple(out.shape)}.",
            )
        if _close(out, expected):
            return True, (
                "post-LN, as in BERT: H' = LN(H + Attn(H)), then out = LN(H' + FFN(H')). Residual first, "
                "then normalise."
            )
        if _close(out, _pre_ln(layer, x, False)) or _close(out, _pre_ln(layer, x, True)):
            return False, (
                "this is the pre-LN order, x + Attn(LN(x)), used by GPT-2 and many later models, not BERT. "
                "BERT is post-LN: add the residual first, then normalise: H' = LN(H + Attn(H)), "
                "out = LN(H' + FFN(H'))."
            )
        if _close(out, _post_ln_eps(layer, x, 1e-5)):
            return False, (
                "the order is right, but your LayerNorm uses eps = 1e-5 (PyTorch's default). BERT uses "
                "1e-12: use the layer's own LayerNorm modules (they carry eps = config.layer_norm_eps)."
            )
        if _close(out, _no_residual(layer, x)):
            return False, (
                "the residual connections are missing: each block normalises input + sublayer(input), "
                "LN(H + Attn(H)) and LN(H' + FFN(H')), not the sublayer output alone."
            )
        if _close(out, _ffn_reads_input(layer, x)):
            return False, (
                "the FFN must read H', the output of the attention block, not the layer input H: "
                "out = LN(H' + FFN(H'))."
            )
    return False, (
        "the output differs from BertLayer's. Post-LN: context = attention.self(x); "
        "h = attention.output.LayerNorm(x + attention.output.dense(context)); "
        "out = output.LayerNorm(h + output.dense(intermediate(h)))."
    )


post_ln_layer = Exercise(
    name="post_ln_layer",
    prompt=(
        "Find the bug: `encoder_layer(layer, x)` should compute a BERT layer's forward pass from the "
        "submodules of a `BertLayer`, but it is written in another order. Fix it so it equals `layer(x)[0]`."
    ),
    checker=check_post_ln_layer,
    hints=[
        "Where is each LayerNorm applied: to the input of a sublayer, or to the sum after the residual?",
        "The paper (following Vaswani et al.) uses LayerNorm(x + Sublayer(x)) around both sublayers.",
        "h = LN₁(x + W_O·Attn(x)); out = LN₂(h + W₂·GELU(W₁·h)).",
    ],
    solution_code="""
def encoder_layer(layer, x):
    attn, out = layer.attention, layer.output
    context, _ = attn.self(x)                                     # multi-head attention on x
    h = attn.output.LayerNorm(x + attn.output.dense(context))     # H' = LN(H + Attn(H))
    f = layer.intermediate(h)                                     # GELU(W_1 H' + b_1), (B, T, d_ff)
    return out.LayerNorm(h + out.dense(f))                        # LN(H' + FFN(H'))
""",
)
