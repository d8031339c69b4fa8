"""Exercises for notebook 05 (the Transformer encoder): count a layer's parameters, fix two real bugs.

- :data:`layer_parameters`: write ``layer_parameters(H, d_ff)``, the parameter count of one encoder layer.
- :data:`merge_heads`: find the bug: heads merged without moving the head axis back first.
- :data:`post_ln_layer`: find the bug: a layer written in pre-LN order (and the LayerNorm ``eps`` trap).
- :data:`multi_head_attention` (write the module): ``MultiHeadSelfAttention(config)`` with the key mask,
  checked against ``BertSelfAttention`` on random inputs, with and without padding, in eval and train mode.

Each exercise wraps a plain checker ``check_xxx(answer) -> (passed, message)`` that the unit tests call.
The checkers compare against the package (``bertedu.core.model.parameter_breakdown``; merging must undo
``bertedu.core.attention.BertSelfAttention.split_heads``; ``bertedu.core.encoder.BertLayer``), so the reference is the
code the course teaches, and they name the typical mistakes. (Notebook 01 has the split-side twin of the
merge exercise.) The module is longer than most because it holds one notebook's exercises, each with its
checker, feedback and reference solution.

Introduced in notebook 05.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable

import torch
import torch.nn.functional as F

from bertedu.core.attention import BertSelfAttention, build_key_mask
from bertedu.core.config import BertConfig
from bertedu.core.encoder import BertLayer
from bertedu.core.model import parameter_breakdown
from bertedu.language import msg, translatable, translate
from bertedu.teaching.exercises.core import Diagnosis, Exercise, expects_function
from bertedu.teaching.exercises.nn_checks import (
    build,
    close,
    copy_weights,
    output_tensor,
    random_init,
    run_checks,
    seeded,
)

# ------------------------------------------------------------------------------------------------------
# 1. Parameters of one encoder layer.
# ------------------------------------------------------------------------------------------------------
# (H, d_ff) pairs the student's function is tried on. Some have d_ff != 4H, so "12 H²" cannot pass by luck.
_SIZES = ((768, 3072), (128, 512), (384, 1536), (64, 100), (10, 7))


def _reference_layer_parameters(H: int, d_ff: int) -> int:
    """The package's count for one layer (``bertedu.core.model.parameter_breakdown``)."""
    config = BertConfig(hidden_size=H, num_attention_heads=1, intermediate_size=d_ff, num_hidden_layers=1)
    return parameter_breakdown(config)["encoder_layer"]


# Typical wrong formulas and what each one forgot. Checked in this order; the first that matches every
# (H, d_ff) pair names the mistake.
_LAYER_MISTAKES: tuple[tuple[Callable[[int, int], int], str], ...] = (
    (
        lambda H, d_ff: 12 * H * H,
        translatable(
            "that is the rough rule 12·H² (weight matrices only, and it assumes d_ff = 4H). Count exactly: the FFN "
            "matrices are H×d_ff and d_ff×H, every dense layer has a bias, every LayerNorm a γ and a β."
        ),
    ),
    (
        lambda H, d_ff: 4 * H * H + 2 * H * d_ff,
        translatable(
            "you counted the weight matrices only. Add the biases (one per output unit of each dense layer) and "
            "the two LayerNorms (γ and β, H numbers each)."
        ),
    ),
    (
        lambda H, d_ff: 4 * H * H + 2 * H * d_ff + 5 * H + d_ff,
        translatable(
            "weights and biases are right, but the two LayerNorms are missing: each has γ and β of size H (4H in all)."
        ),
    ),
    (
        lambda H, d_ff: 4 * H * H + 2 * H * d_ff + 7 * H + d_ff,
        translatable(
            "one LayerNorm is missing: a BERT layer has two (after attention and after the FFN), each with γ and β."
        ),
    ),
    (
        lambda H, d_ff: 4 * H * H + 2 * H * d_ff + 4 * H,
        translatable(
            "the weight matrices and LayerNorms are right, but the biases are missing: 4H for Q, K, V and the "
            "attention output, d_ff for the first FFN layer and H for the second."
        ),
    ),
    (
        lambda H, d_ff: 3 * H * H + 2 * H * d_ff + 8 * H + d_ff,
        translatable(
            "you forgot the attention output projection W^O (an H×H matrix and its bias) that follows the "
            "concatenation of the heads."
        ),
    ),
    (
        lambda H, d_ff: 4 * H * H + H * d_ff + 8 * H,
        translatable(
            "the FFN has two dense layers (H→d_ff and d_ff→H), each with its own weights and bias; you counted one."
        ),
    ),
    (
        lambda H, d_ff: 4 * H * H + 2 * H * d_ff + 13 * H,
        translatable(
            "you used 4H for the FFN's inner bias; use d_ff (it is given separately and need not be 4H)."
        ),
    ),
)


@expects_function("check(layer_parameters)")
def check_layer_parameters(fn: Callable[[int, int], int]) -> tuple[bool, str]:
    """``fn(H, d_ff)`` must return the parameter count of one BERT encoder layer for every size tried."""
    got = {}
    for H, d_ff in _SIZES:
        value = fn(H, d_ff)
        if value is Ellipsis:
            return False, msg("your function still returns `...`: replace it with the formula in H and d_ff.")
        if isinstance(value, torch.Tensor) and value.numel() == 1:
            value = value.item()
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            return False, msg(
                "layer_parameters({H}, {d_ff}) returned {value!r}; return a whole number (an int).",
                H=H,
                d_ff=d_ff,
                value=value,
            )
        if float(value) != int(value):
            return (
                False,
                msg(
                    "layer_parameters({H}, {d_ff}) returned {value}, which is not a whole number of parameters.",
                    H=H,
                    d_ff=d_ff,
                    value=value,
                ),
            )
        got[(H, d_ff)] = int(value)
    expected = {size: _reference_layer_parameters(*size) for size in _SIZES}
    if got == expected:
        return True, msg(
            "4H² + 2H·d_ff + 9H + d_ff. For BERT-base (H = 768, d_ff = 3072) that is {params:,} "
            "parameters per layer.",
            params=expected[768, 3072],
        )
    for formula, message in _LAYER_MISTAKES:
        if all(got[size] == formula(*size) for size in _SIZES):
            return False, msg("Close: {message}", message=translate(message))
    H, d_ff = next(size for size in _SIZES if got[size] != expected[size])
    diff = got[(H, d_ff)] - expected[(H, d_ff)]
    return False, msg(
        "for H = {H}, d_ff = {d_ff} your function gives {got:,}, which is {diff:,} too "
        "{many_or_few}. List the tensors of one layer: query, key, value and attention "
        "output dense (H×H + H each), LayerNorm (2H), intermediate dense (H×d_ff + d_ff), output dense "
        "(d_ff×H + H), LayerNorm (2H).",
        H=H,
        d_ff=d_ff,
        got=got[H, d_ff],
        diff=abs(diff),
        many_or_few=msg("many") if diff > 0 else msg("few"),
    )


layer_parameters = Exercise(
    name="layer_parameters",
    prompt=(
        "Write `layer_parameters(H, d_ff)`: the number of parameters of one BERT encoder layer with hidden "
        "size H and feed-forward size d_ff (the config's intermediate_size), biases and LayerNorms included."
    ),
    checker=check_layer_parameters,
    hints=[
        translatable(
            "Walk through `BertLayer`: `attention.self.query/key/value`, `attention.output.dense`, "
            "`attention.output.LayerNorm`, `intermediate.dense`, `output.dense`, `output.LayerNorm`."
        ),
        translatable(
            "An `nn.Linear(a, b)` has a·b weights and b biases; an `nn.LayerNorm(H)` has γ and β, H each."
        ),
        translatable(
            "Attention: 4·(H² + H). LayerNorms: 2·2H. FFN: (H·d_ff + d_ff) + (d_ff·H + H). Add them up."
        ),
    ],
    solution_code="""
def layer_parameters(H, d_ff):
    attention = 4 * (H * H + H)              # W_Q, W_K, W_V, W_O with their biases
    ffn = (H * d_ff + d_ff) + (d_ff * H + H)  # H -> d_ff -> H, with biases
    layer_norms = 2 * (2 * H)                # two LayerNorms, gamma and beta each
    return attention + ffn + layer_norms     # = 4H² + 2H·d_ff + 9H + d_ff
""",
    points=1,
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


@expects_function("check(merge_heads)")
def check_merge_heads(fn: Callable[[torch.Tensor], torch.Tensor]) -> tuple[bool, str]:
    """``fn(context)`` must turn ``(B, A, T, d)`` back into ``(B, T, H)``: the inverse of ``split_heads``."""
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
                return False, msg(
                    "`view` failed: after `transpose` the tensor is no longer contiguous in memory. Use "
                    "`.reshape(B, T, H)` (or `.contiguous().view(B, T, H)`) after the transpose."
                )
            raise
        if out is Ellipsis:
            return False, msg("your function still returns `...`: return the (B, T, H) tensor.")
        if not isinstance(out, torch.Tensor):
            return False, msg("merge_heads returned {type}; return a torch.Tensor.", type=type(out).__name__)
        if tuple(out.shape) == (B, T, A, d):
            return False, msg(
                "the shape is (B, T, heads, d) = {shape}: you moved the head axis back but did not "
                "concatenate the heads. Finish with `.reshape(B, T, H)`.",
                shape=tuple(out.shape),
            )
        if tuple(out.shape) != (B, T, H):
            return False, msg(
                "for a context of shape (B, heads, T, d) = {context_shape} the result must be (B, T, H) = "
                "{expected}, got {shape}.",
                context_shape=(B, A, T, d),
                expected=(B, T, H),
                shape=tuple(out.shape),
            )
        if torch.equal(out, x):
            continue
        if torch.equal(out, context.reshape(B, T, H)):
            return False, Diagnosis(
                msg(
                    "the shape is right but the numbers are not: 'token 0' receives the first tokens of head 1 "
                    "instead of every head's output for token 0."
                ),
                msg(
                    "`reshape(B, T, H)` on a (B, heads, T, d) tensor reads memory in order. Move the head axis "
                    "back first: `.transpose(1, 2)`, then reshape."
                ),
            )
        if torch.equal(out, context.permute(0, 2, 3, 1).reshape(B, T, H)):
            return False, msg(
                "the heads are interleaved: Concat(head_1, ..., head_A) puts head 1's d features first, then "
                "head 2's, and so on. Transpose to (B, T, heads, d), not (B, T, d, heads), before reshaping."
            )
        return False, msg(
            "the shape {shape} is right but the values are not: out[b, t, j·d:(j+1)·d] must be "
            "head j's output for token t, context[b, j, t].",
            shape=tuple(out.shape),
        )
    return True, msg(
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
        translatable(
            "Merging must undo `split_heads`, which was `view(B, T, heads, d)` then `transpose(1, 2)`. Undo the "
            "steps in reverse order."
        ),
        translatable(
            "`reshape` never moves numbers; it re-reads memory in order. In a (B, heads, T, d) tensor all tokens of "
            "head 1 come first, so the head axis must be moved next to d before you flatten."
        ),
        translatable("`context.transpose(1, 2).reshape(B, T, heads * d)`."),
    ],
    solution_code="""
def merge_heads(context):
    B, A, T, d = context.shape
    return context.transpose(1, 2).reshape(B, T, A * d)   # (B, T, heads, d) -> (B, T, H)
""",
    points=1,
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


@expects_function("check(encoder_layer)")
def check_post_ln_layer(fn: Callable[[BertLayer, torch.Tensor], torch.Tensor]) -> tuple[bool, str]:
    """``fn(layer, x)`` must compute ``BertLayer``'s post-LN forward from the layer's submodules."""
    layer = _test_layer()
    generator = torch.Generator().manual_seed(6)
    # Small activations (std 0.02), as in a freshly initialised BERT: there the LayerNorm eps matters.
    x = torch.randn(2, 5, 16, generator=generator) * 0.02
    with torch.no_grad():
        out = fn(layer, x.clone())
        if isinstance(out, tuple) and out and isinstance(out[0], torch.Tensor):
            out = out[0]
        if out is Ellipsis:
            return False, msg("your function still returns `...`: return the layer's output (B, T, H).")
        if not isinstance(out, torch.Tensor):
            return False, msg(
                "your function returned {type}; return the (B, T, H) tensor.", type=type(out).__name__
            )
        expected, _ = layer(x)
        if out.shape != expected.shape:
            return (
                False,
                msg(
                    "the output must have the input's shape (B, T, H) = {expected}, got {shape}.",
                    expected=tuple(x.shape),
                    shape=tuple(out.shape),
                ),
            )
        if _close(out, expected):
            return True, msg(
                "post-LN, as in BERT: H' = LN(H + Attn(H)), then out = LN(H' + FFN(H')). Residual first, "
                "then normalise."
            )
        if _close(out, _pre_ln(layer, x, False)) or _close(out, _pre_ln(layer, x, True)):
            return False, Diagnosis(
                msg(
                    "your output is not layer(x)[0]: it matches the pre-LN order, x + Attn(LN(x)), used by "
                    "GPT-2 and many later models, not BERT's."
                ),
                msg(
                    "BERT is post-LN: add the residual first, then normalise: H' = LN(H + Attn(H)), "
                    "out = LN(H' + FFN(H'))."
                ),
            )
        if _close(out, _post_ln_eps(layer, x, 1e-5)):
            return False, msg(
                "the order is right, but your LayerNorm uses eps = 1e-5 (PyTorch's default). BERT uses "
                "1e-12: use the layer's own LayerNorm modules (they carry eps = config.layer_norm_eps)."
            )
        if _close(out, _no_residual(layer, x)):
            return False, msg(
                "the residual connections are missing: each block normalises input + sublayer(input), "
                "LN(H + Attn(H)) and LN(H' + FFN(H')), not the sublayer output alone."
            )
        if _close(out, _ffn_reads_input(layer, x)):
            return False, msg(
                "the FFN must read H', the output of the attention block, not the layer input H: "
                "out = LN(H' + FFN(H'))."
            )
    return False, msg(
        "the output differs from BertLayer's. Post-LN: context = attention.self(x); "
        "h = attention.output.LayerNorm(x + attention.output.dense(context)); "
        "out = output.LayerNorm(h + output.dense(intermediate(h)))."
    )


post_ln_layer = Exercise(
    name="post_ln_layer",
    answers=("bertedu.core.encoder.BertLayer.forward",),
    prompt=(
        "Find the bug: `encoder_layer(layer, x)` should compute a BERT layer's forward pass from the "
        "submodules of a `BertLayer`, but it is written in another order. Fix it so it equals `layer(x)[0]`."
    ),
    checker=check_post_ln_layer,
    hints=[
        translatable(
            "Where is each LayerNorm applied: to the input of a sublayer, or to the sum after the residual?"
        ),
        translatable(
            "The paper (following Vaswani et al.) uses LayerNorm(x + Sublayer(x)) around both sublayers."
        ),
        translatable("h = LN₁(x + W_O·Attn(x)); out = LN₂(h + W₂·GELU(W₁·h))."),
    ],
    solution_code="""
def encoder_layer(layer, x):
    attn, out = layer.attention, layer.output
    context, _ = attn.self(x)                                     # multi-head attention on x
    h = attn.output.LayerNorm(x + attn.output.dense(context))     # H' = LN(H + Attn(H))
    f = layer.intermediate(h)                                     # GELU(W_1 H' + b_1), (B, T, d_ff)
    return out.LayerNorm(h + out.dense(f))                        # LN(H' + FFN(H'))
""",
    points=1,
)


# ------------------------------------------------------------------------------------------------------
# 4. Write the module: multi-head self-attention with the key mask.
# ------------------------------------------------------------------------------------------------------
#: The checker's configuration: T = 5, 3 heads of d = 4, so every axis has its own length.
MHA_CONFIG = BertConfig(
    vocab_size=10,
    hidden_size=12,
    num_attention_heads=3,
    intermediate_size=24,
    num_hidden_layers=1,
    attention_probs_dropout_prob=0.25,
)
_MHA_NAMES = translatable(
    "query, key, value: three nn.Linear(H, H), and dropout = nn.Dropout(config.attention_probs_dropout_prob)"
)


def _mha_variant(
    ref: BertSelfAttention, x, attention_mask, *, scale=True, dim=-1, mask_on="keys", merge=True
):
    """The attention output computed with one deliberate mistake (eval mode), to name a student's bug."""
    B, T, H = x.shape
    q, k, v = (ref.split_heads(lin(x)) for lin in (ref.query, ref.key, ref.value))  # (B, A, T, d)
    scores = q @ k.transpose(-2, -1)  # (B, A, T, T)
    if scale:
        scores = scores / math.sqrt(q.size(-1))
    if attention_mask is not None and mask_on != "none":
        real = attention_mask.bool()
        allowed = real[:, None, None, :] if mask_on == "keys" else real[:, None, :, None]  # keys or queries
        scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
    context = torch.softmax(scores, dim=dim) @ v  # (B, A, T, d)
    return context.transpose(1, 2).reshape(B, T, H) if merge else context.reshape(B, T, H)


def _mha_call(module, x, attention_mask) -> torch.Tensor:
    out = module(x) if attention_mask is None else module(x, attention_mask)
    return output_tensor(out, msg("the attention output (B, T, H)"), tuple(x.shape))


def _mha_unmasked_mistake(ref, x: torch.Tensor, first: torch.Tensor, expected: torch.Tensor) -> str:
    """What is wrong with a multi-head attention whose output without a mask, ``first``, is not ``expected``
    (``ref(x)``): the typical mistake it reproduces, else the largest difference."""
    mistakes = (
        (
            dict(scale=False),
            msg("the scores are not scaled: divide Q Kᵀ by √d = √head_dim (here 2), per head."),
        ),
        (
            dict(dim=-2),
            msg(
                "the softmax runs over the wrong axis (the queries): every query's weights over the keys "
                "must sum to 1, so normalise the last axis (dim=-1)."
            ),
        ),
        (
            dict(merge=False),
            msg(
                "the heads are merged without moving the head axis back: (B, heads, T, d) must become "
                "(B, T, heads, d) with .transpose(1, 2) before .reshape(B, T, H)."
            ),
        ),
    )
    for kwargs, message in mistakes:
        if close(first, _mha_variant(ref, x, None, **kwargs)):
            return message
    return msg(
        "without a mask your output differs from BertSelfAttention's (largest difference "
        "{diff:.3g}). Project with query/key/value, split into heads "
        "(B, A, T, d), softmax(Q Kᵀ/√d) V, then merge the heads back to (B, T, H).",
        diff=(first - expected).abs().max(),
    )


def _mha_padding_mistake(ref, x: torch.Tensor, attention_mask: torch.Tensor, masked: torch.Tensor) -> str:
    """What is wrong with a multi-head attention whose output with padding, ``masked``, is not the reference's:
    the typical masking mistake it reproduces, else what a [PAD] key needs."""
    for mask_on, message in (
        (
            "queries",
            msg(
                "the mask is applied to the queries (rows), not the keys: real tokens still attend to [PAD]. "
                "The mask must broadcast as (B, 1, 1, T) over the last axis of the scores."
            ),
        ),
        ("none", msg("the attention_mask is ignored: real tokens still attend to the [PAD] keys.")),
    ):
        if close(masked, _mha_variant(ref, x, attention_mask, mask_on=mask_on)):
            return message
    return msg(
        "with padding your output differs from BertSelfAttention's: give every [PAD] key "
        "(attention_mask == 0) a score of torch.finfo(scores.dtype).min before the softmax."
    )


def _mha_steps(cls) -> tuple[bool, str]:
    example = "ex.multi_head_attention.check(MultiHeadSelfAttention)"
    ref = random_init(BertSelfAttention(MHA_CONFIG), seed=11).eval()
    mine = build(cls, MHA_CONFIG, example=example)
    copy_weights(ref, mine, names_hint=translate(_MHA_NAMES))
    gen = torch.Generator().manual_seed(12)
    x = torch.randn(2, 5, MHA_CONFIG.hidden_size, generator=gen)  # (B, T, H)
    attention_mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]])  # (B, T): sequence 0 has 2 [PAD]
    mine.eval()
    with torch.no_grad():
        first, second = _mha_call(mine, x, None), _mha_call(mine, x, None)
        if not torch.equal(first, second):
            return False, msg(
                "in eval mode your output changes from call to call: dropout is still active. Use the module "
                "self.dropout = nn.Dropout(p) (it switches off with .eval()), not F.dropout(w, p), whose "
                "training=True default drops weights at inference time too."
            )
        expected = ref(x)[0]
        if not close(first, expected):
            return False, _mha_unmasked_mistake(ref, x, first, expected)
        masked = _mha_call(mine, x, attention_mask)
        if not close(masked, ref(x, build_key_mask(attention_mask))[0]):
            return False, _mha_padding_mistake(ref, x, attention_mask, masked)
    mine.train()
    ref.train()
    with seeded(13):
        trained = _mha_call(mine, x, attention_mask)
    with seeded(13):
        expected = ref(x, build_key_mask(attention_mask))[0]
    if not close(trained, expected):
        if close(trained, masked):
            return False, msg(
                "in training mode nothing is dropped: apply self.dropout to the attention weights."
            )
        return False, msg(
            "in training mode your output differs from BertSelfAttention's with the same seed: apply "
            "self.dropout once, to the attention weights right after the softmax (as BERT does), and nowhere else."
        )
    return True, msg(
        "same outputs as bertedu's BertSelfAttention without and with padding, in eval mode and (same seed) in "
        "training mode: Q, K, V projections, √d scaling per head, softmax over the keys, [PAD] keys masked, "
        "dropout on the weights, heads merged back."
    )


def check_multi_head_attention(cls) -> tuple[bool, str]:
    """``cls(config)`` must be an nn.Module with ``query``, ``key``, ``value`` and ``dropout`` whose
    ``forward(hidden_states, attention_mask=None)`` maps ``(B, T, H)`` and a ``(B, T)`` 1/0 mask to ``(B, T, H)``
    like ``BertSelfAttention``."""
    return run_checks(lambda: _mha_steps(cls))


multi_head_attention = Exercise(
    name="multi_head_attention",
    answers=("bertedu.core.attention.BertSelfAttention",),
    prompt=(
        "Write `MultiHeadSelfAttention(config)`, an nn.Module with Hugging Face's names (query, key, value, "
        "dropout) whose `forward(hidden_states, attention_mask=None)` takes (B, T, H) and a (B, T) mask "
        "(1 = real token, 0 = [PAD]) and returns the attention output (B, T, H), as bertedu's BertSelfAttention."
    ),
    checker=check_multi_head_attention,
    hints=[
        translatable(
            "In __init__: `self.num_heads = config.num_attention_heads`, `self.head_dim = config.hidden_size // "
            "self.num_heads`, three nn.Linear(H, H) named query, key, value, and nn.Dropout(config."
            "attention_probs_dropout_prob)."
        ),
        translatable(
            "Split each projection: `.view(B, T, heads, d).transpose(1, 2)` gives (B, heads, T, d). Scores: "
            "`q @ k.transpose(-2, -1) / math.sqrt(d)`, shape (B, heads, T, T)."
        ),
        translatable(
            "Mask the keys, not the queries: reshape the (B, T) mask so that it broadcasts over the last axis of "
            "the (B, heads, T, T) scores, and give masked scores a very negative value before the softmax. At the "
            "end, undo the split of hint 2 to get (B, T, H) back."
        ),
    ],
    solution_code="""
class MultiHeadSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.num_heads = config.num_attention_heads
        self.head_dim = config.hidden_size // config.num_attention_heads
        self.query = nn.Linear(config.hidden_size, config.hidden_size)
        self.key = nn.Linear(config.hidden_size, config.hidden_size)
        self.value = nn.Linear(config.hidden_size, config.hidden_size)
        self.dropout = nn.Dropout(config.attention_probs_dropout_prob)

    def forward(self, hidden_states, attention_mask=None):
        B, T, H = hidden_states.shape
        split = lambda t: t.view(B, T, self.num_heads, self.head_dim).transpose(1, 2)   # (B, A, T, d)
        q, k, v = split(self.query(hidden_states)), split(self.key(hidden_states)), split(self.value(hidden_states))
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)                    # (B, A, T, T)
        if attention_mask is not None:                                                  # mask the [PAD] keys
            scores = scores.masked_fill(attention_mask[:, None, None, :] == 0, torch.finfo(scores.dtype).min)
        weights = self.dropout(torch.softmax(scores, dim=-1))                           # rows sum to 1
        return (weights @ v).transpose(1, 2).reshape(B, T, H)                           # (B, T, H)

ex.multi_head_attention.check(MultiHeadSelfAttention)
""",
    points=3,
)

__all__ = [
    "check_layer_parameters",
    "check_merge_heads",
    "check_post_ln_layer",
    "layer_parameters",
    "merge_heads",
    "post_ln_layer",
    "MHA_CONFIG",
    "check_multi_head_attention",
    "multi_head_attention",
]
