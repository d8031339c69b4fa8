"""The model: embeddings, init, tying, padding invariance, dropout, input checks, fast paths, sizes."""

import logging

import pytest
import torch
from support import small_bert_config

from bertedu.core.config import BertConfig
from bertedu.core.embeddings import BertEmbeddings
from bertedu.core.model import (
    BertForPreTraining,
    BertForQuestionAnswering,
    BertForSequenceClassification,
    BertForTokenClassification,
    BertModel,
    count_parameters,
    parameter_breakdown,
    parameter_count,
)

V = 97


def small_config(**kw):
    return small_bert_config(**{"vocab_size": V, **kw})


def batch(B=3, T=10, seed=0, lengths=(10, 6, 3)):
    g = torch.Generator().manual_seed(seed)
    input_ids = torch.randint(5, V, (B, T), generator=g)
    attention_mask = (torch.arange(T)[None, :] < torch.tensor(lengths)[:, None]).long()
    input_ids = input_ids.masked_fill(attention_mask == 0, 0)
    token_type_ids = (torch.arange(T)[None, :] >= torch.tensor(lengths)[:, None] // 2).long() * attention_mask
    return input_ids, attention_mask, token_type_ids


def mlm_labels(input_ids, attention_mask, seed=1, p=0.3):
    g = torch.Generator().manual_seed(seed)
    chosen = (torch.rand(input_ids.shape, generator=g) < p) & (attention_mask == 1)
    chosen[0, 1] = True
    return torch.where(chosen, input_ids, torch.full_like(input_ids, -100))


# --- embeddings ----------------------------------------------------------------------------------------
def test_embeddings_are_three_lookups_summed_then_layernorm():
    torch.manual_seed(0)
    emb = BertEmbeddings(small_config()).eval()
    ids, _, types = batch()
    out = emb(ids, types)
    by_hand = (
        emb.word_embeddings.weight[ids]
        + emb.position_embeddings.weight[torch.arange(10)]
        + emb.token_type_embeddings.weight[types]
    )
    assert torch.allclose(out, emb.LayerNorm(by_hand), atol=1e-6)
    assert emb.LayerNorm.eps == 1e-12
    assert torch.equal(emb(ids), emb(ids, torch.zeros_like(ids)))  # omitted token types = segment 0
    assert "position_ids" not in emb.state_dict()  # buffer is not persistent (as in transformers 5)


# --- initialisation ---------------------------------------------------------------------------------------
def test_initialisation_follows_bert():
    torch.manual_seed(0)
    model = BertForPreTraining(small_config(hidden_size=64, intermediate_size=256, vocab_size=500))
    emb = model.bert.embeddings.word_embeddings.weight
    assert torch.all(emb[0] == 0)  # the [PAD] row
    assert 0.018 < emb[1:].std().item() < 0.022 and abs(emb.mean().item()) < 0.002
    q = model.bert.encoder.layer[0].attention.self.query
    assert 0.017 < q.weight.std().item() < 0.023 and torch.all(q.bias == 0)
    ln = model.bert.encoder.layer[1].output.LayerNorm
    assert torch.all(ln.weight == 1) and torch.all(ln.bias == 0)
    assert torch.all(model.cls.predictions.bias == 0)


# --- weight tying ----------------------------------------------------------------------------------------
def assert_tied(model):
    assert model.cls.predictions.decoder.weight is model.bert.embeddings.word_embeddings.weight
    assert model.cls.predictions.decoder.bias is model.cls.predictions.bias


def test_tying_survives_to_load_state_dict_and_save_load(tmp_path):
    torch.manual_seed(0)
    model = BertForPreTraining(small_config())
    assert_tied(model)
    assert count_parameters(model) == parameter_count(model.config, "BertForPreTraining")  # counted once
    model.to(torch.float64)
    assert_tied(model)
    assert model.cls.predictions.decoder.weight.dtype == torch.float64
    model.to(torch.float32)

    other = BertForPreTraining(small_config())
    other.load_state_dict(model.state_dict())
    assert_tied(other)
    assert torch.equal(
        other.bert.embeddings.word_embeddings.weight, model.bert.embeddings.word_embeddings.weight
    )
    other.load_state_dict(model.state_dict(), assign=True)  # replaces Parameters: re-tied by a hook
    assert_tied(other)

    model.save_pretrained(tmp_path / "ckpt")
    loaded = BertForPreTraining.from_pretrained(tmp_path / "ckpt")
    assert_tied(loaded)
    with torch.no_grad():  # a change through one name is seen through the other
        loaded.bert.embeddings.word_embeddings.weight[3, 0] = 42.0
    assert loaded.cls.predictions.decoder.weight[3, 0].item() == 42.0


def test_tied_gradient_flows_into_the_embedding():
    torch.manual_seed(0)
    model = BertForPreTraining(small_config())
    ids, mask, types = batch()
    labels = mlm_labels(ids, mask)
    model(ids, mask, types, labels=labels).loss.backward()
    grad = model.bert.embeddings.word_embeddings.weight.grad
    assert grad is not None and grad.abs().sum() > 0
    assert model.cls.predictions.decoder.weight.grad is grad


# --- save / load -----------------------------------------------------------------------------------------
@pytest.mark.slow
def test_save_load_round_trip_and_files(tmp_path):
    torch.manual_seed(0)
    model = BertForPreTraining(small_config()).eval()
    path = model.save_pretrained(tmp_path / "run")
    assert sorted(p.name for p in path.iterdir()) == ["config.json", "model.safetensors"]
    loaded, info = BertForPreTraining.from_pretrained(path, output_loading_info=True)
    assert info.missing_keys == [] and info.unexpected_keys == []
    assert not loaded.training  # from_pretrained returns an eval-mode model
    ids, mask, types = batch()
    a, b = model(ids, mask, types), loaded(ids, mask, types)
    assert torch.equal(a.prediction_logits, b.prediction_logits)
    assert torch.equal(a.seq_relationship_logits, b.seq_relationship_logits)
    assert '"BertForPreTraining"' in (path / "config.json").read_text()


def test_save_with_a_tokenizer_writes_the_vocab(tmp_path):
    class TinyTokenizer:
        vocab_size = V

        def save_vocabulary(self, directory):
            (tmp_path / "run" / "vocab.txt").write_text("\n".join(f"t{i}" for i in range(V)) + "\n")

    BertModel(small_config()).save_pretrained(tmp_path / "run", tokenizer=TinyTokenizer())
    assert (tmp_path / "run" / "vocab.txt").read_text().count("\n") == V

    class TooBig(TinyTokenizer):
        vocab_size = V + 1

    with pytest.raises(ValueError, match="tokenizer"):
        BertModel(small_config()).save_pretrained(tmp_path / "run2", tokenizer=TooBig())


def test_encoder_checkpoint_into_pretraining_model_warns_and_keeps_fresh_heads(tmp_path, caplog):
    torch.manual_seed(0)
    BertModel(small_config()).save_pretrained(tmp_path / "enc")
    with caplog.at_level(logging.WARNING, logger="bertedu"):
        model, info = BertForPreTraining.from_pretrained(tmp_path / "enc", output_loading_info=True)
    assert "random initialisation" in caplog.text and "cls.predictions.*" in caplog.text
    assert "cls.seq_relationship.*" in caplog.text
    assert set(info.missing_keys) == {
        k for k in model.state_dict() if k.startswith("cls.") and "decoder" not in k
    }
    assert_tied(model)
    # and the other way: a pretraining checkpoint into BertModel loads quietly, heads unused
    BertForPreTraining(small_config()).save_pretrained(tmp_path / "pre")
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="bertedu"):
        _, info = BertModel.from_pretrained(tmp_path / "pre", output_loading_info=True)
    assert info.missing_keys == [] and all(k.startswith("cls.") for k in info.unexpected_keys)
    assert caplog.text == ""


def test_task_model_from_pretraining_checkpoint(tmp_path, caplog):
    torch.manual_seed(0)
    pre = BertForPreTraining(small_config())
    pre.save_pretrained(tmp_path / "pre")
    with caplog.at_level(logging.WARNING, logger="bertedu"):
        clf = BertForSequenceClassification.from_pretrained(tmp_path / "pre", num_labels=3)
    assert clf.classifier.out_features == 3 and "classifier.*" in caplog.text
    assert torch.equal(clf.bert.pooler.dense.weight, pre.bert.pooler.dense.weight)


def test_shape_mismatch_and_missing_files_are_clear(tmp_path):
    BertModel(small_config()).save_pretrained(tmp_path / "a")
    with pytest.raises(ValueError, match="vocab_size"):
        BertModel.from_pretrained(tmp_path / "a", vocab_size=V + 1)
    with pytest.raises(FileNotFoundError):
        BertModel.from_pretrained(tmp_path / "nothing")
    (tmp_path / "b").mkdir()
    small_config().to_json_file(tmp_path / "b" / "config.json")
    with pytest.raises(FileNotFoundError, match="model.safetensors"):
        BertModel.from_pretrained(tmp_path / "b")


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[:1000],
        lambda b: b"",
        lambda b: b"garbage" * 10,
        lambda b: (2**62).to_bytes(8, "little") + b[8:],
    ],
    ids=["truncated", "empty", "garbage", "huge-header"],
)
def test_a_damaged_safetensors_file_is_named_in_the_error(tmp_path, damage):
    BertModel(small_config()).save_pretrained(tmp_path / "m")
    weights = tmp_path / "m" / "model.safetensors"
    weights.write_bytes(damage(weights.read_bytes()))
    with pytest.raises(ValueError, match=r"model\.safetensors is damaged"):
        BertModel.from_pretrained(tmp_path / "m")


@pytest.mark.slow
def test_pytorch_bin_is_loaded_without_unpickling_objects(tmp_path):
    torch.manual_seed(0)
    model = BertModel(small_config()).eval()
    (tmp_path / "bin").mkdir()
    model.config.to_json_file(tmp_path / "bin" / "config.json")
    torch.save(model.state_dict(), tmp_path / "bin" / "pytorch_model.bin")
    loaded = BertModel.from_pretrained(tmp_path / "bin")
    ids, mask, _ = batch()
    assert torch.equal(loaded(ids, mask).last_hidden_state, model(ids, mask).last_hidden_state)

    class Evil:
        def __reduce__(self):
            return (print, ("pwned",))

    (tmp_path / "evil").mkdir()
    model.config.to_json_file(tmp_path / "evil" / "config.json")
    torch.save({"x": Evil()}, tmp_path / "evil" / "pytorch_model.bin")
    with pytest.raises(ValueError, match="weights_only"):
        BertModel.from_pretrained(tmp_path / "evil")


# --- padding, attention, dropout ------------------------------------------------------------------------
@pytest.mark.slow
def test_appending_masked_padding_leaves_real_tokens_unchanged():
    torch.manual_seed(0)
    model = BertForPreTraining(small_config()).eval()
    ids, mask, types = batch(lengths=(10, 6, 3))
    pad = 7
    ids_p = torch.cat([ids, torch.zeros(3, pad, dtype=torch.long)], 1)
    mask_p = torch.cat([mask, torch.zeros(3, pad, dtype=torch.long)], 1)
    types_p = torch.cat([types, torch.zeros(3, pad, dtype=torch.long)], 1)
    with torch.no_grad():
        a = model(ids, mask, types, output_hidden_states=True)
        b = model(ids_p, mask_p, types_p, output_hidden_states=True)
    real = mask.bool()
    for h_a, h_b in zip(a.hidden_states, b.hidden_states):
        assert (h_a[real] - h_b[:, :10][real]).abs().max() < 1e-6
    assert (a.prediction_logits[real] - b.prediction_logits[:, :10][real]).abs().max() < 1e-6
    assert (a.seq_relationship_logits - b.seq_relationship_logits).abs().max() < 1e-6


def test_attention_weights_ignore_padded_keys():
    torch.manual_seed(0)
    model = BertModel(small_config()).eval()
    ids, mask, types = batch(lengths=(10, 6, 3))
    out = model(ids, mask, types, output_attentions=True, output_hidden_states=True)
    assert len(out.attentions) == 2 and len(out.hidden_states) == 3
    for w in out.attentions:
        assert w.shape == (3, 4, 10, 10)
        assert torch.all(w.masked_select(mask[:, None, None, :].expand_as(w) == 0) == 0)
        assert torch.allclose(w.sum(-1), torch.ones(3, 4, 10), atol=1e-6)
    assert torch.equal(out.hidden_states[-1], out.last_hidden_state)


@pytest.mark.slow
def test_eval_is_deterministic_train_applies_dropout():
    torch.manual_seed(0)
    model = BertForPreTraining(small_config())
    ids, mask, types = batch()
    model.eval()
    assert torch.equal(model(ids, mask, types).prediction_logits, model(ids, mask, types).prediction_logits)
    model.train()
    a, b = model(ids, mask, types).prediction_logits, model(ids, mask, types).prediction_logits
    assert not torch.allclose(a, b)
    no_dropout = BertForPreTraining(
        small_config(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    ).train()
    assert torch.equal(
        no_dropout(ids, mask, types).prediction_logits, no_dropout(ids, mask, types).prediction_logits
    )


@pytest.mark.parametrize("position", ["post", "pre"])
def test_every_layernorm_uses_the_configs_eps(position):
    """BERT's 1e-12 everywhere (PyTorch's default is 1e-5): embeddings, every layer, the heads."""
    for eps in (1e-12, 1e-7):
        model = BertForPreTraining(small_config(layer_norm_eps=eps, layer_norm_position=position))
        norms = {name: m.eps for name, m in model.named_modules() if isinstance(m, torch.nn.LayerNorm)}
        assert len(norms) >= 1 + 2 * 2 + 1  # embeddings, 2 per layer, the MLM head's transform
        assert norms == dict.fromkeys(norms, eps)


def test_post_ln_order():
    """A layer's output is LayerNorm(h + FFN(h)) with h = LayerNorm(x + attention(x))."""
    torch.manual_seed(0)
    model = BertModel(small_config()).eval()
    layer = model.encoder.layer[0]
    x = torch.randn(2, 5, 32)
    att = layer.attention
    h = att.output.LayerNorm(att.output.dense(att.self(x)[0]) + x)
    expected = layer.output.LayerNorm(
        layer.output.dense(torch.nn.functional.gelu(layer.intermediate.dense(h))) + h
    )
    assert torch.allclose(layer(x)[0], expected, atol=1e-6)


# --- input validation ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "change, message",
    [
        (lambda i, m, t: (torch.zeros(1, 41, dtype=torch.long), None, None), "max_position_embeddings"),
        (
            lambda i, m, t: (i.clone().index_fill_(1, torch.tensor([2]), V), m, t),
            r"input_ids must lie in \[0, 97\)",
        ),
        (lambda i, m, t: (i.clone().index_fill_(1, torch.tensor([2]), -1), m, t), "input_ids must lie"),
        (lambda i, m, t: (i, m, t + 1), "token_type_ids must lie in"),
        (lambda i, m, t: (i, m[:, :-1], t), "attention_mask has shape"),
        (lambda i, m, t: (i, m, t[:2]), "token_type_ids has shape"),
        (lambda i, m, t: (i.float(), m, t), "integer ids"),
        (lambda i, m, t: (i, m, t.float()), "integer ids"),
        (lambda i, m, t: (i[0], None, None), "unsqueeze"),
        (lambda i, m, t: (i, m * 2, t), "only 0"),
        (lambda i, m, t: (i, m * 0, t), "at least one real token"),
        (lambda i, m, t: (i.tolist(), None, None), "torch.Tensor"),
        (lambda i, m, t: (i.to(torch.int8), m, t), r"dtype torch.int8.*input_ids.long\(\)"),
        (lambda i, m, t: (i.to(torch.uint8), m, t), "dtype torch.uint8"),
        (lambda i, m, t: (i, m, t.to(torch.int16)), "token_type_ids has dtype torch.int16"),
    ],
)
def test_bad_inputs_raise_clear_errors(change, message):
    model = BertForPreTraining(small_config()).eval()
    ids, mask, types = change(*batch())
    with pytest.raises(ValueError, match=message):
        model(ids, mask, types)


@pytest.mark.slow
def test_bad_labels_raise_clear_errors():
    model = BertForPreTraining(small_config()).eval()
    ids, mask, types = batch()
    labels = mlm_labels(ids, mask)
    with pytest.raises(ValueError, match="labels must lie"):
        model(ids, mask, types, labels=labels.clone().fill_(V))
    with pytest.raises(ValueError, match="labels must have shape"):
        model(ids, mask, types, labels=labels[:, :-1])
    with pytest.raises(ValueError, match="next_sentence_label must lie"):
        model(ids, mask, types, next_sentence_label=torch.tensor([0, 1, 2]))
    with pytest.raises(ValueError, match="integer tensor"):
        model(ids, mask, types, next_sentence_label=torch.tensor([0.0, 1.0, 1.0]))
    clf = BertForSequenceClassification(small_config(num_labels=3))
    with pytest.raises(ValueError, match=r"\[0, 3\)"):
        clf(ids, mask, labels=torch.tensor([0, 3, 1]))
    qa = BertForQuestionAnswering(small_config())
    with pytest.raises(ValueError, match="start_positions"):
        qa(ids, mask, start_positions=torch.tensor([0, 10, 1]), end_positions=torch.tensor([0, 1, 1]))
    with pytest.raises(ValueError, match="both"):
        qa(ids, mask, start_positions=torch.tensor([0, 1, 1]))
    regression = BertForSequenceClassification(small_config(num_labels=1))
    with pytest.raises(ValueError, match="NaN or infinite"):
        regression(ids, mask, labels=torch.tensor([0.5, float("nan"), 1.0]))
    with pytest.raises(ValueError, match="float tensor of shape"):
        regression(ids, mask, labels=torch.tensor([0, 1, 1]))


@pytest.mark.parametrize("value", [float("inf"), float("nan"), 0.0, -0.02])
def test_initializer_range_must_be_a_positive_finite_number(value):
    with pytest.raises(ValueError, match="initializer_range"):
        small_config(initializer_range=value)


# --- pretraining model, fast paths ------------------------------------------------------------------------
@pytest.mark.slow
def test_pretraining_losses_and_outputs():
    torch.manual_seed(0)
    model = BertForPreTraining(small_config()).eval()
    ids, mask, types = batch()
    labels, nsp = mlm_labels(ids, mask), torch.tensor([0, 1, 0])
    out = model(ids, mask, types, labels=labels, next_sentence_label=nsp)
    assert out.prediction_logits.shape == (3, 10, V) and out.seq_relationship_logits.shape == (3, 2)
    assert torch.allclose(out.loss, out.mlm_loss + out.nsp_loss)
    sel = labels != -100
    assert torch.allclose(
        out.mlm_loss, torch.nn.functional.cross_entropy(out.prediction_logits[sel], labels[sel])
    )
    assert torch.allclose(out.nsp_loss, torch.nn.functional.cross_entropy(out.seq_relationship_logits, nsp))
    assert out["loss"] is out.loss and out[0] is out.loss
    only_mlm = model(ids, mask, types, labels=labels)
    assert only_mlm.nsp_loss is None and torch.allclose(only_mlm.loss, out.mlm_loss)
    assert model(ids, mask, types).loss is None
    none_masked = model(ids, mask, types, labels=torch.full_like(ids, -100), next_sentence_label=nsp)
    assert none_masked.mlm_loss.item() == 0.0 and torch.allclose(none_masked.loss, out.nsp_loss)


@pytest.mark.slow
def test_mlm_fast_path_gives_the_same_loss_and_gradients():
    torch.manual_seed(0)
    config = small_config(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    model = BertForPreTraining(config).train()
    ids, mask, types = batch()
    labels, nsp = mlm_labels(ids, mask), torch.tensor([0, 1, 1])

    full = model(ids, mask, types, labels=labels, next_sentence_label=nsp)
    full.loss.backward()
    grads_full = {n: p.grad.clone() for n, p in model.named_parameters()}
    model.zero_grad()
    fast = model(ids, mask, types, labels=labels, next_sentence_label=nsp, mlm_logits_at_labels_only=True)
    fast.loss.backward()

    sel = labels != -100
    assert fast.prediction_logits.shape == (int(sel.sum()), V)
    assert torch.allclose(fast.prediction_logits, full.prediction_logits[sel], atol=1e-6)
    assert abs(fast.loss.item() - full.loss.item()) < 1e-6
    for n, p in model.named_parameters():
        assert torch.allclose(p.grad, grads_full[n], atol=1e-6), n

    # the forward argument is the only switch; without labels the logits are full
    model.eval()
    out = model(ids, mask, types, labels=labels, mlm_logits_at_labels_only=True)
    assert out.prediction_logits.shape == (int(sel.sum()), V)
    assert abs(out.loss.item() - model(ids, mask, types, labels=labels).loss.item()) < 1e-6
    assert model(ids, mask, types, mlm_logits_at_labels_only=True).prediction_logits.shape == (3, 10, V)
    assert model(ids, mask, types, labels=labels).prediction_logits.dim() == 3
    assert not hasattr(model.config, "mlm_logits_at_labels_only")  # not a config field (nor in config.json)
    empty = model(ids, mask, types, labels=torch.full_like(ids, -100), mlm_logits_at_labels_only=True)
    assert empty.prediction_logits.shape == (0, V) and empty.loss.item() == 0.0


@pytest.mark.slow
def test_sdpa_path_equals_eager_path():
    torch.manual_seed(0)
    eager = BertForPreTraining(small_config(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0))
    fused = BertForPreTraining(eager.config.replace(attn_implementation="sdpa"))
    fused.load_state_dict(eager.state_dict())
    ids, mask, types = batch()
    labels, nsp = mlm_labels(ids, mask), torch.tensor([1, 0, 1])
    for model in (eager, fused):
        model.train()
        model(ids, mask, types, labels=labels, next_sentence_label=nsp).loss.backward()
    a = eager.eval()(ids, mask, types, labels=labels, next_sentence_label=nsp, output_hidden_states=True)
    b = fused.eval()(ids, mask, types, labels=labels, next_sentence_label=nsp, output_hidden_states=True)
    for h_a, h_b in zip(a.hidden_states, b.hidden_states):
        assert (h_a - h_b).abs().max() < 1e-5
    assert (a.prediction_logits - b.prediction_logits).abs().max() < 1e-5
    assert abs(a.loss.item() - b.loss.item()) < 1e-6
    for (n, p), q in zip(eager.named_parameters(), fused.parameters()):
        assert torch.allclose(p.grad, q.grad, atol=1e-5), n
    assert b.attentions is None
    assert fused(ids, mask, types, output_attentions=True).attentions[0].shape == (3, 4, 10, 10)


# --- task models ---------------------------------------------------------------------------------------
@pytest.mark.slow
def test_task_models_shapes_and_losses():
    torch.manual_seed(0)
    ids, mask, types = batch()
    clf = BertForSequenceClassification(small_config(num_labels=3)).eval()
    out = clf(ids, mask, types, labels=torch.tensor([0, 2, 1]))
    assert out.logits.shape == (3, 3)
    assert torch.allclose(out.loss, torch.nn.functional.cross_entropy(out.logits, torch.tensor([0, 2, 1])))
    reg = BertForSequenceClassification(small_config(num_labels=1)).eval()
    y = torch.tensor([0.5, 1.0, -1.0])
    out = reg(ids, mask, labels=y)
    assert out.logits.shape == (3, 1)
    assert torch.allclose(out.loss, torch.nn.functional.mse_loss(out.logits.view(-1), y))  # regression: MSE
    assert torch.allclose(out.loss, ((out.logits[:, 0] - y) ** 2).mean())

    tok = BertForTokenClassification(small_config(num_labels=5)).eval()
    labels = torch.where(mask == 1, ids % 5, torch.full_like(ids, -100))
    out = tok(ids, mask, types, labels=labels)
    sel = labels != -100
    assert out.logits.shape == (3, 10, 5)
    assert torch.allclose(out.loss, torch.nn.functional.cross_entropy(out.logits[sel], labels[sel]))
    assert tok.bert.pooler is None

    qa = BertForQuestionAnswering(small_config()).eval()
    start, end = torch.tensor([1, 2, 0]), torch.tensor([3, 4, 2])
    out = qa(ids, mask, types, start_positions=start, end_positions=end)
    assert out.start_logits.shape == (3, 10) and out.end_logits.shape == (3, 10)
    ce = torch.nn.functional.cross_entropy
    assert torch.allclose(out.loss, (ce(out.start_logits, start) + ce(out.end_logits, end)) / 2)


# --- sizes --------------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_parameter_counts_of_the_paper():
    base, large = BertConfig.from_preset("base"), BertConfig.from_preset("large")
    assert parameter_count(base) == 109_482_240
    assert parameter_count(base, "BertForPreTraining") == 110_106_428
    assert parameter_count(large) == 335_141_888
    parts = parameter_breakdown(base)
    assert parts["encoder_layer"] == 4 * 768**2 + 2 * 768 * 3072 + 9 * 768 + 3072
    assert parts["embeddings"] == (30522 + 512 + 2) * 768 + 2 * 768
    # the real modules agree, built on the meta device (no memory is allocated)
    with torch.device("meta"):
        assert count_parameters(BertModel(base)) == 109_482_240
        assert count_parameters(BertForPreTraining(base)) == 110_106_428
        assert count_parameters(BertModel(large)) == 335_141_888


@pytest.mark.parametrize(
    "cls",
    [
        BertModel,
        BertForPreTraining,
        BertForSequenceClassification,
        BertForTokenClassification,
        BertForQuestionAnswering,
    ],
)
def test_parameter_count_formula_matches_every_architecture(cls):
    config = small_config(num_labels=4)
    assert count_parameters(cls(config)) == parameter_count(config, cls.__name__)


def test_count_trainable_only():
    model = BertModel(small_config())
    total = count_parameters(model)
    model.embeddings.requires_grad_(False)
    assert (
        count_parameters(model, trainable_only=True)
        == total - parameter_breakdown(model.config)["embeddings"]
    )
    with pytest.raises(ValueError, match="architecture"):
        parameter_count(model.config, "GPT2")


# --- the ablation switches of notebook 10 ---------------------------------------------------------------------
SWITCHES = [
    {"is_decoder": True},
    {"position_embedding_type": "none"},
    {"layer_norm_position": "pre"},
]


@pytest.mark.slow
@pytest.mark.parametrize("attn", ["eager", "sdpa"])
def test_causal_mask_really_blocks_the_future(attn):
    """Changing the token at position k never changes an output before k; it does change the outputs after
    it, and in the bidirectional default it changes the earlier ones too (so the test can fail)."""
    torch.manual_seed(0)
    causal = BertModel(small_config(is_decoder=True, attn_implementation=attn)).eval()
    bidirectional = BertModel(small_config(attn_implementation=attn)).eval()
    bidirectional.load_state_dict(causal.state_dict())
    ids, mask, types = batch()
    with torch.no_grad():
        for k in (1, 4, 5):
            changed = ids.clone()
            changed[:, k] = (changed[:, k] + 7) % (V - 5) + 5  # another real token at position k
            before = causal(ids, mask, types).last_hidden_state
            after = causal(changed, mask, types).last_hidden_state
            assert torch.allclose(before[:, :k], after[:, :k], atol=1e-6, rtol=0)
            assert not torch.allclose(before[0, k:], after[0, k:], atol=1e-3)  # row 0 has no padding
            b_before = bidirectional(ids, mask, types).last_hidden_state
            b_after = bidirectional(changed, mask, types).last_hidden_state
            assert not torch.allclose(b_before[0, :k], b_after[0, :k], atol=1e-3)


def test_causal_attention_weights_are_lower_triangular_and_ignore_padding():
    torch.manual_seed(0)
    model = BertModel(small_config(is_decoder=True)).eval()
    ids, mask, types = batch()
    with torch.no_grad():
        weights = model(ids, mask, types, output_attentions=True).attentions[0]  # (B, A, T, T)
    future = torch.ones(10, 10, dtype=torch.bool).triu(1)
    assert torch.all(weights[..., future] == 0)
    assert torch.all(weights[2, :, :3, 3:] == 0)  # sequence 2 has 3 real tokens
    assert torch.allclose(weights.sum(-1), torch.ones(3, 2 * 2, 10)[:, :4], atol=1e-6)


def test_causal_pooler_reads_the_last_real_token():
    """Under a causal mask [CLS] sees only itself; the pooled output is the last real token's, so appending
    padding leaves it unchanged and changing the last real token changes it."""
    torch.manual_seed(0)
    model = BertModel(small_config(is_decoder=True)).eval()
    ids, mask, types = batch(lengths=(10, 6, 3))
    with torch.no_grad():
        out = model(ids, mask, types)
        last = torch.tensor([9, 5, 2])
        expected = model.pooler(out.last_hidden_state[torch.arange(3), last][:, None])
        assert torch.allclose(out.pooler_output, expected, atol=1e-6)
        padded = model(
            torch.cat([ids, torch.zeros(3, 4, dtype=torch.long)], 1),
            torch.cat([mask, torch.zeros(3, 4, dtype=torch.long)], 1),
            torch.cat([types, torch.zeros(3, 4, dtype=torch.long)], 1),
        )
        assert torch.allclose(padded.pooler_output, out.pooler_output, atol=1e-5)


@pytest.mark.slow
def test_causal_token_outputs_match_transformers_is_decoder():
    transformers = pytest.importorskip("transformers")
    config = small_config(is_decoder=True)
    torch.manual_seed(0)
    hf = transformers.BertModel(transformers.BertConfig(**config.to_dict())).eval()
    mine = BertModel(config).eval()
    mine.load_state_dict(hf.state_dict(), strict=True)
    ids, mask, types = batch()
    with torch.no_grad():
        want = hf(ids, attention_mask=mask, token_type_ids=types, use_cache=False).last_hidden_state
        got = mine(ids, mask, types).last_hidden_state
    real = mask.bool()
    assert torch.allclose(got[real], want[real], atol=1e-5)


@pytest.mark.slow
def test_no_position_model_is_permutation_equivariant():
    """Without position embeddings, permuting the tokens (with their segment ids) permutes the outputs the
    same way; with BERT's positions it does not."""
    torch.manual_seed(0)
    blind = BertModel(small_config(position_embedding_type="none")).eval()
    seeing = BertModel(small_config()).eval()
    assert blind.embeddings.position_embeddings is None
    ids, _, types = batch(lengths=(10, 10, 10))
    perm = torch.randperm(10, generator=torch.Generator().manual_seed(3))
    with torch.no_grad():
        out = blind(ids, None, types).last_hidden_state
        permuted = blind(ids[:, perm], None, types[:, perm]).last_hidden_state
        assert torch.allclose(permuted, out[:, perm], atol=1e-5)
        out = seeing(ids, None, types).last_hidden_state
        permuted = seeing(ids[:, perm], None, types[:, perm]).last_hidden_state
        assert not torch.allclose(permuted, out[:, perm], atol=1e-3)


def test_pre_ln_order_and_final_layernorm():
    """A pre-LN layer is h = x + attention(LN(x)), out = h + FFN(LN(h)); the encoder ends with a LayerNorm."""
    torch.manual_seed(0)
    model = BertModel(small_config(layer_norm_position="pre")).eval()
    layer = model.encoder.layer[0]
    x = torch.randn(2, 5, 32)
    att = layer.attention
    h = x + att.output.dense(att.self(att.output.LayerNorm(x))[0])
    ffn = layer.output.dense(torch.nn.functional.gelu(layer.intermediate.dense(layer.output.LayerNorm(h))))
    assert torch.allclose(layer(x)[0], h + ffn, atol=1e-6)
    ids, _, types = batch(lengths=(10, 10, 10))
    with torch.no_grad():
        out = model(ids, None, types, output_hidden_states=True)
        unnormalised = model.encoder.layer[1](model.encoder.layer[0](out.hidden_states[0])[0])[0]
    assert torch.allclose(out.last_hidden_state, model.encoder.LayerNorm(unnormalised), atol=1e-6)
    assert torch.equal(out.hidden_states[-1], out.last_hidden_state)
    assert "encoder.LayerNorm.weight" in model.state_dict()
    bert = BertModel(small_config())  # BERT (post-LN) has no LayerNorm after its last layer, as in HF
    assert not hasattr(bert.encoder, "LayerNorm") and not any(
        "encoder.LayerNorm" in k for k in bert.state_dict()
    )


@pytest.mark.parametrize("switch", SWITCHES, ids=lambda s: "-".join(f"{k}={v}" for k, v in s.items()))
@pytest.mark.parametrize("cls", [BertModel, BertForPreTraining, BertForSequenceClassification])
def test_switches_keep_the_parameter_formula_and_survive_save_load(switch, cls, tmp_path):
    config = small_config(**switch)
    torch.manual_seed(0)
    model = cls(config).eval()
    assert count_parameters(model) == parameter_count(config, cls.__name__)
    model.save_pretrained(tmp_path)
    loaded = cls.from_pretrained(tmp_path)
    assert loaded.config == config
    ids, mask, types = batch()
    with torch.no_grad():
        a, b = model(ids, mask, types), loaded(ids, mask, types)
    first = (
        "last_hidden_state"
        if cls is BertModel
        else "prediction_logits"
        if "PreTraining" in cls.__name__
        else "logits"
    )
    assert torch.equal(getattr(a, first), getattr(b, first))


def test_parameter_breakdown_of_the_switches():
    base = small_config()
    assert parameter_count(small_config(position_embedding_type="none")) == parameter_count(base) - 40 * 32
    assert parameter_count(small_config(layer_norm_position="pre")) == parameter_count(base) + 2 * 32
    assert parameter_count(small_config(is_decoder=True)) == parameter_count(base)
