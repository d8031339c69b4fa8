"""bertedu.training.finetune: task heads' losses by hand, label alignment, span mapping and decoding, the loop."""

from __future__ import annotations

import json
import math
import random

import pytest
import torch
import torch.nn.functional as F
from support import small_bert_config

from bertedu.core.model import (
    BertForPreTraining,
    BertForQuestionAnswering,
    BertForSequenceClassification,
    BertForTokenClassification,
)
from bertedu.core.tokenizer import BertTokenizer
from bertedu.course import COURSE_THRESHOLDS, course_recipe
from bertedu.training.finetune import (
    FineTuneConfig,
    best_span,
    build_task_model,
    evaluate,
    fine_tune,
    load_finetuned,
    predict,
)
from bertedu.training.finetune_data import (
    SEQUENCE_CLASSIFICATION,
    SPAN_EXTRACTION,
    TASKS,
    TOKEN_CLASSIFICATION,
    ClassificationExample,
    LabelSet,
    SpanExample,
    TaggingExample,
    align_word_labels,
    encode_span,
    label_budget,
    make_dataset,
    read_examples,
    tokenize_with_offsets,
)

WORDS = [
    "the",
    "a",
    "cat",
    "dog",
    "bird",
    "mat",
    "tree",
    "door",
    "sits",
    "sit",
    "sleeps",
    "on",
    "under",
    "by",
    "where",
    "does",
    "what",
    "is",
    "bark",
    "##s",
    "##ing",
    "play",
    "?",
    ".",
]
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]


@pytest.fixture(scope="module")
def tok():
    return BertTokenizer(VOCAB)


def tiny_config(**kw):
    sizes = dict(
        vocab_size=len(VOCAB), num_attention_heads=2, intermediate_size=64, max_position_embeddings=32
    )
    return small_bert_config(**{**sizes, **kw})


# ----------------------------------------------------------------------------------------------------------
# Each head's loss equals a hand computation


def _ce_by_hand(logits: torch.Tensor, target: int) -> torch.Tensor:
    """-log softmax(logits)[target], written out."""
    return torch.log(torch.exp(logits).sum()) - logits[target]


def test_sequence_classification_loss_by_hand():
    torch.manual_seed(0)
    model = BertForSequenceClassification(tiny_config(num_labels=3)).eval()
    ids = torch.tensor([[2, 5, 7, 3, 0], [2, 6, 8, 9, 3]])
    mask = (ids != 0).long()
    labels = torch.tensor([2, 0])
    out = model(ids, mask, labels=labels)
    C = model.bert(ids, mask).pooler_output  # (B, H): tanh(W_p T_[CLS] + b_p)
    W, b = model.classifier.weight, model.classifier.bias  # (K, H), (K,)
    logits = C @ W.T + b  # P = softmax(C Wᵀ)
    by_hand = torch.stack([_ce_by_hand(logits[i], labels[i]) for i in range(2)]).mean()
    torch.testing.assert_close(out.logits, logits)
    torch.testing.assert_close(out.loss, by_hand)


@pytest.mark.slow
def test_token_classification_loss_by_hand_counts_labelled_tokens_only():
    torch.manual_seed(1)
    model = BertForTokenClassification(tiny_config(num_labels=4)).eval()
    ids = torch.tensor([[2, 7, 8, 3, 0], [2, 6, 27, 25, 3]])
    mask = (ids != 0).long()
    labels = torch.tensor([[-100, 1, 3, -100, -100], [-100, 0, 2, -100, -100]])
    out = model(ids, mask, labels=labels)
    T_i = model.bert(ids, mask).last_hidden_state  # (B, T, H)
    logits = T_i @ model.classifier.weight.T + model.classifier.bias  # (B, T, K)
    terms = [
        _ce_by_hand(logits[b, t], labels[b, t]) for b in range(2) for t in range(5) if labels[b, t] != -100
    ]
    torch.testing.assert_close(out.loss, torch.stack(terms).mean())  # 4 labelled tokens, not 10
    assert len(terms) == 4


def test_span_loss_by_hand_is_the_mean_of_start_and_end_cross_entropy():
    torch.manual_seed(2)
    model = BertForQuestionAnswering(tiny_config()).eval()
    ids = torch.tensor([[2, 19, 20, 7, 3, 5, 7, 16, 5, 10, 3]])
    types = torch.tensor([[0] * 5 + [1] * 6])
    start, end = torch.tensor([8]), torch.tensor([9])
    out = model(ids, token_type_ids=types, start_positions=start, end_positions=end)
    T_i = model.bert(ids, token_type_ids=types).last_hidden_state[0]  # (T, H)
    S, E = model.qa_outputs.weight  # the start vector S and end vector E of the paper, (H,) each
    s_bias, e_bias = model.qa_outputs.bias
    start_logits, end_logits = T_i @ S + s_bias, T_i @ E + e_bias  # (T,): S·T_i and E·T_i
    paper_loss = _ce_by_hand(start_logits, 8) + _ce_by_hand(end_logits, 9)  # the paper's sum
    torch.testing.assert_close(out.start_logits[0], start_logits)
    torch.testing.assert_close(out.loss, paper_loss / 2)  # Hugging Face (and bertedu) average the two


# ----------------------------------------------------------------------------------------------------------
# Encoding: label alignment and char -> token spans


def test_label_names_of_mixed_types_are_refused_with_what_to_do():
    assert LabelSet.from_labels(["pos", "neg", "pos"]).names == ("neg", "pos")
    with pytest.raises(ValueError, match=r"mix types \(int, str\).*str\(label\)"):
        LabelSet.from_labels(["1", 0, "1"])


def test_first_piece_gets_the_tag(tok):
    labels = LabelSet(("DET", "NOUN", "VERB"))
    enc = align_word_labels(["the", "dog", "barks"], ["DET", "NOUN", "VERB"], tok, labels, max_length=16)
    assert tok.convert_ids_to_tokens(enc["input_ids"]) == ["[CLS]", "the", "dog", "bark", "##s", "[SEP]"]
    assert enc["labels"] == [-100, 0, 1, 2, -100, -100]
    assert enc["word_index"] == [-1, 0, 1, 2, -1, -1]


@pytest.mark.parametrize(
    "words, tags, max_length, message",
    [
        (["the", "dog"], ["DET"], 16, "2 words but 1 tags"),
        (["the", "dog"], ["DET", "ADJ"], 16, "Unknown label 'ADJ'"),
        (["the", "dog", "barks"], ["DET", "NOUN", "VERB"], 5, "needs 6 tokens but max_length is 5"),
    ],
)
def test_tagging_errors(tok, words, tags, max_length, message):
    with pytest.raises(ValueError, match=message):
        align_word_labels(words, tags, tok, LabelSet(("DET", "NOUN", "VERB")), max_length)


def test_tagging_example_needs_one_tag_per_word():
    with pytest.raises(ValueError, match="3 words but 2 tags"):
        TaggingExample(("the", "dog", "sits"), ("DET", "NOUN"))


@pytest.mark.parametrize(
    "text",
    [
        "The Cat sits on the MAT.",
        "  where   does\tthe dog  play? ",
        "Thé dogs barking",
        "the cat sits under a tree, by the door",
    ],
)
def test_offsets_cover_the_tokens(tok, text):
    triples = tokenize_with_offsets(tok, text)
    assert [t for t, _, _ in triples] == tok.tokenize(text)
    for token, s, e in triples:
        assert 0 <= s < e <= len(text)
        if token != "[UNK]":
            piece = tok.basic_tokenizer.strip_accents_from(text[s:e].lower())
            assert piece == token.removeprefix("##")


def test_answer_characters_become_token_positions(tok):
    context = "the cat sits on the mat by the door"
    ex = SpanExample("where does the cat sit ?", context, "on the mat", context.index("on the mat"))
    enc = encode_span(ex, tok, max_length=32)
    tokens = tok.convert_ids_to_tokens(enc["input_ids"])
    q_len = len(tok.tokenize(ex.question))
    assert enc["token_type_ids"] == [0] * (q_len + 2) + [1] * (
        len(tokens) - q_len - 2
    )  # question = A, context = B
    assert tokens[enc["start_positions"] : enc["end_positions"] + 1] == ["on", "the", "mat"]
    s, e = enc["offsets"][enc["start_positions"]][0], enc["offsets"][enc["end_positions"]][1]
    assert context[s:e] == "on the mat"
    assert sum(enc["context_mask"]) == len(tok.tokenize(context))


def test_answer_inside_a_word_maps_to_the_whole_piece(tok):
    context = "the dog barks"
    ex = SpanExample(
        "what does the dog ?", context, "bark", 8
    )  # "barks" -> bark ##s: the answer is the piece "bark"
    enc = encode_span(ex, tok, max_length=32)
    assert enc["start_positions"] == enc["end_positions"]
    assert tok.convert_ids_to_tokens(enc["input_ids"][enc["start_positions"]]) == "bark"


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: SpanExample("q", "the cat sits", "mat", 4), "not the answer 'mat'"),
        (lambda: SpanExample("q", "the cat sits", "sits", 10), "outside the context"),
        (lambda: SpanExample("q", "the cat sits", "the", -1), "outside the context"),
        (lambda: SpanExample("q", "the cat sits", "", 0), "empty"),
    ],
)
def test_bad_spans_raise(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_answer_cut_by_truncation_is_an_error(tok):
    context = "the cat sits on the mat by the door under the tree"
    ex = SpanExample("where is the tree ?", context, "the tree", context.index("the tree"))
    with pytest.raises(ValueError, match="outside the sequence"):
        encode_span(ex, tok, max_length=12)
    assert encode_span(ex, tok, max_length=32)["end_positions"] < 32


# ----------------------------------------------------------------------------------------------------------
# Span decoding


def _brute_force(start, end, context, max_len):
    best, arg = -math.inf, None
    for i in range(len(start)):
        for j in range(i, min(len(start), i + max_len)):
            if context[i] and context[j] and start[i] + end[j] > best:
                best, arg = start[i] + end[j], (i, j)
    return arg


def test_best_span_is_always_a_valid_span_in_the_context():
    rng = random.Random(0)
    g = torch.Generator().manual_seed(0)
    for trial in range(300):
        B, T = rng.randint(1, 4), rng.randint(3, 24)
        start = torch.randn(B, T, generator=g) * rng.choice([0.1, 1.0, 10.0])
        end = torch.randn(B, T, generator=g) * rng.choice([0.1, 1.0, 10.0])
        if trial % 3 == 0:  # adversarial: the best end score lies before the best start score
            start[:, -1] += 50
            end[:, 0] += 50
        mask = torch.zeros(B, T, dtype=torch.bool)
        for b in range(B):
            first = rng.randint(1, T - 1)
            mask[b, first : rng.randint(first + 1, T)] = True  # context = a block after the question
        max_len = rng.randint(1, 8)
        starts, ends = best_span(start, end, mask, max_answer_length=max_len)
        for b in range(B):
            s, e = int(starts[b]), int(ends[b])
            assert s <= e, "end before start"
            assert mask[b, s] and mask[b, e], "span outside the context"
            assert e - s < max_len
            assert (s, e) == _brute_force(start[b].tolist(), end[b].tolist(), mask[b].tolist(), max_len)


def test_independent_argmax_would_fail_where_best_span_does_not():
    start = torch.tensor([0.0, 0.0, 1.0, 0.0, 5.0])
    end = torch.tensor([9.0, 0.0, 2.0, 0.0, 0.0])  # argmax end (0, [CLS]) is before argmax start (4)
    context = torch.tensor([0, 0, 1, 1, 1])
    assert start.argmax() > end.argmax()
    s, e = best_span(start, end, context)
    assert (int(s), int(e)) == (4, 4)


@pytest.mark.parametrize(
    "args, message",
    [
        ((torch.zeros(1, 4), torch.zeros(1, 4), torch.zeros(1, 4)), "no context token"),
        ((torch.tensor([[0.0, float("nan")]]), torch.zeros(1, 2), torch.ones(1, 2)), "NaN"),
        ((torch.zeros(1, 4), torch.zeros(1, 3), torch.ones(1, 4)), "must all be"),
    ],
)
def test_best_span_errors(args, message):
    with pytest.raises(ValueError, match=message):
        best_span(*args)


# ----------------------------------------------------------------------------------------------------------
# Datasets and bad input


def sentences():
    good = [
        "the cat sits on the mat",
        "the dog sits by the door",
        "the bird sits on the tree",
        "a cat sleeps",
    ]
    bad = ["the mat sits on the cat", "the door sits by the dog", "the tree sits on the bird", "a mat sleeps"]
    return [ClassificationExample(t, "good") for t in good] + [ClassificationExample(t, "bad") for t in bad]


def tagged():
    rows = [
        ("the cat sits", "DET NOUN VERB"),
        ("a dog barks", "DET NOUN VERB"),
        ("the bird sleeps", "DET NOUN VERB"),
        ("the dog sits on the mat", "DET NOUN VERB ADP DET NOUN"),
        ("a cat barks by the door", "DET NOUN VERB ADP DET NOUN"),
    ]
    return [TaggingExample(tuple(w.split()), tuple(t.split())) for w, t in rows]


def spans():
    out = []
    for context, question, answer in [
        ("the cat sits on the mat", "where does the cat sit ?", "the mat"),
        ("the dog sleeps by the door", "where does the dog sleep ?", "the door"),
        ("the bird sits on the tree", "what sits on the tree ?", "the bird"),
        ("a dog sits under the tree", "what sits under the tree ?", "a dog"),
    ]:
        out.append(SpanExample(question, context, answer, context.index(answer)))
    return out


def test_sequence_dataset_and_batches(tok):
    ds = make_dataset(SEQUENCE_CLASSIFICATION, sentences(), tok)
    assert ds.labels.names == ("bad", "good") and ds.num_labels == 2
    batch = ds.collate([ds[0], ds[7]])
    assert set(batch) == {"input_ids", "token_type_ids", "attention_mask", "labels"}
    assert batch["input_ids"].shape == batch["attention_mask"].shape == (2, 8)
    assert batch["attention_mask"][1].tolist() == [1] * 5 + [0] * 3
    assert batch["labels"].tolist() == [1, 0]


def test_subset_and_batches_refuse_bad_arguments(tok):
    ds = make_dataset(SEQUENCE_CLASSIFICATION, sentences(), tok)
    assert len(ds.subset([0, -1])) == 2
    with pytest.raises(ValueError, match=rf"0\.\.{len(ds) - 1}.*got \[{len(ds)}\]"):
        ds.subset([0, len(ds)])
    with pytest.raises(ValueError, match="whole numbers"):
        ds.subset([0.5])
    with pytest.raises(ValueError, match="batch_size"):
        next(ds.batches(0))


def test_unknown_label_names_and_empty_data(tok):
    train = make_dataset(SEQUENCE_CLASSIFICATION, sentences(), tok)
    with pytest.raises(ValueError, match="Unknown label 'neutral'"):
        make_dataset(
            SEQUENCE_CLASSIFICATION, [ClassificationExample("a cat", "neutral")], tok, labels=train.labels
        )
    with pytest.raises(ValueError, match="empty"):
        make_dataset(SEQUENCE_CLASSIFICATION, [], tok)
    with pytest.raises(ValueError, match="Unknown task"):
        make_dataset("translation", sentences(), tok)
    with pytest.raises(ValueError, match="needs ClassificationExample"):
        make_dataset(SEQUENCE_CLASSIFICATION, tagged(), tok)
    with pytest.raises(ValueError, match="out of range"):
        train.labels.name(2)


def test_labels_out_of_range_are_caught(tok):
    train = make_dataset(SEQUENCE_CLASSIFICATION, sentences(), tok)
    model = build_task_model(SEQUENCE_CLASSIFICATION, tiny_config(), num_labels=3)
    with pytest.raises(ValueError, match="num_labels=2"):
        fine_tune(model, train, config=FineTuneConfig(progress=False))
    small = build_task_model(SEQUENCE_CLASSIFICATION, tiny_config(), num_labels=2)
    batch = train.collate([train[0]])
    batch["labels"] = torch.tensor([5])
    with pytest.raises(ValueError, match=r"labels must lie in \[0, 2\); found 5"):
        small(**batch)


def test_model_and_dataset_must_match(tok):
    train = make_dataset(TOKEN_CLASSIFICATION, tagged(), tok)
    model = build_task_model(SEQUENCE_CLASSIFICATION, tiny_config(), num_labels=train.num_labels)
    with pytest.raises(ValueError, match="needs a BertForTokenClassification"):
        evaluate(model, train)
    big_vocab = BertTokenizer(VOCAB + ["extra"])
    ds = make_dataset(TOKEN_CLASSIFICATION, tagged(), big_vocab)
    model = build_task_model(TOKEN_CLASSIFICATION, tiny_config(), num_labels=ds.num_labels)
    with pytest.raises(ValueError, match="tokenizer the encoder was pretrained with"):
        evaluate(model, ds)


@pytest.mark.parametrize(
    "kw, message",
    [
        (dict(batch_size=0), "batch_size"),
        (dict(learning_rate=-1.0), "learning_rate"),
        (dict(lr_scale=1e6), "between 0 and 1"),
        (dict(warmup_ratio=1.5), "warmup_ratio"),
        (dict(patience=0), "patience"),
    ],
)
def test_config_errors(kw, message):
    with pytest.raises(ValueError, match=message):
        FineTuneConfig(**kw)


def test_label_budget_is_deterministic_and_keeps_every_class(tok):
    ds = make_dataset(SEQUENCE_CLASSIFICATION, sentences(), tok)
    small = label_budget(ds, 0.25, seed=3)
    assert len(small) == 2 and {f["labels"] for f in small.features} == {0, 1}
    assert [e.text for e in small.examples] == [e.text for e in label_budget(ds, 0.25, seed=3).examples]
    assert len(label_budget(ds, 1.0)) == len(ds)
    with pytest.raises(ValueError, match="fraction"):
        label_budget(ds, 0.0)


def test_budget_indices_draw_by_label_name_what_label_budget_draws_by_id(tok):
    """The WordNet tool draws its baselines' budget from label names, the fine-tuning from a dataset's ids: the
    same items for the same seed."""
    from bertedu.training.finetune_data import budget_indices

    examples = sentences() * 3
    ds = make_dataset(SEQUENCE_CLASSIFICATION, examples, tok)
    for seed in range(4):
        small = label_budget(ds, 0.4, seed=seed)
        chosen = budget_indices([e.label for e in examples], 0.4, seed=seed)
        assert [examples[i].text for i in chosen] == [e.text for e in small.examples]
        assert {examples[i].label for i in chosen} == {e.label for e in examples}  # every label present
    assert budget_indices(["a"] * 10, 0.3, seed=1, every_label=False) != budget_indices(
        ["a"] * 10, 0.3, seed=2
    )


def test_read_examples_formats_and_errors(tmp_path):
    path = tmp_path / "train.jsonl"
    path.write_text('{"text": "the cat sits", "label": "good"}\n\n{"text": "a mat", "label": "bad"}\n')
    assert read_examples(SEQUENCE_CLASSIFICATION, path)[1] == ClassificationExample("a mat", "bad")
    path.write_text('{"tokens": ["the", "cat"], "tags": ["DET", "NOUN"]}\n{"tokens": ["a"], "tags": []}\n')
    with pytest.raises(ValueError, match="example 2: 1 words but 0 tags"):
        read_examples(TOKEN_CLASSIFICATION, path)
    path.write_text('{"question": "q", "context": "the cat", "answer": "dog", "answer_start": 4}\n')
    with pytest.raises(ValueError, match="example 1: The context has 'cat'"):
        read_examples(SPAN_EXTRACTION, path)
    path.write_text('{"text": "the cat"}\n')
    with pytest.raises(ValueError, match="no 'label' field"):
        read_examples(SEQUENCE_CLASSIFICATION, path)
    path.write_text("{oops\n")
    with pytest.raises(ValueError, match="line 1 is not valid JSON"):
        read_examples(SEQUENCE_CLASSIFICATION, path)
    path.write_text("\n")
    with pytest.raises(ValueError, match="no examples"):
        read_examples(SEQUENCE_CLASSIFICATION, path)


# ----------------------------------------------------------------------------------------------------------
# The loop: overfitting, determinism, early stopping, checkpoints


FAST = FineTuneConfig(learning_rate=3e-3, batch_size=8, epochs=60, warmup_ratio=0.1, progress=False)


@pytest.mark.slow
@pytest.mark.parametrize(
    "task, data, metric",
    [
        (SEQUENCE_CLASSIFICATION, sentences, "accuracy"),
        (TOKEN_CLASSIFICATION, tagged, "token_accuracy"),
        (SPAN_EXTRACTION, spans, "exact_match"),
    ],
)
def test_a_tiny_model_overfits_a_handful_of_examples(tok, task, data, metric):
    ds = make_dataset(task, data(), tok, max_length=32)
    model = build_task_model(
        task,
        tiny_config(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0),
        num_labels=ds.num_labels,
        seed=0,
    )
    before = evaluate(model, ds)
    result = fine_tune(model, ds, config=FAST)
    after = evaluate(result.model, ds)
    assert after[metric] == 1.0, (before, after)
    assert after["loss"] < 0.1 * before["loss"]
    assert [r["epoch"] for r in result.history] == list(range(1, 61))


@pytest.mark.parametrize("task, data", [(SEQUENCE_CLASSIFICATION, sentences), (SPAN_EXTRACTION, spans)])
def test_evaluate_reads_each_batch_once_and_agrees_with_predict(tok, task, data):
    """fine_tune evaluates on dev after every epoch, so evaluate takes the loss and the predictions from one
    forward pass per batch (it used to run a second pass through predict)."""
    ds = make_dataset(task, data(), tok, max_length=32)
    model = build_task_model(task, tiny_config(), num_labels=ds.num_labels, seed=0).train()
    calls = []
    handle = model.bert.register_forward_hook(lambda *args: calls.append(1))
    try:
        scores = evaluate(model, ds, batch_size=3)
    finally:
        handle.remove()
    assert len(calls) == math.ceil(len(ds) / 3) and model.training  # one pass; training mode restored
    preds = predict(model, ds)
    if task == SEQUENCE_CLASSIFICATION:
        gold = [f["labels"] for f in ds.features]
        assert scores["accuracy"] == sum(p == g for p, g in zip(preds, gold)) / len(gold)
    else:
        other = evaluate(model, ds, batch_size=64)  # the batch size changes nothing but float rounding
        assert other == pytest.approx(scores) and (other["exact_match"], other["f1"]) == (
            scores["exact_match"],
            scores["f1"],
        )


@pytest.mark.slow
def test_same_seed_same_weights_other_seed_other_weights(tok):
    ds = make_dataset(SEQUENCE_CLASSIFICATION, sentences(), tok)
    config = FAST.replace(epochs=3)

    def run(seed):
        model = build_task_model(SEQUENCE_CLASSIFICATION, tiny_config(), num_labels=2, seed=0)
        return fine_tune(model, ds, config=config.replace(seed=seed)).model.state_dict()

    torch.manual_seed(123)
    expected = torch.rand(1)
    torch.manual_seed(123)
    a = run(0)
    assert torch.equal(torch.rand(1), expected)  # building and training left the caller's random state alone
    b, c = run(0), run(1)
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert any(not torch.equal(a[k], c[k]) for k in a)


@pytest.mark.slow
def test_early_stopping_keeps_the_best_dev_epoch_and_saves_it(tok, tmp_path):
    train = make_dataset(SEQUENCE_CLASSIFICATION, sentences(), tok)
    flipped = [ClassificationExample(e.text, "good" if e.label == "bad" else "bad") for e in sentences()]
    dev = make_dataset(SEQUENCE_CLASSIFICATION, flipped, tok, labels=train.labels)  # learning train hurts dev
    model = build_task_model(SEQUENCE_CLASSIFICATION, tiny_config(), num_labels=2)
    out = tmp_path / "best"
    result = fine_tune(model, train, dev, config=FAST.replace(patience=2), output_dir=out)
    evals = [r for r in result.history if r["split"] == "eval"]
    assert result.stopped_early and result.epochs_run < 60
    assert result.epochs_run - result.best_epoch == 2
    best = max(evals, key=lambda r: (r["accuracy"], -r["loss"]))
    assert best["epoch"] == result.best_epoch and result.best_metrics == {
        k: best[k] for k in result.best_metrics
    }
    # the returned model is the best epoch's, and so is the saved checkpoint
    assert evaluate(result.model, dev) == pytest.approx(result.best_metrics)
    assert {p.name for p in out.iterdir()} >= {
        "config.json",
        "model.safetensors",
        "vocab.txt",
        "finetune_state.json",
    }
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary folders left
    loaded, loaded_tok, state = load_finetuned(out)
    assert state["epoch"] == result.best_epoch and state["labels"] == ["bad", "good"]
    assert loaded_tok.get_vocab() == tok.get_vocab()
    assert predict(loaded, dev) == predict(result.model, dev)
    assert json.loads((out / "config.json").read_text())["architectures"] == ["BertForSequenceClassification"]


def test_build_task_model_from_a_pretrained_model_and_folder(tok, tmp_path, caplog):
    torch.manual_seed(0)
    pre = BertForPreTraining(tiny_config())
    for task in TASKS:
        model = build_task_model(task, pre, num_labels=3)
        torch.testing.assert_close(
            model.bert.embeddings.word_embeddings.weight, pre.bert.embeddings.word_embeddings.weight
        )
        torch.testing.assert_close(
            model.bert.encoder.layer[1].output.dense.weight, pre.bert.encoder.layer[1].output.dense.weight
        )
        assert model.training
    pre.save_pretrained(tmp_path / "pre")
    model = build_task_model(TOKEN_CLASSIFICATION, tmp_path / "pre", num_labels=5)
    assert model.config.num_labels == 5
    assert "random initialisation" not in caplog.text  # quiet: the expected fresh head is not reported
    build_task_model(TOKEN_CLASSIFICATION, tmp_path / "pre", num_labels=5, quiet=False)
    assert "classifier.*" in caplog.text
    # the same seed gives the same head
    a = build_task_model(SEQUENCE_CLASSIFICATION, pre, num_labels=2, seed=4).classifier.weight
    b = build_task_model(SEQUENCE_CLASSIFICATION, pre, num_labels=2, seed=4).classifier.weight
    assert torch.equal(a, b)
    with pytest.raises(ValueError, match="BertConfig, a bertedu model or a checkpoint folder"):
        build_task_model(SEQUENCE_CLASSIFICATION, 42)


def test_course_recipe_scales_the_paper_learning_rate():
    recipe = course_recipe(SEQUENCE_CLASSIFICATION)
    assert recipe.learning_rate in (5e-5, 3e-5, 2e-5) and recipe.batch_size in (16, 32)
    assert recipe.lr == pytest.approx(recipe.learning_rate * recipe.lr_scale) and recipe.lr_scale > 1
    assert set(COURSE_THRESHOLDS) == set(TASKS)
    with pytest.raises(ValueError, match="encoder must be one of"):
        course_recipe(SEQUENCE_CLASSIFICATION, "gpt")


def test_loss_helpers_agree_with_torch():
    logits = torch.tensor([1.0, -2.0, 0.5])
    torch.testing.assert_close(_ce_by_hand(logits, 2), F.cross_entropy(logits[None], torch.tensor([2])))


@pytest.mark.slow
def test_min_steps_adds_epochs_and_blocks_early_stopping(tok):
    train = make_dataset(
        SEQUENCE_CLASSIFICATION, sentences()[::3], tok
    )  # 3 examples, batch 8: one step per epoch
    flipped = [ClassificationExample(e.text, "good" if e.label == "bad" else "bad") for e in sentences()]
    dev = make_dataset(SEQUENCE_CLASSIFICATION, flipped, tok, labels=train.labels)
    model = build_task_model(SEQUENCE_CLASSIFICATION, tiny_config(), num_labels=2)
    result = fine_tune(model, train, dev, config=FAST.replace(epochs=2, patience=1, min_steps=12))
    assert result.steps == result.epochs_run >= 12  # 12 epochs planned, none stopped before step 12
    with pytest.raises(ValueError, match="min_steps"):
        FineTuneConfig(min_steps=-1)
