"""Chinese (简体中文) messages of the exercises of notebook 03 (the masking strategy).

Part of the Chinese catalog; its rules are in :mod:`bertedu.language.zh`.
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # --- bertedu/teaching/exercises/masking.py (notebook 03) ---------------------------------------------------------
    'give four numbers: a dict {"[MASK]": ..., "random": ..., "unchanged": ..., "not selected": ...} or '
    "a tuple in that order.": (
        "请给出四个数：一个 dict "
        '{"[MASK]": ..., "random": ..., "unchanged": ..., "not selected": ...}，'
        "或者按这个顺序排列的 tuple。"
    ),
    "of {n} tokens, {n_mask:.0f} become [MASK], {n_random:.0f} a random token, {n_unchanged:.0f} stay "
    "unchanged but are predicted, and {n_not_selected:.0f} are neither changed nor predicted (12 / 1.5 / "
    "1.5 / 85 %).": (
        "{n} 个词元中，{n_mask:.0f} 个变成 [MASK]，{n_random:.0f} 个变成随机词元，"
        "{n_unchanged:.0f} 个保持不变但要预测，"
        "{n_not_selected:.0f} 个既不改变也不预测（12 / 1.5 / 1.5 / 85%）。"
    ),
    "'not selected' counts tokens that are not predicted at all. The random and unchanged tokens were "
    "selected too (they carry a label), so subtract all 15 %.": (
        "'not selected' 统计的是根本不预测的词元。随机替换和保持不变的词元也是被选中的（它们带有标签）"
        "，所以要减去全部的 15%。"
    ),
    "your four counts add up to {total:g}, not N = {n}: every maskable token falls in exactly one "
    "category.": ("你的四个数加起来是 {total:g}，不是 N = {n}：每个可掩码词元恰好属于一个类别。"),
    "{mask:g} is the number of *selected* tokens (15 % of {n}); only 80 % of those become [MASK].": (
        "{mask:g} 是*被选中*的词元数（{n} 的 15%）；其中只有 80% 会变成 [MASK]。"
    ),
    "{mask:g} is 80 % of all {n} tokens, but the 80/10/10 split applies to the 15 % that were selected.": (
        "{mask:g} 是全部 {n} 个词元的 80%，但 80/10/10 的划分只作用于被选中的那 15%。"
    ),
    "10 % of all tokens is too many: random and unchanged are each 10 % of the *selected* 15 %.": (
        "占全部词元的 10% 太多了：随机替换和保持不变各占*被选中的* 15% 中的 10%。"
    ),
    "check {categories}: start from 15 % selected, then split those 80 / 10 / 10.": (
        "请检查 {categories}：先算出被选中的 15%，再把它们按 80 / 10 / 10 划分。"
    ),
    "First the selection: 15 % of N are selected. Everything else is 'not selected'.": (
        "先看选择：N 的 15% 被选中。其余的都是 'not selected'。"
    ),
    "Then split the selected ones: 80 % [MASK], 10 % random, 10 % unchanged.": (
        "再划分被选中的词元：80% [MASK]，10% 随机词元，10% 保持不变。"
    ),
    "give a whole number of epochs, e.g. answer = 10.": "请给出一个整数轮数，例如 answer = 10。",
    "{answer} is not a whole number: round up to the next full epoch.": (
        "{answer} 不是整数：请向上取整到下一个完整的轮次。"
    ),
    "after {e} epochs the chance of never having been selected is 0.85^{e} = {p_e:.3f} < 0.10, while "
    "after {e_before} it is still 0.85^{e_before} = {p_before:.3f}.": (
        "训练 {e} 轮之后，从未被选中的概率是 0.85^{e} = {p_e:.3f} < 0.10，"
        "而 {e_before} 轮之后仍是 0.85^{e_before} = {p_before:.3f}。"
    ),
    "at least one epoch is needed.": "至少需要一轮。",
    "probabilities of separate epochs do not add up (0.15 × {e} is not the chance of at least one "
    "selection). Use the complement: P(never selected in {e} epochs) = 0.85^{e} = {never:.3f}.": (
        "各轮的概率不能直接相加（0.15 × {e} 不是至少被选中一次的概率）。请用补集："
        "P({e} 轮中从未被选中) = 0.85^{e} = {never:.3f}。"
    ),
    "after {e} epochs a token has still not been selected with probability 0.85^{e} = {never:.3f}, more "
    "than 0.10.": ("训练 {e} 轮之后，一个词元仍有 0.85^{e} = {never:.3f} 的概率从未被选中，大于 0.10。"),
    "{e} epochs is enough but not the fewest: already after {e_before} the chance of never having been "
    "selected is 0.85^{e_before} = {p_before:.3f}.": (
        "{e} 轮够了，但不是最少的：{e_before} 轮之后从未被选中的概率就已经是 0.85^{e_before} = "
        "{p_before:.3f}。"
    ),
    "'At least once' is easiest through its complement: the token was never selected.": (
        "“至少一次”最容易通过它的补集来算：这个词元从未被选中。"
    ),
    "P(never selected in E epochs) = 0.85^E. Find the smallest E with 0.85^E ≤ 0.10.": (
        "P(E 轮中从未被选中) = 0.85^E。找出满足 0.85^E ≤ 0.10 的最小 E。"
    ),
    "your function must return a tuple (masked_ids, labels) of two tensors.": (
        "你的函数必须返回一个由两个张量组成的 tuple (masked_ids, labels)。"
    ),
    "masked_ids and labels must have the input's shape {shape}, got {ids_shape} and {labels_shape}.": (
        "masked_ids 和 labels 必须与输入形状相同，即 {shape}，你的是 {ids_shape} 和 {labels_shape}。"
    ),
    "your function changed input_ids in place; work on a copy (input_ids.clone()).": (
        "你的函数原地修改了 input_ids；请在副本上操作（input_ids.clone()）。"
    ),
    "the positions that are not predicted hold 0, which is a real token id ([PAD] here); they must hold "
    "-100, the ignore_index of F.cross_entropy, so the loss skips them.": (
        "不预测的位置存的是 0，而 0 是一个真实的词元 id（这里是 [PAD]）；这些位置必须存 -100，"
        "即 F.cross_entropy 的 ignore_index，这样损失才会跳过它们。"
    ),
    "{n} special positions ({names}) were replaced.": "有 {n} 个特殊位置（{names}）被替换了。",
    "[CLS], [SEP] and [PAD] must never be selected: exclude tokenizer.all_special_ids before drawing the "
    "selection.": "[CLS]、[SEP] 和 [PAD] 永远不能被选中：在抽取选择之前先排除 tokenizer.all_special_ids。",
    " (and the special ones)": "（以及特殊词元）",
    "{share:.0%} of the ordinary tokens{also} carry a label, so the loss would be averaged over all "
    "positions, most of which the model can simply copy from its input.": (
        "{share:.0%} 的普通词元{also}带有标签，于是损失会在所有位置上求平均，"
        "而其中大多数位置模型直接从输入复制就行。"
    ),
    "The labels hold the original id at every position: keep it only where a token was selected and put "
    "-100 everywhere else.": "labels 在每个位置都存了原始 id：只在被选中的位置保留它，其余位置都填 -100。",
    "{n} special positions carry a label; they must hold -100.": (
        "有 {n} 个特殊位置带有标签；它们必须是 -100。"
    ),
    " Also: ": "另外：",
    "{n} positions were changed but carry no label: every corrupted position must be predicted (label = "
    "original id).": ("有 {n} 个位置被改动了却没有标签：每个被破坏的位置都必须预测（标签 = 原始 id）。"),
    "where a label is set it must be the original token id (input_ids), not the masked one.": (
        "设置了标签的位置必须存原始的词元 id（input_ids），而不是掩码后的 id。"
    ),
    "{share:.1%} of the ordinary tokens were selected; BERT selects 15 %.": (
        "有 {share:.1%} 的普通词元被选中；BERT 选中的是 15%。"
    ),
    "of the selected tokens {to_mask:.0%} became [MASK], {to_random:.0%} a random token and {kept:.0%} "
    "stayed unchanged; BERT's split is 80 / 10 / 10.": (
        "被选中的词元中，{to_mask:.0%} 变成了 [MASK]，{to_random:.0%} 变成了随机词元，"
        "{kept:.0%} 保持不变；BERT 的划分是 80 / 10 / 10。"
    ),
    "special tokens untouched, {share:.1%} of the {n_maskable} ordinary tokens labelled (the rest -100), "
    "split {to_mask:.0%} / {to_random:.0%} / {kept:.0%} into [MASK] / random / unchanged.": (
        "特殊词元没有被动过，{n_maskable} 个普通词元中有 {share:.1%} 带标签（其余为 -100），"
        "按 {to_mask:.0%} / {to_random:.0%} / {kept:.0%} 分成 [MASK] / 随机词元 / 保持不变。"
    ),
    "Run the buggy function on one padded sentence and look at the first position, the [SEP] and the "
    "[PAD]s: were any of them replaced? Then look at the labels of the positions that were not selected.": (
        "在一个带填充的句子上运行这个有 bug 的函数，看看第一个位置、[SEP] 和各个 [PAD]："
        "有没有被替换的？再看看没被选中的位置上的标签。"
    ),
    "Build `special = torch.isin(input_ids, torch.tensor(tokenizer.all_special_ids))` and AND `~special` "
    "into the selection. For the labels, `torch.where(selected, input_ids, -100)`.": (
        "构造 `special = torch.isin(input_ids, torch.tensor(tokenizer.all_special_ids))`，"
        "再把 `~special` 与选择结果做 AND。标签用 `torch.where(selected, input_ids, -100)`。"
    ),
    "every selected token became [MASK]. BERT replaces only 80 % of them by [MASK], 10 % by a random "
    "token and keeps 10 % unchanged: [MASK] never occurs when the model is fine-tuned, so the model must "
    "also predict tokens it can see (and cannot trust any input token blindly).": (
        "每个被选中的词元都变成了 [MASK]。BERT 只把其中 80% 替换成 [MASK]，10% 替换成随机词元，"
        "10% 保持不变：微调时永远不会出现 [MASK]，"
        "所以模型也必须预测它看得见的词元（而且不能盲目相信任何一个输入词元）。"
    ),
    "Write `mask_tokens(input_ids, tokenizer, generator)` from scratch: select each non-special token "
    "with probability 0.15; of those, 80 % become [MASK], 10 % a random token, 10 % stay; labels hold "
    "the original id at the selected positions and -100 elsewhere. Return (masked_ids, labels); never "
    "change the input.": (
        "从零编写 `mask_tokens(input_ids, tokenizer, generator)`：以 0.15 的概率选中每个非特殊词元；"
        "被选中的词元中 80% 变成 [MASK]，10% 变成随机词元，10% 保持不变；"
        "labels 在被选中的位置存原始 id，其余位置为 -100。返回 (masked_ids, labels)；"
        "永远不要修改输入。"
    ),
    "Special positions: `torch.isin(input_ids, torch.tensor(tokenizer.all_special_ids))`. Selection: "
    "`(torch.rand(input_ids.shape, generator=generator) < 0.15) & ~special`.": (
        "特殊位置：`torch.isin(input_ids, torch.tensor(tokenizer.all_special_ids))`。选择："
        "`(torch.rand(input_ids.shape, generator=generator) < 0.15) & ~special`。"
    ),
    "One more uniform draw per position decides the action: < 0.8 → [MASK], 0.8 … 0.9 → random id "
    "(torch.randint(tokenizer.vocab_size, ...)), ≥ 0.9 → unchanged. Labels: `torch.where(selected, "
    "input_ids, -100)`.": (
        "每个位置再做一次均匀抽样来决定怎么处理：< 0.8 → [MASK]，"
        "0.8 … 0.9 → 随机 id（torch.randint(tokenizer.vocab_size, ...)），≥ 0.9 → 保持不变。标签："
        "`torch.where(selected, input_ids, -100)`。"
    ),
    "`my_mask_tokens(input_ids, tokenizer, generator)` runs without an error, but on a padded batch it "
    "replaces some [CLS], [SEP] and [PAD] tokens, and far more than 15 % of the ordinary tokens carry a "
    "label. It has two bugs from the course's list of real pitfalls: find them and fix the function.": (
        "`my_mask_tokens(input_ids, tokenizer, generator)` 运行时不报错，但在一个有填充的批次上，它会替换掉一些 "
        "[CLS]、[SEP] 和 [PAD] 词元，而且带标签的普通词元远远超过 15%。它有两个 bug，都在本课程列出的真实陷阱之中："
        "找出它们并改正这个函数。"
    ),
    # --- figures of notebook 03 (titles, axis labels and legends drawn by its code cells) -------------------------
    # A formula is a {_math} field: matplotlib draws a label with $...$ in its math fonts, which have no
    # Chinese glyphs, so the Chinese leaves the field out and writes the formula in plain Unicode.
    "both neighbours intact: {_math}": "左右邻居都完好：(1 − 0.9p)²",
    "both neighbours intact: measured": "左右邻居都完好：实测值",
    "masking probability p": "掩码率 p",
    "share of predicted tokens\nwith both neighbours intact": "左右邻居都完好的\n待预测词元所占比例",
    "predictions per 100 tokens: 100p": "每 100 个词元中的预测数：100p",
    "predictions per 100 tokens": "每 100 个词元中的预测数",
    "More masking: more signal, less context": "掩码越多：训练信号越多，上下文越少",
    "Bernoulli (per token)": "伯努利（逐个词元）",
    'exact count (selection="exact")': '精确计数（selection="exact"）',
    "selected tokens in a sequence of {n} maskable tokens": "含 {n} 个可掩码词元的序列中被选中的词元数",
    "number of draws (of 2,000)": "抽样次数（共 2,000 次）",
    "dynamic masking, measured": "动态掩码，实测值",
    "static masking with 10 copies: {_math}": "静态掩码（10 份副本）：1 − 0.85¹⁰",
    "epochs E": "轮数 E",
    "tokens predicted at least once": "至少被预测过一次的词元比例",
    "BERT: 15 %": "BERT：15%",
    # the masking slider (a widget of notebook 03): its title and its table's columns
    "Masking slider at p = {p:.2f}": "掩码滑块：p = {p:.2f}",
    "original": "原词",
    "model input": "模型输入",
    "label": "标签",
    # --- comments of the reference solutions: Exercise.solution() shows the English code with these
    # comments translated (bertedu.language.translate_code)
    "300 tokens carry a label": "300 个词元带有标签",
    "(B, T) never selected": "(B, T) 永远不会被选中",
    "-100 = ignored by the loss": "-100 = 损失会忽略",
    "(B, T): never selected": "(B, T)：永远不会被选中",
    "-100: ignored by the loss": "-100：损失会忽略",
    "never change the input": "永远不要修改输入",
}
