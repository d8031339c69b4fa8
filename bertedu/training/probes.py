"""Measuring what a pretrained model learned: masked-word accuracy, NSP accuracy, top-k predictions.

The held-out files in ``data/`` are read by :mod:`bertedu.training.evalsets` (their formats are described there).

How a masked word is scored. The answer is a whole word, so the candidates are the whole-word tokens of
the vocabulary: every token except the special ones (``[PAD] [UNK] [CLS] [SEP] [MASK]``) and the ``##``
continuation pieces. An item counts as top-k correct if one of its answers is among the k most probable
candidates. Probabilities are the model's softmax over the *whole* vocabulary (so they are the model's
real beliefs), only the ranking skips the non-candidates. Every answer must be a single token of the
tokenizer; the course vocabulary (``bertedu.course.course_tokenizer``) keeps every corpus word whole,
and an answer the tokenizer would split raises a ``ValueError`` naming it instead of being scored silently.

Works for any masked-LM that maps ``model(input_ids, attention_mask, token_type_ids)`` to an output with
``prediction_logits (B, T, V)``: ``bertedu.core.model.BertForPreTraining`` and the blog post's one-layer baseline
(``bertedu.course.minibert.MiniBert``, which reads sentences without ``[CLS]``/``[SEP]``; it says so with
``uses_special_tokens = False``). Models are put in eval mode (dropout off) while they are measured.

Introduced in notebook 06.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence

import torch

from bertedu.core.validation import require_int

# load_masked_word_items and load_nsp_items: notebook 06 imports them from here.
from bertedu.training.evalsets import MaskedWordItem, NSPItem, load_masked_word_items, load_nsp_items  # noqa: F401

# ----------------------------------------------------------------------------------------------------------
# Running a model


@contextlib.contextmanager
def evaluating(model: torch.nn.Module):
    """Eval mode (dropout off) and no gradients inside the block; the model's mode is restored after."""
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            yield model
    finally:
        model.train(was_training)


def _uses_special_tokens(model: torch.nn.Module) -> bool:
    return bool(getattr(model, "uses_special_tokens", True))


def candidate_mask(tokenizer) -> torch.Tensor:
    """``(V,)`` boolean: True for whole-word tokens (not special, not a ``##`` piece), the possible answers."""
    special = set(tokenizer.all_special_ids)
    tokens = tokenizer.convert_ids_to_tokens(list(range(tokenizer.vocab_size)))
    return torch.tensor([i not in special and not t.startswith("##") for i, t in enumerate(tokens)])


def masked_word_probabilities(
    model: torch.nn.Module, tokenizer, sentences: Sequence[str], batch_size: int = 64
) -> torch.Tensor:
    """The model's probabilities for the ``[MASK]`` of each sentence: ``(N sentences, V)``, rows sum to 1.

    Each sentence needs exactly one ``[MASK]``.
    """
    if isinstance(sentences, str):
        raise ValueError("Pass a list of sentences (for one sentence use [sentence]).")
    rows = []
    with evaluating(model):
        for start in range(0, len(sentences), batch_size):
            chunk = list(sentences[start : start + batch_size])
            enc = tokenizer(
                chunk, padding=True, return_tensors="pt", add_special_tokens=_uses_special_tokens(model)
            )
            ids = enc["input_ids"]  # (B, T)
            is_mask = ids == tokenizer.mask_token_id  # (B, T)
            counts = is_mask.sum(dim=1)
            if (counts != 1).any():
                i = int((counts != 1).nonzero()[0, 0])
                raise ValueError(
                    f"Each sentence needs exactly one [MASK]; {chunk[i]!r} has {int(counts[i])}."
                )
            logits = model(
                ids, attention_mask=enc["attention_mask"], token_type_ids=enc["token_type_ids"]
            ).prediction_logits  # (B, T, V)
            rows.append(torch.softmax(logits[is_mask], dim=-1))  # (B, V): one [MASK] per row
    return torch.cat(rows) if rows else torch.empty(0, tokenizer.vocab_size)


def predict_masked(model: torch.nn.Module, tokenizer, sentence: str, k: int = 5) -> list[tuple[str, float]]:
    """Top-``k`` whole-word fillers for the one ``[MASK]`` of ``sentence``: ``[(token, probability), ...]``.

    Example: ``predict_masked(model, tok, "the man eats the [MASK]")`` -> ``[("meat", 0.71), ...]``.
    Special tokens and ``##`` pieces are skipped (see the module docstring).
    """
    if not isinstance(sentence, str):
        raise ValueError("predict_masked takes one sentence (str); use masked_word_probabilities for a list.")
    require_int("k", k, 1)
    probs = masked_word_probabilities(model, tokenizer, [sentence])[0]  # (V,)
    candidates = candidate_mask(tokenizer)  # (V,)
    ranked = probs.masked_fill(~candidates, -1.0)
    top = torch.topk(ranked, min(k, int(candidates.sum())))
    return [(tokenizer.convert_ids_to_tokens(int(i)), float(probs[i])) for i in top.indices]


def _answer_ids(tokenizer, item: MaskedWordItem) -> list[int]:
    ids = []
    for answer in item.answers:
        pieces = tokenizer.tokenize(answer)
        if len(pieces) != 1 or pieces[0] == tokenizer.unk_token:
            raise ValueError(
                f"The answer {answer!r} of {item.sentence!r} is {pieces} for this tokenizer, not one whole-word "
                "token, so no single prediction can match it. Use a vocabulary that keeps every word whole "
                "(bertedu.core.tokenizer.train_tokenizer with vocab_size=None) or change the item."
            )
        ids.append(tokenizer.convert_tokens_to_ids(pieces[0]))
    return ids


def masked_word_accuracy(
    model: torch.nn.Module, tokenizer, items: Sequence[MaskedWordItem], k: int = 5, batch_size: int = 64
) -> dict:
    """Top-1 and top-``k`` accuracy on masked-word items.

    Returns ``{"top1": float, f"top{k}": float, "n": int, "predictions": [[token, ...] (k best) per item],
    "correct": [bool (top-1) per item]}``.
    """
    if not items:
        raise ValueError("No items to evaluate.")
    answer_ids = [_answer_ids(tokenizer, item) for item in items]
    probs = masked_word_probabilities(
        model, tokenizer, [item.sentence for item in items], batch_size
    )  # (N, V)
    ranked = probs.masked_fill(~candidate_mask(tokenizer), -1.0)
    top = torch.topk(ranked, k, dim=-1).indices  # (N, k)
    hits = torch.tensor([[int(t) in set(ids) for t in row] for row, ids in zip(top, answer_ids)])  # (N, k)
    return {
        "top1": hits[:, 0].float().mean().item(),
        f"top{k}": hits.any(dim=1).float().mean().item(),
        "n": len(items),
        "predictions": [tokenizer.convert_ids_to_tokens(row.tolist()) for row in top],
        "correct": hits[:, 0].tolist(),
    }


def nsp_logits(
    model: torch.nn.Module,
    tokenizer,
    pairs: Iterable[tuple[str, str]],
    batch_size: int = 64,
    max_length: int | None = None,
) -> torch.Tensor:
    """NSP logits ``(N, 2)`` (column 0 = IsNext) for ``(sentence_a, sentence_b)`` pairs. Notebook 06."""
    pairs = list(pairs)
    rows = []
    with evaluating(model):
        for start in range(0, len(pairs), batch_size):
            chunk = pairs[start : start + batch_size]
            enc = tokenizer(
                [a for a, _ in chunk],
                [b for _, b in chunk],
                padding=True,
                return_tensors="pt",
                truncation=max_length is not None,
                max_length=max_length,
            )
            logits = getattr(model(**enc), "seq_relationship_logits", None)  # (B, 2)
            if logits is None:
                raise ValueError(
                    f"{type(model).__name__} has no NSP head; NSP accuracy needs a BertForPreTraining."
                )
            rows.append(logits)
    return torch.cat(rows) if rows else torch.empty(0, 2)


def nsp_accuracy(
    model: torch.nn.Module,
    tokenizer,
    items: Sequence[NSPItem],
    batch_size: int = 64,
    max_length: int | None = None,
) -> dict:
    """Share of NSP items whose predicted label (argmax; 0 = IsNext) is right.

    Returns ``{"accuracy": float, "n": int, "predicted": [0/1 per item]}``.
    """
    if not items:
        raise ValueError("No items to evaluate.")
    logits = nsp_logits(
        model, tokenizer, [(it.sentence_a, it.sentence_b) for it in items], batch_size, max_length
    )
    predicted = logits.argmax(dim=-1)  # (N,)
    labels = torch.tensor([it.next_sentence_label for it in items])
    return {
        "accuracy": (predicted == labels).float().mean().item(),
        "n": len(items),
        "predicted": predicted.tolist(),
    }


def evaluate_pretraining(
    model: torch.nn.Module,
    tokenizer,
    *,
    mlm_items: Sequence[MaskedWordItem] | None = None,
    nsp_items: Sequence[NSPItem] | None = None,
    k: int = 5,
    max_length: int | None = None,
) -> dict[str, float]:
    """The held-out scores in one flat dict: ``mlm_top1``, ``mlm_top{k}`` and ``nsp_accuracy`` (for the
    item lists given)."""
    scores: dict[str, float] = {}
    if mlm_items:
        result = masked_word_accuracy(model, tokenizer, mlm_items, k=k)
        scores["mlm_top1"], scores[f"mlm_top{k}"] = result["top1"], result[f"top{k}"]
    if nsp_items:
        scores["nsp_accuracy"] = nsp_accuracy(model, tokenizer, nsp_items, max_length=max_length)["accuracy"]
    return scores


# ----------------------------------------------------------------------------------------------------------
# Looking at the word embeddings


def pca_2d(vectors: torch.Tensor) -> torch.Tensor:
    """Project ``(N, H)`` vectors on their two main directions (PCA by SVD of the centred matrix): ``(N, 2)``.

    The sign of each axis is fixed (largest coordinate positive) so the picture does not flip between
    runs.
    """
    if vectors.dim() != 2 or vectors.size(0) < 2:
        raise ValueError(f"pca_2d needs an (N, H) matrix with N >= 2, got shape {tuple(vectors.shape)}.")
    x = vectors.detach().double()
    x = x - x.mean(dim=0, keepdim=True)  # (N, H) centred
    _, _, vh = torch.linalg.svd(x, full_matrices=False)  # rows of vh: principal directions
    coords = x @ vh[:2].T  # (N, 2)
    signs = torch.sign(coords.gather(0, coords.abs().argmax(dim=0, keepdim=True)))  # (1, 2)
    return (coords * signs).float()


def group_cosine_similarity(vectors: torch.Tensor, groups: Sequence[int | str]) -> dict[str, float]:
    """Mean cosine similarity of vector pairs in the same group vs in different groups.

    ``vectors (N, H)``, ``groups``: one label per row. Returns ``{"within": ..., "between": ...}``;
    ``within > between`` means the groups form clusters.
    """
    labels = list(groups)
    if len(labels) != vectors.size(0):
        raise ValueError(f"Got {vectors.size(0)} vectors but {len(labels)} group labels.")
    unit = torch.nn.functional.normalize(vectors.detach().double(), dim=-1)
    sim = unit @ unit.T  # (N, N)
    codes = {g: i for i, g in enumerate(dict.fromkeys(labels))}
    g = torch.tensor([codes[x] for x in labels])
    same = g[:, None] == g[None, :]
    off_diagonal = ~torch.eye(len(labels), dtype=torch.bool)
    within, between = sim[same & off_diagonal], sim[~same]
    if within.numel() == 0 or between.numel() == 0:
        raise ValueError("Need at least two groups, one of them with two or more vectors.")
    return {"within": within.mean().item(), "between": between.mean().item()}
