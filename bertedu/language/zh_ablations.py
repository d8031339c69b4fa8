"""Chinese (简体中文) messages of the exercises and figures of notebook 10 (ablations).

Part of the Chinese catalog; its rules are in :mod:`bertedu.language.zh`.
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # --- bertedu/teaching/exercises/ablations.py (notebook 10) -------------------------------------------------
    # 1. The causal mask
    "Write `causal_mask(T)`: the (1, 1, T, T) boolean mask of the left-to-right variant, True where "
    "query i may attend to key j.": (
        "编写 `causal_mask(T)`：从左到右变体所用的 (1, 1, T, T) 布尔掩码，查询 i 可以关注键 j 的位置为 True。"
    ),
    "Rows are queries, columns keys: query i may attend to keys 0, 1, ..., i (itself included).": (
        "行是查询，列是键：查询 i 可以关注键 0, 1, ..., i（包括它自己）。"
    ),
    "`torch.ones(T, T, dtype=torch.bool).tril()` is that lower triangle; add two leading axes.": (
        "`torch.ones(T, T, dtype=torch.bool).tril()` 就是这个下三角；再在前面加两个轴。"
    ),
    "`causal_mask({T})` returned {type}; return a torch tensor.": (
        "`causal_mask({T})` 返回了 {type}；请返回一个 torch 张量。"
    ),
    "`causal_mask({T})` has shape {shape}; it must be (1, 1, {T}, {T}): one row per query, one column per "
    "key, and two leading axes of size 1 that broadcast over the batch and the heads.": (
        "`causal_mask({T})` 的形状是 {shape}；它必须是 (1, 1, {T}, {T})：每个查询一行，每个键一列，"
        "前面两个大小为 1 的轴在批次和注意力头上广播。"
    ),
    "`causal_mask({T})` has dtype {dtype}; make it boolean (True = may attend), e.g. with `.bool()`. A "
    "0/1 mask of numbers is not a mask: attention would add it to the scores.": (
        "`causal_mask({T})` 的数据类型是 {dtype}；请把它变成布尔型（True = 可以关注），例如用 `.bool()`。"
        "由数字 0/1 组成的掩码不是掩码：注意力会把它加到分数上。"
    ),
    "a token cannot attend to itself in your mask (its diagonal is False); the first token then "
    "attends to nothing and its weights are NaN. Keep the diagonal: query i may see keys j <= i.": (
        "在你的掩码中，词元不能关注它自己（对角线是 False）；于是第一个词元什么也关注不到，它的权重是 NaN。"
        "请保留对角线：查询 i 可以看到键 j <= i。"
    ),
    "with your mask, changing the tokens from position {cut} on changed the output at position "
    "{leak}: a token can see later tokens.{why}": (
        "用你的掩码，改变从位置 {cut} 开始的词元，位置 {leak} 的输出也变了：词元能看到后面的词元。{why}"
    ),
    " Your mask is upper-triangular: rows are queries and columns keys, so query i must see "
    "the columns j <= i, the lower triangle (`tril`).": (
        "你的掩码是上三角：行是查询、列是键，所以查询 i 必须看到第 j <= i 列，也就是下三角（`tril`）。"
    ),
    "no token sees the future, but some token cannot see an earlier one: a left-to-right model "
    "reads everything before the token and the token itself (the whole lower triangle).": (
        "没有词元能看到未来，但有的词元看不到前面的某个词元：从左到右的模型会读取该词元之前的全部内容"
        "以及该词元本身（整个下三角）。"
    ),
    "the lower triangle with its diagonal; changing later tokens never changed an earlier output "
    "(checked on random inputs), which is the whole point of the left-to-right variant.": (
        "包含对角线的下三角；改变后面的词元从不改变前面的输出（已在随机输入上检查），"
        "这正是从左到右变体的全部意义。"
    ),
    # 2. An ablation of your own
    'Design an ablation of your own: `my_config = ablation_config("bert").replace(...)` with exactly one '
    "setting of the model or the objective changed.": (
        '设计一个你自己的消融实验：`my_config = ablation_config("bert").replace(...)`，'
        "只改变模型或训练目标的一项设置。"
    ),
    "`PretrainingConfig` lists the settings: e.g. `dropout`, `mlm_probability`, `mask_replace_prob`, "
    "`position_embedding_type`, `model_size`.": (
        "`PretrainingConfig` 列出了所有设置：例如 `dropout`、`mlm_probability`、`mask_replace_prob`、"
        "`position_embedding_type`、`model_size`。"
    ),
    "The seed and the budget (`steps`, `batch_size`) stay: every variant shares them.": (
        "随机种子和预算（`steps`、`batch_size`）保持不变：每个变体都共用它们。"
    ),
    "a different seed is a second run of the same recipe, not an ablation": (
        "换一个随机种子只是同一配方的第二次运行，不是消融实验"
    ),
    "the budget is shared by every variant, so that only the design differs": (
        "预算由所有变体共用，这样不同的只有设计"
    ),
    'give a PretrainingConfig, e.g. `ablation_config("bert").replace(dropout=0.1)`, not {type}.': (
        '请给出一个 PretrainingConfig，例如 `ablation_config("bert").replace(dropout=0.1)`，而不是 {type}。'
    ),
    'pass the reference too: `ex.own_ablation.check(my_config, ablation_config("bert"))`.': (
        '也要传入参照配置：`ex.own_ablation.check(my_config, ablation_config("bert"))`。'
    ),
    "your config equals the reference: change one setting (and only one).": (
        "你的配置与参照配置相同：请改变一项设置（而且只改一项）。"
    ),
    "your config changes {n} settings ({names}): an ablation changes one thing, so that whatever "
    "differs can be traced back to it. Keep one.": (
        "你的配置改变了 {n} 项设置（{names}）：消融实验只改变一件事，这样任何差异都能追溯到它。请只保留一项。"
    ),
    "you changed `{name}`: {why}. Change the model or the objective instead.": (
        "你改变了 `{name}`：{why}。请改为改变模型或训练目标。"
    ),
    "one setting changed, `{name}` = {value!r} (the reference: {before!r}). Write down your "
    "prediction before you run it.": (
        "只改变了一项设置，`{name}` = {value!r}（参照配置：{before!r}）。运行之前，先写下你的预测。"
    ),
    # --- figures of notebook 10 (its code cells: titles, axis labels, legends; "step" is in zh.py) -------------
    # the reduced run beside notebook 06's run
    "BERT: notebook 06's run": "BERT：笔记本 06 的训练",
    "BERT: the reduced run": "BERT：缩减版实验",
    "LTR: here, then full run": "LTR：缩减版实验，然后是完整版实验",
    "trigram model": "三元语法模型",
    "co-occurrence rule": "共现规则",
    "masked words (mlm_eval.tsv), top-1": "被掩码的词（mlm_eval.tsv），top-1",
    "new sentences (generalise file), top-1": "新句子（generalise 文件），top-1",
    # the full run against the paper (plot_ablations draws the rest of this figure)
    "THE FULL RUN: variant minus BERT (same seed), points": "完整版实验：变体减去 BERT（相同随机种子），百分点",
    # bertedu.course.ablations.plot_ablations: panel titles, legend, default axis label
    "Table 5: pre-training tasks": "表 5：预训练任务",
    "Table 8: masking strategies": "表 8：掩码策略",
    "not in the BERT paper": "BERT 论文中没有的实验",
    "ours: median, min-max over seeds": "本课程：各随机种子的中位数与最小-最大范围",
    "the paper": "论文",
    "difference to BERT (same seed), percentage points": "与 BERT 之差（相同随机种子），百分点",
    # the variants' names under its bars and in legends (bertedu.course.ablations.VARIANTS; the printed tables keep
    # the English labels)
    "No NSP": "无 NSP",
    "LTR & No NSP": "从左到右、无 NSP",
    "no positions": "无位置嵌入",
    "pre-LN": "前置 LN",
    "mask 15 %": "掩码率 15%",
    "mask 40 %": "掩码率 40%",
    # the metrics' names under its bars (bertedu.course.ablations.METRICS; the printed tables keep the English keys)
    "masked words top-1": "被掩码的词 top-1",
    "masked words top-5": "被掩码的词 top-5",
    "generalise top-1": "新句子 top-1",
    "generalise top-5": "新句子 top-5",
    "NSP": "NSP 准确率",
    "NSP, swapped order": "NSP，顺序对调",
    "sentence cls. acc.": "句子分类准确率",
    "word-order pairs acc.": "词序句对准确率",
    "indirect slice acc.": "间接切片准确率",
    "sentence pair acc.": "句子对准确率",
    "tagging macro-F1": "标注 macro-F1",
    "tagging accuracy": "标注准确率",
    "span F1": "片段抽取 F1",
    "frozen probe macro-F1": "冻结特征探针 macro-F1",
    "frozen probe accuracy": "冻结特征探针准确率",
    # --- comments of the reference solutions: Exercise.solution() shows the English code with these
    # comments translated (bertedu.language.translate_code)
    "(T, T): query i sees keys j <= i": "(T, T)：查询 i 看到键 j <= i",
    "(1, 1, T, T): broadcasts over batch and heads": "(1, 1, T, T)：在批次和注意力头上广播",
    "one change: mask 20 % instead of 30 %": "只改一处：遮住 20% 而不是 30%",
}
