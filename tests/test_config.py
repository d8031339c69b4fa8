"""BertConfig: HF defaults, the paper's presets, config.json round trip, validation."""

import json

import pytest

from bertedu.core.config import PRESETS, BertConfig


def test_defaults_are_bert_base_with_hf_names():
    c = BertConfig()
    assert (c.vocab_size, c.hidden_size, c.num_hidden_layers, c.num_attention_heads) == (30522, 768, 12, 12)
    assert c.intermediate_size == 3072
    assert c.hidden_act == "gelu"
    assert c.layer_norm_eps == 1e-12
    assert c.max_position_embeddings == 512 and c.type_vocab_size == 2
    assert c.hidden_dropout_prob == 0.1 and c.attention_probs_dropout_prob == 0.1
    assert c.initializer_range == 0.02 and c.pad_token_id == 0
    assert c.attn_implementation == "eager"  # the teaching path is the default
    assert c.head_dim == 64


@pytest.mark.parametrize(
    "name, L, H, A",
    [
        ("tiny", 2, 128, 2),
        ("mini", 4, 256, 4),
        ("small", 4, 512, 8),
        ("medium", 8, 512, 8),
        ("base", 12, 768, 12),
        ("large", 24, 1024, 16),
    ],
)
def test_presets_match_the_paper(name, L, H, A):
    c = BertConfig.from_preset(name, vocab_size=1000)
    assert (c.num_hidden_layers, c.hidden_size, c.num_attention_heads, c.intermediate_size) == (
        L,
        H,
        A,
        4 * H,
    )
    assert c.vocab_size == 1000
    assert PRESETS[name]["hidden_size"] == H


def test_unknown_preset_lists_the_choices():
    with pytest.raises(ValueError, match="tiny"):
        BertConfig.from_preset("huge")


def test_json_round_trip(tmp_path):
    c = BertConfig.from_preset(
        "mini",
        vocab_size=1234,
        attn_implementation="sdpa",
        num_labels=5,
        classifier_dropout=0.2,
    )
    path = c.to_json_file(tmp_path / "config.json")
    data = json.loads(path.read_text())
    assert data["model_type"] == "bert" and data["hidden_size"] == 256 and data["layer_norm_eps"] == 1e-12
    assert BertConfig.from_json_file(path) == c
    assert BertConfig.from_json_file(tmp_path) == c  # a folder works too
    assert BertConfig.from_dict(c.to_dict()) == c


def test_reads_hf_config_with_extra_keys(tmp_path):
    hf = {
        "_name_or_path": "nreimers/MiniLM-L6-H384-uncased",
        "architectures": ["BertModel"],
        "attention_probs_dropout_prob": 0.1,
        "gradient_checkpointing": False,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "hidden_size": 384,
        "initializer_range": 0.02,
        "intermediate_size": 1536,
        "layer_norm_eps": 1e-12,
        "max_position_embeddings": 512,
        "model_type": "bert",
        "num_attention_heads": 12,
        "num_hidden_layers": 6,
        "pad_token_id": 0,
        "position_embedding_type": "absolute",
        "transformers_version": "4.8.2",
        "type_vocab_size": 2,
        "use_cache": True,
        "vocab_size": 30522,
        "id2label": {"0": "neg", "1": "neu", "2": "pos"},
        "dtype": "float32",
    }
    (tmp_path / "config.json").write_text(json.dumps(hf))
    c = BertConfig.from_json_file(tmp_path / "config.json")
    assert (c.hidden_size, c.num_hidden_layers, c.num_attention_heads, c.intermediate_size) == (
        384,
        6,
        12,
        1536,
    )
    assert c.num_labels == 3
    assert c.architectures == ["BertModel"]


@pytest.mark.slow
def test_transformers_reads_our_config(tmp_path):
    transformers = pytest.importorskip("transformers")
    c = BertConfig.from_preset("tiny", vocab_size=777, num_labels=4)
    c.to_json_file(tmp_path / "config.json")
    hf = transformers.BertConfig.from_json_file(str(tmp_path / "config.json"))
    for name in (
        "vocab_size",
        "hidden_size",
        "num_hidden_layers",
        "num_attention_heads",
        "intermediate_size",
        "layer_norm_eps",
        "max_position_embeddings",
        "type_vocab_size",
        "num_labels",
    ):
        assert getattr(hf, name) == getattr(c, name), name


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"hidden_size": 100, "num_attention_heads": 12}, "divisible by num_attention_heads"),
        ({"hidden_size": 0}, "positive integer"),
        ({"num_hidden_layers": -1}, "positive integer"),
        ({"vocab_size": 2.5}, "positive integer"),
        ({"hidden_act": "relu"}, "gelu"),
        ({"hidden_dropout_prob": 1.5}, "probability"),
        ({"layer_norm_eps": 0}, "layer_norm_eps"),
        ({"vocab_size": 10, "pad_token_id": 10}, "pad_token_id"),
        ({"attn_implementation": "flash"}, "attn_implementation"),
    ],
)
def test_validation_errors_are_clear(kwargs, message):
    with pytest.raises(ValueError, match=message):
        BertConfig(**kwargs)


def test_rejects_configs_of_other_models():
    with pytest.raises(ValueError, match="position_embedding_type"):
        BertConfig.from_dict({"position_embedding_type": "relative_key"})
    with pytest.raises(ValueError, match="not a BERT"):
        BertConfig.from_dict({"model_type": "roberta"})


@pytest.mark.parametrize("data", [[1, 2], "config.json", None])
def test_from_dict_of_something_else_says_what_it_needs(data):
    with pytest.raises(ValueError, match="needs a dict .* got a (list|str|NoneType).*from_json_file"):
        BertConfig.from_dict(data)


def test_replace_validates_again():
    c = BertConfig.from_preset("tiny")
    assert c.replace(num_labels=7).num_labels == 7
    with pytest.raises(ValueError):
        c.replace(num_attention_heads=3)


def test_missing_config_file_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="config.json"):
        BertConfig.from_json_file(tmp_path)
