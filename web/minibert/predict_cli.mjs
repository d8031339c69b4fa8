// Run the page's mini-BERT from another program: `node web/minibert/predict_cli.mjs < request.json > reply.json`.
// Request: {"ort": "<path of the vendored ort.wasm.min.mjs>", "model": "<folder written by tools/export_onnx.py>",
// "batches": [["a sentence with [MASK]", ...], ...]}. Reply: {"batches": [[{tokens, masks: [{position, top_ids,
// logits}], attentions}, ...], ...]}, each batch run padded as one. tests/test_web_minibert.py compares it with PyTorch.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { MiniBert } from "./model.js";

const request = JSON.parse(readFileSync(0, "utf8"));
const ort = await import(pathToFileURL(request.ort).href);
ort.env.wasm.numThreads = 1;
const model = await MiniBert.load(ort, {
  model: readFileSync(join(request.model, "model.onnx")),
  vocab: readFileSync(join(request.model, "vocab.txt"), "utf8"),
  settings: JSON.parse(readFileSync(join(request.model, "minibert.json"), "utf8")),
});
const batches = [];
for (const texts of request.batches) {
  const rows = await model.predictBatch(texts);
  batches.push(
    rows.map((r) => ({
      tokens: r.tokens,
      masks: r.masks.map((m) => ({ position: m.position, top_ids: m.top.map((x) => x.id), logits: Array.from(m.logits) })),
      attentions: r.attentions,
    })),
  );
}
process.stdout.write(JSON.stringify({ batches }));
