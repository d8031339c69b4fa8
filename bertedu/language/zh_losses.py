"""Chinese (简体中文) messages of the exercises of notebook 04 (the MLM and NSP losses).

Part of the Chinese catalog; its rules are in :mod:`bertedu.language.zh`.
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # --- bertedu/teaching/exercises/losses.py (notebook 04) ----------------------------------------------------------
    "{answer} is not a finite number; did you average over zero positions?": (
        "{answer} 不是一个有限的数；你是不是在零个位置上求了平均？"
    ),
    "L_MLM = ({terms}) / {n_values} = {right:.4f}: the mean of -log p(original token) over the masked "
    "positions of the whole batch.": (
        "L_MLM = ({terms}) / {n_values} = {right:.4f}：即整个批次所有被掩码位置上 -log p(原始词元) 的平均值。"
    ),
    "you divided by all {n_positions} positions, but only {n_values} are masked: the loss is averaged "
    "over the masked positions only (the others contribute nothing).": (
        "你除以了全部 {n_positions} 个位置，但只有 {n_values} 个被掩码："
        "损失只在被掩码的位置上求平均（其他位置什么也不贡献）。"
    ),
    "that is the sum; divide by the number of masked positions ({n_values}).": (
        "这是总和；请除以被掩码位置的个数（{n_values}）。"
    ),
    "you averaged each sentence first and then the sentences; BERT averages over all masked positions of "
    "the batch at once (a sentence with more masks weighs more).": (
        "你先对每个句子求平均，再对句子求平均；"
        "BERT 是一次性对整个批次所有被掩码的位置求平均（掩码多的句子权重更大）。"
    ),
    "you used the raw logit of the right token; first turn the logits into probabilities with a softmax "
    "over the vocabulary (log p = z_y - log Σ_v exp z_v).": (
        "你用的是正确词元的原始 logit；请先在词表上做 softmax，"
        "把 logits 变成概率（log p = z_y - log Σ_v exp z_v）。"
    ),
    "the sign is wrong: the loss is -log p, a positive number.": "符号错了：损失是 -log p，是一个正数。",
    "use the natural logarithm (ln), as F.cross_entropy does, not log10.": (
        "请像 F.cross_entropy 那样使用自然对数（ln），不要用 log10。"
    ),
    "use the natural logarithm (ln), as F.cross_entropy does, not log2.": (
        "请像 F.cross_entropy 那样使用自然对数（ln），不要用 log2。"
    ),
    "{answer:.4f} is not it. For each masked position take -log softmax(logits)[label], then average "
    "over the masked positions.": (
        "{answer:.4f} 不对。对每个被掩码的位置取 -log softmax(logits)[label]，再在被掩码的位置上求平均。"
    ),
    "Only the positions whose label is not -100 count. There are three of them.": (
        "只有标签不是 -100 的位置才算数。这样的位置有三个。"
    ),
    "For a row of logits z and label y: -log p_y = log(Σ_v exp z_v) - z_y. Average the three values.": (
        "对一行 logits z 和标签 y：-log p_y = log(Σ_v exp z_v) - z_y。把三个值求平均。"
    ),
    "mixed": "混合",
    "all IsNext": "全为 IsNext 句对",
    "all NotNext": "全为 NotNext 句对",
    "return the loss as a scalar tensor (keep it a tensor: no .item()).": (
        "请把损失作为标量张量返回（保持张量：不要 .item()）。"
    ),
    "the loss is detached from the graph (.item(), .detach() or numpy?); backward() needs it.": (
        "损失脱离了计算图（.item()、.detach() 还是 numpy？）；backward() 需要它。"
    ),
    "on a batch that is {name} your loss is nan: every pair was ignored. NSP has no 'ignore' class; with "
    "ignore_index=0 every IsNext pair (label 0) is dropped.": (
        "在一个{name}的批次上，你的损失是 nan：每一对都被忽略了。NSP 没有“忽略”类别；"
        "用 ignore_index=0 会丢掉每一个 IsNext 句对（标签 0）。"
    ),
    "your loss only counts NotNext pairs: every IsNext pair (label 0 under Hugging Face's convention) is "
    "left out, so a model that always answers NotNext would drive it to 0.": (
        "你的损失只统计 NotNext 句对：每一个 IsNext 句对（按 Hugging Face 的约定标签为 0）都被漏掉了，"
        "所以一个永远回答 NotNext 的模型就能把它降到 0。"
    ),
    "ignore_index=0 drops the pairs labelled 0; NSP has no 'ignore' class: remove ignore_index.": (
        "ignore_index=0 会丢掉标签为 0 的句对；NSP 没有“忽略”类别：请去掉 ignore_index。"
    ),
    "your loss only counts IsNext pairs: ignore_index=1 drops every NotNext pair. NSP needs both "
    "classes; remove ignore_index.": (
        "你的损失只统计 IsNext 句对：ignore_index=1 丢掉了每一个 NotNext 句对。NSP 两个类别都需要；"
        "请去掉 ignore_index。"
    ),
    "the classes are swapped: in Hugging Face and bertedu label 0 = IsNext and 1 = NotNext, and logit "
    "column 0 scores IsNext. Do not flip the labels.": (
        "类别颠倒了：在 Hugging Face 和 bertedu 中，标签 0 = IsNext，1 = NotNext，"
        "logit 的第 0 列给 IsNext 打分。不要翻转标签。"
    ),
    "that is the sum over the batch; BERT averages the NSP loss over the pairs (the default "
    "reduction='mean').": (
        "这是整个批次的总和；BERT 的 NSP 损失是在句对上求平均（默认的 reduction='mean'）。"
    ),
    "on the {name} batch your loss is {value:.4f} but the NSP cross-entropy is {right:.4f}. Use "
    "F.cross_entropy(logits, labels) over every pair.": (
        "在{name}的批次上，你的损失是 {value:.4f}，而 NSP 交叉熵是 {right:.4f}。"
        "请对每一对使用 F.cross_entropy(logits, labels)。"
    ),
    "every pair counts, IsNext (0) and NotNext (1) alike, and the loss matches bertedu.core.losses.nsp_loss "
    "on mixed, all-IsNext and all-NotNext batches.": (
        "每一对都算数，IsNext (0) 和 NotNext (1) 一视同仁，并且在混合、"
        "全是 IsNext 和全是 NotNext 的批次上，损失都与 bertedu.core.losses.nsp_loss 一致。"
    ),
    "ignore_index=k makes F.cross_entropy skip every example whose label is k. Which NSP pairs have "
    "label 0?": ("ignore_index=k 让 F.cross_entropy 跳过所有标签为 k 的样本。哪些 NSP 句对的标签是 0？"),
    "NSP has no 'padding' class to skip: every pair is a real example. Drop the ignore_index argument.": (
        "NSP 没有需要跳过的“填充”类别：每一对都是真实的样本。去掉 ignore_index 参数。"
    ),
    "almost: right whenever something is masked, but a batch without any masked token gives nan (0 / 0), "
    "which would poison training. Divide by the number of masked positions clamped to at least 1, so "
    "such a batch gives 0, as bertedu.core.losses.mlm_loss does.": (
        "差一点：只要有被掩码的词元就是对的，但一个没有任何掩码词元的批次会得到 nan（0 / 0），"
        "这会毁掉训练。请除以被掩码位置的个数，并把它限制为至少 1，这样的批次就会得到 0，"
        "就像 bertedu.core.losses.mlm_loss 那样。"
    ),
    "a batch without masked tokens should give 0, got {value:.4f}.": (
        "没有掩码词元的批次应该得到 0，你得到的是 {value:.4f}。"
    ),
    "your loss is {n_masked}/{n_positions} of the mean over the masked positions: only {n_masked} of the "
    "{n_positions} positions are masked, and the ignored ones pull it towards 0 (it shrinks when the batch "
    "has more padding).": (
        "你的损失只有掩码位置平均值的 {n_masked}/{n_positions}：{n_positions} 个位置中只有 {n_masked} 个"
        "被掩码，被忽略的位置把它拉向 0（批次里填充越多，它就越小）。"
    ),
    "It divides the masked sum by all positions; divide by the number of masked positions.": (
        "它把掩码位置之和除以了全部位置的个数；请除以被掩码位置的个数。"
    ),
    "that is the sum; divide by the number of masked positions.": "这是总和；请除以被掩码位置的个数。",
    "you averaged per sentence, then over sentences; BERT (and bertedu) average over all masked "
    "positions of the batch at once.": (
        "你先按句子求平均，再对句子求平均；BERT（和 bertedu）是一次性对整个批次所有被掩码的位置求平均。"
    ),
    "on the test batch your loss is {value:.4f}, expected {right:.4f} (mean over masked positions).": (
        "在测试批次上，你的损失是 {value:.4f}，应为 {right:.4f}（被掩码位置上的平均值）。"
    ),
    "the loss is the mean over the masked positions of the whole batch, and 0 (still attached to the "
    "graph) when nothing is masked: it matches bertedu.core.losses.mlm_loss.": (
        "损失是整个批次所有被掩码位置上的平均值，什么都没掩码时为 0（仍然连在计算图上）："
        "与 bertedu.core.losses.mlm_loss 一致。"
    ),
    "With reduction='none', F.cross_entropy puts 0 at the ignored positions. What does .mean() divide by?": (
        "用 reduction='none' 时，F.cross_entropy 在被忽略的位置上放 0。.mean() 除以的是什么？"
    ),
    "Divide the sum by (labels != -100).sum(), clamped to at least 1 so that an empty batch gives 0.": (
        "把总和除以 (labels != -100).sum()，并限制为至少 1，这样空批次就得到 0。"
    ),
    "name the vocabulary projection `decoder` (an nn.Linear(H, V) whose weight is E).": (
        "请把词表投影命名为 `decoder`（一个权重为 E 的 nn.Linear(H, V)）。"
    ),
    "the decoder is tied by copy: its weight equals the word embeddings today but is a separate tensor, "
    "so the first optimizer step pulls them apart (and doubles the parameters). Share the Parameter "
    "itself: `self.decoder.weight = word_embeddings.weight`.": (
        "decoder 是通过复制绑定的：它的权重眼下等于词嵌入，但却是另一个张量，"
        "所以第一步优化就会让两者分开（而且参数量翻倍）。请共享同一个 Parameter："
        "`self.decoder.weight = word_embeddings.weight`。"
    ),
    "the decoder is not tied to the word embeddings: BERT scores the vocabulary with E itself, logits = "
    "transform(h) · Eᵀ + b. Set `self.decoder.weight = word_embeddings.weight`.": (
        "decoder 没有与词嵌入绑定：BERT 直接用 E 给词表打分，logits = transform(h) · Eᵀ + b。"
        "请设置 `self.decoder.weight = word_embeddings.weight`。"
    ),
    "the output bias is missing: the head has its own per-token bias of shape (V,), named `bias` "
    "(`self.bias = nn.Parameter(torch.zeros(config.vocab_size))`), used as the decoder's bias.": (
        "少了输出偏置：这个 MLM 头有自己的逐词元偏置，形状为 (V,)，"
        "名为 `bias`（`self.bias = nn.Parameter(torch.zeros(config.vocab_size))`），"
        "用作 decoder 的偏置。"
    ),
    "the decoder has a second bias of its own next to `bias`: create it with nn.Linear(H, V, bias=False) "
    "or share the Parameter (`self.decoder.bias = self.bias`), as Hugging Face does.": (
        "decoder 在 `bias` 之外还有一个自己的偏置：请用 nn.Linear(H, V, bias=False) 创建它，"
        "或者共享这个 Parameter（`self.decoder.bias = self.bias`），就像 Hugging Face 那样。"
    ),
    "your head's parameters do not have Hugging Face's names (missing {missing}, unexpected "
    "{unexpected}). Expected: {expected}.": (
        "你的头的参数名与 Hugging Face 的不同（缺少 {missing}，多出 {unexpected}）。需要的参数：{expected}。"
    ),
    "the logits (B, T, V)": "输出的 logits (B, T, V)",
    "the transform is missing: apply dense → GELU → LayerNorm before the decoder.": (
        "少了 transform：在 decoder 之前要做 dense → GELU → LayerNorm。"
    ),
    "the bias is not added: logits = transform(h) · Eᵀ + b.": (
        "没有加偏置：logits = transform(h) · Eᵀ + b。"
    ),
    "the transform's LayerNorm is missing: dense → GELU → LayerNorm.": (
        "transform 里少了 LayerNorm：dense → GELU → LayerNorm。"
    ),
    "your logits differ from BertLMPredictionHead's: transform (dense → GELU → LayerNorm), then h · Eᵀ + "
    "b.": (
        "你的 logits 与 BertLMPredictionHead 的不同：先 transform（dense → GELU → LayerNorm），"
        "再 h · Eᵀ + b。"
    ),
    "logits = LayerNorm(GELU(dense(h))) · Eᵀ + b with decoder.weight *being* the word-embedding "
    "Parameter: the same as bertedu's BertLMPredictionHead, and V·H parameters saved.": (
        "logits = LayerNorm(GELU(dense(h))) · Eᵀ + b，decoder.weight *就是*词嵌入的那个 Parameter："
        "与 bertedu 的 BertLMPredictionHead 相同，还省下了 V·H 个参数。"
    ),
    "transform.dense, transform.LayerNorm, decoder (weight = E), bias (V,)": (
        "transform.dense、transform.LayerNorm、decoder（weight = E）、bias (V,)"
    ),
    "A small `transform` module (nn.Module with .dense and .LayerNorm, eps=config.layer_norm_eps) keeps "
    "Hugging Face's names: transform.dense, transform.LayerNorm.": (
        "用一个小的 `transform` 模块（带 .dense 和 .LayerNorm 的 nn.Module，"
        "eps=config.layer_norm_eps）来保留 Hugging Face 的命名：transform.dense、transform.LayerNorm。"
    ),
    "Tie by assignment, not by copy: `self.decoder = nn.Linear(H, V, bias=False)` then "
    "`self.decoder.weight = word_embeddings.weight`. The bias: `self.bias = "
    "nn.Parameter(torch.zeros(V))`.": (
        "通过赋值绑定，而不是复制：先 `self.decoder = nn.Linear(H, V, bias=False)`，"
        "再 `self.decoder.weight = word_embeddings.weight`。偏置："
        "`self.bias = nn.Parameter(torch.zeros(V))`。"
    ),
    "return a tuple (sentence_a, sentence_b, label).": ("请返回一个 tuple (sentence_a, sentence_b, label)。"),
    "sentence_a and sentence_b must be sentences of `documents` (strings), unchanged.": (
        "sentence_a 和 sentence_b 必须是 `documents` 里的句子（字符串），原样不变。"
    ),
    "the label must be 0 (IsNext) or 1 (NotNext), got {label!r}.": (
        "标签必须是 0 (IsNext) 或 1 (NotNext)，你给的是 {label!r}。"
    ),
    "two runs with the same rng gave different pairs: draw every random number from the `rng` you are "
    "given (rng.random(), rng.randrange(...), rng.choice(...)), not from the global random module.": (
        "用同一个 rng 运行两次却得到了不同的句对：请从传给你的 `rng` 抽取每一个随机数（rng.random()、"
        "rng.randrange(...)、rng.choice(...)），而不是用全局的 random 模块。"
    ),
    "the labels are swapped: in Hugging Face and bertedu 0 = IsNext (B really follows A) and 1 = "
    "NotNext. Your pairs labelled 1 are the real continuations.": (
        "标签颠倒了：在 Hugging Face 和 bertedu 中，0 = IsNext（B 确实紧跟在 A 后面），1 = NotNext。"
        "你标为 1 的句对才是真正的下一句。"
    ),
    "{share:.0%} of your pairs are IsNext; BERT draws IsNext and NotNext 50/50.": (
        "你的句对中有 {share:.0%} 是 IsNext；BERT 按 50/50 抽取 IsNext 和 NotNext。"
    ),
    "a pair labelled 0 (IsNext) must have B = the sentence right after A, in the same document.": (
        "标为 0 (IsNext) 的句对，B 必须是同一文档中紧跟在 A 后面的那一句。"
    ),
    "{same:.0%} of your NotNext pairs take B from A's own document: BERT's NotNext B is a random "
    "sentence from *another* document. (Same-document negatives are a different, harder task: ALBERT's "
    "sentence-order prediction swaps two consecutive sentences instead.)": (
        "你的 NotNext 句对中有 {same:.0%} 的 B 取自 A 所在的文档："
        "BERT 的 NotNext B 是*另一篇*文档中的随机句子。（同一文档内的负例是另一个更难的任务："
        "ALBERT 的句子顺序预测改为交换两个相邻的句子。）"
    ),
    "NotNext B comes from only {n_docs_used} of the {n_documents} documents: draw it at random from the "
    "whole corpus.": (
        "NotNext 的 B 只来自 {n_documents} 篇文档中的 {n_docs_used} 篇：请从整个语料库中随机抽取。"
    ),
    "{share:.1%} IsNext, every IsNext B the true next sentence, every NotNext B from another document, "
    "labels as Hugging Face (0 = IsNext), reproducible from the rng. bertedu's NSPPairSampler does the "
    "same with segments of up to two sentences.": (
        "{share:.1%} 是 IsNext，每个 IsNext 的 B 都是真正的下一句，"
        "每个 NotNext 的 B 都来自另一篇文档，标签与 Hugging Face 一致（0 = IsNext），用 rng 可以复现。"
        "bertedu 的 NSPPairSampler 做的是同样的事，只是句段最多可以包含两个句子。"
    ),
    "Pick a document with at least two sentences and a sentence i that is not its last one: A = doc[i].": (
        "挑一篇至少有两个句子的文档，再挑一个不是最后一句的句子 i：A = doc[i]。"
    ),
    "`if rng.random() < 0.5:` B = doc[i + 1], label 0. Else pick another document (not the same one!) "
    "with rng.randrange and a random sentence of it, label 1.": (
        "`if rng.random() < 0.5:` B = doc[i + 1]，标签 0。"
        "否则用 rng.randrange 另挑一篇文档（不能是同一篇！），取其中一个随机句子，标签 1。"
    ),
    # --- the pretraining batch (write the function: collate_pairs) ----------------------------------------
    "return a dict with the keys {keys}, not a {type}.": "请返回一个包含键 {keys} 的 dict，而不是 {type}。",
    "your batch has no {missing}: return all of {keys}.": "你的批次里没有 {missing}：请返回全部的 {keys}。",
    "batch['{key}'] must be a tensor (torch.tensor(rows)), not a {type}.": (
        "batch['{key}'] 必须是张量（torch.tensor(rows)），而不是 {type}。"
    ),
    "batch['{key}'] has dtype {dtype}; use torch.long (integer ids, as the model's embedding lookups and "
    "the collator's batches have).": (
        "batch['{key}'] 的 dtype 是 {dtype}；请用 torch.long（整数 id，模型的嵌入查表和整理器给出的批次都是这样）。"
    ),
    "next_sentence_label must have shape ({B},), one label per pair, got {shape}.": (
        "next_sentence_label 的形状必须是 ({B},)，每个句对一个标签，你的是 {shape}。"
    ),
    "input_ids, token_type_ids and attention_mask must all have shape (B, T) = ({B}, T); yours are "
    "{shapes}.": (
        "input_ids、token_type_ids 和 attention_mask 的形状都必须是 (B, T) = ({B}, T)；你的是 {shapes}。"
    ),
    "your rows are {T_got} long but max_length is {max_length}: you did not truncate. Shorten A and B to "
    "max_length - 3 tokens together, then add [CLS] and the two [SEP].": (
        "你的行长 {T_got}，但 max_length 是 {max_length}：你没有截断。"
        "先把 A 和 B 合起来缩短到 max_length - 3 个词元，再加上 [CLS] 和两个 [SEP]。"
    ),
    "your rows are {T_got} long but max_length is {max_length}: [CLS] and the two [SEP] count too, so A "
    "and B together get max_length - 3 tokens.": (
        "你的行长 {T_got}，但 max_length 是 {max_length}：[CLS] 和两个 [SEP] 也要算进长度，"
        "所以 A 和 B 合起来只能有 max_length - 3 个词元。"
    ),
    "you padded every row to max_length ({max_length}); pad to the longest row of the batch instead "
    "(T = {T} here), as the collator does: shorter batches cost less compute.": (
        "你把每一行都填充到了 max_length（{max_length}）；请像整理器那样只填充到批次中最长的一行"
        "（这里 T = {T}）：批次越短，计算越省。"
    ),
    "your batch is {T_got} positions long; it should be {T}, the longest [CLS] A [SEP] B [SEP] of the "
    "batch after truncation.": (
        "你的批次长 {T_got} 个位置；应该是 {T}，即截断之后批次中最长的 [CLS] A [SEP] B [SEP]。"
    ),
    "row {row} of {name} is wrong: expected {want}, got {got}.": (
        "{name} 的第 {row} 行不对：应为 {want}，你的是 {got}。"
    ),
    "you cut the finished [CLS] A [SEP] B [SEP] at max_length, which drops the final [SEP] (and keeps too "
    "much of A): shorten A and B first, to max_length - 3 tokens together, then add [CLS] and the two "
    "[SEP].": (
        "你把拼好的 [CLS] A [SEP] B [SEP] 在 max_length 处截断，这会丢掉最后的 [SEP]（而且 A 保留得太多）："
        "请先把 A 和 B 合起来缩短到 max_length - 3 个词元，再加上 [CLS] 和两个 [SEP]。"
    ),
    "A was cut at its end: a too-long A loses tokens at its *front*, so that the end of A and the start of "
    "B, the seam NSP judges, stay intact.": (
        "A 是从末尾截断的：过长的 A 应从*开头*删词元，这样 A 的结尾和 B 的开头，"
        "也就是 NSP 要判断的衔接处，才能保持完整。"
    ),
    "B was cut at its front: a too-long B loses tokens at its *end*, so that its start, right after A, "
    "stays.": "B 是从开头截断的：过长的 B 应从*末尾*删词元，这样紧接在 A 之后的 B 的开头才能保留。",
    "A and B were both cut on the wrong side: A loses tokens at its front, B at its end, so the seam A "
    "[SEP] B stays intact.": (
        "A 和 B 都从错误的一端截断了：A 从开头删词元，B 从末尾删词元，这样 A [SEP] B 的衔接处才能保持完整。"
    ),
    "almost: when A and B are equally long, remove the token from B (the rule: one token at a time from "
    "the longer segment, B on a tie).": (
        "差一点：A 和 B 一样长时，应从 B 删词元（规则：每次从较长的句段删一个词元，一样长时删 B 的）。"
    ),
    "you shortened B first and A only when B was not enough: remove one token at a time from the *longer* "
    "of A and B, so that neither segment squeezes the other out.": (
        "你先缩短 B，只有 B 不够删时才动 A：请每次从 A 和 B 中*较长*的那个删一个词元，"
        "这样哪个句段都不会把另一个挤掉。"
    ),
    "your rows start with {first}, not this tokenizer's [CLS] id ({cls}): take the ids from the tokenizer "
    "(tokenizer.cls_token_id, sep_token_id, pad_token_id), never hard-code them (MiniLM's [CLS] is 101).": (
        "你的行以 {first} 开头，而不是这个分词器的 [CLS] id（{cls}）：请从分词器取 id"
        "（tokenizer.cls_token_id、sep_token_id、pad_token_id），绝不要写死（MiniLM 的 [CLS] 是 101）。"
    ),
    "you padded on the left: BERT's padding goes at the end of each row, after the final [SEP] ([CLS] sits "
    "at position 0, where the pooler reads it).": (
        "你在左边做了填充：BERT 的填充放在每一行的末尾、最后一个 [SEP] 之后"
        "（[CLS] 位于位置 0，池化层从那里读取它）。"
    ),
    "you padded input_ids with 0, but this tokenizer's [PAD] id is {pad}: pad with tokenizer.pad_token_id "
    "(it is 0 only in some vocabularies).": (
        "你用 0 填充了 input_ids，但这个分词器的 [PAD] id 是 {pad}：请用 tokenizer.pad_token_id 填充"
        "（只有部分词表里它才是 0）。"
    ),
    "the padding of input_ids must be tokenizer.pad_token_id ({pad}).": (
        "input_ids 的填充必须是 tokenizer.pad_token_id（{pad}）。"
    ),
    "your [SEP] tokens are not this tokenizer's [SEP] id ({sep}): take it from tokenizer.sep_token_id, "
    "never hard-code it.": (
        "你的 [SEP] 不是这个分词器的 [SEP] id（{sep}）：请从 tokenizer.sep_token_id 取，绝不要写死。"
    ),
    "you padded token_type_ids with the [PAD] id ({pad}): segment ids are only 0 or 1 (the token-type "
    "table has two rows, so {pad} would crash the lookup). Pad them with 0.": (
        "你用 [PAD] id（{pad}）填充了 token_type_ids：句段 id 只能是 0 或 1"
        "（句段嵌入表只有两行，{pad} 会让查表出错）。请用 0 填充。"
    ),
    "the padding's segment id must be 0 (as the collator and Hugging Face pad token_type_ids), not B's 1: "
    "pad token_type_ids with 0.": (
        "填充位置的句段 id 必须是 0（整理器和 Hugging Face 都这样填充 token_type_ids），"
        "而不是 B 的 1：请用 0 填充 token_type_ids。"
    ),
    "the first [SEP] has segment id 1: it closes A, so it belongs to segment 0 with [CLS] and A; B and the "
    "final [SEP] are 1.": (
        "第一个 [SEP] 的句段 id 是 1：它结束 A，所以和 [CLS]、A 一起属于句段 0；B 和最后的 [SEP] 才是 1。"
    ),
    "the final [SEP] has segment id 0: it closes B, so it belongs to segment 1 with B.": (
        "最后一个 [SEP] 的句段 id 是 0：它结束 B，所以和 B 一起属于句段 1。"
    ),
    "every token has segment id 0: B and the final [SEP] are segment 1 (that is how the model tells A "
    "from B).": "每个词元的句段 id 都是 0：B 和最后的 [SEP] 属于句段 1（模型正是靠它区分 A 和 B）。",
    "the segments are swapped: [CLS] A [SEP] are 0, B [SEP] are 1.": (
        "句段颠倒了：[CLS] A [SEP] 是 0，B [SEP] 是 1。"
    ),
    "your attention_mask is 1 on the padding too: it must be 1 for real tokens and 0 for [PAD], or every "
    "token attends to the padding (and the result depends on how much of it there is).": (
        "你的 attention_mask 在填充位置上也是 1：真实词元应为 1，[PAD] 应为 0，"
        "否则每个词元都会关注填充（结果还会随填充的多少而变）。"
    ),
    "your attention_mask is inverted: 1 = real token, 0 = padding (Hugging Face's convention).": (
        "你的 attention_mask 反了：1 = 真实词元，0 = 填充（Hugging Face 的约定）。"
    ),
    "your function changed the token lists it was given (pop, del or slicing assignment on them?): build "
    "new lists, the dataset keeps its documents.": (
        "你的函数修改了传入的词元列表（对它们用了 pop、del 或切片赋值？）：请构造新的列表，数据集还要保留它的文档。"
    ),
    "next_sentence_label must be the pairs' labels, in order (0 = IsNext, 1 = NotNext).": (
        "next_sentence_label 必须是各句对的标签，按顺序排列（0 = IsNext，1 = NotNext）。"
    ),
    "[CLS] A [SEP] B [SEP] with A cut at its front and B at its end, segment ids 0 up to the first [SEP] "
    "and 1 after it, [PAD] (the tokenizer's id) up to the longest row with segment 0 and attention 0: the "
    "batch of bertedu's build_nsp_example and PretrainingCollator before masking, on random documents and "
    "two vocabularies.": (
        "[CLS] A [SEP] B [SEP]，A 从开头截断、B 从末尾截断，句段 id 到第一个 [SEP] 为止是 0、之后是 1，"
        "用 [PAD]（分词器给出的 id）填充到最长的一行，填充处句段为 0、注意力为 0："
        "在随机文档和两套词表上，都与 bertedu 的 build_nsp_example 加 PretrainingCollator（掩码之前）"
        "给出的批次相同。"
    ),
    "Truncate first: `while len(a) + len(b) > max_length - 3:` drop `a[0]` if A is longer, else `b[-1]` "
    "(work on copies: `a, b = list(tokens_a), list(tokens_b)`). Then row = [cls, *a, sep, *b, sep] and "
    "segments = [0] * (len(a) + 2) + [1] * (len(b) + 1).": (
        "先截断：`while len(a) + len(b) > max_length - 3:` 若 A 更长就删 `a[0]`，否则删 `b[-1]`"
        "（在副本上操作：`a, b = list(tokens_a), list(tokens_b)`）。然后 `row = [cls, *a, sep, *b, sep]`，"
        "`segments = [0] * (len(a) + 2) + [1] * (len(b) + 1)`。"
    ),
    "T = the longest row. Pad input_ids with tokenizer.pad_token_id, token_type_ids with 0; the attention "
    "mask is [1] * len(row) + [0] * (T - len(row)). torch.tensor(list of lists) gives LongTensors.": (
        "T = 最长那一行的长度。input_ids 用 tokenizer.pad_token_id 填充，token_type_ids 用 0 填充；"
        "注意力掩码是 `[1] * len(row) + [0] * (T - len(row))`。`torch.tensor(列表的列表)` 得到的就是 LongTensor。"
    ),
    "`my_nsp_loss(logits, labels)` runs and returns plausible numbers, but with Hugging Face's labels "
    "(0 = IsNext, 1 = NotNext) a model that answers NotNext for every pair gets a loss close to 0. Find the "
    "bug and fix the function.": (
        "`my_nsp_loss(logits, labels)` 能运行，返回的数值看起来也合理；但在 Hugging Face 的标签约定下"
        "（0 = IsNext，1 = NotNext），一个对每个句对都回答 NotNext 的模型得到的损失接近 0。找出错误并改正这个函数。"
    ),
    # --- figures of notebook 04 (titles, axis labels and legends drawn by its code cells) -------------------------
    "position {where}: target '{target}', p = {p:.2f}": "位置 {where}：目标 “{target}”，p = {p:.2f}",
    "softmax probability": "softmax 概率",
    # --- comments of the reference solutions: Exercise.solution() shows the English code with these
    # comments translated (bertedu.language.translate_code)
    "(2, 3) the masked positions": "(2, 3) 被掩码的位置",
    "log softmax over the vocabulary": "在词表上做 log softmax",
    "logits (B, 2): column 0 scores IsNext, column 1 NotNext; labels (B,): 0 = IsNext, 1 = NotNext": "logits (B, 2)：第 0 列给 IsNext 打分，第 1 列给 NotNext；labels (B,)：0 = IsNext，1 = NotNext",
    "every pair counts: no ignore_index": "每一对都算数：不要 ignore_index",
    "(B*T,), 0 where ignored": "(B*T,)，被忽略处为 0",
    "0 masked -> loss 0, not nan": "没有掩码 -> 损失为 0，而不是 nan",
    "tied: the same Parameter (V, H)": "绑定：同一个 Parameter (V, H)",
    "A needs a next sentence": "A 需要有下一句",
    "IsNext (Hugging Face: label 0)": "IsNext（Hugging Face：标签 0）",
    "any document but d": "除 d 以外的任意文档",
    "NotNext (label 1)": "NotNext（标签 1）",
    "copies: the caller's lists stay": "副本：调用者的列表保持不变",
    "room for [CLS] and two [SEP]": "给 [CLS] 和两个 [SEP] 留位置",
    "A loses its front ...": "A 从开头删 ...",
    "... B its end: the seam A|B stays": "... B 从末尾删：A|B 的衔接处保持完整",
    "the first [SEP] closes A: segment 0": "第一个 [SEP] 结束 A：句段 0",
    "pad to the longest row, not max_length": "填充到最长的一行，而不是 max_length",
}
