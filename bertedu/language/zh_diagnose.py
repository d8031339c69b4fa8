"""Chinese (简体中文) messages of the loss-curve diagnosis, ``bertedu.training.diagnose`` (notebooks 06 and 11).

Part of the Chinese catalog; its rules are in :mod:`bertedu.language.zh`.
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # --- the report: Diagnosis.__str__ / _repr_markdown_ ---------------------------------------------------------
    "steps 1-{steps} compared with the reference band": "已将第 1-{steps} 步与参考带比较",
    "steps 1-{steps} compared with the reference band; probed: batch": (
        "已将第 1-{steps} 步与参考带比较；另外检查了：批次"
    ),
    "steps 1-{steps} compared with the reference band; probed: batch and model": (
        "已将第 1-{steps} 步与参考带比较；另外检查了：批次和模型"
    ),
    "Your loss curves lie inside the reference band: no sign of a bug ({what}).": (
        "你的损失曲线都在参考带之内：没有发现错误的迹象（{what}）。"
    ),
    "{n} likely bug{_s} ({what}):": "发现 {n} 个可能的错误（{what}）：",
    "check: {check}": "检查：{check}",
    "*check:* {check}": "*检查*：{check}",
    # --- learning_rate_too_high --------------------------------------------------------------------------------------
    "the loss became {value} at step {step}: the run diverged.": "损失在第 {step} 步变成了 {value}：训练发散了。",
    "the {name} loss is above the reference band on {part:.0%} of steps {first}-{last} (at step {worst}: "
    "{value:.3f}, the band's top {top:.3f}).": (
        "在第 {first}-{last} 步中，{name} 损失有 {part:.0%} 的时候高于参考带（第 {worst} 步：{value:.3f}，"
        "而参考带的上沿是 {top:.3f}）。"
    ),
    "the MLM loss rose from {low:.3f} (step {low_step}) to {end:.3f} (step {end_step}), more than {rise:g}x.": (
        "MLM 损失从 {low:.3f}（第 {low_step} 步）回升到了 {end:.3f}（第 {end_step} 步），超过了最低值的 {rise:g} 倍。"
    ),
    "the learning rate (and its warm-up): a peak far above the recipe's makes the loss jump above the band, rise "
    "or turn NaN. Compare yours with the recipe's; a factor of 10 or 100 is a typo.": (
        "学习率（及其预热）：峰值远高于配方的学习率，会让损失跳到参考带之上、不降反升或变成 NaN。"
        "把你的学习率和配方的比较一下；相差 10 倍或 100 倍就是笔误。"
    ),
    # --- nsp_ignores_isnext ------------------------------------------------------------------------------------------
    "the NSP loss fell to {value:.3f} by step {step}, while the reference runs stay at {reference:.3f} or above "
    "there (ln 2 = {ln2:.3f}, a coin flip): the model cannot have learned NSP that fast, so part of the pairs is "
    "not counted.": (
        "到第 {step} 步，NSP 损失已降到 {value:.3f}，而参考训练在那里始终不低于 {reference:.3f}"
        "（ln 2 = {ln2:.3f}，相当于抛硬币）：模型不可能这么快就学会下一句预测，所以有一部分句子对没有计入损失。"
    ),
    "on the batch's {count} IsNext pairs the model says NotNext with a mean probability of {probability:.2f}: "
    "it was never taught that IsNext exists.": (
        "对批次中的 {count} 个 IsNext 句子对，模型回答 NotNext 的平均概率是 {probability:.2f}："
        "从来没有人教过它 IsNext 的存在。"
    ),
    "the NSP loss: an ignore_index=0 drops every IsNext pair (label 0), and predicting NotNext for the rest "
    "costs nothing. Use F.cross_entropy(logits, labels) without ignore_index (and check the batch has both "
    "labels, 0 and 1).": (
        "NSP 损失：ignore_index=0 会丢掉每一个 IsNext 句子对（标签 0），于是对剩下的句子对一律预测 NotNext "
        "不付出任何代价。请使用不带 ignore_index 的 F.cross_entropy(logits, labels)（并检查批次里 0 和 1 "
        "两种标签都有）。"
    ),
    # --- mlm_below_band, loss_over_pad, special_tokens_masked --------------------------------------------------------
    "the MLM loss is below the reference band on {part:.0%} of steps {first}-{last} (at step {worst}: "
    "{value:.3f}, the band's bottom {bottom:.3f}): some labels are too easy to predict.": (
        "在第 {first}-{last} 步中，MLM 损失有 {part:.0%} 的时候低于参考带（第 {worst} 步：{value:.3f}，"
        "而参考带的下沿是 {bottom:.3f}）：有些标签太容易预测了。"
    ),
    "two bugs look like this: the loss counted over [PAD] positions (labels at padding) or special tokens "
    "masked ([CLS]/[SEP] selected as targets). To tell which, pass batch= and tokenizer=: labels at [PAD] "
    "positions mean the first, labels holding [CLS]/[SEP] the second.": (
        "有两种错误看起来都是这样：在 [PAD] 位置上计算了损失（填充处有标签），或者特殊词元被掩码"
        "（[CLS]/[SEP] 被选作预测目标）。要分辨是哪一种，请传入 batch= 和 tokenizer=：标签落在 [PAD] "
        "位置上说明是前者，标签中含有 [CLS]/[SEP] 说明是后者。"
    ),
    "{count} of the batch's {n} labels are at [PAD] positions: trivial targets that pull the MLM loss below "
    "the band.": (
        "批次的 {n} 个标签中有 {count} 个落在 [PAD] 位置上：这些目标毫无难度，会把 MLM 损失拉到参考带之下。"
    ),
    "where the labels are made: every position that is not a selected token, padding included, must get the "
    "label {ignore} (labels[attention_mask == 0] = {ignore}).": (
        "生成标签的地方：凡不是被选中词元的位置（包括填充），标签都必须是 {ignore}"
        "（labels[attention_mask == 0] = {ignore}）。"
    ),
    "{count} of the batch's {n} labels are special tokens ({tokens}): [CLS] and [SEP] sit at fixed places and "
    "are easy to guess, so the MLM loss is too low.": (
        "批次的 {n} 个标签中有 {count} 个是特殊词元（{tokens}）：[CLS] 和 [SEP] 的位置固定，很容易猜中，"
        "所以 MLM 损失偏低。"
    ),
    "the masking: select only ordinary tokens (mask_tokens(..., special_token_ids=tokenizer.all_special_ids) "
    "never selects [CLS], [SEP], [PAD]).": (
        "掩码：只选择普通词元（mask_tokens(..., special_token_ids=tokenizer.all_special_ids) "
        "从不选中 [CLS]、[SEP]、[PAD]）。"
    ),
    # --- padding_not_masked ------------------------------------------------------------------------------------------
    "the attention mask is 1 at {count} [PAD] tokens.": "注意力掩码在 {count} 个 [PAD] 词元上为 1。",
    "changing only the tokens behind the attention mask changed the model's outputs at real tokens by up to "
    "{diff:.3g}.": ("只改变注意力掩码遮住的词元，模型在真实词元上的输出却跟着变了，变化最大为 {diff:.3g}。"),
    "{evidence} Real tokens then attend to padding, and a sentence's vectors depend on its batch.": (
        "{evidence}这样真实词元也会关注填充，一个句子的向量就取决于它所在的批次。"
    ),
    "the attention mask: 1 for real tokens, 0 for [PAD], passed to the model, and applied to the keys (scores "
    "of masked keys set to -inf, or a large negative number, before the softmax).": (
        "注意力掩码：真实词元为 1，[PAD] 为 0；它要传给模型，并作用在键上（在 softmax 之前把被遮住的键的分数"
        "设为 -inf，或一个很大的负数）。"
    ),
}
