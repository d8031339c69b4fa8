"""Chinese (简体中文) messages of the exercises of notebook 11 (capstone) and of nn_checks.

Part of the Chinese catalog; its rules are in :mod:`bertedu.language.zh`.
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # --- bertedu/teaching/exercises/nn_checks.py (notebooks 02-06, 11) -----------------------------------------------
    "pass your class itself, e.g. `{example}`, not an instance of it (the checker builds its own with "
    "the test configuration).": (
        "请传入你的类本身，例如 `{example}`，而不是它的实例（检查器会用测试配置自己创建实例）。"
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
        "前馈网络必须读取 h = LN(x + Attn(x))，而不是输入 x。"
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
        "前馈网络读取 h：F.gelu(self.intermediate['dense'](h))，然后是 self.output 的 dense、dropout、"
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
    # --- bertedu/teaching/exercises/capstone_loop.py (notebook 11, section 8) -----------------------------------------
    "lr_lambda({step}, {warmup}, {total}) returned {value!r}; return one finite number, the multiplier of the "
    "peak learning rate (1.0 at the peak).": (
        "lr_lambda({step}, {warmup}, {total}) 返回了 {value!r}；请返回一个有限的数，即峰值学习率的乘数"
        "（峰值处为 1.0）。"
    ),
    "there is no warm-up: the multiplier is already 1 at step 0. Grow it linearly, (step + 1) / warmup_steps, "
    "over the first warmup_steps steps.": (
        "没有预热：乘数在第 0 步就已经是 1。应在前 warmup_steps 步内按 (step + 1) / warmup_steps 线性增长。"
    ),
    "during the warm-up you divide by total_steps; divide by warmup_steps, so that the multiplier reaches 1 at "
    "the end of the warm-up.": (
        "预热阶段你除以的是 total_steps；应除以 warmup_steps，这样乘数在预热结束时正好到达 1。"
    ),
    "after the warm-up the multiplier stays at 1: BERT decays it linearly to 0 at total_steps.": (
        "预热之后乘数一直停在 1：BERT 会让它线性衰减，在 total_steps 处降到 0。"
    ),
    "you decay over all total_steps, (total - step) / total, so the multiplier drops at once at the end of the "
    "warm-up. Decay over the remaining steps: (total - step) / (total - warmup).": (
        "你在全部 total_steps 上衰减，即 (total - step) / total，所以乘数在预热结束时会突然下跌。"
        "应只在剩下的步数上衰减：(total - step) / (total - warmup)。"
    ),
    "the decay reaches 0 at step total - warmup, too early: it is 1 - step / (total - warmup), counted from "
    "step 0. Count from the end of the warm-up: (total - step) / (total - warmup).": (
        "衰减在第 total - warmup 步就到了 0，太早了：你写的是从第 0 步算起的 1 - step / (total - warmup)。"
        "应从预热结束时算起：(total - step) / (total - warmup)。"
    ),
    "you return the learning rate, not the multiplier: LambdaLR multiplies your value by the optimizer's peak "
    "rate, so return 1.0 at the peak (not 1e-3).": (
        "你返回的是学习率，而不是乘数：LambdaLR 会把你的返回值乘上优化器的峰值学习率，"
        "所以峰值处应返回 1.0（而不是 1e-3）。"
    ),
    "{start} up to 1 at the end of the warm-up, then a straight line down to 0 at total_steps, for runs of 8, "
    "30 and 1000 steps: the multipliers of bertedu's linear_schedule (LambdaLR multiplies them by the peak "
    "learning rate).": (
        "按 {start} 在预热结束时升到 1，然后沿直线在 total_steps 处降到 0；在 8、30 和 1000 步的三次运行中"
        "都与 bertedu 的 linear_schedule 给出的乘数相同（LambdaLR 再把它们乘上峰值学习率）。"
    ),
    "the multiplier goes below 0: the learning rate must never be negative.": (
        "乘数变成了负数：学习率永远不能为负。"
    ),
    "after the warm-up your multiplier falls along a curve, not a straight line (cosine or exponential?): "
    "BERT's drops by the same amount every step.": (
        "预热之后你的乘数沿曲线下降，而不是直线（余弦还是指数衰减？）：BERT 的乘数每一步下降的量都相同。"
    ),
    "lr_lambda({step}, 100, 1000) = {got:.6g}, bertedu's multiplier is {expected:.6g}: (step + 1) / warmup "
    "during the warm-up, (total - step) / (total - warmup) after it.": (
        "lr_lambda({step}, 100, 1000) = {got:.6g}，而 bertedu 的乘数是 {expected:.6g}："
        "预热阶段为 (step + 1) / warmup，之后为 (total - step) / (total - warmup)。"
    ),
    "Write `lr_lambda(step, warmup_steps, total_steps)`: the multiplier of the peak learning rate at optimizer "
    "step `step` (0, 1, ...), for torch's LambdaLR: a linear warm-up to 1 over the first warmup_steps steps, "
    "then a linear decay to 0 at total_steps.": (
        "编写 `lr_lambda(step, warmup_steps, total_steps)`：在优化器第 `step` 步（0, 1, ...）时峰值学习率的乘数，"
        "供 torch 的 LambdaLR 使用：前 warmup_steps 步线性预热到 1，然后线性衰减，在 total_steps 处降到 0。"
    ),
    "Notebook 06's lr_at, divided by the peak and with the two step counts as arguments: `if step < "
    "warmup_steps: return (step + 1) / warmup_steps`.": (
        "就是笔记本 06 的 lr_at 除以峰值，并把两个步数当作参数：`if step < warmup_steps: return (step + 1) / "
        "warmup_steps`。"
    ),
    "After the warm-up: `max(0.0, (total_steps - step) / (total_steps - warmup_steps))`, which is 1 at the end "
    "of the warm-up and 0 at total_steps.": (
        "预热之后：`max(0.0, (total_steps - step) / (total_steps - warmup_steps))`，它在预热结束时为 1，"
        "在 total_steps 处为 0。"
    ),
    "after each of {n} steps the same loss ({losses}) and the same weights as the package's train_step: train "
    "mode, forward, zero_grad, backward, clip, optimizer.step, scheduler.step.": (
        "在 {n} 步中的每一步之后，损失（{losses}）和权重都与本包的 train_step 相同：训练模式、前向传播、"
        "zero_grad、反向传播、梯度裁剪、optimizer.step、scheduler.step。"
    ),
    "Write `training_step(model, batch, optimizer, scheduler, max_grad_norm)` (or paste notebook 06's): train "
    "mode, forward (loss = MLM + NSP), zero_grad, backward, gradient clipping, AdamW step, schedule step; "
    "return the batch's loss as a number.": (
        "编写 `training_step(model, batch, optimizer, scheduler, max_grad_norm)`（或粘贴笔记本 06 中的版本）："
        "训练模式、前向传播（损失 = MLM + NSP）、zero_grad、反向传播、梯度裁剪、AdamW 更新、学习率调度；"
        "以数字形式返回这个批次的损失。"
    ),
    "The model computes L = L_MLM + L_NSP itself when the batch has labels: `out = model(**batch)`, then "
    "`out.loss`.": (
        "批次带有标签时，模型自己会算出 L = L_MLM + L_NSP：`out = model(**batch)`，然后取 `out.loss`。"
    ),
    "Order: `model.train()`, forward, `optimizer.zero_grad()`, `out.loss.backward()`, "
    "`torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)`, `optimizer.step()`, "
    "`scheduler.step()`.": (
        "顺序：`model.train()`、前向传播、`optimizer.zero_grad()`、`out.loss.backward()`、"
        "`torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)`、`optimizer.step()`、"
        "`scheduler.step()`。"
    ),
    "bertedu's pipeline, step and schedule": "bertedu 的数据流水线、训练步与学习率调度",
    "your parts": "你的部件",
    "the margin": "容差范围",
    "different batches": "不同的批次",
    "training_step must return the batch's loss as a number (loss.item()).": (
        "training_step 必须以数字形式返回这个批次的损失（loss.item()）。"
    ),
    "your parts: not attempted yet": "你的部件：尚未作答",
    "your loss became NaN or infinite: check the schedule (negative?) and the step.": (
        "你的损失变成了 NaN 或无穷大：请检查学习率调度（是不是负数？）和训练步。"
    ),
    "your first loss is {first:.2f}, but an untrained BERT scores about ln 2V = {chance:.2f}: the labels or the "
    "loss are off (labels -100 where nothing is predicted? NSP labels 0/1?).": (
        "你的第一个损失是 {first:.2f}，而未训练的 BERT 大约是 ln 2V = {chance:.2f}：标签或损失有问题"
        "（不需要预测的位置标签是否为 -100？NSP 标签是否为 0/1？）。"
    ),
    "your loss fell only from {first:.2f} to {last:.2f} (mean of the last five steps); bertedu's falls to "
    "{theirs:.2f}. Something stops the learning: the schedule (is the rate ever above 0?) or the step.": (
        "你的损失只从 {first:.2f} 降到 {last:.2f}（最后五步的平均）；bertedu 的降到 {theirs:.2f}。"
        "有东西阻碍了学习：学习率调度（学习率有没有大于 0 过？）或训练步。"
    ),
    "your last five losses average {last:.2f}, bertedu's {theirs:.2f}: more than {margin:g} apart. {why}": (
        "你最后五步的损失平均为 {last:.2f}，bertedu 的为 {theirs:.2f}：相差超过 {margin:g}。{why}"
    ),
    "Far below means an easier task: are the labels set at unmasked positions too?": (
        "低得多说明任务变容易了：未被掩码的位置是不是也设了标签？"
    ),
    "Far above means slower learning: compare each part with its checker again.": (
        "高得多说明学得更慢：请用各部件自己的检查再核对一遍。"
    ),
    "your parts alone take the loss from {first:.2f} to {last:.2f} (last five steps), bertedu's run to "
    "{theirs:.2f}: within {margin:g}, as two runs on different batches should be.": (
        "只用你的部件，损失从 {first:.2f} 降到 {last:.2f}（最后五步），bertedu 的运行降到 {theirs:.2f}："
        "相差在 {margin:g} 以内，正是两次在不同批次上的运行应有的样子。"
    ),
    "pass your class and your five functions themselves: ex.your_loop.check(MyBertForPreTraining, "
    "sample_nsp_pair, collate_pairs, mask_tokens, training_step, lr_lambda).": (
        "请传入你的类和五个函数本身：ex.your_loop.check(MyBertForPreTraining, sample_nsp_pair, "
        "collate_pairs, mask_tokens, training_step, lr_lambda)。"
    ),
    "Train your model for 30 steps with your NSP sampler, collate, masking, training step and schedule; its "
    "loss must start near ln 2V and end within 0.25 of the package's run.": (
        "用你的 NSP 采样函数、批次整理、掩码、训练步和学习率调度把你的模型训练 30 步；"
        "它的损失必须从 ln 2V 附近开始，最后与本包的运行相差不超过 0.25。"
    ),
    "Each part has its own check above: run them first. This check only says whether the parts learn "
    "together.": ("上面每个部件都有自己的检查：先运行它们。这个检查只说明这些部件放在一起能否学习。"),
    # --- bertedu/teaching/exercises/capstone_minilm.py (notebook 11, section 9) ---------------------------------------
    "embeddings.{word,position,token_type}_embeddings and embeddings.LayerNorm (your Embeddings), "
    "encoder.layer.N... (your EncoderLayer), pooler.dense": (
        "embeddings.{word,position,token_type}_embeddings 和 embeddings.LayerNorm（你的 Embeddings）、"
        "encoder.layer.N...（你的 EncoderLayer）、pooler.dense"
    ),
    "the last hidden states (B, T, H)": "最后一层的隐藏状态 (B, T, H)",
    "all-MiniLM-L6-v2's {n_tensors} tensors load into your encoder by name, and its last hidden states equal "
    "bertedu's within 1e-5 at every real token (6 layers, H = 384, padded sentence pairs).": (
        "all-MiniLM-L6-v2 的 {n_tensors} 个张量按名字加载进了你的编码器，在每个真实词元上，"
        "最后一层的隐藏状态与 bertedu 的相差不超过 1e-5（6 层，H = 384，带填充的句子对）。"
    ),
    "your output is hidden state {k} of {n_layers} (0 = the embeddings): run every layer of "
    "self.encoder['layer'] in order and return the last one's output.": (
        "你的输出是 {n_layers} 层中的第 {k} 个隐藏状态（0 = 嵌入）：请按顺序运行 self.encoder['layer'] "
        "中的每一层，并返回最后一层的输出。"
    ),
    "your output ignores the padding: pass attention_mask on to every layer.": (
        "你的输出忽略了填充：请把 attention_mask 传给每一层。"
    ),
    "every token got segment 0: pass token_type_ids on to your Embeddings (B's tokens are segment 1).": (
        "每个词元都成了句段 0：请把 token_type_ids 传给你的 Embeddings（B 的词元属于句段 1）。"
    ),
    "your last hidden states differ from bertedu's by up to {worst:.2g}. Run ex.embeddings_layer.check and "
    "ex.encoder_layer.check again; then h = embeddings(input_ids, token_type_ids) and h = layer(h, "
    "attention_mask) for every layer.": (
        "你最后一层的隐藏状态与 bertedu 的相差最多 {worst:.2g}。请再运行一次 ex.embeddings_layer.check 和 "
        "ex.encoder_layer.check；然后 h = embeddings(input_ids, token_type_ids)，并对每一层做 "
        "h = layer(h, attention_mask)。"
    ),
    "Write the forward pass of `MyBertModel` (its parts are given: your Embeddings and a stack of your "
    "EncoderLayer): it returns the last hidden states (B, T, H). all-MiniLM-L6-v2's weights then load by name "
    "and must give bertedu's outputs within 1e-5.": (
        "编写 `MyBertModel` 的前向传播（部件已给出：你的 Embeddings 和由你的 EncoderLayer 堆叠而成的编码器）："
        "它返回最后一层的隐藏状态 (B, T, H)。然后 all-MiniLM-L6-v2 的权重按名字加载进来，"
        "输出必须与 bertedu 的相差不超过 1e-5。"
    ),
    "The pretraining model's forward up to the layers: h = self.embeddings(input_ids, token_type_ids), then "
    "h = layer(h, attention_mask) for each layer; return h.": (
        "就是预训练模型的前向传播到各层为止：h = self.embeddings(input_ids, token_type_ids)，"
        "然后对每一层做 h = layer(h, attention_mask)；返回 h。"
    ),
    "not attempted yet": "尚未作答",
    "Your encoder cannot run yet ({reason}): bertedu's BertModel stands in for it.": (
        "你的编码器还不能运行（{reason}）：暂时由 bertedu 的 BertModel 代替。"
    ),
    # --- comments of the reference solutions: Exercise.solution() shows the English code with these
    # comments translated (bertedu.language.translate_code)
    "passes once the four parts above pass": "上面四个部分都通过后，这里就会通过",
    "linear warm-up to 1": "线性预热到 1",
    "dropout on (an evaluation may have turned it off)": "打开 dropout（评估可能把它关掉了）",
    "the next step's learning rate": "下一步的学习率",
    "passes once every part passes its own check": "每个部件都通过自己的检查后，这里就会通过",
    "the [PAD] keys masked": "屏蔽 [PAD] 键",
}
