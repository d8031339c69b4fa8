"""Chinese (简体中文) messages of the exercises of notebook 11 (capstone) and of nn_checks.

Part of the catalog of :mod:`bertedu.teaching.i18n.zh` (same rules: keys are the English templates exactly as written in the
code, values keep every ``{placeholder}`` and use the terms of docs/glossary.md).
``SOLUTIONS`` holds the reference solutions with Chinese comments, keyed by exercise name (the code
itself must not differ). Listed in ``bertedu.teaching.i18n.CATALOG_MODULES``.
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # --- bertedu/teaching/exercises/nn_checks.py (notebooks 02-06, 11) -----------------------------------------------
    "pass your class itself, e.g. `{example}`, not an instance of it (the checker builds its own with "
    "the test configuration).": (
        "请传入你的类本身，例如 `{example}`，而不是它的实例（检查程序会用测试配置自己创建实例）。"
    ),
    "pass your class, e.g. `{example}`, not a {type}.": (
        "请传入你的类，例如 `{example}`，而不是一个 {type}。"
    ),
    "{name} must be an nn.Module: write `class {name}(nn.Module):` and call `super().__init__()` first "
    "in __init__.": (
        "{name} 必须是一个 nn.Module：写成 `class {name}(nn.Module):`，"
        "并在 __init__ 中首先调用 `super().__init__()`。"
    ),
    "missing {names}{more}": "缺少 {names}{more}",
    "unexpected {names}{more}": "多出 {names}{more}",
    "your module's parameters do not have Hugging Face's names ({problems}). Expected: {names_hint}. The "
    "names matter: they let a BERT checkpoint load into your module.": (
        "你的模块的参数名与 Hugging Face 的不同（{problems}）。需要的参数：{names_hint}。名字很重要："
        "有了这些名字，BERT 检查点才能加载到你的模块里。"
    ),
    "`{key}` has shape {shape}, expected {expected}. Expected: {names_hint}.": (
        "`{key}` 的形状是 {shape}，应为 {expected}。需要的参数：{names_hint}。"
    ),
    "forward returned None: it must return {what}, shape {shape}.": (
        "forward 返回了 None：它必须返回{what}，形状为 {shape}。"
    ),
    "forward returned a tuple of {n_out}; return only {what} (one tensor of shape {shape}).": (
        "forward 返回了一个包含 {n_out} 项的 tuple；只返回{what}（一个形状为 {shape} 的张量）。"
    ),
    "forward must return a torch.Tensor ({what}), got {type}.": (
        "forward 必须返回一个 torch.Tensor（{what}），你返回的是 {type}。"
    ),
    "forward returned shape {got}; {what} has shape {shape}.": (
        "forward 返回的形状是 {got}；{what}的形状是 {shape}。"
    ),
    # --- bertedu/teaching/exercises/capstone.py (notebook 11) --------------------------------------------------------
    "your model's parameter names differ from BertForPreTraining's (missing {missing}{more_missing}; "
    "unexpected {unexpected}{more_unexpected}). Use Hugging Face's names: bert.embeddings..., "
    "bert.encoder.layer.N.attention.self.query..., bert.pooler.dense, cls.predictions..., "
    "cls.seq_relationship.": (
        "你的模型的参数名与 BertForPreTraining 的不同（缺少 {missing}{more_missing}；"
        "多出 {unexpected}{more_unexpected}）。请使用 Hugging Face 的命名：bert.embeddings...、"
        "bert.encoder.layer.N.attention.self.query...、bert.pooler.dense、cls.predictions...、"
        "cls.seq_relationship。"
    ),
    "`{key}` has shape {shape}, expected {expected}.": "`{key}` 的形状是 {shape}，应为 {expected}。",
    "attention.self (your MultiHeadSelfAttention), attention.output.{dense, LayerNorm, dropout}, "
    "intermediate.dense, output.{dense, LayerNorm, dropout}": (
        "attention.self（你的 MultiHeadSelfAttention）、attention.output.{dense, LayerNorm, dropout}、"
        "intermediate.dense、output.{dense, LayerNorm, dropout}"
    ),
    "the layer's output (B, T, H)": "这一层的输出 (B, T, H)",
    "this is the pre-LN order, x + f(LN(x)); BERT is post-LN: LN(x + f(x)).": (
        "这是前置 LN 的顺序 x + f(LN(x))；BERT 是后置 LN：LN(x + f(x))。"
    ),
    "your LayerNorms use eps = 1e-5; BERT's is config.layer_norm_eps = 1e-12.": (
        "你的 LayerNorm 用的是 eps = 1e-5；BERT 的是 config.layer_norm_eps = 1e-12。"
    ),
    "the residual connections are missing: LN(x + f(x)), not LN(f(x)).": (
        "少了残差连接：应为 LN(x + f(x))，而不是 LN(f(x))。"
    ),
    "the feed-forward block must read h = LN(x + Attn(x)), not the input x.": (
        "前馈块必须读取 h = LN(x + Attn(x))，而不是输入 x。"
    ),
    "your layer's output differs from BertLayer's (no mask, eval mode).": (
        "你这一层的输出与 BertLayer 的不同（无掩码，eval 模式）。"
    ),
    "with padding your output differs: pass attention_mask on to attention.self.": (
        "有填充时你的输出不同：请把 attention_mask 继续传给 attention.self。"
    ),
    "in training mode your output differs from BertLayer's with the same seed: apply each block's "
    "dropout to the dense output before the residual, LN(x + dropout(dense(...))), once per block.": (
        "在训练模式下，用相同的随机种子时你的输出与 BertLayer 的不同："
        "每个块的 dropout 要作用在加残差之前的 dense 输出上，即 LN(x + dropout(dense(...)))，"
        "每个块一次。"
    ),
    "post-LN as in BERT, with dropout where BertLayer has it: LN(x + Attn(x)), then LN(h + FFN(h)).": (
        "后置 LN，与 BERT 一致，dropout 的位置也与 BertLayer 相同：LN(x + Attn(x))，然后 LN(h + FFN(h))。"
    ),
    "context = self.attention['self'](hidden_states, attention_mask); then the attention block's output "
    "part: dense, dropout, add hidden_states, LayerNorm.": (
        "context = self.attention['self'](hidden_states, attention_mask)；然后是注意力块的输出部分："
        "dense、dropout、加上 hidden_states、LayerNorm。"
    ),
    "The feed-forward block reads h: F.gelu(self.intermediate['dense'](h)), then self.output's dense, "
    "dropout, + h, LayerNorm.": (
        "前馈块读取 h：F.gelu(self.intermediate['dense'](h))，然后是 self.output 的 dense、dropout、"
        "+ h、LayerNorm。"
    ),
    "forward must return an object with .loss, .prediction_logits and .seq_relationship_logits (e.g. "
    "bertedu.core.outputs.BertForPreTrainingOutput); yours has no {missing}.": (
        "forward 必须返回一个带有 .loss、.prediction_logits 和 .seq_relationship_logits 的对象（例如"
        " bertedu.core.outputs.BertForPreTrainingOutput）；你的对象没有 {missing}。"
    ),
    "the MLM decoder is not tied to bert.embeddings.word_embeddings (see notebook 04's MLM head).": (
        "MLM 的 decoder 没有与 bert.embeddings.word_embeddings 绑定（参见笔记本 04 的 MLM 头）。"
    ),
    "the NSP logits differ: pooled = tanh(bert.pooler.dense(h[:, 0])) (the [CLS] position), then "
    "cls.seq_relationship(pooled).": (
        "NSP logits 不同：pooled = tanh(bert.pooler.dense(h[:, 0]))（[CLS] 位置），"
        "然后 cls.seq_relationship(pooled)。"
    ),
    "the MLM logits differ: cls.predictions(h) for every position, (B, T, V).": (
        "MLM logits 不同：对每个位置做 cls.predictions(h)，形状 (B, T, V)。"
    ),
    "the loss differs: cross-entropy of the MLM logits over the labelled positions (ignore_index=-100) "
    "plus the NSP cross-entropy.": (
        "损失不同：应为 MLM logits 在带标签位置上的交叉熵（ignore_index=-100）加上 NSP 交叉熵。"
    ),
    "with the weights copied by name, your model gives bertedu's logits and loss ({loss:.2f}) on the "
    "first batch.": (
        "按名字复制权重之后，你的模型在第一个批次上给出的 logits 和损失（{loss:.2f}）与 bertedu 的相同。"
    ),
    "h = embeddings(input_ids, token_type_ids); for each layer h = layer(h, attention_mask); pooled = "
    "torch.tanh(pooler.dense(h[:, 0])).": (
        "h = embeddings(input_ids, token_type_ids)；对每一层 h = layer(h, attention_mask)；"
        "pooled = torch.tanh(pooler.dense(h[:, 0]))。"
    ),
    "MLM loss: F.cross_entropy(mlm_logits.flatten(0, 1), labels.flatten(), ignore_index=-100); NSP loss: "
    "F.cross_entropy(nsp_logits, next_sentence_label).": (
        "MLM 损失：F.cross_entropy(mlm_logits.flatten(0, 1), labels.flatten(), ignore_index=-100)；"
        "NSP 损失：F.cross_entropy(nsp_logits, next_sentence_label)。"
    ),
    "bertedu's BertForPreTraining": "bertedu 的 BertForPreTraining",
    "your model": "你的模型",
    "loss (MLM + NSP)": "损失（MLM + NSP）",
    "the same seed, the same batches": "相同的随机种子，相同的批次",
    "your model: not attempted yet": "你的模型：尚未作答",
    "your model returned loss=None although the batch has labels.": (
        "你的模型返回了 loss=None，而这个批次是有标签的。"
    ),
    "over {n_steps} steps the losses never differ by more than {TOLERANCE:g}: your BERT and bertedu's "
    "learn the same (loss {first_loss:.2f} → {last_loss:.2f}).": (
        "在 {n_steps} 步中，两者的损失之差从未超过 {TOLERANCE:g}："
        "你的 BERT 和 bertedu 的学到的完全一样（损失 {first_loss:.2f} → {last_loss:.2f}）。"
    ),
    "the losses part at step {step} ({theirs:.4f} vs yours {yours:.4f}). ": (
        "损失在第 {step} 步开始分开（bertedu {theirs:.4f}，你的 {yours:.4f}）。"
    ),
    "Step 1 is a forward pass with dropout on: if ex.tiny_bert passes (dropout off), your modules apply "
    "dropout in other places, or another number of times, than bertedu's, so the random masks differ.": (
        "第 1 步是开着 dropout 的前向传播：如果 ex.tiny_bert 能通过（dropout 关闭），"
        "说明你的模块应用 dropout 的位置或次数与 bertedu 的不同，所以随机掩码也不同。"
    ),
    "The first steps agree, so the updates differ: parameters that are not tied, not trained, or trained "
    "twice (a decoder with its own bias next to cls.predictions.bias?).": (
        "前几步一致，所以是参数更新不同：有的参数没有绑定、没有训练，"
        "或者训练了两次（decoder 在 cls.predictions.bias 之外还有自己的偏置？）。"
    ),
    "If step 1 differs, ex.tiny_bert.check names the problem. If a later step differs, compare where "
    "your modules apply dropout with bertedu's (show(BertLayer.forward), show(BertEmbeddings.forward)).": (
        "如果第 1 步就不同，ex.tiny_bert.check 会指出问题所在。如果是后面的某一步不同，"
        "就把你的模块应用 dropout 的位置与 bertedu 的比较一下（show(BertLayer.forward)、"
        "show(BertEmbeddings.forward)）。"
    ),
}

#: Reference solutions with Chinese comments, keyed by exercise name (``ex.NAME``); the code itself
#: is the English solution's (a test checks that only comments differ).
SOLUTIONS: dict[str, str] = {
    "same_training": "ex.same_training.check(MyBertForPreTraining)   # 上面四个部分都通过后，这里就会通过",
}
