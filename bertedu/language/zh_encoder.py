"""Chinese (简体中文) messages of the exercises of notebook 05 (the Transformer encoder).

Part of the Chinese catalog; its rules are in :mod:`bertedu.language.zh`.
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # --- bertedu/teaching/exercises/encoder.py (notebook 05) ---------------------------------------------------------
    "that is the rough rule 12·H² (weight matrices only, and it assumes d_ff = 4H). Count exactly: the "
    "FFN matrices are H×d_ff and d_ff×H, every dense layer has a bias, every LayerNorm a γ and a β.": (
        "这是粗略的经验公式 12·H²（只算权重矩阵，而且假定 d_ff = 4H）。请精确计数："
        "前馈网络的矩阵是 H×d_ff 和 d_ff×H，每个全连接层都有偏置，每个 LayerNorm 都有一个 γ 和一个 β。"
    ),
    "you counted the weight matrices only. Add the biases (one per output unit of each dense layer) and "
    "the two LayerNorms (γ and β, H numbers each).": (
        "你只数了权重矩阵。还要加上偏置（每个全连接层的每个输出单元一个）和两个 LayerNorm（γ 和 β，"
        "各 H 个数）。"
    ),
    "weights and biases are right, but the two LayerNorms are missing: each has γ and β of size H (4H in "
    "all).": ("权重和偏置都对，但少了两个 LayerNorm：每个都有大小为 H 的 γ 和 β（一共 4H）。"),
    "one LayerNorm is missing: a BERT layer has two (after attention and after the FFN), each with γ and "
    "β.": ("少了一个 LayerNorm：一个 BERT 层有两个（注意力之后和前馈网络之后各一个），每个都有 γ 和 β。"),
    "the weight matrices and LayerNorms are right, but the biases are missing: 4H for Q, K, V and the "
    "attention output, d_ff for the first FFN layer and H for the second.": (
        "权重矩阵和 LayerNorm 都对，但少了偏置：Q、K、V 和注意力输出共 4H，前馈网络第一层 d_ff，第二层 H。"
    ),
    "you forgot the attention output projection W^O (an H×H matrix and its bias) that follows the "
    "concatenation of the heads.": (
        "你忘了注意力输出投影 W^O（一个 H×H 矩阵及其偏置），它跟在各注意力头的拼接之后。"
    ),
    "the FFN has two dense layers (H→d_ff and d_ff→H), each with its own weights and bias; you counted "
    "one.": ("前馈网络有两个全连接层（H→d_ff 和 d_ff→H），各有自己的权重和偏置；你只数了一个。"),
    "you used 4H for the FFN's inner bias; use d_ff (it is given separately and need not be 4H).": (
        "前馈网络内层的偏置你用了 4H；应该用 d_ff（它是单独给出的，不一定等于 4H）。"
    ),
    "your function still returns `...`: replace it with the formula in H and d_ff.": (
        "你的函数仍然返回 `...`：请把它换成关于 H 和 d_ff 的公式。"
    ),
    "layer_parameters({H}, {d_ff}) returned {value!r}; return a whole number (an int).": (
        "layer_parameters({H}, {d_ff}) 返回了 {value!r}；请返回一个整数（int）。"
    ),
    "layer_parameters({H}, {d_ff}) returned {value}, which is not a whole number of parameters.": (
        "layer_parameters({H}, {d_ff}) 返回了 {value}，参数个数不是整数。"
    ),
    "4H² + 2H·d_ff + 9H + d_ff. For BERT-base (H = 768, d_ff = 3072) that is {params:,} parameters per "
    "layer.": (
        "4H² + 2H·d_ff + 9H + d_ff。对 BERT-base（H = 768，d_ff = 3072）来说，每层有 {params:,} 个参数。"
    ),
    "Close: {message}": "接近了：{message}",
    "for H = {H}, d_ff = {d_ff} your function gives {got:,}, which is {diff:,} too {many_or_few}. List "
    "the tensors of one layer: query, key, value and attention output dense (H×H + H each), LayerNorm "
    "(2H), intermediate dense (H×d_ff + d_ff), output dense (d_ff×H + H), LayerNorm (2H).": (
        "对于 H = {H}、d_ff = {d_ff}，你的函数给出 {got:,}，{many_or_few}了 {diff:,} 个。"
        "请列出一层中的所有张量：query、key、value 和注意力输出的 dense（各 H×H + H），LayerNorm（2H）"
        "，intermediate dense（H×d_ff + d_ff），output dense（d_ff×H + H），LayerNorm（2H）。"
    ),
    "few": "少",
    "many": "多",
    "Walk through `BertLayer`: `attention.self.query/key/value`, `attention.output.dense`, "
    "`attention.output.LayerNorm`, `intermediate.dense`, `output.dense`, `output.LayerNorm`.": (
        "逐个看 `BertLayer` 的部件：`attention.self.query/key/value`、`attention.output.dense`、"
        "`attention.output.LayerNorm`、`intermediate.dense`、`output.dense`、`output.LayerNorm`。"
    ),
    "An `nn.Linear(a, b)` has a·b weights and b biases; an `nn.LayerNorm(H)` has γ and β, H each.": (
        "一个 `nn.Linear(a, b)` 有 a·b 个权重和 b 个偏置；一个 `nn.LayerNorm(H)` 有 γ 和 β，各 H 个。"
    ),
    "Attention: 4·(H² + H). LayerNorms: 2·2H. FFN: (H·d_ff + d_ff) + (d_ff·H + H). Add them up.": (
        "注意力：4·(H² + H)。LayerNorm：2·2H。前馈网络：(H·d_ff + d_ff) + (d_ff·H + H)。把它们加起来。"
    ),
    "`view` failed: after `transpose` the tensor is no longer contiguous in memory. Use `.reshape(B, T, "
    "H)` (or `.contiguous().view(B, T, H)`) after the transpose.": (
        "`view` 失败了：`transpose` 之后张量在内存中不再连续。"
        "请在 transpose 之后用 `.reshape(B, T, H)`（或 `.contiguous().view(B, T, H)`）。"
    ),
    "your function still returns `...`: return the (B, T, H) tensor.": (
        "你的函数仍然返回 `...`：请返回形状为 (B, T, H) 的张量。"
    ),
    "merge_heads returned {type}; return a torch.Tensor.": (
        "merge_heads 返回了 {type}；请返回一个 torch.Tensor。"
    ),
    "the shape is (B, T, heads, d) = {shape}: you moved the head axis back but did not concatenate the "
    "heads. Finish with `.reshape(B, T, H)`.": (
        "形状是 (B, T, heads, d) = {shape}：你把注意力头的轴移回去了，但没有把各注意力头拼接起来。"
        "最后再加上 `.reshape(B, T, H)`。"
    ),
    "for a context of shape (B, heads, T, d) = {context_shape} the result must be (B, T, H) = "
    "{expected}, got {shape}.": (
        "对于形状为 (B, heads, T, d) = {context_shape} 的 context，结果必须是 (B, T, H) = {expected}，"
        "你的是 {shape}。"
    ),
    "the shape is right but the numbers are not: 'token 0' receives the first tokens of head 1 instead of "
    "every head's output for token 0.": (
        "形状对了，数却不对：“词元 0”拿到的是注意力头 1 的前几个词元，而不是各个注意力头对词元 0 的输出。"
    ),
    "`reshape(B, T, H)` on a (B, heads, T, d) tensor reads memory in order. Move the head axis back first: "
    "`.transpose(1, 2)`, then reshape.": (
        "对 (B, heads, T, d) 张量做 `reshape(B, T, H)` 会按内存顺序读取。"
        "请先把注意力头的轴移回去：`.transpose(1, 2)`，再 reshape。"
    ),
    "the heads are interleaved: Concat(head_1, ..., head_A) puts head 1's d features first, then head "
    "2's, and so on. Transpose to (B, T, heads, d), not (B, T, d, heads), before reshaping.": (
        "各注意力头交错在一起了：Concat(head_1, ..., head_A) 先放注意力头 1 的 d 个特征，"
        "再放注意力头 2 的，依此类推。reshape 之前要转置成 (B, T, heads, d)，而不是 (B, T, d, heads)。"
    ),
    "the shape {shape} is right but the values are not: out[b, t, j·d:(j+1)·d] must be head j's output "
    "for token t, context[b, j, t].": (
        "形状 {shape} 对了，但数值不对：out[b, t, j·d:(j+1)·d] 必须是注意力头 j 对词元 t 的输出，"
        "即 context[b, j, t]。"
    ),
    "(B, heads, T, d) → transpose (B, T, heads, d) → reshape (B, T, H): each token gets the outputs of "
    "all its heads side by side, Concat(head_1, ..., head_A). It undoes `split_heads` exactly.": (
        "(B, heads, T, d) → transpose 成 (B, T, heads, d) → reshape 成 (B, T, H)："
        "每个词元得到它所有注意力头的输出并排放在一起，即 Concat(head_1, ..., head_A)。"
        "它恰好撤销了 `split_heads`。"
    ),
    "Merging must undo `split_heads`, which was `view(B, T, heads, d)` then `transpose(1, 2)`. Undo the "
    "steps in reverse order.": (
        "合并必须撤销 `split_heads`，而后者是先 `view(B, T, heads, d)` 再 `transpose(1, 2)`。"
        "按相反的顺序撤销这些步骤。"
    ),
    "`reshape` never moves numbers; it re-reads memory in order. In a (B, heads, T, d) tensor all tokens "
    "of head 1 come first, so the head axis must be moved next to d before you flatten.": (
        "`reshape` 从不移动数据；它只是按内存顺序重新读取。在 (B, heads, T, d) 张量中，"
        "注意力头 1 的所有词元排在最前面，所以展平之前必须先把注意力头的轴移到 d 旁边。"
    ),
    "`context.transpose(1, 2).reshape(B, T, heads * d)`.": (
        "也就是 `context.transpose(1, 2).reshape(B, T, heads * d)`。"
    ),
    "your function still returns `...`: return the layer's output (B, T, H).": (
        "你的函数仍然返回 `...`：请返回这一层的输出 (B, T, H)。"
    ),
    "your function returned {type}; return the (B, T, H) tensor.": (
        "你的函数返回了 {type}；请返回形状为 (B, T, H) 的张量。"
    ),
    "the output must have the input's shape (B, T, H) = {expected}, got {shape}.": (
        "输出必须与输入形状相同，即 (B, T, H) = {expected}，你的是 {shape}。"
    ),
    "post-LN, as in BERT: H' = LN(H + Attn(H)), then out = LN(H' + FFN(H')). Residual first, then "
    "normalise.": (
        "后置 LN，与 BERT 一致：H' = LN(H + Attn(H))，然后 out = LN(H' + FFN(H'))。先加残差，再归一化。"
    ),
    "your output is not layer(x)[0]: it matches the pre-LN order, x + Attn(LN(x)), used by GPT-2 and many "
    "later models, not BERT's.": (
        "你的输出不等于 layer(x)[0]：它与前置 LN 的顺序 x + Attn(LN(x)) 一致，"
        "GPT-2 和许多后来的模型用这个顺序，但 BERT 不用。"
    ),
    "BERT is post-LN: add the residual first, then normalise: H' = LN(H + Attn(H)), out = LN(H' + FFN(H')).": (
        "BERT 是后置 LN：先加残差，再归一化，即 H' = LN(H + Attn(H))，out = LN(H' + FFN(H'))。"
    ),
    "the order is right, but your LayerNorm uses eps = 1e-5 (PyTorch's default). BERT uses 1e-12: use "
    "the layer's own LayerNorm modules (they carry eps = config.layer_norm_eps).": (
        "顺序对了，但你的 LayerNorm 用的是 eps = 1e-5（PyTorch 的默认值）。BERT 用的是 1e-12："
        "请使用这一层自己的 LayerNorm 模块（它们带有 eps = config.layer_norm_eps）。"
    ),
    "the residual connections are missing: each block normalises input + sublayer(input), LN(H + "
    "Attn(H)) and LN(H' + FFN(H')), not the sublayer output alone.": (
        "少了残差连接：每个块归一化的是 输入 + 子层(输入)，即 LN(H + Attn(H)) 和 LN(H' + FFN(H'))，"
        "而不只是子层的输出。"
    ),
    "the FFN must read H', the output of the attention block, not the layer input H: out = LN(H' + "
    "FFN(H')).": ("前馈网络必须读取注意力块的输出 H'，而不是这一层的输入 H：out = LN(H' + FFN(H'))。"),
    "the output differs from BertLayer's. Post-LN: context = attention.self(x); h = "
    "attention.output.LayerNorm(x + attention.output.dense(context)); out = output.LayerNorm(h + "
    "output.dense(intermediate(h))).": (
        "输出与 BertLayer 的不同。后置 LN：context = attention.self(x)；"
        "h = attention.output.LayerNorm(x + attention.output.dense(context))；"
        "out = output.LayerNorm(h + output.dense(intermediate(h)))。"
    ),
    "Where is each LayerNorm applied: to the input of a sublayer, or to the sum after the residual?": (
        "每个 LayerNorm 用在哪里：子层的输入上，还是加上残差之后的和上？"
    ),
    "The paper (following Vaswani et al.) uses LayerNorm(x + Sublayer(x)) around both sublayers.": (
        "论文（沿用 Vaswani 等人的做法）在两个子层外面都使用 LayerNorm(x + Sublayer(x))。"
    ),
    "h = LN₁(x + W_O·Attn(x)); out = LN₂(h + W₂·GELU(W₁·h)).": (
        "即 h = LN₁(x + W_O·Attn(x))；out = LN₂(h + W₂·GELU(W₁·h))。"
    ),
    "query, key, value: three nn.Linear(H, H), and dropout = "
    "nn.Dropout(config.attention_probs_dropout_prob)": (
        "query、key、value：三个 nn.Linear(H, H)，"
        "以及 dropout = nn.Dropout(config.attention_probs_dropout_prob)"
    ),
    "the attention output (B, T, H)": "注意力输出 (B, T, H)",
    "in eval mode your output changes from call to call: dropout is still active. Use the module "
    "self.dropout = nn.Dropout(p) (it switches off with .eval()), not F.dropout(w, p), whose "
    "training=True default drops weights at inference time too.": (
        "在 eval 模式下，你的输出每次调用都不一样：dropout 仍在起作用。"
        "请用模块 self.dropout = nn.Dropout(p)（它在 .eval() 后会关闭），不要用 F.dropout(w, p)，"
        "它默认 training=True，推理时也会丢弃权重。"
    ),
    "the scores are not scaled: divide Q Kᵀ by √d = √head_dim (here 2), per head.": (
        "分数没有缩放：在每个注意力头内把 Q Kᵀ 除以 √d = √head_dim（这里是 2）。"
    ),
    "the softmax runs over the wrong axis (the queries): every query's weights over the keys must sum to "
    "1, so normalise the last axis (dim=-1).": (
        "softmax 的轴错了（在查询上）：每个查询在各个键上的权重之和必须为 1，"
        "所以要对最后一个轴归一化（dim=-1）。"
    ),
    "the heads are merged without moving the head axis back: (B, heads, T, d) must become (B, T, heads, "
    "d) with .transpose(1, 2) before .reshape(B, T, H).": (
        "合并各注意力头时没有先把注意力头的轴移回去：(B, heads, T, d) 必须先用 .transpose(1, 2) 变成"
        " (B, T, heads, d)，再 .reshape(B, T, H)。"
    ),
    "without a mask your output differs from BertSelfAttention's (largest difference {diff:.3g}). "
    "Project with query/key/value, split into heads (B, A, T, d), softmax(Q Kᵀ/√d) V, then merge the "
    "heads back to (B, T, H).": (
        "不加掩码时，你的输出与 BertSelfAttention 的不同（最大差值 {diff:.3g}）。"
        "用 query/key/value 做投影，拆分成多个注意力头 (B, A, T, d)，计算 softmax(Q Kᵀ/√d) V，"
        "再把各注意力头合并回 (B, T, H)。"
    ),
    "the mask is applied to the queries (rows), not the keys: real tokens still attend to [PAD]. The "
    "mask must broadcast as (B, 1, 1, T) over the last axis of the scores.": (
        "掩码作用在了查询（行）上，而不是键上：真实词元仍然会关注 [PAD]。"
        "掩码必须以 (B, 1, 1, T) 的形状在分数的最后一个轴上广播。"
    ),
    "the attention_mask is ignored: real tokens still attend to the [PAD] keys.": (
        "attention_mask 被忽略了：真实词元仍然会关注 [PAD] 键。"
    ),
    "with padding your output differs from BertSelfAttention's: give every [PAD] key (attention_mask == "
    "0) a score of torch.finfo(scores.dtype).min before the softmax.": (
        "有填充时，你的输出与 BertSelfAttention 的不同：在 softmax 之前，"
        "给每个 [PAD] 键（attention_mask == 0）赋分数 torch.finfo(scores.dtype).min。"
    ),
    "in training mode nothing is dropped: apply self.dropout to the attention weights.": (
        "在训练模式下什么都没有被丢弃：请对注意力权重应用 self.dropout。"
    ),
    "in training mode your output differs from BertSelfAttention's with the same seed: apply "
    "self.dropout once, to the attention weights right after the softmax (as BERT does), and nowhere "
    "else.": (
        "在训练模式下，用相同的随机种子时你的输出与 BertSelfAttention 的不同："
        "请只应用一次 self.dropout，作用在 softmax 之后的注意力权重上（BERT 就是这样做的），"
        "别的地方都不要用。"
    ),
    "same outputs as bertedu's BertSelfAttention without and with padding, in eval mode and (same seed) "
    "in training mode: Q, K, V projections, √d scaling per head, softmax over the keys, [PAD] keys "
    "masked, dropout on the weights, heads merged back.": (
        "无论有没有填充，在 eval 模式下以及（相同随机种子的）训练模式下，"
        "输出都与 bertedu 的 BertSelfAttention 相同：Q、K、V 投影，每个注意力头按 √d 缩放，"
        "在键上做 softmax，遮住 [PAD] 键，对权重做 dropout，再把各注意力头合并回去。"
    ),
    "In __init__: `self.num_heads = config.num_attention_heads`, `self.head_dim = config.hidden_size // "
    "self.num_heads`, three nn.Linear(H, H) named query, key, value, and "
    "nn.Dropout(config.attention_probs_dropout_prob).": (
        "在 __init__ 中：`self.num_heads = config.num_attention_heads`，"
        "`self.head_dim = config.hidden_size // self.num_heads`，三个名为 query、key、"
        "value 的 nn.Linear(H, H)，以及 nn.Dropout(config.attention_probs_dropout_prob)。"
    ),
    "Split each projection: `.view(B, T, heads, d).transpose(1, 2)` gives (B, heads, T, d). Scores: `q @ "
    "k.transpose(-2, -1) / math.sqrt(d)`, shape (B, heads, T, T).": (
        "拆分每个投影：`.view(B, T, heads, d).transpose(1, 2)` 得到 (B, heads, T, d)。分数："
        "`q @ k.transpose(-2, -1) / math.sqrt(d)`，形状为 (B, heads, T, T)。"
    ),
    "Mask the keys, not the queries: reshape the (B, T) mask so that it broadcasts over the last axis of "
    "the (B, heads, T, T) scores, and give masked scores a very negative value before the softmax. At the "
    "end, undo the split of hint 2 to get (B, T, H) back.": (
        "遮住的是键，不是查询：把 (B, T) 的掩码变形，使它沿 (B, heads, T, T) 分数的最后一维广播，并在 softmax "
        "之前给被遮住的分数一个很大的负值。最后撤销提示 2 的拆分，回到 (B, T, H)。"
    ),
    # --- figures of notebook 05 (titles, axis labels, legends and annotations drawn by its code cells) -----------
    "x: (T, H) = (5, 16); colour = head owning the feature, label = token": (
        "x：(T, H) = (5, 16)；颜色 = 该特征所属的注意力头，标注 = 词元"
    ),
    "split_heads → head {n}: (T, d)": "split_heads → 注意力头 {n}：(T, d)",
    "merge: transpose(1, 2) then reshape(B, T, H) → x again": "合并：先 transpose(1, 2)，再 reshape(B, T, H) → 重新得到 x",
    "bug: reshape(B, T, H) without the transpose": "错误：不做 transpose，直接 reshape(B, T, H)",
    "ReLU (original Transformer)": "ReLU（原始 Transformer）",
    "min ≈ −0.17 at x ≈ −0.75": "最小值 ≈ −0.17，位于 x ≈ −0.75",
    "activation": "激活函数",
    "derivative": "导数",
    "H (layer input)": "H（该层的输入）",
    "multi-head attention": "多头注意力",
    "H_out (final LN after layer L)": "H_out（第 L 层之后再做一次 LN）",
    "post-LN (BERT)": "后置 LN（BERT）",
    "pre-LN (GPT-2 and later)": "前置 LN（GPT-2 及之后）",
    "blue lines: residual connections; orange: LayerNorm": "蓝线：残差连接；橙色：LayerNorm",
    "BertEmbeddings: word + position + segment, LN": "BertEmbeddings：词 + 位置 + 句段，LN",
    "Q, K, V → split into A heads": "Q、K、V → 拆分为 A 个注意力头",
    "softmax(QKᵀ/√d): attention weights": "softmax(QKᵀ/√d)：注意力权重",
    "weights · V, heads concatenated": "权重 · V，拼接各注意力头",
    "+ residual, LayerNorm → H'": "+ 残差，LayerNorm → H'",
    "FFN up + GELU": "FFN 升维 + GELU",
    "FFN down, + residual, LayerNorm": "FFN 降维，+ 残差，LayerNorm",
    "pooler on [CLS]": "作用于 [CLS] 的池化层",
    "Shapes through BertModel (B={B}, T={T}, H={H}, A={A}, d={d}, I={I})": (
        "BertModel 中各步的形状（B={B}, T={T}, H={H}, A={A}, d={d}, I={I}）"
    ),
    "embeddings": "嵌入",
    "attention": "注意力",
    "pooler": "池化层",
    "share of BertModel's parameters": "占 BertModel 参数量的比例",
    "Where the parameters go": "参数都用在了哪里",
    # the parameter-share widget (its controls and readout)
    "size": "规模",
    "vocab V": "词表 V",
    "total": "总计",
    # --- comments of the reference solutions: Exercise.solution() shows the English code with these
    # comments translated (bertedu.language.translate_code)
    "W_Q, W_K, W_V, W_O with their biases": "W_Q、W_K、W_V、W_O 及其偏置",
    "H -> d_ff -> H, with biases": "H -> d_ff -> H，带偏置",
    "two LayerNorms, gamma and beta each": "两个 LayerNorm，各有 gamma 和 beta",
    "multi-head attention on x": "对 x 做多头注意力",
    "mask the [PAD] keys": "遮住 [PAD] 键",
    "rows sum to 1": "每行之和为 1",
}
