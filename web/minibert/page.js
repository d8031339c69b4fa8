// The mini-BERT panel of the course's web site: type a sentence with [MASK], see the top-5 words and the attention
// maps of every layer and head. Runs notebook 06's model in the browser (onnxruntime-web, vendored; no network).
//
//   import { mountMiniBert } from "./page.js";
//   mountMiniBert(document.getElementById("minibert"), { ortUrl: "../vendor/onnxruntime-web/ort.wasm.min.mjs",
//                                                        modelUrl: "model/", lang: "en", words: ui });

import { MiniBert } from "./model.js";

// The panel's words are the minibert_* entries of the course's one table of UI words (bertedu/language/words.py),
// which tools/export_banks.py writes to ui.json: mountMiniBert takes that table (ui.json's "ui") as `words`.
function sayer(words) {
  return (key, lang, fields = {}) => {
    const entry = words[`minibert_${key}`];
    if (!entry) throw new RangeError(`No UI word named 'minibert_${key}'.`);
    const text = entry[lang] || entry.en;
    return text.replace(/\{(\w+)\}/g, (m, name) => (name in fields ? String(fields[name]) : m));
  };
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== null && value !== undefined && value !== false) node.setAttribute(key, value);
  }
  node.append(...children.flat().filter((c) => c !== null && c !== undefined));
  return node;
}

/** One attention map as a canvas: a T × T grid, darker = more attention, token labels on both axes. */
export function heatmap(weights, tokens, caption) {
  const n = tokens.length;
  const cell = Math.max(12, Math.min(28, Math.floor(280 / n)));
  const margin = 70;
  const canvas = el("canvas", { width: margin + n * cell, height: margin + n * cell, role: "img", "aria-label": caption });
  const ctx = canvas.getContext("2d");
  ctx.font = "11px sans-serif";
  ctx.fillStyle = "#222";
  tokens.forEach((tok, i) => {
    ctx.textAlign = "right";
    ctx.fillText(tok, margin - 4, margin + i * cell + cell * 0.7);
    ctx.save();
    ctx.translate(margin + i * cell + cell * 0.65, margin - 4);
    ctx.rotate(-Math.PI / 2);
    ctx.textAlign = "left";
    ctx.fillText(tok, 0, 0);
    ctx.restore();
  });
  weights.forEach((row, q) =>
    row.forEach((w, k) => {
      const shade = Math.round(255 * (1 - w));
      ctx.fillStyle = `rgb(${shade}, ${shade}, 255)`;
      ctx.fillRect(margin + k * cell, margin + q * cell, cell - 1, cell - 1);
    }),
  );
  return el("figure", { class: "minibert-map" }, canvas, el("figcaption", {}, caption));
}

function resultNode(result, lang, maxLength, truncated, say) {
  const box = el("div", { class: "minibert-result" });
  box.append(el("p", { class: "minibert-tokens" }, el("strong", {}, `${say("tokens", lang)}: `), result.tokens.join(" ")));
  if (truncated) box.append(el("p", { class: "minibert-note" }, say("truncated", lang, { n: maxLength })));
  for (const mask of result.masks) {
    const rows = mask.top.map((p) =>
      el("tr", {}, el("td", { class: "minibert-word" }, p.token), el("td", {}, `${(100 * p.prob).toFixed(1)}%`),
        el("td", {}, el("span", { class: "minibert-bar", style: `width:${Math.max(1, Math.round(160 * p.prob))}px` }))),
    );
    box.append(
      el("table", { class: "minibert-top5", "data-position": String(mask.position) },
        el("caption", {}, say("top5", lang, { position: mask.position })),
        el("thead", {}, el("tr", {}, el("th", {}, say("word", lang)), el("th", {}, say("probability", lang)), el("th", {}))),
        el("tbody", {}, rows)),
    );
  }
  const maps = el("div", { class: "minibert-maps" });
  result.attentions.forEach((heads, l) =>
    heads.forEach((weights, h) => maps.append(heatmap(weights, result.tokens, say("layerHead", lang, { layer: l + 1, head: h + 1 })))),
  );
  box.append(el("h3", {}, say("attention", lang)), maps);
  return box;
}

/**
 * Build the panel in `root`, load onnxruntime-web from `ortUrl` and the exported model from `modelUrl`. Resolves to
 * {model, run(text)} once the model is ready; `run` shows the prediction for a sentence (as the button does).
 * `words`: the table of UI words, ui.json's "ui" (tools/export_banks.py).
 */
export async function mountMiniBert(root, { ortUrl, modelUrl = "model/", lang = "en", words, example = "the black cat drinks [MASK]" }) {
  if (!words) throw new TypeError('mountMiniBert needs words: the "ui" table of ui.json (tools/export_banks.py)');
  const say = sayer(words);
  const input = el("input", { id: "minibert-input", type: "text", value: example, size: "48", autocomplete: "off", spellcheck: "false" });
  const button = el("button", { type: "button", class: "minibert-predict", disabled: true }, say("predict", lang));
  const status = el("p", { class: "minibert-status", "aria-live": "polite" }, say("loading", lang));
  const output = el("div", { class: "minibert-output", "aria-live": "polite" });
  const intro = el("p", { class: "minibert-intro" });
  root.replaceChildren(
    el("h2", {}, say("title", lang)),
    intro,
    el("form", { class: "minibert-form", onsubmit: (e) => { e.preventDefault(); button.click(); } },
      el("label", { for: "minibert-input" }, `${say("sentence", lang)}: `), input, " ", button),
    status,
    output,
  );
  let model;
  try {
    const ort = await import(ortUrl);
    ort.env.wasm.numThreads = 1; // a plain static host is not cross-origin isolated: no threads
    ort.env.wasm.wasmPaths = new URL(".", new URL(ortUrl, document.baseURI)).href;
    model = await MiniBert.fromUrl(ort, new URL(modelUrl, document.baseURI).href);
  } catch (err) {
    status.textContent = say("failed", lang, { error: err.message });
    throw err;
  }
  const s = model.settings;
  intro.textContent = say("intro", lang, { layers: s.num_hidden_layers, heads: s.num_attention_heads, words: s.vocab_size });
  const maxLength = s.max_length;
  const run = async (text) => {
    const tokens = model.tokenizer.tokenize(text);
    if (!tokens.includes("[MASK]")) {
      status.textContent = say("noMask", lang);
      output.replaceChildren();
      return null;
    }
    const result = await model.predict(text);
    output.replaceChildren(resultNode(result, lang, maxLength, tokens.length + 2 > maxLength, say));
    status.textContent = say("ready", lang);
    return result;
  };
  button.addEventListener("click", () => run(input.value).catch((err) => { status.textContent = say("failed", lang, { error: err.message }); }));
  button.disabled = false;
  status.textContent = say("ready", lang);
  return { model, run };
}
