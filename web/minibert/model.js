// The course's mini-BERT (notebook 06) in JavaScript: tokenize, run the ONNX model, read the [MASK] predictions.
//
// No page code here, so node runs it too (tests/test_web_minibert.py compares it with PyTorch). `ort` is
// onnxruntime-web's module (vendored by tools/vendor_web.py); the model folder is what tools/export_onnx.py writes:
// model.onnx (inputs input_ids, attention_mask, token_type_ids; outputs logits (B, T, V) and attentions
// (B, L, A, T, T)), vocab.txt and minibert.json.

import { BertTokenizer } from "./tokenizer.js";

/** softmax over one row of logits (a Float32Array view), in float64. */
export function softmax(row) {
  let max = -Infinity;
  for (const x of row) max = Math.max(max, x);
  let sum = 0;
  const out = new Float64Array(row.length);
  row.forEach((x, i) => {
    out[i] = Math.exp(x - max);
    sum += out[i];
  });
  return out.map((x) => x / sum);
}

/** The k largest entries of `row`: [{id, logit}], largest first (ties: the smaller id first, as torch.topk on CPU). */
export function topK(row, k) {
  const ids = Array.from(row.keys());
  ids.sort((a, b) => row[b] - row[a] || a - b);
  return ids.slice(0, k).map((id) => ({ id, logit: row[id] }));
}

export class MiniBert {
  /** Use MiniBert.load(); this wraps a ready session, tokenizer and settings. */
  constructor(ort, session, tokenizer, settings) {
    this.ort = ort;
    this.session = session;
    this.tokenizer = tokenizer;
    this.settings = settings;
  }

  /**
   * Load the exported model. `files` gives the model bytes (an ArrayBuffer/Uint8Array) or a URL in `model`, the text
   * of vocab.txt in `vocab` and the parsed minibert.json in `settings`.
   */
  static async load(ort, { model, vocab, settings }) {
    const session = await ort.InferenceSession.create(model, { executionProviders: ["wasm"] });
    const t = settings.tokenizer || {};
    const tokenizer = new BertTokenizer(vocab, {
      doLowerCase: t.do_lower_case ?? true,
      stripAccents: t.strip_accents ?? null,
      tokenizeChineseChars: t.tokenize_chinese_chars ?? true,
    });
    return new MiniBert(ort, session, tokenizer, settings);
  }

  /** Fetch model.onnx, vocab.txt and minibert.json from the folder at `base` (a URL ending in /) and load them. */
  static async fromUrl(ort, base) {
    const get = async (name) => {
      const response = await fetch(`${base}${name}`);
      if (!response.ok) throw new Error(`${base}${name}: ${response.status} ${response.statusText}`);
      return response;
    };
    const [model, vocab, settings] = await Promise.all([
      get("model.onnx").then((r) => r.arrayBuffer()),
      get("vocab.txt").then((r) => r.text()),
      get("minibert.json").then((r) => r.json()),
    ]);
    return MiniBert.load(ort, { model: new Uint8Array(model), vocab, settings });
  }

  /**
   * Run several sentences as one batch, padded on the right to the longest. For each sentence: its tokens ([CLS] …
   * [SEP]), and for each [MASK] in it its position, its logits (Float32Array, V) and the top `k` words with their
   * probabilities; and its attention maps, attentions[layer][head] a T × T array of rows (real tokens only).
   */
  async predictBatch(texts, k = 5) {
    const maxLength = this.settings.max_length ?? null;
    const batch = this.tokenizer.encodeBatch(texts, { maxLength });
    const B = texts.length;
    const T = batch.inputIds[0].length;
    const tensor = (rows) => new this.ort.Tensor("int64", BigInt64Array.from(rows.flat(), (x) => BigInt(x)), [B, T]);
    const out = await this.session.run({
      input_ids: tensor(batch.inputIds),
      attention_mask: tensor(batch.attentionMask),
      token_type_ids: tensor(batch.tokenTypeIds),
    });
    const logits = out.logits.data; // (B, T, V)
    const V = out.logits.dims[2];
    const [, L, A] = out.attentions.dims;
    const att = out.attentions.data; // (B, L, A, T, T)
    const maskId = this.tokenizer.maskTokenId;
    return batch.inputIds.map((ids, b) => {
      const n = batch.attentionMask[b].reduce((s, x) => s + x, 0);
      const masks = [];
      for (let t = 0; t < n; t++) {
        if (ids[t] !== maskId) continue;
        const row = logits.subarray((b * T + t) * V, (b * T + t + 1) * V);
        const probs = softmax(row);
        const top = topK(row, k).map(({ id, logit }) => ({
          id,
          token: this.tokenizer.idsToTokens[id],
          logit,
          prob: probs[id],
        }));
        masks.push({ position: t, logits: Float32Array.from(row), top });
      }
      const attentions = [];
      for (let l = 0; l < L; l++) {
        const heads = [];
        for (let a = 0; a < A; a++) {
          const base = (((b * L + l) * A + a) * T) * T;
          heads.push(Array.from({ length: n }, (_, q) => Array.from(att.subarray(base + q * T, base + q * T + n))));
        }
        attentions.push(heads);
      }
      return { tokens: this.tokenizer.convertIdsToTokens(ids.slice(0, n)), masks, attentions };
    });
  }

  /** One sentence: predictBatch([text])[0]. */
  async predict(text, k = 5) {
    return (await this.predictBatch([text], k))[0];
  }
}
