"""Chinese (简体中文) messages of the exercises of notebook 02 (tokens and embeddings).

Part of the Chinese catalog; its rules are in :mod:`bertedu.language.zh`.
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # --- bertedu/teaching/exercises/tokens.py (notebook 02) ----------------------------------------------------------
    "your function returned None: it must return the list of pieces.": (
        "你的函数返回了 None：它必须返回子词的列表。"
    ),
    "for {word!r} your function must return a list of str, got {got!r}.": (
        "对于 {word!r}，你的函数必须返回一个 str 列表，你返回的是 {got!r}。"
    ),
    " Pieces after the first one carry the '##' prefix when you look them up.": (
        "在词表中查找时，第一个子词之后的子词都要带上 '##' 前缀。"
    ),
    "for {word!r} you return {got}, but {bad} is not in the vocabulary.{hint}": (
        "对于 {word!r}，你返回 {got}，但 {bad} 不在词表中。{hint}"
    ),
    "for {word!r} you return {got}; BERT gives {expected}. You take the shortest match; WordPiece takes "
    "the *longest* piece in the vocabulary at each step (start with the whole rest of the word and "
    "shrink it from the right).": (
        "对于 {word!r}，你返回 {got}；BERT 给出的是 {expected}。你取的是最短匹配；"
        "WordPiece 每一步取的是词表中*最长*的子词（先拿单词剩下的全部部分，再从右边逐步缩短）。"
    ),
    "for {word!r} you return {got}; BERT gives ['[UNK]']. When some part of a word matches no piece, the "
    "*whole word* becomes a single [UNK] (not only the part).": (
        "对于 {word!r}，你返回 {got}；BERT 给出的是 ['[UNK]']。只要单词有某一部分匹配不到任何子词，"
        "*整个单词*就变成一个 [UNK]（而不只是那一部分）。"
    ),
    "for {word!r} you return {got}; BERT gives {expected}.": (
        "对于 {word!r}，你返回 {got}；BERT 给出的是 {expected}。"
    ),
    "all {n} words match bertedu.core.tokenizer.WordpieceTokenizer, e.g. 'unwanted' -> {pieces}: the longest "
    "piece wins at every step.": (
        "全部 {n} 个单词都与 bertedu.core.tokenizer.WordpieceTokenizer 一致，例如 'unwanted' -> {pieces}："
        "每一步都是最长的子词胜出。"
    ),
    "Write `wordpiece(word, vocab)`: cut one word into pieces of `vocab` (a set of strings), greedy "
    "longest-match-first, '##' before every piece that continues a word, and ['[UNK]'] for the whole "
    "word if some part matches nothing.": (
        "编写 `wordpiece(word, vocab)`：把一个单词切成 `vocab`（一个字符串集合）中的子词，"
        "贪心地最长匹配优先，每个接续单词的子词前面加 '##'；如果单词有某一部分什么也匹配不到，"
        "整个单词返回 ['[UNK]']。"
    ),
    "Keep a `start` index. At each step try `word[start:end]` for `end = len(word), len(word) - 1, …`; "
    "the first candidate found in the vocabulary wins.": (
        "维护一个 `start` 下标。每一步依次尝试 `word[start:end]`，"
        "其中 `end = len(word), len(word) - 1, …`；第一个在词表中找到的候选胜出。"
    ),
    "Candidates after the first piece are looked up as `'##' + word[start:end]`.": (
        "第一个子词之后的候选要按 `'##' + word[start:end]` 查找。"
    ),
    "If no candidate matches at some `start`, return `['[UNK]']` at once: the whole word is unknown.": (
        "如果在某个 `start` 处没有候选能匹配，立刻返回 `['[UNK]']`：整个单词都是未知的。"
    ),
    "your function returned None: it must return a list of segment ids.": (
        "你的函数返回了 None：它必须返回一个句段 id 列表。"
    ),
    "for `{shown}` you return {n_got} ids for {n_tokens} tokens: one id per token.": (
        "对于 `{shown}`，你为 {n_tokens} 个词元返回了 {n_got} 个 id：每个词元一个 id。"
    ),
    "segments are numbered from 0: sentence A is segment 0, sentence B segment 1.": (
        "句段从 0 开始编号：句子 A 是句段 0，句子 B 是句段 1。"
    ),
    "for `{shown}` the first [SEP] (position {first_sep}) gets segment 1, but it closes sentence A, so "
    "it belongs to segment 0.": (
        "对于 `{shown}`，第一个 [SEP]（位置 {first_sep}）得到了句段 1，但它是句子 A 的结尾，所以属于句段 0。"
    ),
    "for `{shown}` the final [SEP] gets segment 0, but it closes sentence B, so it belongs to segment 1.": (
        "对于 `{shown}`，最后一个 [SEP] 得到了句段 0，但它是句子 B 的结尾，所以属于句段 1。"
    ),
    "[CLS] starts sentence A: its segment id is 0.": "[CLS] 是句子 A 的开头：它的句段 id 是 0。",
    "for `{shown}` the real tokens are right but [PAD] tokens should get segment 0 (as BERT's and "
    "Hugging Face's tokenizers pad); the attention mask hides them anyway.": (
        "对于 `{shown}`，真实词元都对了，但 [PAD] 词元应该得到句段 0（BERT 和 Hugging Face 的分词器"
        "就是这样填充的）；反正注意力掩码会把它们遮住。"
    ),
    "for `{shown}` you return {got}; expected {expected}.": (
        "对于 `{shown}`，你返回 {got}；应为 {expected}。"
    ),
    "0 for [CLS], A and the first [SEP]; 1 for B and the final [SEP]; a single sentence is all 0 (the "
    "same ids as BertTokenizer.create_token_type_ids_from_sequences).": (
        "[CLS]、A 和第一个 [SEP] 是 0；B 和最后一个 [SEP] 是 1；"
        "单个句子全是 0（与 BertTokenizer.create_token_type_ids_from_sequences 给出的 id 相同）。"
    ),
    "Walk through the tokens with a current segment that starts at 0. Which token switches it to 1, and "
    "does that token itself still belong to the old segment?": (
        "逐个遍历词元，当前句段从 0 开始。哪个词元把它切换成 1？这个词元本身还属于原来的句段吗？"
    ),
    "Append the id *before* you switch: the first [SEP] closes sentence A. [PAD] gets 0.": (
        "先追加 id，*再*切换：第一个 [SEP] 是句子 A 的结尾。[PAD] 得到 0。"
    ),
    "every token carries the position embedding of the next position, W_position[i+1] not W_position[i]": (
        "每个词元带的都是下一个位置的位置嵌入，是 W_position[i+1] 而不是 W_position[i]"
    ),
    "the position ids start at 1, but BertEmbeddings' position_ids run 0 … T−1": (
        "位置 id 从 1 开始了，而 BertEmbeddings 的 position_ids 是 0 … T−1"
    ),
    "after the LayerNorm every vector is off by about {change:.1%}": "经过 LayerNorm 之后，每个向量都偏了约 {change:.1%}",
    "the LayerNorm uses eps = 1e-5 (PyTorch's default) where BERT's is 1e-12 (config.layer_norm_eps), and at "
    "BERT's initial scale the sum's variance is only about 0.001": (
        "LayerNorm 用的是 eps = 1e-5（PyTorch 的默认值），而 BERT 用的是 1e-12（config.layer_norm_eps），"
        "在 BERT 的初始尺度下，三者之和的方差只有约 0.001"
    ),
    "the output does not depend on token_type_ids": "输出与 token_type_ids 无关",
    "the segment embedding W_segment[s_i] is missing from the sum": "求和时少了句段嵌入 W_segment[s_i]",
    "the vectors are not normalised": "向量没有做归一化",
    "the sum of the three rows goes out without the LayerNorm": "三行之和没有经过 LayerNorm 就输出了",
    "{symptom}: {fix}": "{symptom}：{fix}",
    "your function returned None: it must return h⁽⁰⁾, shape (B, T, H).": (
        "你的函数返回了 None：它必须返回 h⁽⁰⁾，形状为 (B, T, H)。"
    ),
    "expected shape (B, T, H) = {expected}, got {shape}.": (
        "形状应为 (B, T, H) = {expected}，你的是 {shape}。"
    ),
    "h⁽⁰⁾ = LayerNorm(W_token[x_i] + W_segment[s_i] + W_position[i]) with positions from 0 and eps "
    "1e-12: the same as BertEmbeddings in eval mode.": (
        "h⁽⁰⁾ = LayerNorm(W_token[x_i] + W_segment[s_i] + W_position[i])，位置从 0 开始，"
        "eps 为 1e-12：与 eval 模式下的 BertEmbeddings 相同。"
    ),
    "; ": "；",
    " ({n_bugs} problems left)": "（还剩 {n_bugs} 处问题）",
    "your output matches h⁽⁰⁾ computed with a mistake{more}: {found}.": (
        "你的输出与用错误的方法算出的 h⁽⁰⁾ 一致{more}：{found}。"
    ),
    "not yet (largest difference {diff:.3g}): sum the rows W_token[x_i] + W_segment[s_i] + W_position[i] "
    "with positions 0 … T−1, then LayerNorm with BERT's eps 1e-12.": (
        "还不对（最大差值 {diff:.3g}）：把 W_token[x_i] + W_segment[s_i] + W_position[i] 这几行加起"
        "来，位置取 0 … T−1，再用 BERT 的 eps 1e-12 做 LayerNorm。"
    ),
    "Which row of W_position does the first token ([CLS]) use? Print the position ids you build.": (
        "第一个词元（[CLS]）用的是 W_position 的哪一行？把你构造的位置 id 打印出来看看。"
    ),
    "Compare the LayerNorm's eps with `emb.LayerNorm.eps` (BERT: 1e-12). It matters when the vectors are "
    "small, as they are at BERT's initial scale (std 0.02).": (
        "把 LayerNorm 的 eps 和 `emb.LayerNorm.eps`（BERT：1e-12）比较一下。向量很小时它就有影响，"
        "而在 BERT 的初始尺度（std 0.02）下向量正是很小的。"
    ),
    "word_embeddings (V, H), position_embeddings (max_position_embeddings, H), token_type_embeddings "
    "(type_vocab_size, H): nn.Embedding each; LayerNorm = nn.LayerNorm(H, eps=config.layer_norm_eps); "
    "dropout = nn.Dropout(config.hidden_dropout_prob)": (
        "word_embeddings (V, H)、position_embeddings (max_position_embeddings, H)、"
        "token_type_embeddings (type_vocab_size, H)：各是一个 nn.Embedding；"
        "LayerNorm = nn.LayerNorm(H, eps=config.layer_norm_eps)；"
        "dropout = nn.Dropout(config.hidden_dropout_prob)"
    ),
    "your LayerNorm has eps = {eps:g}; BERT's is {layer_norm_eps:g} (config.layer_norm_eps). PyTorch's "
    "default 1e-5 changes every vector at BERT's initial scale, where the sum's variance is only about "
    "0.001: pass eps=config.layer_norm_eps.": (
        "你的 LayerNorm 的 eps = {eps:g}；BERT 的是 {layer_norm_eps:g}（config.layer_norm_eps）。"
        "在 BERT 的初始尺度下，三者之和的方差只有约 0.001，PyTorch 的默认值 1e-5 会改变每个向量："
        "请传入 eps=config.layer_norm_eps。"
    ),
    "the embeddings (B, T, H)": "嵌入 (B, T, H)",
    "in eval mode your output changes from call to call: use self.dropout = nn.Dropout(p), which "
    "switches off with .eval(), not F.dropout (training=True by default).": (
        "在 eval 模式下，你的输出每次调用都不一样：请用 self.dropout = nn.Dropout(p)，"
        "它在 .eval() 后会关闭；不要用 F.dropout（默认 training=True）。"
    ),
    "the segment embeddings are missing: add token_type_embeddings(token_type_ids).": (
        "少了句段嵌入：请加上 token_type_embeddings(token_type_ids)。"
    ),
    "the position ids start at 1: the first token ([CLS]) uses row 0 of position_embeddings (positions 0 "
    "… T−1, torch.arange(T)).": (
        "位置 id 从 1 开始了：第一个词元（[CLS]）使用 position_embeddings 的第 0 行（位置 0 … T−1，"
        "torch.arange(T)）。"
    ),
    "the LayerNorm is missing: normalise the sum of the three rows.": (
        "少了 LayerNorm：请对三行之和做归一化。"
    ),
    "your LayerNorm uses eps = 1e-5 (PyTorch's default); BERT's is 1e-12.": (
        "你的 LayerNorm 用的是 eps = 1e-5（PyTorch 的默认值）；BERT 用的是 1e-12。"
    ),
    "your output differs from BertEmbeddings': LayerNorm(word_embeddings(input_ids) + "
    "position_embeddings(positions 0 … T−1) + token_type_embeddings(token_type_ids)), then dropout.": (
        "你的输出与 BertEmbeddings 的不同：应为 LayerNorm(word_embeddings(input_ids) + position_embe"
        "ddings(位置 0 … T−1) + token_type_embeddings(token_type_ids))，然后 dropout。"
    ),
    "without token_type_ids your output is wrong: None means one segment, all sentence A: token_type_ids "
    "= torch.zeros_like(input_ids).": (
        "不传 token_type_ids 时你的输出不对：None 表示只有一个句段，全部属于句子 A："
        "token_type_ids = torch.zeros_like(input_ids)。"
    ),
    "in training mode your output differs from BertEmbeddings' with the same seed: apply self.dropout "
    "once, after the LayerNorm (dropout(LayerNorm(sum))).": (
        "在训练模式下，用相同的随机种子时你的输出与 BertEmbeddings 的不同："
        "请在 LayerNorm 之后应用一次 self.dropout（dropout(LayerNorm(sum))）。"
    ),
    "the same as bertedu's BertEmbeddings: word + position (from 0) + segment rows, LayerNorm with eps "
    "1e-12, dropout after it; token_type_ids default to segment 0.": (
        "与 bertedu 的 BertEmbeddings 相同：词元 + 位置（从 0 开始）+ 句段这几行相加，"
        "用 eps 1e-12 做 LayerNorm，之后 dropout；token_type_ids 默认是句段 0。"
    ),
    "Write `Embeddings(config)`, an nn.Module with Hugging Face's names (word_embeddings, "
    "position_embeddings, token_type_embeddings, LayerNorm, dropout) whose `forward(input_ids, "
    "token_type_ids=None)` returns dropout(LayerNorm(word + position + segment)), shape (B, T, H).": (
        "编写 `Embeddings(config)`：一个使用 Hugging Face 命名（word_embeddings、position_embeddings、"
        "token_type_embeddings、LayerNorm、dropout）的 nn.Module，"
        "它的 `forward(input_ids, token_type_ids=None)` 返回 dropout(LayerNorm(word + position + seg"
        "ment))，形状为 (B, T, H)。"
    ),
    "Three nn.Embedding tables: (config.vocab_size, H), (config.max_position_embeddings, H), "
    "(config.type_vocab_size, H); then nn.LayerNorm(H, eps=config.layer_norm_eps) and "
    "nn.Dropout(config.hidden_dropout_prob).": (
        "三个 nn.Embedding 表：(config.vocab_size, H)、(config.max_position_embeddings, H)、"
        "(config.type_vocab_size, H)；然后是 nn.LayerNorm(H, eps=config.layer_norm_eps) 和 nn.Dropou"
        "t(config.hidden_dropout_prob)。"
    ),
    "Positions are 0 … T−1: `torch.arange(input_ids.size(1))`. A missing token_type_ids means "
    "`torch.zeros_like(input_ids)`.": (
        "位置是 0 … T−1：`torch.arange(input_ids.size(1))`。"
        "没有传 token_type_ids 就相当于 `torch.zeros_like(input_ids)`。"
    ),
    # --- figures of notebook 02 (titles, axis labels and legends drawn by its code cells) -------------------------
    "vocabulary size": "词表大小",
    "tokens per word": "平均每个词的词元数",
    "WordPiece on simple_sentences.txt": "在 simple_sentences.txt 上训练的 WordPiece",
    "sum": "三者之和",
    "h(0) = LayerNorm(sum)": "h(0) = LayerNorm(三者之和)",
    "H = 16 features": "H = 16 个特征",
    "sinusoidal (Transformer)": "正弦编码（Transformer）",
    "learned, at init (BERT)": "可学习的表，初始化时（BERT）",
    "learned, trained (MiniLM)": "可学习的表，训练后（MiniLM）",
    "feature (first 128)": "特征（前 128 个）",
    "position": "位置",
    "cosine similarity of positions": "位置之间的余弦相似度",
    "position j": "位置 j",
    "position i": "位置 i",
    "cosine similarity": "余弦相似度",
    "river: grassy bank": "河岸：长满草的河岸",
    "river: fisherman": "河岸：渔夫",
    "river: muddy bank": "河岸：泥泞的河岸",
    "money: deposited": "银行：存钱",
    "money: interest rates": "银行：利率",
    "money: savings account": "银行：储蓄账户",
    'cosine similarity of "bank" after the last layer': "最后一层输出中 “bank” 的余弦相似度",
    "same sense (river-river, money-money)": "词义相同（河岸–河岸，银行–银行）",
    "different sense (river-money)": "词义不同（河岸–银行）",
    "layer (0 = embedding output)": "层（0 = 嵌入层的输出）",
    "mean cosine similarity": "平均余弦相似度",
    'vectors of "bank", layer by layer': "逐层看 “bank” 的向量",
    # --- comments of the reference solutions: Exercise.solution() shows the English code with these
    # comments translated (bertedu.language.translate_code)
    "longest candidate first": "最长的候选优先",
    "nothing matches: the whole word is unknown": "什么都匹配不到：整个单词都是未知的",
    "everything after the first [SEP] is sentence B": "第一个 [SEP] 之后都是句子 B",
    "one segment: all sentence A": "只有一个句段：全部是句子 A",
}
