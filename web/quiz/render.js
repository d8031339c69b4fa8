// The quiz in a web page, without a kernel: questions and flashcards of the banks, in English or Chinese.
//
// A dependency-free ES module for browsers. It renders the JSON that tools/export_banks.py writes (banks/*.json,
// ui.json), grades with grader.js (the Python grader's rules), keeps progress in localStorage with progress.js (the
// layout of the notebooks' progress file, so an export feeds the class report), and writes bank text with
// markdown.js. Math is left as $...$ TeX; pass `typeset` (for example `(el) => MathJax.typesetPromise([el])`) to
// render it with the page's own offline math renderer.
//
//   import { mountQuizPage } from "./render.js";
//   mountQuizPage(document.getElementById("quiz"), { base: "quiz/", notebook: "03_masking_strategy" });
//
// Smaller parts: renderQuestion(root, question, options) and renderDeck(root, cards, options), with
// options = {notebook, lang, ui, store, typeset, deckTitle, student}. A choice question's options appear in the
// order of `student` (default: this browser's id, shuffle.js), the notebooks' rule; grading and progress go by id.

import {
  blankLabel,
  correctAnswer,
  grade,
  pick,
  resultLines,
  resultMessage,
  solutionLines,
  t,
} from "./grader.js";
import { markdownToHtml } from "./markdown.js";
import { ProgressStore } from "./progress.js";
import { optionOrder, studentId } from "./shuffle.js";

const KIND = { single: "kind_single", multiple: "kind_multiple", fill: "kind_fill" };
let uid = 0;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "html") node.innerHTML = value; // only ever HTML from markdownToHtml (escaped) or our own
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== false && value !== null && value !== undefined) node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

function md(text, lang, tag = "div", cls = "") {
  return el(tag, { class: cls, html: markdownToHtml(pick(text, lang)) });
}

function inlineMd(text, lang) {
  // an option label: the Markdown of one paragraph without its <p>
  return el("span", { html: markdownToHtml(pick(text, lang)).replace(/^<p>|<\/p>$/g, "") });
}

function typesetLater(opts, node) {
  if (opts.typeset) Promise.resolve(opts.typeset(node)).catch(() => {});
}

function savedLine(entry, lang, ui) {
  if (!entry) return "";
  const attempts = entry.attempts === 1 ? t(ui, "attempts_one", lang) : t(ui, "attempts_many", lang, { n: entry.attempts });
  return t(ui, "answered_before", lang, { score: `${Math.round(entry.best * 100)}%`, attempts });
}

/** The bank positions of a choice question's options in the order this student sees them (shuffle.js). */
export function shownOrder(question, notebook, student) {
  return optionOrder(student, notebook, question.id, question.options.map((o) => o.id));
}

/**
 * The inputs of a question: radio buttons, checkboxes or one text box per blank; returns {node, read()}. Options
 * are shown in `order` (bank positions); each input's value is its option's bank position, so read() gives
 * positions, which grade() takes.
 */
function answerInputs(question, lang, ui, order) {
  const name = `bertedu-q${++uid}`;
  if (question.type === "fill") {
    const inputs = question.blanks.map((blank, i) => {
      const id = `${name}-${i}`;
      const input = el("input", {
        id,
        type: "text",
        class: blank.kind === "numeric" ? "bertedu-blank bertedu-numeric" : "bertedu-blank",
        inputmode: blank.kind === "numeric" ? "decimal" : null,
        autocomplete: "off",
        spellcheck: "false",
        placeholder: t(ui, "blank_placeholder", lang),
      });
      const label = el("label", { for: id }, t(ui, "field_label", lang, { label: blankLabel(blank, i, lang, ui) }));
      return { row: el("div", { class: "bertedu-blank-row" }, label, " ", input, blank.unit ? ` ${blank.unit}` : null), input };
    });
    return { node: el("div", { class: "bertedu-blanks" }, inputs.map((x) => x.row)), read: () => inputs.map((x) => x.input.value), inputs };
  }
  const type = question.type === "single" ? "radio" : "checkbox";
  const boxes = order.map((i) => {
    const option = question.options[i];
    const input = el("input", { type, name, value: String(i), id: `${name}-${i}`, "data-option": option.id });
    return { row: el("label", { class: "bertedu-option", for: `${name}-${i}` }, input, " ", inlineMd(option.text, lang)), input, index: i };
  });
  const read = () => {
    const picked = boxes.flatMap((b) => (b.input.checked ? [b.index] : [])).sort((a, b) => a - b);
    return question.type === "single" ? (picked.length ? picked[0] : null) : picked;
  };
  return { node: el("fieldset", { class: "bertedu-options" }, boxes.map((b) => b.row)), read, inputs: boxes };
}

/** Feedback of a graded answer: the verdict, each picked option's explanation, each blank's line. */
function feedbackNode(result, question, lang, ui) {
  const lines = resultLines(result, question, lang, ui);
  const box = el("div", { class: `bertedu-feedback ${result.isCorrect ? "bertedu-right" : "bertedu-wrong"}` });
  box.append(el("p", { class: "bertedu-verdict" }, lines[0]));
  const picked = result.options.filter((o) => o.selected);
  picked.forEach((o) => {
    const opt = question.options[o.index];
    const head = t(ui, o.correct ? "chose_right" : "chose_wrong", lang, { option: pick(opt.text, lang) });
    box.append(el("div", { class: `bertedu-option-feedback bertedu-${o.verdict}` }, el("strong", {}, head), md(opt.explanation, lang)));
  });
  for (const line of lines.slice(1 + picked.length)) box.append(el("p", {}, line));
  if (result.isCorrect && question.explanation) {
    box.append(el("div", { class: "bertedu-explanation" }, el("strong", {}, t(ui, "explanation", lang)), md(question.explanation, lang)));
  }
  return box;
}

function solutionNode(question, lang, ui, order) {
  const lines = solutionLines(question, lang, ui);
  const rows = question.type === "fill" ? lines : order.map((i) => lines[i]); // the options in the order shown
  const list = el("ul", { class: "bertedu-solution-list" });
  for (const [mark, text, why] of rows) {
    list.append(el("li", {}, el("strong", {}, mark), " ", inlineMd(text, lang), why ? md(why, lang, "div", "bertedu-why") : null));
  }
  const box = el("div", { class: "bertedu-solution" }, el("strong", {}, t(ui, "solution", lang)), list);
  if (question.explanation) box.append(md(question.explanation, lang, "div", "bertedu-explanation"));
  return box;
}

/**
 * One question: prompt, inputs, Check answer, Hint, Show solution (after a first attempt). Every graded attempt is
 * recorded in `store`. Returns {node, grade()} (grade() checks the current inputs, as the button does).
 */
export function renderQuestion(root, question, opts) {
  const { lang, ui } = opts;
  const notebook = opts.notebook || question.notebook;
  const store = opts.store;
  const order = question.type === "fill" ? [] : shownOrder(question, notebook, opts.student || studentId());
  const inputs = answerInputs(question, lang, ui, order);
  const feedback = el("div", { class: "bertedu-feedback-area", "aria-live": "polite" });
  const saved = el("p", { class: "bertedu-saved" }, savedLine(store?.question(notebook, question.id), lang, ui));
  const hint = question.hint ? md(question.hint, lang, "div", "bertedu-hint") : null;
  const solution = el("div", { class: "bertedu-solution-area" });
  let attempted = Boolean(store?.question(notebook, question.id));
  let hintButton = null;
  if (hint) {
    hint.hidden = true;
    hintButton = el("button", { type: "button", class: "bertedu-hint-button", onclick: () => {
      hint.hidden = !hint.hidden;
      hintButton.textContent = t(ui, hint.hidden ? "hint_show" : "hint_hide", lang);
    } }, t(ui, "hint_show", lang));
  }
  const solutionButton = el("button", { type: "button", class: "bertedu-solution-button", disabled: !attempted,
    title: attempted ? null : t(ui, "solution_locked", lang), onclick: () => {
      if (!attempted) return; // the solution opens after a graded attempt, as in the notebooks
      if (solution.firstChild) {
        solution.replaceChildren();
        solutionButton.textContent = t(ui, "solution_show", lang);
      } else {
        solution.replaceChildren(solutionNode(question, lang, ui, order));
        solutionButton.textContent = t(ui, "solution_hide", lang);
        typesetLater(opts, solution);
      }
    } }, t(ui, "solution_show", lang));
  const check = () => {
    const answer = inputs.read();
    const result = grade(question, answer);
    if (!result.answered) {
      feedback.replaceChildren(el("p", { class: "bertedu-need" }, resultMessage(result, lang, ui)));
      return result;
    }
    // progress names options by id (never by the place they were shown in), as the notebooks' store does
    const record = question.type === "fill" ? answer : result.options.filter((o) => o.selected).map((o) => o.id);
    const entry = store ? store.recordAttempt(notebook, question.id, result.score, record) : null;
    const node = feedbackNode(result, question, lang, ui);
    if (entry) node.append(el("p", { class: "bertedu-attempt" }, t(ui, "attempt", lang, { n: entry.attempts })));
    if (store?.problem) node.append(el("p", { class: "bertedu-problem" }, store.problem));
    feedback.replaceChildren(node);
    attempted = true;
    solutionButton.disabled = false;
    solutionButton.removeAttribute("title");
    saved.textContent = "";
    typesetLater(opts, feedback);
    return result;
  };
  const node = el(
    "section",
    { class: `bertedu-question bertedu-${question.type}`, "data-question": question.id, lang: t(ui, "html_lang", lang), "data-upright-emphasis": Boolean(t(ui, "emphasis_style", lang)) },
    el("p", { class: "bertedu-kind" }, t(ui, KIND[question.type], lang)),
    md(question.prompt, lang, "div", "bertedu-prompt"),
    inputs.node,
    el("div", { class: "bertedu-buttons" }, el("button", { type: "button", class: "bertedu-check", onclick: check }, t(ui, "check", lang)), hintButton, solutionButton),
    hint,
    saved,
    feedback,
    solution,
  );
  root.append(node);
  typesetLater(opts, node);
  return { node, grade: check, inputs, order, correctAnswer: () => correctAnswer(question) };
}

/** A flashcard deck: Flip, Previous / Next (wrapping), "I know it" / "Not yet" (saved). Returns {node, turn, go, mark}. */
export function renderDeck(root, cards, opts) {
  if (!cards.length) throw new RangeError("A flashcard deck needs at least one card.");
  const { lang, ui, store } = opts;
  const state = { index: 0, back: false, known: 0, unknown: 0 };
  const position = el("p", { class: "bertedu-card-position" });
  const face = el("div", { class: "bertedu-card", "aria-live": "polite" });
  const status = el("p", { class: "bertedu-card-status" });
  const notebookOf = (card) => opts.notebook || card.notebook;
  const draw = () => {
    const card = cards[state.index];
    position.textContent = t(ui, "card_position", lang, { i: state.index + 1, n: cards.length });
    face.replaceChildren(
      el("p", { class: "bertedu-card-side" }, t(ui, state.back ? "back" : "front", lang)),
      md(state.back ? card.back : card.front, lang),
    );
    const saved = store?.card(notebookOf(card), card.id);
    status.textContent = saved === null || saved === undefined ? "" : t(ui, saved ? "marked_known_before" : "marked_unknown_before", lang);
    typesetLater(opts, face);
  };
  const turn = () => {
    state.back = !state.back;
    draw();
  };
  const go = (step) => {
    state.index = (state.index + step + cards.length) % cards.length;
    state.back = false;
    draw();
  };
  const mark = (known) => {
    const card = cards[state.index];
    store?.markCard(notebookOf(card), card.id, known);
    state[known ? "known" : "unknown"] += 1;
    draw();
    status.textContent = `${t(ui, known ? "marked_known" : "marked_unknown", lang)} · ${t(ui, "session_tally", lang, { known: state.known, unknown: state.unknown })}`;
  };
  const button = (key, cls, action) => el("button", { type: "button", class: cls, onclick: action }, t(ui, key, lang));
  const node = el(
    "section",
    { class: "bertedu-flashcards", lang: t(ui, "html_lang", lang), "data-upright-emphasis": Boolean(t(ui, "emphasis_style", lang)) },
    el("h3", {}, opts.deckTitle ? t(ui, "deck_title", lang, { title: opts.deckTitle }) : t(ui, "flashcards_title", lang)),
    position,
    face,
    el(
      "div",
      { class: "bertedu-buttons" },
      button("previous", "bertedu-previous", () => go(-1)),
      button("flip", "bertedu-flip", turn),
      button("next", "bertedu-next", () => go(1)),
      button("known", "bertedu-known", () => mark(true)),
      button("unknown", "bertedu-unknown", () => mark(false)),
    ),
    status,
    el("p", { class: "bertedu-help" }, t(ui, "keyboard_help", lang)),
  );
  root.append(node);
  draw();
  return { node, turn, go, mark, state };
}

/** The name of a student's export: bertedu-progress-<student id>.json (the class report reads the id inside). */
export function exportFileName(student) {
  return `bertedu-progress-${student}.json`;
}

/** The progress table of the banks, with Export (a .json file for the class report, named by the student's id). */
export function renderProgress(root, banks, opts) {
  const { lang, ui, store } = opts;
  const rows = store.summary(banks);
  const table = el(
    "table",
    { class: "bertedu-progress" },
    el("thead", {}, el("tr", {}, ["col_notebook", "col_answered", "col_score", "col_cards"].map((k) => el("th", {}, t(ui, k, lang))))),
    el("tbody", {}, rows.map((r) => el("tr", {}, el("td", {}, pick(r.title, lang)), el("td", {}, `${r.answered} / ${r.total}`),
      el("td", {}, `${r.score.toFixed(1)} / ${r.total}`), el("td", {}, `${r.cardsKnown} / ${r.cardsTotal}`)))),
  );
  const exportButton = el("button", { type: "button", class: "bertedu-export", onclick: () => {
    const student = opts.student || studentId(store.storage);
    const blob = new Blob([store.exportJson(student)], { type: "application/json" });
    const link = el("a", { href: URL.createObjectURL(blob), download: exportFileName(student) });
    document.body.append(link);
    link.click();
    link.remove();
  } }, t(ui, "quiz_export", lang));
  const node = el("section", { class: "bertedu-progress-view" }, el("h3", {}, t(ui, "progress_title", lang)), table, exportButton);
  if (store.problem) node.append(el("p", { class: "bertedu-problem" }, `${t(ui, "progress_problem", lang)} ${store.problem}`));
  root.append(node);
  return node;
}

async function fetchJson(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status} ${response.statusText}`);
  return response.json();
}

/**
 * A whole quiz page: the questions and flashcards of `notebook` (or of every bank), a language switch (EN / 中文,
 * remembered), and the progress table. `base` is the folder tools/export_banks.py wrote.
 */
export async function mountQuizPage(root, { base = "quiz/", notebook = null, lang = null, typeset = null, storage } = {}) {
  const [uiData, index] = await Promise.all([fetchJson(`${base}ui.json`), fetchJson(`${base}index.json`)]);
  const entries = index.banks.filter((b) => !notebook || b.notebook === notebook);
  if (!entries.length) throw new RangeError(`No quiz bank named '${notebook}'.`);
  const banks = await Promise.all(entries.map((b) => fetchJson(`${base}${b.file}`)));
  const store = new ProgressStore(storage);
  const remembered = globalThis.localStorage?.getItem?.("bertedu-language");
  const pageLang = (document.documentElement.lang || "").split("-")[0];
  let current = lang || remembered || (uiData.languages.includes(pageLang) ? pageLang : uiData.languages[0]);
  const draw = () => {
    const ui = uiData.ui;
    const opts = { lang: current, ui, store, typeset };
    root.replaceChildren();
    const switcher = el("div", { class: "bertedu-language", role: "group", "aria-label": t(ui, "language_tooltip", current) },
      ...uiData.languages.map((code) => el("button", { type: "button", "aria-pressed": String(code === current), onclick: () => {
        current = code;
        try {
          globalThis.localStorage?.setItem("bertedu-language", code);
        } catch {
          // the choice is then not remembered
        }
        draw();
      } }, t(uiData.ui, "language_label", code))));
    root.append(switcher);
    for (const bank of banks) {
      const section = el("section", { class: "bertedu-bank", "data-notebook": bank.notebook }, el("h2", {}, pick(bank.title, current)));
      root.append(section);
      bank.questions.forEach((q, i) => {
        section.append(el("p", { class: "bertedu-number" }, t(ui, "question_number", current, { i: i + 1, n: bank.questions.length })));
        renderQuestion(section, { ...q, notebook: bank.notebook }, { ...opts, notebook: bank.notebook });
      });
      if (bank.flashcards.length) {
        renderDeck(section, bank.flashcards, { ...opts, notebook: bank.notebook, deckTitle: pick(bank.title, current) });
      }
    }
    renderProgress(root, banks, opts);
  };
  draw();
  return { store, banks, setLanguage: (code) => { current = code; draw(); } };
}
