"""Chinese (简体中文) messages of the exercises of notebook 07 (fine-tuning: aligning word tags to pieces, the
span loss, decoding a span).

Part of the Chinese catalog; its rules are in :mod:`bertedu.language.zh`.
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # --- bertedu/teaching/exercises/finetune.py (notebook 07) --------------------------------------------------------
    # 1. word tags -> piece labels
    "for words {words} (pieces {pieces}) and tags {tags}": (
        "对于单词 {words}（子词 {pieces}）和标签 {tags}，"
    ),
    "return a list of ints, got {type}.": "请返回一个整数列表，你返回的是 {type}。",
    "{shown} you returned {n_labels} labels, one per piece, but the model also sees [CLS] and [SEP]: add "
    "-100 at both ends.": (
        "{shown}你返回了 {n_labels} 个标签，每个子词一个，但模型还会看到 [CLS] 和 [SEP]：请在两端各加一个 -100。"
    ),
    "{shown} the sequence has {n_tokens} tokens ([CLS] + pieces + [SEP]) but you gave {n_labels} labels.": (
        "{shown}序列有 {n_tokens} 个词元（[CLS] + 子词 + [SEP]），而你给了 {n_labels} 个标签。"
    ),
    "{shown} you gave every piece the word's tag, so a word split into 3 pieces counts 3 times in the loss "
    "and the accuracy. Label the first piece only; -100 for the rest.": (
        "{shown}你给每个子词都标上了单词的标签，于是一个被切成 3 个子词的单词在损失和准确率里要算 3 次。"
        "只标注第一个子词；其余的用 -100。"
    ),
    "{shown} you labelled the last piece of each word; BERT (Section 5.3) uses the first.": (
        "{shown}你标注的是每个单词的最后一个子词；BERT（第 5.3 节）用的是第一个。"
    ),
    "{shown} you used 0 where the label should be ignored, but 0 is a real tag id: the model would be "
    "trained to predict it for [CLS], [SEP] and continuation pieces. Use -100.": (
        "{shown}你在应该忽略标签的位置用了 0，但 0 是一个真实的标签 id：模型会被训练成在 [CLS]、[SEP] "
        "和续接子词上预测它。请用 -100。"
    ),
    "{shown} expected {right}, got {got}.": "{shown}应为 {right}，你得到的是 {got}。",
    "every word's tag sits on its first piece; [CLS], [SEP] and the ## pieces get -100, so each word counts "
    "once in the loss and in the token accuracy.": (
        "每个单词的标签都落在它的第一个子词上；[CLS]、[SEP] 和 ## 子词得到 -100，"
        "所以每个单词在损失和词元准确率中只算一次。"
    ),
    "Write `my_align(pieces_per_word, tag_ids)`: the label list for `[CLS] pieces... [SEP]`, with each "
    "word's tag on its first piece and -100 on [CLS], [SEP] and every other piece.": (
        "编写 `my_align(pieces_per_word, tag_ids)`：返回 `[CLS] pieces... [SEP]` 的标签列表，"
        "每个单词的标签放在它的第一个子词上，[CLS]、[SEP] 和其余每个子词上放 -100。"
    ),
    "Start with [-100] for [CLS]; for each word append its tag, then len(pieces) - 1 times -100.": (
        "先用 [-100] 表示 [CLS]；对每个单词，先追加它的标签，再追加 len(pieces) - 1 个 -100。"
    ),
    "Finish with -100 for [SEP]. The result has (number of pieces + 2) entries.": (
        "最后为 [SEP] 加一个 -100。结果共有（子词数 + 2）个元素。"
    ),
    # 2. decoding a span
    "return a pair (start, end) of token positions, got {got!r}.": (
        "请返回一对词元位置 (start, end)，你返回的是 {got!r}。"
    ),
    "a random case": "一个随机样例",
    "on {case} you returned start {i} > end {j}: not a span. Taking the argmax of the start and end scores "
    "separately does this. Search over pairs with i <= j.": (
        "在 {case} 上，你返回的起点 {i} > 终点 {j}：这不是一个答案片段。分别对起点分数和终点分数取 argmax "
        "就会这样。请在 i <= j 的位置对中搜索。"
    ),
    "on {case} your span ({i}, {j}) is not inside the context (context_mask is 0 there): the answer must "
    "come from the passage, not from [CLS], the question or [SEP].": (
        "在 {case} 上，你的答案片段 ({i}, {j}) 不在上下文之内（那里的 context_mask 为 0）："
        "答案必须来自段落，而不是 [CLS]、问题或 [SEP]。"
    ),
    "on {case} your span ({i}, {j}) is valid but scores {score:.3f}; ({best_i}, {best_j}) scores {best:.3f}. "
    "Maximise start[i] + end[j] over all valid pairs.": (
        "在 {case} 上，你的答案片段 ({i}, {j}) 是合法的，但得分为 {score:.3f}；({best_i}, {best_j}) "
        "的得分为 {best:.3f}。请在所有合法的位置对上最大化 start[i] + end[j]。"
    ),
    "your decoder returns the highest-scoring span with start <= end inside the context, every time.": (
        "你的解码器每次都返回上下文之内、起点 <= 终点、得分最高的答案片段。"
    ),
    "Write `my_decode(start_logits, end_logits, context_mask)` for one example (three tensors of shape "
    "(T,)): return the pair (i, j) with i <= j, both in the context, that maximises "
    "start_logits[i] + end_logits[j].": (
        "为单个样本编写 `my_decode(start_logits, end_logits, context_mask)`（三个形状为 (T,) 的张量）："
        "返回使 start_logits[i] + end_logits[j] 最大的位置对 (i, j)，要求 i <= j 且两端都在上下文之内。"
    ),
    "Two loops over i and j (j from i on) are fine for T of a few dozen tokens; skip pairs where "
    "context_mask is 0.": (
        "T 只有几十个词元时，对 i 和 j 写两重循环（j 从 i 开始）就够了；跳过 context_mask 为 0 的位置对。"
    ),
    "Vectorised: scores = start[:, None] + end[None, :] is (T, T); set the invalid cells (j < i, outside "
    "the context) to -inf with torch.triu and the mask, then take the argmax of the flattened matrix.": (
        "向量化写法：scores = start[:, None] + end[None, :] 是 (T, T) 矩阵；用 torch.triu 和掩码把不合法的"
        "格子（j < i、在上下文之外）设为 -inf，再对展平后的矩阵取 argmax。"
    ),
    # 3. find the bug: the span loss
    "one example's loss changes when the *other examples* of the batch change, and the probabilities your loss "
    "gives an example's T start positions do not sum to 1: they are not a distribution over its passage.": (
        "当批次里的*其他样本*改变时，一个样本的损失也跟着变；而且你的损失给一个样本的 T 个起点位置的概率加起来不等于 1："
        "它们不是这个样本所在段落上的分布。"
    ),
    "The softmax runs over dim 0, the batch: each position competes with the same position of the other "
    "examples. Span extraction is a softmax over the T positions of each example: log_softmax(dim=-1) "
    "(what F.cross_entropy(start_logits, start_positions) does).": (
        "softmax 沿 dim 0（批次）进行：每个位置都在和其他样本的同一位置竞争。"
        "片段抽取是在每个样本的 T 个位置上做 softmax：log_softmax(dim=-1)"
        "（也就是 F.cross_entropy(start_logits, start_positions) 所做的）。"
    ),
    "the softmax runs over dim 0, the batch, instead of the T positions of each example (dim=-1); and the "
    "start and end terms are added, not averaged.": (
        "softmax 沿 dim 0（批次）进行，而不是沿每个样本的 T 个位置（dim=-1）；"
        "而且起点项和终点项是相加，而不是求平均。"
    ),
    "you add the start and end cross-entropies: that is the paper's objective, but BertForQuestionAnswering "
    "(like Google's run_squad.py and Hugging Face) reports their mean, (CE(start) + CE(end)) / 2.": (
        "你把起点和终点的交叉熵相加：这是论文的目标函数，但 BertForQuestionAnswering"
        "（和 Google 的 run_squad.py、Hugging Face 一样）给出的是两者的平均，(CE(start) + CE(end)) / 2。"
    ),
    "you return the start term only; the loss also needs the end term: (CE(start) + CE(end)) / 2.": (
        "你只返回了起点项；损失还需要终点项：(CE(start) + CE(end)) / 2。"
    ),
    "you return the end term only; the loss also needs the start term: (CE(start) + CE(end)) / 2.": (
        "你只返回了终点项；损失还需要起点项：(CE(start) + CE(end)) / 2。"
    ),
    "you sum over the examples of the batch; average them (F.cross_entropy's default), or the loss, and "
    "with it the size of every step, grows with the batch size.": (
        "你对批次中的样本求和；请求平均（F.cross_entropy 的默认做法），"
        "否则损失以及每一步更新的大小都会随批量大小增长。"
    ),
    "the start scores are scored against the end positions and vice versa: start_logits go with "
    "start_positions, end_logits with end_positions.": (
        "起点分数被拿去对照终点位置，终点分数对照起点位置：start_logits 对应 start_positions，"
        "end_logits 对应 end_positions。"
    ),
    "you average probabilities; the loss is the negative *log*-probability of the gold positions.": (
        "你平均的是概率；损失是正确位置的负*对数*概率。"
    ),
    "you return one loss per example, shape {shape}; return their mean over the batch, one number, as "
    "BertForQuestionAnswering does.": (
        "你为每个样本返回了一个损失，形状为 {shape}；请像 BertForQuestionAnswering 那样返回它们在批次上的平均值，"
        "即一个数。"
    ),
    "return the loss as one number (a 0-d tensor), got {type} {shape}.": (
        "请把损失作为一个数（0 维张量）返回，你返回的是 {type} {shape}。"
    ),
    "on a batch of B = {B} examples with T = {T} positions, {mistake}": (
        "在一个 B = {B} 个样本、T = {T} 个位置的批次上，{mistake}"
    ),
    "on a batch of B = {B} examples with T = {T} positions your loss is {value:.4f}, but "
    "(CE(start) + CE(end)) / 2 is {right:.4f}. Each cross-entropy is a softmax over the T positions of one "
    "example, scored at the gold position, averaged over the batch.": (
        "在一个 B = {B} 个样本、T = {T} 个位置的批次上，你的损失是 {value:.4f}，而 "
        "(CE(start) + CE(end)) / 2 是 {right:.4f}。每个交叉熵都是在一个样本的 T 个位置上做 softmax，"
        "取正确位置的值，再在批次上求平均。"
    ),
    "the value is right, but it is not a tensor connected to the logits (did you call .item() or float()?): "
    "loss.backward() needs the tensor to compute gradients.": (
        "数值是对的，但它不是连着 logits 的张量（你是不是调用了 .item() 或 float()？）："
        "loss.backward() 需要这个张量来计算梯度。"
    ),
    "right on every batch: a softmax over the T positions of each example (dim=-1), the gold start and end "
    "scored, (CE(start) + CE(end)) / 2 averaged over the batch, and still differentiable.": (
        "在每个批次上都对：在每个样本的 T 个位置上做 softmax（dim=-1），取正确的起点和终点，"
        "(CE(start) + CE(end)) / 2 在批次上求平均，而且仍然可以求导。"
    ),
    "`my_span_loss(start_logits, end_logits, start_positions, end_positions)` should return "
    "BertForQuestionAnswering's loss, (CE(start) + CE(end)) / 2 averaged over the batch. It runs without an "
    "error and gives a plausible number, but it is wrong. Find the bug and fix it.": (
        "`my_span_loss(start_logits, end_logits, start_positions, end_positions)` 应当返回 "
        "BertForQuestionAnswering 的损失，即 (CE(start) + CE(end)) / 2 在批次上的平均值。"
        "它运行时不报错，给出的数值看起来也合理，但它是错的。找出错误并改正它。"
    ),
    "The logits are (B, T): B examples, T positions each. Over which of the two axes must the probabilities "
    "of one example's start position sum to 1?": (
        "logits 的形状是 (B, T)：B 个样本，每个样本 T 个位置。一个样本的起点位置概率，应当沿两个轴中的哪一个加起来等于 1？"
    ),
    "log_softmax(dim=0) normalises down the columns, across the batch. Use dim=-1 (the positions), or "
    "simply F.cross_entropy(start_logits, start_positions), which normalises over dim 1.": (
        "log_softmax(dim=0) 沿列、跨批次做归一化。请用 dim=-1（位置），"
        "或者直接用 F.cross_entropy(start_logits, start_positions)，它沿 dim 1 归一化。"
    ),
    # --- figures of notebook 07 (titles, axis labels and legends drawn by its code cells) -------------------------
    "fine-tuning the mini-BERT (x: optimizer step)": "微调迷你 BERT（横轴：优化器步数）",
    "pretrained mini-BERT": "预训练的迷你 BERT",
    "same model from scratch": "同一模型，从零训练",
    "bag of words (same labels)": "词袋（相同的标签）",
    "chance (balanced classes)": "随机猜测（类别均衡）",
    "corpus lookup (reads no label)": "语料查找（不读任何标签）",
    "labelled training sentences (log scale; each model run also used the 90 dev labels)": (
        "有标签的训练句子数（对数刻度；每次训练模型还用了开发集的 90 个标签）"
    ),
    "test accuracy": "测试集准确率",
    "plausible vs implausible: accuracy vs number of labels": "合理 / 不合理分类：准确率随标签数量的变化",
    # --- comments of the reference solutions: Exercise.solution() shows the English code with these
    # comments translated (bertedu.language.translate_code)
    "first piece only": "只标第一个子词",
    "end never before start": "终点绝不在起点之前",
    "both ends inside the passage": "两端都在段落之内",
    "start_logits, end_logits: (B, T); start_positions, end_positions: (B,)": "start_logits, end_logits：(B, T)；start_positions, end_positions：(B,)",
    "over the T positions of each example": "在每个样本的 T 个位置上",
}
