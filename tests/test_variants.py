"""bertedu.core.variants: notebook 10's switches build small variant classes, chosen once (model_parts); BERT's own
classes, the ones the notebooks print with show(), carry no variant branch."""

from __future__ import annotations

import json

import pytest
import torch

from bertedu.core.attention import BertAttention, BertSelfAttention, BertSelfOutput
from bertedu.core.config import BertConfig
from bertedu.core.embeddings import BertEmbeddings
from bertedu.core.encoder import BertEncoder, BertLayer, BertOutput
from bertedu.core.heads import BertPooler
from bertedu.core.model import BertForPreTraining, BertModel
from bertedu.core.variants import (
    CausalBertEncoder,
    CausalPreLNBertEncoder,
    LastTokenPooler,
    NoPositionEmbeddings,
    PreLNBertEncoder,
    PreLNBertLayer,
    model_parts,
)
from bertedu.teaching.show import source_of

SMALL = dict(
    vocab_size=40,
    hidden_size=16,
    num_hidden_layers=2,
    num_attention_heads=2,
    intermediate_size=32,
    max_position_embeddings=12,
)
SWITCHES = {
    "is_decoder": True,
    "position_embedding_type": "none",
    "layer_norm_position": "pre",
}
# Words that give a variant away: the switches, the attribute the old branches read, what the variants do.
VARIANT_WORDS = (
    *SWITCHES,
    "pre_layer_norm",
    "pre-LN",
    "causal",
    "last token",
    "last-token",
    "last real token",
    "no position",
    "notebook 10",
    "ablation",
)
TAUGHT = [
    BertEmbeddings.forward,
    BertSelfAttention.forward,
    BertSelfOutput.forward,
    BertAttention.forward,
    BertOutput.forward,
    BertLayer.forward,
    BertEncoder.forward,
    BertPooler.forward,
    BertModel.forward,
]


def config(**switches) -> BertConfig:
    return BertConfig(**SMALL, **switches)


@pytest.mark.parametrize("method", TAUGHT, ids=lambda m: m.__qualname__)
def test_taught_forward_passes_show_plain_bert(method):
    """What show() prints (notebooks 02, 05, 11) is BERT only: no switch, no variant branch, no comment
    about one."""
    code = source_of(method).code
    assert code.lstrip().startswith("def forward")
    found = [word for word in VARIANT_WORDS if word.lower() in code.lower()]
    assert not found, f"{method.__qualname__} mentions {found}"


CHOICES = [
    ({}, BertEmbeddings, BertEncoder, BertLayer, BertPooler),
    ({"position_embedding_type": "none"}, NoPositionEmbeddings, BertEncoder, BertLayer, BertPooler),
    ({"layer_norm_position": "pre"}, BertEmbeddings, PreLNBertEncoder, PreLNBertLayer, BertPooler),
    ({"is_decoder": True}, BertEmbeddings, CausalBertEncoder, BertLayer, LastTokenPooler),
    (SWITCHES, NoPositionEmbeddings, CausalPreLNBertEncoder, PreLNBertLayer, LastTokenPooler),
]


@pytest.mark.parametrize("switches, embeddings, encoder, layer, pooler", CHOICES, ids=str)
def test_switches_build_the_right_classes(switches, embeddings, encoder, layer, pooler):
    assert model_parts(config(**switches)) == (embeddings, encoder, pooler)
    model = BertModel(config(**switches))
    assert type(model.embeddings) is embeddings and type(model.encoder) is encoder
    assert type(model.pooler) is pooler
    assert all(type(m) is layer for m in model.encoder.layer)
    assert BertModel(config(**switches), add_pooling_layer=False).pooler is None


def test_bert_is_built_from_bert_classes_only():
    model = BertModel(config())
    assert not [name for name, m in model.named_modules() if type(m).__module__ == "bertedu.core.variants"]


@pytest.mark.parametrize("switch", ["is_decoder", "layer_norm_position"])
def test_variants_draw_the_same_weights_as_bert(switch):
    """The classes build BERT's parameters in BERT's order: with one seed, a causal or pre-LN model has
    exactly BERT's weights (the pre-LN one also has its final LayerNorm, ones and zeros)."""
    torch.manual_seed(0)
    bert = BertModel(config()).state_dict()
    torch.manual_seed(0)
    variant = BertModel(config(**{switch: SWITCHES[switch]})).state_dict()
    extra = (
        {"encoder.LayerNorm.weight", "encoder.LayerNorm.bias"} if switch == "layer_norm_position" else set()
    )
    assert set(variant) == set(bert) | extra
    assert all(torch.equal(bert[k], variant[k]) for k in bert)
    if extra:
        assert torch.equal(variant["encoder.LayerNorm.weight"], torch.ones(16))


def test_no_positions_keeps_bert_names_without_the_table():
    bert, blind = BertModel(config()), BertModel(config(position_embedding_type="none"))
    assert blind.embeddings.position_embeddings is None
    assert set(bert.state_dict()) - set(blind.state_dict()) == {"embeddings.position_embeddings.weight"}
    assert set(blind.state_dict()) <= set(bert.state_dict())


def test_pre_ln_layer_uses_bert_layer_parameters():
    """A PreLNBertLayer loaded with a BertLayer's weights computes x + attn(LN(x)), then h + FFN(LN(h)),
    and differs from the post-LN layer (so the check can fail)."""
    torch.manual_seed(0)
    post = BertLayer(config()).eval()
    pre = PreLNBertLayer(config()).eval()
    pre.load_state_dict(post.state_dict())
    x = torch.randn(2, 5, 16)
    with torch.no_grad():
        a = pre.attention
        h = x + a.output.dense(a.self(a.output.LayerNorm(x))[0])
        ffn = pre.output.dense(pre.intermediate(pre.output.LayerNorm(h)))
        assert torch.allclose(pre(x)[0], h + ffn, atol=1e-6)
        assert not torch.allclose(post(x)[0], h + ffn, atol=1e-3)


def test_last_token_pooler_reads_the_last_real_token():
    torch.manual_seed(0)
    pooler = LastTokenPooler(config()).eval()
    hidden = torch.randn(3, 6, 16)
    mask = torch.tensor([[1] * 6, [1] * 4 + [0] * 2, [1] + [0] * 5])
    last = hidden[torch.arange(3), torch.tensor([5, 3, 0])]  # (B, H)
    with torch.no_grad():
        want = torch.tanh(pooler.dense(last))
        assert torch.equal(pooler(hidden, mask), want)
        assert torch.equal(pooler(hidden)[0], want[0])  # no mask: position T - 1
        assert not torch.allclose(BertPooler.forward(pooler, hidden, mask)[1], want[1])


def test_variant_config_json_round_trips(tmp_path):
    """A model with every switch set saves a config.json that names them, and loads back into the same
    classes, weights and outputs."""
    cfg = config(**SWITCHES)
    torch.manual_seed(0)
    model = BertForPreTraining(cfg).eval()
    model.save_pretrained(tmp_path)
    data = json.loads((tmp_path / "config.json").read_text(encoding="utf-8"))
    assert {k: data[k] for k in SWITCHES} == SWITCHES
    assert BertConfig.from_json_file(tmp_path) == cfg
    loaded = BertForPreTraining.from_pretrained(tmp_path)
    assert [type(m) for m in loaded.modules()] == [type(m) for m in model.modules()]
    assert type(loaded.bert.encoder) is CausalPreLNBertEncoder
    saved, back = model.state_dict(), loaded.state_dict()
    assert saved.keys() == back.keys() and all(torch.equal(saved[k], back[k]) for k in saved)
    ids = torch.randint(5, 40, (2, 7))
    mask = torch.tensor([[1] * 7, [1] * 4 + [0] * 3])
    with torch.no_grad():
        a, b = model(ids, mask), loaded(ids, mask)
    assert torch.equal(a.prediction_logits, b.prediction_logits)
    assert torch.equal(a.seq_relationship_logits, b.seq_relationship_logits)
