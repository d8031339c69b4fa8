// The course's site: fills the quiz placeholders of a page with web/quiz's renderer and mounts the mini-BERT panel.
//
// tools/build_site.py replaces the output of every quiz.ask / quiz.flashcards / quiz.progress cell by
//   <div class="bertedu-site-quiz mathjax_process" data-kind="ask|flashcards|progress" data-notebook="03_x"
//        data-questions='["id", ...]' data-deck="part-a" data-lang="zh"></div>
// (a review drawn from several banks: data-items='[["03_x", "id"], ...]')
// and the mini-BERT page holds <div data-bertedu-panel="minibert">. The quiz renderer, the exported banks (tools/export_banks.py),
// the mini-BERT and the vendored onnxruntime-web sit next to the language folders (../quiz, ../minibert,
// ../vendor): paths here are relative to this file, so every page finds them. Nothing comes from the network.
// When everything is drawn, <body data-site-ready="1"> and window.berteduReadyMs (ms since navigation).

import { renderDeck, renderProgress, renderQuestion } from "../../quiz/render.js";
import { ProgressStore } from "../../quiz/progress.js";

const SITE = new URL("../../", import.meta.url);
const DATA = new URL("quiz/data/", SITE);
const pageLang = document.documentElement.lang.split("-")[0]; // "zh-CN" -> "zh": the course's language codes
const cache = new Map();

function fetchJson(url) {
  if (!cache.has(url)) {
    cache.set(url, fetch(url).then((r) => {
      if (!r.ok) throw new Error(`${url}: ${r.status} ${r.statusText}`);
      return r.json();
    }));
  }
  return cache.get(url);
}

const bank = (notebook) => fetchJson(new URL(`banks/${notebook}.json`, DATA).href);
async function allBanks() {
  const index = await fetchJson(new URL("index.json", DATA).href);
  return Promise.all(index.banks.map((b) => fetchJson(new URL(b.file, DATA).href)));
}

function typeset(node) {
  const mj = window.MathJax;
  if (!mj?.startup?.promise) return Promise.resolve();
  return mj.startup.promise.then(() => mj.typesetPromise([node]));
}

async function fillQuiz(root, store, ui) {
  const kind = root.dataset.kind;
  const lang = root.dataset.lang || pageLang;
  const opts = { lang, ui, store, typeset };
  root.lang = ui.html_lang[lang];
  root.replaceChildren();
  if (kind === "progress") {
    renderProgress(root, await allBanks(), opts);
    return;
  }
  if (root.dataset.items) {
    // a review: questions drawn from several banks, [[notebook, id], ...] (tools/build_site.py, review_items)
    for (const [notebook, id] of JSON.parse(root.dataset.items)) {
      const q = (await bank(notebook)).questions.find((x) => x.id === id);
      if (!q) throw new RangeError(`bank ${notebook} has no question ${id}`);
      renderQuestion(root, { ...q, notebook }, { ...opts, notebook });
    }
    return;
  }
  const banks = root.dataset.notebook ? [await bank(root.dataset.notebook)] : await allBanks();
  if (kind === "flashcards") {
    const deck = root.dataset.deck || null;
    const cards = banks.flatMap((b) => b.flashcards.map((c) => ({ ...c, notebook: b.notebook })))
      .filter((c) => !deck || c.deck === deck);
    const title = deck ? (ui.deck_titles?.[deck] ?? deck) : banks.length === 1 ? banks[0].title : null;
    renderDeck(root, cards, { ...opts, deckTitle: title ? (title[lang] ?? title.en ?? title) : null });
    return;
  }
  const wanted = root.dataset.questions ? JSON.parse(root.dataset.questions) : null;
  for (const b of banks) {
    const questions = wanted ? wanted.map((id) => b.questions.find((q) => q.id === id)) : b.questions;
    questions.forEach((q, i) => {
      if (!q) throw new RangeError(`bank ${b.notebook} has no question ${wanted[i]}`);
      renderQuestion(root, { ...q, notebook: b.notebook }, { ...opts, notebook: b.notebook });
    });
  }
}

async function mountMiniBertPanel(root) {
  const { mountMiniBert } = await import(new URL("minibert/page.js", SITE).href);
  const uiData = await fetchJson(new URL("ui.json", DATA).href);
  window.minibert = await mountMiniBert(root, {
    ortUrl: new URL("vendor/onnxruntime-web/ort.wasm.min.mjs", SITE).href,
    modelUrl: new URL("minibert/model/", SITE).href,
    lang: pageLang,
    words: uiData.ui,
  });
}

async function main() {
  const quizzes = [...document.querySelectorAll(".bertedu-site-quiz")];
  const jobs = [];
  if (quizzes.length) {
    const uiData = await fetchJson(new URL("ui.json", DATA).href);
    const ui = { ...uiData.ui, deck_titles: uiData.deck_titles };
    const store = new ProgressStore();
    jobs.push(...quizzes.map((root) => fillQuiz(root, store, ui).catch((err) => {
      root.textContent = `The quiz could not load: ${err.message}`;
      throw err;
    })));
  }
  // the panel's own attribute (tools/build_site.py, MINIBERT_PANEL), never an id: Sphinx makes section ids from
  // headings, and notebook 06's Chinese section 4 got id="minibert"
  const panel = document.querySelector('[data-bertedu-panel="minibert"]');
  if (panel) jobs.push(mountMiniBertPanel(panel));
  await Promise.all(jobs);
  window.berteduReadyMs = performance.now();
  document.body.dataset.siteReady = "1";
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => main().catch((e) => console.error(e)));
else main().catch((e) => console.error(e));
