"""Chinese (简体中文) messages of the exercises and figures of notebook 06 (mini-pretraining).

Part of the Chinese catalog; its rules are in :mod:`bertedu.language.zh`.
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # --- bertedu/teaching/exercises/pretraining.py (notebook 06) -----------------------------------------------------
    # 1. The learning-rate schedule
    "lr_at({step}) returned {value!r}; return one number (the learning rate), e.g. 0.0005.": (
        "lr_at({step}) 返回了 {value!r}；请返回一个数（学习率），例如 0.0005。"
    ),
    "lr_at({step}) = {value}: the learning rate must be a finite number.": (
        "lr_at({step}) = {value}：学习率必须是一个有限的数。"
    ),
    "lr rises as 1e-3 · {start} to the peak at step 100, then falls on a straight line to 0 at step 1000 "
    "(e.g. 5e-4 at step 550). That is bertedu.training.optim.linear_schedule times the peak, and the paper's "
    "'warm-up over the first 10,000 steps, and linear decay'.": (
        "学习率按 1e-3 · {start} 上升，在第 100 步达到峰值，然后沿一条直线下降，在第 1000 步降到 0"
        "（例如第 550 步是 5e-4）。这就是 bertedu.training.optim.linear_schedule 乘以峰值，也就是论文中的"
        "“warm-up over the first 10,000 steps, and linear decay”（在前 10,000 步预热，然后线性衰减）。"
    ),
    "at step 0 the learning rate is already the peak: there is no warm-up. Start near 0 and grow linearly "
    "over the first 100 steps.": (
        "第 0 步的学习率就已经是峰值：没有预热。应该从接近 0 的值开始，在前 100 步里线性增长。"
    ),
    "during warm-up you divide by the total number of steps (1000); divide by the warm-up steps (100), so "
    "the peak is reached at step 100.": (
        "预热阶段你除以的是总步数（1000）；应该除以预热步数（100），这样才会在第 100 步达到峰值。"
    ),
    "after the warm-up the learning rate stays at the peak: it must decay linearly to 0 at step 1000.": (
        "预热之后学习率一直停在峰值：它必须线性衰减，在第 1000 步降到 0。"
    ),
    "you decay over all 1000 steps, so the rate jumps down at step 100. Decay over the remaining 900 steps: "
    "factor (1000 - step) / (1000 - 100).": (
        "你在全部 1000 步上衰减，所以学习率在第 100 步突然往下跳。应该只在剩下的 900 步上衰减："
        "系数为 (1000 - step) / (1000 - 100)。"
    ),
    "after the warm-up your rate falls along a curve, not a straight line (an exponential or cosine "
    "decay?). BERT decays linearly: the same drop every step, reaching 0 at step 1000.": (
        "预热之后你的学习率沿一条曲线下降，而不是沿直线（用了指数衰减还是余弦衰减？）。"
        "BERT 是线性衰减：每一步下降同样多，在第 1000 步降到 0。"
    ),
    "lr_at({step}) = {got:.6g}, expected {expected:.6g} (or {shifted:.6g} if your warm-up counts from "
    "step + 1). Peak 1e-3 at step 100; linear up before, linear down to 0 at step 1000 after.": (
        "lr_at({step}) = {got:.6g}，应为 {expected:.6g}（如果你的预热从 step + 1 开始计数，则为 "
        "{shifted:.6g}）。第 100 步达到峰值 1e-3；之前线性上升，之后线性下降，在第 1000 步降到 0。"
    ),
    "close, but not everywhere: check the ends (step 0, 99, 100 and 999).": (
        "很接近，但不是处处都对：检查一下两端（第 0、99、100 和 999 步）。"
    ),
    "Write `lr_at(step)`: the learning rate at optimizer step `step` (0, 1, 2, ...) for a run of 1000 steps "
    "with peak 1e-3, a linear warm-up over the first 100 steps, then a linear decay to 0 at step 1000.": (
        "编写 `lr_at(step)`：一次共 1000 步、峰值为 1e-3 的训练在第 `step` 个优化器步（0, 1, 2, ...）的"
        "学习率；前 100 步线性预热，之后线性衰减，在第 1000 步降到 0。"
    ),
    "Two pieces: `if step < 100:` a straight line from (about) 0 up to 1e-3, `else:` a straight line from "
    "1e-3 at step 100 down to 0 at step 1000.": (
        "分两段：`if step < 100:` 是一条从（大约）0 升到 1e-3 的直线，`else:` 是一条从第 100 步的 1e-3 "
        "降到第 1000 步的 0 的直线。"
    ),
    "After the warm-up the factor is (1000 - step) / (1000 - 100): 1 at step 100, 0 at step 1000.": (
        "预热之后，系数是 (1000 - step) / (1000 - 100)：第 100 步为 1，第 1000 步为 0。"
    ),
    # 2. Find the bug: evaluation with dropout left on
    "return the predicted word as a string, e.g. 'meat' (use tokenizer.convert_ids_to_tokens).": (
        "请把预测的单词作为字符串返回，例如 'meat'（用 tokenizer.convert_ids_to_tokens）。"
    ),
    "your answers differ from the model's real prediction, and they change from call to call.": (
        "你的答案与模型真正的预测不同，而且每次调用都不一样。"
    ),
    "Dropout is still on (the model is in training mode), so every forward pass drops a random 50 % of the "
    "activations here. Call model.eval() before predicting (and use torch.no_grad() to skip the gradient "
    "bookkeeping).": (
        "dropout 仍然开着（模型处于训练模式），所以这里的每次前向传播都会随机丢弃 50% 的激活值。"
        "预测之前先调用 model.eval()（并用 torch.no_grad() 省去为梯度所做的记录）。"
    ),
    "same answer on every call, equal to the model's prediction with dropout off: model.eval() switches "
    "dropout off (and torch.no_grad() skips building the graph). Switch back with model.train() before "
    "training again.": (
        "每次调用的答案都相同，并且等于模型关闭 dropout 时的预测：model.eval() 关闭 dropout"
        "（torch.no_grad() 则省去构建计算图）。再次训练之前，用 model.train() 切换回训练模式。"
    ),
    "`top1_word(model, tokenizer, sentence)` should return the model's best word for the [MASK], but called "
    "twice on the same sentence it can answer differently. Find the bug and fix the function.": (
        "`top1_word(model, tokenizer, sentence)` 应该返回模型在 [MASK] 处最有把握的单词，"
        "但对同一个句子调用两次，它可能给出不同的答案。找出错误并修好这个函数。"
    ),
    "What does nn.Dropout do in training mode? Is the model in training mode when the loop has just finished?": (
        "nn.Dropout 在训练模式下做什么？训练循环刚结束时，模型是不是处于训练模式？"
    ),
    "Call model.eval() before the forward pass (and wrap it in torch.no_grad()); dropout is then the "
    "identity.": (
        "在前向传播之前调用 model.eval()（并把它放进 torch.no_grad() 里）；这时 dropout 就是恒等映射。"
    ),
    # 3. Write the function: one pretraining step
    "training_step returned {type}; return the batch's loss as a number (loss.item()).": (
        "training_step 返回了 {type}；请把这个批次的损失作为一个数返回（loss.item()）。"
    ),
    "the model stays in eval mode: dropout is off while it trains. The checker hands the model over in eval "
    "mode (as it is after an evaluation); start the step with model.train().": (
        "模型一直处于 eval 模式：训练时 dropout 是关闭的。检查器交给你的模型处于 eval 模式"
        "（就像刚做完一次评估那样）；请在这一步的开头调用 model.train()。"
    ),
    "the gradients are never reset: call optimizer.zero_grad() before loss.backward(), or every step adds "
    "its gradients to all the earlier ones.": (
        "梯度从来没有清零：请在 loss.backward() 之前调用 optimizer.zero_grad()，"
        "否则每一步的梯度都会累加到之前所有步的梯度上。"
    ),
    "the gradients are reset between backward() and optimizer.step(), so the optimizer steps with zero "
    "gradients: zero_grad() comes before backward().": (
        "梯度在 backward() 和 optimizer.step() 之间被清零了，所以优化器用全零的梯度做更新："
        "zero_grad() 应该放在 backward() 之前。"
    ),
    "scheduler.step() runs before optimizer.step(): every update uses the next step's learning rate "
    "(PyTorch warns about this order). Call optimizer.step(), then scheduler.step().": (
        "scheduler.step() 在 optimizer.step() 之前运行：每次更新用的都是下一步的学习率"
        "（PyTorch 会对这个顺序发出警告）。先调用 optimizer.step()，再调用 scheduler.step()。"
    ),
    "the gradients are not clipped (their norm is above 1 here): call "
    "torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm) between loss.backward() and "
    "optimizer.step() (clipping after the step does nothing).": (
        "梯度没有被裁剪（这里梯度范数大于 1）：请在 loss.backward() 和 optimizer.step() 之间调用 "
        "torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)（在更新之后才裁剪不起任何作用）。"
    ),
    "the learning rate never moves: call scheduler.step() after optimizer.step(), once per step.": (
        "学习率始终不变：请在 optimizer.step() 之后调用 scheduler.step()，每步一次。"
    ),
    "step for step the same losses ({steps}) and the same final weights as the package's loop: forward, "
    "zero_grad, backward, clip, optimizer.step, scheduler.step.": (
        "每一步的损失（{steps}）和最终的权重都与包中的训练循环完全相同：前向传播、zero_grad、反向传播、"
        "梯度裁剪、optimizer.step、scheduler.step。"
    ),
    "the weights are right, but return the batch's loss before the update (loss.item()).": (
        "权重是对的，但要返回这个批次在更新之前的损失（loss.item()）。"
    ),
    "the loss of step {step} differs": "第 {step} 步的损失",
    "the weights after the steps differ": "这几步之后的权重",
    "{where} from the package's train_step. One step is: model.train(); out = model(**batch); "
    "optimizer.zero_grad(); out.loss.backward(); clip_grad_norm_(model.parameters(), max_grad_norm); "
    "optimizer.step(); scheduler.step(); return out.loss.item().": (
        "{where}与本包的 train_step 不一致。一步是：model.train(); out = model(**batch); "
        "optimizer.zero_grad(); out.loss.backward(); clip_grad_norm_(model.parameters(), max_grad_norm); "
        "optimizer.step(); scheduler.step(); return out.loss.item()。"
    ),
    "Write `training_step(model, batch, optimizer, scheduler, max_grad_norm)`: one step of pretraining "
    "(forward on the batch, loss = MLM + NSP, backward, gradient clipping, AdamW step, learning-rate "
    "schedule). Return the batch's loss as a number.": (
        "编写 `training_step(model, batch, optimizer, scheduler, max_grad_norm)`：预训练的一步"
        "（在批次上做前向传播，loss = MLM + NSP，反向传播，梯度裁剪，AdamW 更新，学习率调度）。"
        "把这个批次的损失作为一个数返回。"
    ),
    "The model computes the loss itself when the batch has labels: `out = model(**batch)`; `out.loss`.": (
        "批次带有标签时，模型会自己计算损失：`out = model(**batch)`；`out.loss`。"
    ),
    "Order: `optimizer.zero_grad()`, `out.loss.backward()`, "
    "`torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)`, `optimizer.step()`, "
    "`scheduler.step()`.": (
        "顺序：`optimizer.zero_grad()`、`out.loss.backward()`、"
        "`torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)`、`optimizer.step()`、"
        "`scheduler.step()`。"
    ),
    # --- figures of notebook 06 (its code cells: titles, axis labels, legends; "step" is in zh.py) -------------
    # the learning-rate schedule
    "end of warm-up (step {step})": "预热结束（第 {step} 步）",
    "optimizer step t": "优化器步 t",
    "learning rate": "学习率",
    "linear warm-up, then linear decay": "线性预热，然后线性衰减",
    # the loss curves of the main run and of the MiniBert
    "mini-BERT pre-training": "迷你 BERT 预训练",
    "one-layer MiniBert, trained to its plateau": "单层 MiniBert，训练到平台期",
    # NSP with and without the MLM loss
    "MLM + NSP (the recipe)": "MLM + NSP（本配方）",
    "NSP only (no MLM loss)": "只训练 NSP（没有 MLM 损失）",
    "ln 2 (a coin flip)": "ln 2（抛硬币）",
    "chance": "随机水平",
    "training NSP loss": "NSP 训练损失",
    "NSP loss, with and without MLM": "NSP 损失：有 MLM 与没有 MLM",
    "held-out NSP accuracy": "留出集上的 NSP 准确率",
    # the reference band of the loss check
    "band: seeds 1-3, ±10 %": "参考带：随机种子 1-3，±10%",
    "main run (seed 0)": "主训练（随机种子 0）",
    "learning rate ×100": "学习率 ×100",
    "training {name} loss": "{name} 训练损失",
    "{name} loss, first {n} steps": "{name} 损失，前 {n} 步",
    # the learned word embeddings (PCA)
    "animals": "动物",
    "foods": "食物",
    "places": "地点",
    "first principal direction": "第一主方向",
    "second principal direction": "第二主方向",
    "learned word embeddings (PCA)": "学到的词嵌入（PCA）",
    # --- comments of the reference solutions: Exercise.solution() shows the English code with these
    # comments translated (bertedu.language.translate_code)
    "linear warm-up": "线性预热",
    "linear decay to 0": "线性衰减到 0",
    "dropout off: the prediction is deterministic": "关闭 dropout：预测是确定的",
    "no graph: faster, less memory": "不构建计算图：更快，更省内存",
    "dropout on": "打开 dropout",
    "forget the previous step's gradients": "清掉上一步的梯度",
    "gradients of this batch": "这个批次的梯度",
    "global norm <= max_grad_norm": "全局范数 <= max_grad_norm",
    "AdamW update": "AdamW 更新",
    "next learning rate (warm-up, then decay)": "下一个学习率（先预热，再衰减）",
}
