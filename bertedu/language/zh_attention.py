"""Chinese (简体中文) messages of the exercises of notebooks 01 and 08 (self-attention by hand, attention heatmaps).

Part of the Chinese catalog; its rules are in :mod:`bertedu.language.zh`.
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # --- bertedu/teaching/exercises/attention.py (notebook 01) -------------------------------------------------------
    "expected a (3, 3) array or tensor of numbers, got {type}.": (
        "需要一个由数构成的 (3, 3) 数组或张量，你给的是 {type}。"
    ),
    "expected shape (3, 3) (one row per query, one column per key), got {shape}. Q Kᵀ of three tokens is "
    "3 × 3.": ("形状应为 (3, 3)（每个查询一行，每个键一列），你的是 {shape}。三个词元的 Q Kᵀ 是 3 × 3 的。"),
    "your matrix contains NaN or inf; softmax of finite scores is always finite.": (
        "你的矩阵里有 NaN 或 inf；对有限的分数做 softmax，结果一定是有限的。"
    ),
    "each row is one query's distribution over the three keys and sums to 1; token 0 puts {weight:.2f} "
    "of its attention on key {key}.": (
        "每一行是一个查询在三个键上的分布，和为 1；词元 0 把 {weight:.2f} 的注意力放在键 {key} 上。"
    ),
    "softmax over the wrong axis: your *columns* sum to 1. Each query (row) must distribute its "
    "attention over the keys: normalise along the last axis (axis=-1).": (
        "softmax 的轴错了：你的矩阵是每一*列*的和为 1。每个查询（行）要把自己的注意力分配到各个键上："
        "请沿最后一个轴归一化（axis=-1）。"
    ),
    "you forgot the scaling: divide Q Kᵀ by √d_k = 2 before the softmax.": (
        "你忘了缩放：在 softmax 之前要把 Q Kᵀ 除以 √d_k = 2。"
    ),
    "you divided by d_k = {d_k}; the formula divides by √d_k = {sqrt_d_k:g}.": (
        "你除以的是 d_k = {d_k}；公式里除以的是 √d_k = {sqrt_d_k:g}。"
    ),
    "these are scores, not weights: apply the softmax to every row.": (
        "这些是分数，不是权重：还要对每一行做 softmax。"
    ),
    "your matrix is transposed: rows must be queries and columns keys.": (
        "你的矩阵转置了：行必须是查询，列必须是键。"
    ),
    "you computed K Qᵀ; the scores are Q Kᵀ (query i against key j in row i, column j).": (
        "你算的是 K Qᵀ；分数是 Q Kᵀ（第 i 行第 j 列是查询 i 与键 j 的分数）。"
    ),
    "your rows sum to 1, so the softmax is right, but the scores are not: compute Q @ K.T (use the "
    "exercise's Q and K), divide by √d_k, then the softmax.": (
        "你的每一行和为 1，说明 softmax 没问题，但分数不对：请计算 Q @ K.T（用练习给的 Q 和 K），"
        "除以 √d_k，再做 softmax。"
    ),
    "not yet: compute Q @ K.T, divide by √d_k, then a softmax over each row (axis=-1).": (
        "还不对：计算 Q @ K.T，除以 √d_k，再对每一行做 softmax（axis=-1）。"
    ),
    "Compute the attention weights softmax(Q Kᵀ / √d_k) for the three tokens whose queries and keys are "
    "`ex.Q` and `ex.K` (numpy arrays, d_k = 4). Answer with a (3, 3) array or tensor (not rounded, or "
    "rounded to at least 3 decimals).": (
        "计算三个词元的注意力权重 softmax(Q Kᵀ / √d_k)，"
        "它们的查询和键是 `ex.Q` 和 `ex.K`（numpy 数组，d_k = 4）。"
        "答案写成一个 (3, 3) 的数组或张量（不要舍入，或者至少保留 3 位小数）。"
    ),
    "Three steps: `scores = Q @ K.T`, divide by `np.sqrt(d_k)` with `d_k = Q.shape[-1]`, then a softmax.": (
        "分三步：`scores = Q @ K.T`，除以 `np.sqrt(d_k)`（其中 `d_k = Q.shape[-1]`），再做 softmax。"
    ),
    "The softmax normalises each *row* (one query over all keys): `axis=-1`. "
    "`torch.softmax(torch.tensor(x), dim=-1)` works too.": (
        "softmax 对每一*行*归一化（一个查询在所有键上）：`axis=-1`。"
        "用 `torch.softmax(torch.tensor(x), dim=-1)` 也可以。"
    ),
    "Q Kᵀ here is not symmetric (unlike the 'one cat' example), so the wrong axis gives different numbers.": (
        "这里的 Q Kᵀ 不对称（和“一只猫”的例子不同），所以轴选错了会得到不同的数。"
    ),
    "your function returned None: it must return the split tensor.": (
        "你的函数返回了 None：它必须返回拆分后的张量。"
    ),
    "your function must return a torch.Tensor, got {type}.": (
        "你的函数必须返回一个 torch.Tensor，你返回的是 {type}。"
    ),
    "your function changed its input in place; return a new view instead.": (
        "你的函数原地修改了输入；请返回一个新的视图。"
    ),
    "for x of shape {shape} and {A} heads": "对于形状为 {shape}、{A} 个注意力头的 x，",
    "{where} you return shape {shape}: the heads are split but the head axis was not moved. Attention "
    "would then mix the heads of one token instead of the tokens of one head. Add `.transpose(1, 2)` to "
    "get (B, heads, T, head_dim).": (
        "{where}你返回的形状是 {shape}：注意力头拆开了，但注意力头的轴没有移动。"
        "这样注意力混合的就是同一个词元的各个注意力头，而不是同一个注意力头里的各个词元。"
        "请加上 `.transpose(1, 2)`，得到 (B, heads, T, head_dim)。"
    ),
    "{where} expected shape (B, heads, T, head_dim) = {expected}, got {shape}.": (
        "{where}形状应为 (B, heads, T, head_dim) = {expected}，你的是 {shape}。"
    ),
    "{where} the shape is right but the contents are not: 'head 0' holds all features of token 0 and the "
    "first features of token 1, so the tokens are mixed up.": (
        "{where}形状对了，内容却不对：“注意力头 0”装着词元 0 的全部特征和词元 1 的前几个特征，词元被搅混了。"
    ),
    "Reshaping (B, T, H) straight to (B, heads, T, head_dim) re-reads the numbers in memory order. View as "
    "(B, T, heads, head_dim) first, then swap axes 1 and 2.": (
        "把 (B, T, H) 直接 reshape 成 (B, heads, T, head_dim) 会按内存顺序重新读取这些数。"
        "请先 view 成 (B, T, heads, head_dim)，再交换第 1、2 个轴。"
    ),
    "{where} out[{b}, {h}, {t}] should be features {first}..{last} of token {t}, i.e. x[{b}, {t}, "
    "{first}:{end}].": (
        "{where}out[{b}, {h}, {t}] 应该是词元 {t} 的第 {first}..{last} 个特征，"
        "也就是 x[{b}, {t}, {first}:{end}]。"
    ),
    "head h of token t holds features h·d … (h+1)·d − 1 of that token, for every shape tested (the same "
    "as BertSelfAttention.split_heads).": (
        "词元 t 的注意力头 h 存放该词元的第 h·d … (h+1)·d − 1 个特征，"
        "所有测试的形状都对（与 BertSelfAttention.split_heads 一致）。"
    ),
    "Print `x[0]` and `split_heads(x, 2)[0, 0]` for `x = torch.arange(18.).view(1, 3, 6)`. Does head 0 "
    "hold the first 3 features of every token?": (
        "对 `x = torch.arange(18.).view(1, 3, 6)`，打印 `x[0]` 和 `split_heads(x, 2)[0, 0]`。"
        "注意力头 0 里是不是每个词元的前 3 个特征？"
    ),
    "`reshape` never moves numbers: it re-reads them in memory order. The features of one token are "
    "contiguous, so the split must cut the *last* axis: view as (B, T, heads, head_dim).": (
        "`reshape` 从不移动数据：它只是按内存顺序重新读取。一个词元的特征在内存里是连续的，"
        "所以拆分必须切开*最后一个*轴：view 成 (B, T, heads, head_dim)。"
    ),
    "After the view, the head axis is at position 2; attention needs it before T: `.transpose(1, 2)`.": (
        "view 之后，注意力头的轴在第 2 个位置；注意力需要它排在 T 前面：`.transpose(1, 2)`。"
    ),
    "and it hides exactly the [PAD] keys": "而且它恰好遮住了 [PAD] 键",
    "but check its axes: it must hide the [PAD] *keys* (last axis)": (
        "但请检查它的轴：它必须遮住 [PAD] *键*（最后一个轴）"
    ),
    "that is an additive mask (0 = attend, {masked:.4g} = masked, added to the scores), {where}. "
    "Additive masks are the other valid convention (Google's BERT and older Hugging Face code add -10000 "
    "to the scores), but this exercise asks for the boolean convention of F.scaled_dot_product_attention "
    "and bertedu (True = may attend): return a bool tensor.": (
        "这是加性掩码（0 = 可以关注，{masked:.4g} = 被遮住，加到分数上），{where}。"
        "加性掩码是另一种合理的约定（Google 的 BERT 和较早的 Hugging Face 代码给分数加 -10000），"
        "但这道练习要求使用 F.scaled_dot_product_attention 和 bertedu 的布尔约定（True = 可以关注）："
        "请返回一个 bool 张量。"
    ),
    "the mask must be boolean (True = may attend), got {dtype}. A 0/1 mask of numbers would be *added* "
    "to the scores by F.scaled_dot_product_attention (+1 for real tokens), masking nothing; convert with "
    "`.bool()`.": (
        "掩码必须是布尔型（True = 可以关注），你的是 {dtype}。"
        "由数值 0/1 构成的掩码会被 F.scaled_dot_product_attention *加到*分数上（真实词元 +1），"
        "什么也遮不住；请用 `.bool()` 转换。"
    ),
    "your function returned None: it must return the boolean mask.": (
        "你的函数返回了 None：它必须返回布尔掩码。"
    ),
    "your mask of shape {shape} does not broadcast to the scores' shape (B, heads, T_q, T_k) = "
    "{scores_shape}. Use singleton axes, e.g. (B, 1, 1, T).": (
        "你的掩码形状是 {shape}，无法广播到分数的形状 (B, heads, T_q, T_k) = {scores_shape}。"
        "请使用长度为 1 的轴，例如 (B, 1, 1, T)。"
    ),
    "every query may attend to every real key and to no [PAD] key: padding columns get weight exactly 0 "
    "(the same mask as bertedu.core.attention.build_key_mask).": (
        "每个查询都可以关注每个真实的键，而不关注任何 [PAD] 键："
        "填充列的权重恰好为 0（与 bertedu.core.attention.build_key_mask 的掩码相同）。"
    ),
    "your mask blocks the [PAD] *rows* (queries) and leaves the [PAD] *columns* (keys) open: real tokens "
    "still attend to [PAD], so their outputs change when padding is added.": (
        "你的掩码挡住的是 [PAD] 所在的*行*（查询），[PAD] 所在的*列*（键）却仍然开着："
        "真实词元仍然会关注 [PAD]，所以加了填充之后它们的输出会变。"
    ),
    "The mask must cover the keys: put the T axis last, (B, 1, 1, T).": (
        "掩码应该作用在键上：把 T 轴放在最后，即 (B, 1, 1, T)。"
    ),
    "the mask is inverted: True must mean 'may attend' (real tokens), False the [PAD] keys.": (
        "掩码反了：True 必须表示“可以关注”（真实词元），False 表示 [PAD] 键。"
    ),
    "real tokens are right, but you also masked the [PAD] queries: their rows have no allowed key at all "
    "(with -inf scores that row becomes NaN). Mask the keys only; outputs at [PAD] positions are simply "
    "ignored later.": (
        "真实词元没问题，但你把 [PAD] 查询也遮住了：这些行根本没有可关注的键（分数是 -inf 时，"
        "这一行会变成 NaN）。只遮住键就行；[PAD] 位置的输出之后会被直接忽略。"
    ),
    "not yet: entry [b, h, i, j] must be True exactly when token j of sequence b is real "
    "(attention_mask[b, j] == 1), whatever the query i and head h.": (
        "还不对：当且仅当序列 b 的词元 j 是真实词元（attention_mask[b, j] == 1）时，"
        "元素 [b, h, i, j] 必须为 True，与查询 i 和注意力头 h 无关。"
    ),
    "In the scores (B, heads, T_q, T_k), which axis indexes the [PAD] *keys* that must get weight 0?": (
        "在分数 (B, heads, T_q, T_k) 中，必须得到权重 0 的 [PAD] *键*由哪个轴索引？"
    ),
    "The mask's T axis must line up with the last axis of the scores: shape (B, 1, 1, T), not (B, 1, T, "
    "1).": ("掩码的 T 轴必须与分数的最后一个轴对齐：形状是 (B, 1, 1, T)，而不是 (B, 1, T, 1)。"),
    # --- figures of notebook 01 (titles, axis labels and legends drawn by its code cells) -------------------------
    # A formula is a {_math} field: matplotlib draws a label with $...$ in its math fonts, which have no
    # Chinese glyphs, so the Chinese leaves the field out and writes the formula in plain Unicode.
    "unscaled {_math}": "未缩放的 q·k",
    "scaled {_math}": "缩放后的 q·k/√d",
    "spread of the scores (std)": "分数的离散程度（标准差）",
    "unscaled": "未缩放",
    "scaled": "缩放后",
    "uniform (1/16)": "均匀分布（1/16）",
    "average largest softmax weight": "最大 softmax 权重的平均值",
    "size of the softmax gradient": "softmax 梯度的大小",
    "head size d": "注意力头维度 d",
    "no mask: real tokens attend to [PAD]": "没有掩码：真实词元也关注 [PAD]",
    "key mask: the [PAD] column is 0": "键掩码：[PAD] 这一列为 0",
    "right: head {h}": "正确：注意力头 {h}",
    "wrong: head {h}": "错误：注意力头 {h}",
    # --- bertedu/teaching/exercises/attention_maps.py (notebook 08) --------------------------------------------------
    "your function raised {type}: {exc} when called on a ({T}, {T}) NumPy array of float64 (a NumPy "
    "array, not a torch tensor). Fix that error first, then check again.": (
        "你的函数在处理一个 ({T}, {T}) 的 float64 NumPy 数组（是 NumPy 数组，不是 torch 张量）"
        "时抛出了 {type}：{exc}。请先改正这个错误，再重新检查。"
    ),
    "your function changed its input in place; compute the statistic without writing into `attn` (a "
    "notebook would then show a different matrix than the model produced).": (
        "你的函数原地修改了输入；计算这个统计量时不要写入 `attn`（否则笔记本显示的矩阵就不再是模型算"
        "出来的那个了）。"
    ),
    "your function returned None: end it with `return ...` (one number).": (
        "你的函数返回了 None：请在末尾写上 `return ...`（一个数）。"
    ),
    "your function must return one number ({what}), got {type}.": (
        "你的函数必须返回一个数（{what}），你返回的是 {type}。"
    ),
    "your function returned {size} numbers, one per row; {what} is their *mean*: add `.mean()` so that "
    "it returns one number.": (
        "你的函数返回了 {size} 个数，每行一个；{what}是它们的*平均值*：请加上 `.mean()`，让它只返回一个数。"
    ),
    "your function must return one number ({what}), got an array of shape {shape}.": (
        "你的函数必须返回一个数（{what}），你返回的是一个形状为 {shape} 的数组。"
    ),
    "your function returned {value}, not a finite number.": "你的函数返回了 {value}，不是一个有限的数。",
    "a perfect previous-token head (row i puts all its weight on token i-1, row 0 on itself)": (
        "一个完美的前一词元注意力头（第 i 行把全部权重放在词元 i-1 上，第 0 行放在自己身上）"
    ),
    "a perfect next-token head (row i puts all its weight on token i+1)": (
        "一个完美的后一词元注意力头（第 i 行把全部权重放在词元 i+1 上）"
    ),
    "a noisy previous-token head": "一个带噪声的前一词元注意力头",
    "a random head": "一个随机的注意力头",
    "the previous-token share": "前一词元占比",
    "the mean of attn[i, i-1] over the query positions i = 1 … T-1 matches viz.head_statistics' "
    "'previous' on all {n_cases} test heads: {prev_share:.2f} for a perfect previous-token head, "
    "{next_share:.2f} for a perfect next-token head.": (
        "在查询位置 i = 1 … T-1 上对 attn[i, i-1] 求平均，"
        "结果在全部 {n_cases} 个测试注意力头上都与 viz.head_statistics 的 'previous' 一致："
        "完美的前一词元注意力头得到 {prev_share:.2f}，完美的后一词元注意力头得到 {next_share:.2f}。"
    ),
    "transposed: you averaged attn[i-1, i], the entries just *above* the diagonal. That is what token "
    "i-1 pays to the token after it (the 'next' statistic). Rows are queries: the weight query i puts on "
    "its previous token is in row i, column i-1, just *below* the diagonal (np.diagonal(attn, "
    "offset=-1)).": (
        "转置了：你平均的是 attn[i-1, i]，也就是对角线正*上方*的元素。"
        "那是词元 i-1 分给它后面那个词元的权重（'next' 统计量）。行是查询："
        "查询 i 分给前一个词元的权重在第 i 行第 i-1 列，"
        "位于对角线正*下方*（np.diagonal(attn, offset=-1)）。"
    ),
    "you included row 0: the first token has no previous token, and attn[0, -1] is (by Python's negative "
    "indexing) its weight on the *last* token. Average over the T-1 rows i = 1 … T-1 only.": (
        "你把第 0 行也算进去了：第一个词元没有前一个词元，而 attn[0, -1]（按 Python 的负数索引）"
        "是它分给*最后一个*词元的权重。只对 i = 1 … T-1 这 T-1 行求平均。"
    ),
    "you included row 0: you divided by T, but only the T-1 rows i = 1 … T-1 have a previous token. "
    "Average over those T-1 entries (.mean() of np.diagonal(attn, offset=-1)).": (
        "你把第 0 行也算进去了：你除以的是 T，但只有 i = 1 … T-1 这 T-1 行有前一个词元。"
        "请对这 T-1 个元素求平均（np.diagonal(attn, offset=-1) 的 .mean()）。"
    ),
    "right entries, but you summed them: average them instead (divide by T-1), so that the share lies "
    "between 0 and 1 and heads can be compared across sentences of different lengths.": (
        "元素取对了，但你把它们加起来了：请改成求平均（除以 T-1），这样占比落在 0 和 1 之间，"
        "不同长度的句子之间也能比较注意力头。"
    ),
    "two mistakes: you summed instead of averaging, and you took attn[i-1, i] (above the diagonal: what "
    "token i-1 pays to the next token, i.e. the transposed matrix). Average attn[i, i-1], the entries "
    "just below the diagonal.": (
        "两处错误：你求了和而不是平均，而且取的是 attn[i-1, i]（对角线上方："
        "词元 i-1 分给下一个词元的权重，相当于转置后的矩阵）。请对 attn[i, i-1]，"
        "即对角线正下方的元素求平均。"
    ),
    "that is the main diagonal attn[i, i]: what each token pays to itself (the 'self' statistic). The "
    "previous token is one column to the left: attn[i, i-1].": (
        "这是主对角线 attn[i, i]：每个词元分给自己的权重（'self' 统计量）。前一个词元在左边一列："
        "attn[i, i-1]。"
    ),
    "for {name} (T = {T}) your function returns {value:.4f}, expected {right:.4f}: the mean of attn[1, "
    "0], attn[2, 1], …, attn[T-1, T-2].": (
        "对于{name}，T = {T}，你的函数返回 {value:.4f}，应为 {right:.4f}：即 attn[1, 0]、attn[2, 1]、"
        "…、attn[T-1, T-2] 的平均值。"
    ),
    "not yet: return the mean of attn[i, i-1] over i = 1 … T-1.": (
        "还不对：请返回 attn[i, i-1] 在 i = 1 … T-1 上的平均值。"
    ),
    "Row i is query i. Its weight on the previous token sits in row i, column i-1: attn[1, 0], attn[2, "
    "1], …, attn[T-1, T-2]. Row 0 has no previous token.": (
        "第 i 行就是查询 i。它分给前一个词元的权重在第 i 行第 i-1 列：attn[1, 0]、attn[2, 1]、…、"
        "attn[T-1, T-2]。第 0 行没有前一个词元。"
    ),
    "Those entries lie just *below* the main diagonal: `np.diagonal(attn, offset=-1)` returns all T-1 of "
    "them (offset=+1, above the diagonal, would be the next-token entries).": (
        "这些元素正好位于主对角线*下方*：`np.diagonal(attn, offset=-1)` 返回全部 T-1 个（offset=+1 "
        "在对角线上方，那是后一词元的元素）。"
    ),
    "Average them with `.mean()` (not `.sum()`): a share between 0 and 1.": (
        "用 `.mean()`（不是 `.sum()`）求平均：占比在 0 和 1 之间。"
    ),
    "a padded head (5 real tokens + 3 [PAD])": "一个带填充的注意力头（5 个真实词元 + 3 个 [PAD]）",
    "a previous-token head without padding": "一个没有填充的前一词元注意力头",
    "a padded [CLS]-sink head": "一个带填充、把注意力汇聚到 [CLS] 的注意力头",
    "your function returns nan: the [PAD] columns (and other weights) are exactly 0, and in floating "
    "point 0 * ln 0 = 0 * (-inf) = nan. Entropy uses the convention 0 ln 0 = 0: compute a ln a only "
    "where a > 0 (np.where(attn > 0, ...), as the starter did).": (
        "你的函数返回了 nan：[PAD] 列（以及其他一些权重）恰好为 0，"
        "而在浮点运算里 0 * ln 0 = 0 * (-inf) = nan。熵采用 0 ln 0 = 0 的约定："
        "只在 a > 0 的地方计算 a ln a（np.where(attn > 0, ...)，就像初始代码那样）。"
    ),
    "the mean row entropy": "平均行熵",
    "one entropy per query row (the row is the distribution: the softmax ran over the keys), natural log "
    "with 0 ln 0 = 0, averaged over the real query rows only: it matches viz.head_statistics' 'entropy' "
    "on all {n_cases} test heads.": (
        "每个查询行一个熵（行才是分布：softmax 是在键上做的），用自然对数并约定 0 ln 0 = 0，"
        "只在真实的查询行上求平均：在全部 {n_cases} 个测试注意力头上都与 viz.head_statistics 的 'ent"
        "ropy' 一致。"
    ),
    "your function gives the right number for the previous-token head without padding, but not for the "
    "two padded heads.": "你的函数在没有填充的前一词元注意力头上给出了正确的数，在两个有填充的注意力头上却不对。",
    "Wrong axis: you summed a ln a down each *column* (axis=0). A column collects what every query pays "
    "to one key; it need not sum to 1, so its 'entropy' means nothing. The distribution is each query's "
    "*row* (the softmax ran over the keys): sum over the last axis (axis=-1) to get one entropy per "
    "query, then average over the real query rows. Why the bug hides on a sentence without padding: "
    "averaged over *all* positions, columns and rows give the same number (both are the total of -a ln a "
    "divided by T); it shows as soon as [PAD] positions are left out.": (
        "轴错了：你沿每一*列*（axis=0）对 a ln a 求和。一列汇集的是所有查询分给某一个键的权重，"
        "和不一定为 1，所以它的“熵”没有意义。分布是每个查询的那一*行*（softmax 是在键上做的）："
        "沿最后一个轴（axis=-1）求和，得到每个查询的熵，再在真实的查询行上求平均。"
        "为什么这个错误在没有填充的句子上看不出来：在*所有*位置上求平均时，"
        "按列和按行得到的是同一个数（都是 -a ln a 的总和除以 T）；一旦排除 [PAD] 位置，差别就显现了。"
    ),
    "you averaged over every position, including the [PAD] query rows. Those rows are computed (the mask "
    "only touches keys) but must be ignored: sum a ln a along each row (axis=-1) and average only over "
    "the rows where attention_mask is 1, as viz.head_statistics does. (Summing down the columns, axis=0, "
    "and averaging over all of them gives exactly this wrong number too: both are the total of -a ln a "
    "divided by T.)": (
        "你在所有位置上求了平均，包括 [PAD] 查询行。这些行会被计算（掩码只作用于键），但必须忽略："
        "沿每一行（axis=-1）对 a ln a 求和，只在 attention_mask 为 1 的行上求平均，"
        "就像 viz.head_statistics 那样。（沿列（axis=0）求和再对所有列求平均，也恰好得到这个错误的数："
        "两者都是 -a ln a 的总和除以 T。）"
    ),
    "those are bits (log base 2); viz.head_statistics measures entropy in nats: use the natural log "
    "np.log, so that a row spread evenly over n keys has entropy ln n.": (
        "这是比特（以 2 为底的对数）；viz.head_statistics 以奈特为单位度量熵：请用自然对数 np.log，"
        "这样均匀分布在 n 个键上的一行，熵就是 ln n。"
    ),
    "you summed the real rows' entropies; average them (.mean()) so that sentences of different lengths "
    "compare.": ("你把各真实行的熵加起来了；请求平均（.mean()），这样不同长度的句子才能比较。"),
    "the sign is wrong: entropy is -Σ_j a_j ln a_j, which is never negative (ln a ≤ 0 for a ≤ 1).": (
        "符号错了：熵是 -Σ_j a_j ln a_j，永远不会是负数（a ≤ 1 时 ln a ≤ 0）。"
    ),
    "you averaged a ln a over the keys; the entropy of a row is the *sum* over its keys, -Σ_j a_j ln "
    "a_j. Only the final step averages (over the real query rows).": (
        "你在键上对 a ln a 求了平均；一行的熵是在它所有键上*求和*，-Σ_j a_j ln a_j。"
        "只有最后一步才求平均（在真实的查询行上）。"
    ),
    "for {name} your function returns {value:.4f} nats, expected {right:.4f}: the mean over the real "
    "query rows of -Σ_j a_ij ln a_ij.": (
        "对于{name}，你的函数返回 {value:.4f} 奈特，应为 {right:.4f}："
        "即 -Σ_j a_ij ln a_ij 在真实查询行上的平均值。"
    ),
    "not yet: average -Σ_j a_ij ln a_ij over the real query rows i.": (
        "还不对：请在真实的查询行 i 上对 -Σ_j a_ij ln a_ij 求平均。"
    ),
    "Which axis did the softmax normalise? For a matrix from the model, compare `attn.sum(axis=-1)` with "
    "`attn.sum(axis=0)`: only one of them is all ones, and only that axis holds probability "
    "distributions.": (
        "softmax 是在哪个轴上归一化的？对模型给出的矩阵，"
        "比较 `attn.sum(axis=-1)` 和 `attn.sum(axis=0)`：只有其中一个全是 1，"
        "也只有那个轴上才是概率分布。"
    ),
    "An entropy belongs to a distribution: one per query *row*. Sum a ln a over the keys (`axis=-1`); "
    "the rest of the function (0 ln 0 = 0, averaging over the real rows) is already right.": (
        "熵属于一个分布：每个查询*行*一个。在键上（`axis=-1`）对 a ln a 求和；"
        "函数的其余部分（0 ln 0 = 0、只在真实行上求平均）已经是对的。"
    ),
    # --- figures of notebook 08 (titles, axis labels and legends drawn by its code cells) -------------------------
    "mini-BERT, layer 0, head 0": "迷你 BERT，层 0，注意力头 0",
    "mini-BERT: every layer and head, and their mean": "迷你 BERT：每一层的每个注意力头，以及它们的平均",
    "previous token": "前一个词元",
    "next token": "后一个词元",
    "mini-BERT, layer {layer}, head {head}: {kind}": "迷你 BERT，层 {layer}，注意力头 {head}：{kind}",
    "all-MiniLM-L6-v2: 6 layers x 12 heads (+ mean), one colour scale": (
        "all-MiniLM-L6-v2：6 层 × 12 个注意力头（+ 平均），统一色标"
    ),
    "all-MiniLM-L6-v2: mean over the 12 heads of each layer": "all-MiniLM-L6-v2：每层 12 个注意力头的平均",
    "layer {layer}, head {head}: {kind}": "层 {layer}，注意力头 {head}：{kind}",
    "river": "河流",
    "money": "金钱",
    "layer 0, mean of 12 heads: the row of 'bank' ({sense})": "层 0，12 个注意力头的平均：“bank” 这一行（{sense}）",
    "layer 0, head {head}, padded: [PAD] columns are 0, [PAD] rows are ignored": (
        "层 0，注意力头 {head}，含填充：[PAD] 列为 0，[PAD] 行被忽略"
    ),
    "layer {layer}, head {head}": "层 {layer}，注意力头 {head}",
    "norm share = weight share": "范数占比 = 权重占比",
    "share of attention WEIGHT on [CLS]": "[CLS] 所得注意力“权重”的占比",
    "share of the NORM of what is moved, from [CLS]": "搬运内容的“范数”中来自 [CLS] 的占比",
    "all-MiniLM-L6-v2: one dot per head (72)": "all-MiniLM-L6-v2：每个注意力头一个点（共 72 个）",
    # --- comments of the reference solutions: Exercise.solution() shows the English code with these
    # comments translated (bertedu.language.translate_code)
    "(3, 3): row = query, column = key": "(3, 3)：行 = 查询，列 = 键",
    "every row sums to 1": "每一行的和为 1",
    "(B, 1, 1, T_k): broadcast over heads and queries": "(B, 1, 1, T_k)：在注意力头和查询上广播",
    "attn: (T, T), rows = queries. attn[i, i-1] for i = 1 .. T-1 lies just below the diagonal": "attn：(T, T)，行 = 查询。i = 1 .. T-1 的 attn[i, i-1] 正好在对角线下方",
    "(T, T) rows = queries": "(T, T) 行 = 查询",
    "(T,) True = real token": "(T,) True = 真实词元",
    "a ln a, 0 ln 0 = 0": "a ln a，0 ln 0 = 0",
    "(T,) one entropy per query row": "(T,) 每个查询行一个熵",
    "real query rows only": "只取真实的查询行",
}
