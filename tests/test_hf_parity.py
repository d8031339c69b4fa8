"""Parity with Hugging Face ``transformers``: same weights, same outputs; checkpoints load both ways, strict."""

import logging

import pytest
import torch

transformers = pytest.importorskip("transformers")

import bertedu.core.model as ours  # noqa: E402
from bertedu.core.config import BertConfig  # noqa: E402
from bertedu.core.minilm import load_minilm, minilm_dir  # noqa: E402

ATOL = 1e-5
CONFIGS = [
    dict(
        vocab_size=101,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=37,
        max_position_embeddings=24,
    ),
    dict(
        vocab_size=64,
        hidden_size=48,
        num_hidden_layers=3,
        num_attention_heads=3,
        intermediate_size=96,
        max_position_embeddings=16,
        type_vocab_size=3,
        pad_token_id=1,
        num_labels=3,
    ),
]
ARCHITECTURES = [
    "BertModel",
    "BertForPreTraining",
    "BertForSequenceClassification",
    "BertForTokenClassification",
    "BertForQuestionAnswering",
]


def hf_config(config: BertConfig, attn: str = "eager"):
    return transformers.BertConfig(**{**config.to_dict(), "attn_implementation": attn})


def make_batch(config, B=3, T=12, seed=0):
    g = torch.Generator().manual_seed(seed)
    lengths = torch.tensor([T, T - 4, 2])[:B]
    attention_mask = (torch.arange(T)[None, :] < lengths[:, None]).long()
    input_ids = torch.randint(0, config.vocab_size, (B, T), generator=g)
    input_ids = torch.where(attention_mask == 1, input_ids, torch.full_like(input_ids, config.pad_token_id))
    token_type_ids = torch.randint(0, config.type_vocab_size, (B, T), generator=g) * attention_mask
    labels = torch.where(
        (torch.rand(B, T, generator=g) < 0.3) & (attention_mask == 1),
        input_ids,
        torch.full_like(input_ids, -100),
    )
    labels[0, 0] = input_ids[0, 0]
    return dict(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids), labels


def pair(arch: str, config: BertConfig, attn: str = "eager", our_attn: str = "eager"):
    """An HF model and ours with the same weights (copied by a strict load_state_dict), both in eval mode."""
    torch.manual_seed(0)
    hf = getattr(transformers, arch)(hf_config(config, attn)).eval()
    mine = getattr(ours, arch)(config.replace(attn_implementation=our_attn)).eval()
    mine.load_state_dict(hf.state_dict(), strict=True)  # identical parameter names
    return hf, mine


def close(a, b, atol=ATOL):
    assert a.shape == b.shape, (a.shape, b.shape)
    diff = (a - b).abs().max().item()
    assert diff <= atol, diff


@pytest.mark.slow
@pytest.mark.parametrize("our_attn", ["eager", "sdpa"])
@pytest.mark.parametrize("cfg", CONFIGS)
def test_bert_model_matches_transformers(cfg, our_attn):
    config = BertConfig(**cfg)
    hf, mine = pair("BertModel", config, our_attn=our_attn)
    inputs, _ = make_batch(config)
    with torch.no_grad():
        want = hf(**inputs, output_hidden_states=True, output_attentions=our_attn == "eager")
        got = mine(**inputs, output_hidden_states=True, output_attentions=our_attn == "eager")
    assert len(got.hidden_states) == len(want.hidden_states) == config.num_hidden_layers + 1
    for a, b in zip(got.hidden_states, want.hidden_states):
        close(a, b)
    close(got.last_hidden_state, want.last_hidden_state)
    close(got.pooler_output, want.pooler_output)
    if our_attn == "eager":
        for a, b in zip(got.attentions, want.attentions):
            close(a, b)


@pytest.mark.slow
@pytest.mark.parametrize("fast", [False, True])
@pytest.mark.parametrize("cfg", CONFIGS)
def test_pretraining_model_matches_transformers(cfg, fast):
    config = BertConfig(**cfg)
    hf, mine = pair(
        "BertForPreTraining", config, attn="sdpa" if fast else "eager", our_attn="sdpa" if fast else "eager"
    )
    inputs, labels = make_batch(config)
    nsp = torch.tensor([0, 1, 1])
    with torch.no_grad():
        want = hf(**inputs, labels=labels, next_sentence_label=nsp)
        got = mine(**inputs, labels=labels, next_sentence_label=nsp, mlm_logits_at_labels_only=fast)
    if fast:
        close(got.prediction_logits, want.prediction_logits[labels != -100])
    else:
        close(got.prediction_logits, want.prediction_logits)
    close(got.seq_relationship_logits, want.seq_relationship_logits)
    close(got.loss, want.loss)


@pytest.mark.slow
def test_pretraining_gradients_match_transformers():
    config = BertConfig(**CONFIGS[0], hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    hf, mine = pair("BertForPreTraining", config)
    inputs, labels = make_batch(config)
    nsp = torch.tensor([1, 0, 1])
    hf.train()(**inputs, labels=labels, next_sentence_label=nsp).loss.backward()
    mine.train()(**inputs, labels=labels, next_sentence_label=nsp).loss.backward()
    hf_params = dict(hf.named_parameters())
    for name, p in mine.named_parameters():
        close(p.grad, hf_params[name].grad)


@pytest.mark.slow
def test_task_models_match_transformers():
    config = BertConfig(**CONFIGS[1])
    inputs, labels = make_batch(config)
    with torch.no_grad():
        hf, mine = pair("BertForSequenceClassification", config)
        y = torch.tensor([0, 2, 1])
        want, got = hf(**inputs, labels=y), mine(**inputs, labels=y)
        close(got.logits, want.logits)
        close(got.loss, want.loss)

        hf, mine = pair("BertForSequenceClassification", config.replace(num_labels=1))  # regression: MSE
        y = torch.tensor([0.5, -1.25, 2.0])
        want, got = hf(**inputs, labels=y), mine(**inputs, labels=y)
        assert hf.config.problem_type == "regression"
        close(got.logits, want.logits)
        close(got.loss, want.loss)

        hf, mine = pair("BertForTokenClassification", config)
        y = torch.where(labels == -100, labels, labels % config.num_labels)
        want, got = hf(**inputs, labels=y), mine(**inputs, labels=y)
        close(got.logits, want.logits)
        close(got.loss, want.loss)

        hf, mine = pair("BertForQuestionAnswering", config.replace(num_labels=2))
        start, end = torch.tensor([1, 3, 0]), torch.tensor([4, 3, 1])
        want = hf(**inputs, start_positions=start, end_positions=end)
        got = mine(**inputs, start_positions=start, end_positions=end)
        close(got.start_logits, want.start_logits)
        close(got.end_logits, want.end_logits)
        close(got.loss, want.loss)


def test_state_dict_keys_are_identical():
    config = BertConfig(**CONFIGS[0])
    for arch in ARCHITECTURES:
        hf = getattr(transformers, arch)(hf_config(config))
        mine = getattr(ours, arch)(config)
        assert list(mine.state_dict()) == list(hf.state_dict()), arch


@pytest.mark.slow
@pytest.mark.parametrize("arch", ARCHITECTURES)
def test_our_checkpoint_loads_in_transformers_strictly(arch, tmp_path):
    config = BertConfig(**CONFIGS[1])
    torch.manual_seed(0)
    mine = getattr(ours, arch)(config).eval()
    mine.save_pretrained(tmp_path)
    hf, info = getattr(transformers, arch).from_pretrained(
        str(tmp_path), output_loading_info=True, attn_implementation="eager"
    )
    assert not info["missing_keys"] and not info["unexpected_keys"] and not info["mismatched_keys"], info
    assert not info["error_msgs"]
    inputs, _ = make_batch(config)
    with torch.no_grad():
        want, got = hf.eval()(**inputs), mine(**inputs)
    for field in ("last_hidden_state", "prediction_logits", "logits", "start_logits"):
        if hasattr(got, field):
            close(getattr(got, field), getattr(want, field))
    if arch == "BertForPreTraining":
        assert hf.cls.predictions.decoder.weight is hf.bert.embeddings.word_embeddings.weight


@pytest.mark.slow
@pytest.mark.parametrize("arch", ARCHITECTURES)
def test_transformers_checkpoint_loads_here_strictly(arch, tmp_path, caplog):
    config = BertConfig(**CONFIGS[0])
    torch.manual_seed(1)
    hf = getattr(transformers, arch)(hf_config(config)).eval()
    hf.save_pretrained(str(tmp_path))
    with caplog.at_level(logging.WARNING, logger="bertedu"):
        mine, info = getattr(ours, arch).from_pretrained(tmp_path, output_loading_info=True)
    assert info.missing_keys == [] and info.unexpected_keys == []
    assert caplog.text == ""
    inputs, _ = make_batch(config)
    with torch.no_grad():
        want, got = hf(**inputs), mine(**inputs)
    for field in ("last_hidden_state", "prediction_logits", "logits", "start_logits"):
        if hasattr(got, field):
            close(getattr(got, field), getattr(want, field))


@pytest.mark.slow
def test_old_checkpoint_names_and_bin_format(tmp_path):
    """TF-era ``LayerNorm.gamma/beta``, no ``bert.`` prefix, a ``position_ids`` buffer, pytorch_model.bin."""
    config = BertConfig(**CONFIGS[0])
    torch.manual_seed(2)
    hf = transformers.BertForPreTraining(hf_config(config)).eval()
    old = {}
    for key, tensor in hf.state_dict().items():
        key = key.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias", "LayerNorm.beta")
        old[key] = tensor.clone()
    old["bert.embeddings.position_ids"] = torch.arange(config.max_position_embeddings)[None]
    config.to_json_file(tmp_path / "config.json")
    torch.save(old, tmp_path / "pytorch_model.bin")
    mine, info = ours.BertForPreTraining.from_pretrained(tmp_path, output_loading_info=True)
    assert info.missing_keys == [] and info.unexpected_keys == []

    # the same weights without the prefix (as sentence-transformers ships them) into BertModel
    (tmp_path / "plain").mkdir()
    plain = {k[len("bert.") :]: v for k, v in old.items() if k.startswith("bert.")}
    torch.save(plain, tmp_path / "plain" / "pytorch_model.bin")
    config.to_json_file(tmp_path / "plain" / "config.json")
    encoder, info = ours.BertModel.from_pretrained(tmp_path / "plain", output_loading_info=True)
    assert info.missing_keys == [] and info.unexpected_keys == []

    inputs, labels = make_batch(config)
    nsp = torch.tensor([0, 0, 1])
    with torch.no_grad():
        want = hf(**inputs, labels=labels, next_sentence_label=nsp, output_hidden_states=True)
        got = mine(**inputs, labels=labels, next_sentence_label=nsp)
        close(got.prediction_logits, want.prediction_logits)
        close(got.loss, want.loss)
        close(encoder(**inputs).last_hidden_state, want.hidden_states[-1])


@pytest.fixture(scope="module")
def minilm_models():
    folder = str(minilm_dir())
    return {
        "hf_eager": transformers.BertModel.from_pretrained(folder, attn_implementation="eager").eval(),
        "hf_sdpa": transformers.BertModel.from_pretrained(folder, attn_implementation="sdpa").eval(),
        "eager": load_minilm()[0],
        "sdpa": load_minilm(attn_implementation="sdpa")[0],
        # transformers 5: the vocabulary file goes in `vocab=`; `vocab_file=` is silently ignored.
        "tokenizer": transformers.BertTokenizer(vocab=str(minilm_dir() / "vocab.txt")),
    }


SENTENCES = [
    "The cat sat on the mat.",
    "BERT reads the whole sentence at once, left and right context together.",
    "A bank can hold money; a river has a bank too.",
]


@pytest.mark.slow
@pytest.mark.parametrize("our_attn", ["eager", "sdpa"])
def test_minilm_matches_transformers_on_real_sentences(minilm_models, our_attn):
    mine = minilm_models[our_attn]
    inputs = dict(minilm_models["tokenizer"](SENTENCES, padding=True, return_tensors="pt"))
    assert inputs["input_ids"][0, 0].item() == 101 and (inputs["attention_mask"] == 0).any()
    real = inputs["attention_mask"].bool()
    with torch.no_grad():
        got = mine(**inputs, output_hidden_states=True)
        same = minilm_models["hf_" + our_attn](**inputs, output_hidden_states=True)
        eager = minilm_models["hf_eager"](**inputs, output_hidden_states=True)
    for a, b, c in zip(got.hidden_states, same.hidden_states, eager.hidden_states):
        close(a, b)  # every position, against transformers with the same attention kernel
        close(a[real], c[real])  # real tokens, against transformers' eager attention
    close(got.pooler_output, same.pooler_output)
    close(got.pooler_output, eager.pooler_output)


@pytest.mark.slow
def test_minilm_into_pretraining_model_says_heads_are_fresh(caplog):
    with caplog.at_level(logging.WARNING, logger="bertedu"):
        model, _ = load_minilm(ours.BertForPreTraining)
    assert "cls.predictions.*" in caplog.text and "random initialisation" in caplog.text
    assert model.cls.predictions.decoder.weight is model.bert.embeddings.word_embeddings.weight
