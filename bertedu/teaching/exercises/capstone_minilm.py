"""Exercises for notebook 11's real weights: all-MiniLM-L6-v2 (installed offline) loaded by name into your encoder.

- :data:`real_weights` (write the module): ``MyBertModel(config)``, your ``Embeddings`` and a stack of your
  ``EncoderLayer`` under Hugging Face's names, whose ``forward(input_ids, attention_mask=None,
  token_type_ids=None)`` returns the last hidden states; with MiniLM's weights it must give bertedu's
  ``last_hidden_state`` within :data:`PARITY_ATOL` on a padded batch of sentence pairs.
- :func:`your_minilm`: your encoder with MiniLM's weights (bertedu's ``BertModel`` stands in while your modules
  are stubs), for the notebook's sentence-similarity ranking.

Introduced in notebook 11.
"""

from __future__ import annotations

import functools

import torch
from torch import nn

from bertedu.core.minilm import load_minilm
from bertedu.language import msg, translatable, translate
from bertedu.teaching.exercises.core import Exercise
from bertedu.teaching.exercises.nn_checks import ModuleProblem, build, copy_weights, output_tensor, run_checks

PARITY_ATOL = 1e-5  #: largest allowed difference of a last hidden state (float32 sums in another order)

#: The checker's batch: sentence pairs of different lengths (padding, segment ids 1 on B).
PARITY_PAIRS = (
    ("A man is playing a guitar.", "Someone is playing an instrument."),
    ("The cat sleeps.", "It has rained all day in the old harbour town, and the streets are empty."),
    ("Where is the station?", "Turn left."),
)

_NAMES = translatable(
    "embeddings.{word,position,token_type}_embeddings and embeddings.LayerNorm (your Embeddings), "
    "encoder.layer.N... (your EncoderLayer), pooler.dense"
)


#: The last encoder the check loaded MiniLM into, by class (one at most).
_loaded: dict[type, nn.Module] = {}


@functools.lru_cache(maxsize=1)
def minilm() -> tuple[nn.Module, object]:
    """``(model, tokenizer)``: bertedu's ``BertModel`` with all-MiniLM-L6-v2's weights (eval mode), loaded once."""
    return load_minilm()


def _parity_batch(tokenizer) -> dict[str, torch.Tensor]:
    first, second = zip(*PARITY_PAIRS)
    return dict(tokenizer(list(first), list(second), padding=True, return_tensors="pt"))


def _real_weights_steps(cls) -> tuple[bool, str]:
    reference, tokenizer = minilm()
    mine = build(cls, reference.config, example="ex.real_weights.check(MyBertModel)")
    copy_weights(reference, mine, names_hint=translate(_NAMES))
    _loaded.clear()
    _loaded[cls] = mine  # your_minilm(cls) reuses it: building and copying 22.7M parameters takes seconds
    mine.eval()
    batch = _parity_batch(tokenizer)
    with torch.no_grad():
        expected = reference(**batch, output_hidden_states=True)
        shape = tuple(expected.last_hidden_state.shape)
        got = output_tensor(mine(**batch), msg("the last hidden states (B, T, H)"), shape)
        real = batch["attention_mask"].bool()  # (B, T): compared at the real tokens ([PAD] rows are unused)
        worst = float((got - expected.last_hidden_state)[real].abs().max())
        if worst <= PARITY_ATOL:
            return True, msg(
                "all-MiniLM-L6-v2's {n_tensors} tensors load into your encoder by name, and its last hidden "
                "states equal bertedu's within 1e-5 at every real token (6 layers, H = 384, padded sentence pairs).",
                n_tensors=len(reference.state_dict()),
            )  # the bound, not the measured digits: they change with the CPU's kernels
        return False, _real_weights_mistake(reference, batch, expected, got[real], worst)


def _real_weights_mistake(reference, batch, expected, got, worst: float) -> str:
    """The message for an encoder whose outputs at the real tokens (``got``, (N, H)) differ from bertedu's by
    ``worst``."""
    real = batch["attention_mask"].bool()
    near = lambda other: float((got - other[real]).abs().max()) <= PARITY_ATOL
    for k, hidden in enumerate(expected.hidden_states[:-1]):
        if near(hidden):
            return msg(
                "your output is hidden state {k} of {n_layers} (0 = the embeddings): run every layer of "
                "self.encoder['layer'] in order and return the last one's output.",
                k=k,
                n_layers=len(expected.hidden_states) - 1,
            )
    if near(reference(batch["input_ids"], token_type_ids=batch["token_type_ids"]).last_hidden_state):
        return msg("your output ignores the padding: pass attention_mask on to every layer.")
    if near(reference(batch["input_ids"], batch["attention_mask"]).last_hidden_state):
        return msg(
            "every token got segment 0: pass token_type_ids on to your Embeddings (B's tokens are segment 1)."
        )
    return msg(
        "your last hidden states differ from bertedu's by up to {worst:.2g}. Run ex.embeddings_layer.check and "
        "ex.encoder_layer.check again; then h = embeddings(input_ids, token_type_ids) and h = layer(h, "
        "attention_mask) for every layer.",
        worst=worst,
    )


def check_real_weights(cls) -> tuple[bool, str]:
    """``cls(config)`` takes all-MiniLM-L6-v2's state dict by name and gives bertedu's ``last_hidden_state``
    within :data:`PARITY_ATOL` at the real tokens of a padded batch of sentence pairs."""
    return run_checks(lambda: _real_weights_steps(cls))


real_weights = Exercise(
    "real_weights",
    translatable(
        "Write the forward pass of `MyBertModel` (its parts are given: your Embeddings and a stack of your "
        "EncoderLayer): it returns the last hidden states (B, T, H). all-MiniLM-L6-v2's weights then load by "
        "name and must give bertedu's outputs within 1e-5."
    ),
    check_real_weights,
    hints=[
        translatable(
            "The pretraining model's forward up to the layers: h = self.embeddings(input_ids, token_type_ids), "
            "then h = layer(h, attention_mask) for each layer; return h."
        ),
    ],
    solution_code="""
    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        h = self.embeddings(input_ids, token_type_ids)                                  # (B, T, H)
        for layer in self.encoder["layer"]:
            h = layer(h, attention_mask)                                                 # the [PAD] keys masked
        return h                                                                         # last_hidden_state
""",
    points=2,
    answers=("bertedu.core.model.BertModel.forward",),
)


class _StandIn(nn.Module):
    """bertedu's ``BertModel`` behind your encoder's interface: ``forward`` returns the last hidden states."""

    def __init__(self, bert: nn.Module):
        super().__init__()
        self.bert = bert

    def forward(self, input_ids, attention_mask=None, token_type_ids=None) -> torch.Tensor:
        return self.bert(input_ids, attention_mask, token_type_ids).last_hidden_state  # (B, T, H)


def your_minilm(cls) -> tuple[nn.Module, object]:
    """``(model, tokenizer)``: ``cls(config)`` with all-MiniLM-L6-v2's weights copied in by name, in eval mode,
    and MiniLM's tokenizer. While your modules are stubs, bertedu's ``BertModel`` stands in (and a line says so),
    so that the notebook runs on."""
    reference, tokenizer = minilm()
    try:
        model = _loaded.get(cls) if isinstance(cls, type) else None
        if model is None:
            model = build(cls, reference.config, example="ex.your_minilm(MyBertModel)")
            copy_weights(reference, model, names_hint=translate(_NAMES))
        with torch.no_grad():
            model.eval()(**_parity_batch(tokenizer))  # a stub's forward raises here, not in a later cell
    except (NotImplementedError, ModuleProblem) as problem:
        reason = msg("not attempted yet") if isinstance(problem, NotImplementedError) else str(problem)
        print(
            msg(
                "Your encoder cannot run yet ({reason}): bertedu's BertModel stands in for it.", reason=reason
            )
        )
        return _StandIn(reference).eval(), tokenizer
    return model, tokenizer


__all__ = ["PARITY_ATOL", "PARITY_PAIRS", "check_real_weights", "minilm", "real_weights", "your_minilm"]
