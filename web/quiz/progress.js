// Quiz progress in the browser (localStorage), in the layout of bertedu/teaching/quiz/store.py, so that an export
// from the web pages is read by the class report (python -m bertedu.teaching.quiz.report) like one from a notebook:
//
//   {"version": 1,
//    "notebooks": {"03_masking_strategy": {
//        "questions": {"select-fraction": {"attempts": 2, "first": 0.0, "best": 1.0, "last": 1.0, "updated": "...",
//                      "answers": [{"answer": ["c"], "score": 0.0, "at": "..."}, ...]}},
//        "cards": {"mask-80-10-10": {"known": true, "updated": "..."}}}}}
//   an export adds "exported": "<time>" and "student": "<the browser's id>" (shuffle.js), the id the class
//   report counts a student by.
//
// Every change re-reads the stored progress first (another tab may have written), applies itself and writes back.
// A damaged value is never thrown away: it is kept under "<key>.corrupt-YYYYMMDD-HHMMSS" and a fresh progress
// starts; `problem` says so. When the browser refuses to store (private mode, full quota), grading still works and
// `problem` says why nothing is saved.

import { pyStrip } from "./grader.js";

export const VERSION = 1;
export const MAX_ANSWERS = 50; // answers kept per question (the oldest are dropped; "first" keeps the first score)
export const MAX_ANSWER_TEXT = 200; // characters kept of one typed answer
export const MAX_ANSWER_PARTS = 100; // option indices or blanks in one answer
export const STORAGE_KEY = "bertedu-progress";

const pad = (n) => String(n).padStart(2, "0");

/** Local time as store.py writes it: 2026-11-27T12:05:09. */
export function now(date = new Date()) {
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}

function stamp(date = new Date()) {
  return now(date).replaceAll("-", "").replaceAll(":", "").replace("T", "-");
}

function isScore(v) {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 && v <= 1;
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const isWhole = (v) => Number.isInteger(v) && typeof v === "number";

function answerProblem(answer) {
  if (!Array.isArray(answer) || answer.length > MAX_ANSWER_PARTS) {
    return `an answer must be a list of at most ${MAX_ANSWER_PARTS} items`;
  }
  if (answer.every((a) => isWhole(a) && a >= 0) || answer.every((a) => typeof a === "string")) return null;
  return "an answer must hold option indices (whole numbers >= 0) or typed strings";
}

function entryProblem(entry) {
  if (!isObject(entry)) return "is not an object";
  if (!(isWhole(entry.attempts) && entry.attempts >= 1)) {
    return `'attempts' must be a whole number >= 1, got ${JSON.stringify(entry.attempts)}`;
  }
  for (const key of ["best", "last", "first"]) {
    if ((key in entry || key !== "first") && !isScore(entry[key])) {
      return `'${key}' must be a number between 0 and 1, got ${JSON.stringify(entry[key])}`;
    }
  }
  if ("updated" in entry && typeof entry.updated !== "string") return "'updated' must be a string";
  const answers = "answers" in entry ? entry.answers : [];
  if (!Array.isArray(answers)) return "'answers' must be a list";
  for (const [n, item] of answers.entries()) {
    if (!isObject(item)) return `answer ${n} is not an object`;
    const problem = answerProblem(item.answer);
    if (problem) return `answer ${n}: ${problem}`;
    if (!isScore(item.score)) return `answer ${n}: 'score' must be a number between 0 and 1`;
    if ("at" in item && typeof item.at !== "string") return `answer ${n}: 'at' must be a string`;
  }
  return null;
}

/** What is wrong with parsed progress data (store.py's data_problem), or null when it is valid. */
export function dataProblem(data) {
  if (!isObject(data)) return "the top level is not a JSON object";
  if (data.version !== VERSION) {
    return `unknown version ${JSON.stringify(data.version)} (this page reads version ${VERSION})`;
  }
  if (!isObject(data.notebooks)) return "'notebooks' is not an object";
  for (const [name, nb] of Object.entries(data.notebooks)) {
    if (!isObject(nb)) return `notebook '${name}' is not an object`;
    const questions = "questions" in nb ? nb.questions : {};
    if (!isObject(questions)) return `'questions' of notebook '${name}' is not an object`;
    for (const [qid, entry] of Object.entries(questions)) {
      const found = entryProblem(entry);
      if (found) return `question ${name}/${qid}: ${found}`;
    }
    const cards = "cards" in nb ? nb.cards : {};
    if (!isObject(cards)) return `'cards' of notebook '${name}' is not an object`;
    for (const [cid, entry] of Object.entries(cards)) {
      if (!(isObject(entry) && typeof entry.known === "boolean")) return `card ${name}/${cid}: 'known' must be true or false`;
      if ("updated" in entry && typeof entry.updated !== "string") return `card ${name}/${cid}: 'updated' must be a string`;
    }
  }
  return null;
}

/**
 * The stored form of an answer (store.py's answer_record): option ids (render.js records ids, never the place an
 * option was shown in) or typed blanks → an array of strings, stripped and cut to MAX_ANSWER_TEXT characters; whole
 * numbers (positions, as in files saved before options had ids) → an array of numbers. null stays null.
 */
export function answerRecord(answer) {
  if (answer === null || answer === undefined) return null;
  const items = typeof answer === "string" || typeof answer === "number" ? [answer] : Array.from(answer);
  if (items.length > MAX_ANSWER_PARTS) throw new RangeError(`An answer has at most ${MAX_ANSWER_PARTS} parts, got ${items.length}.`);
  if (items.every((a) => isWhole(a) && a >= 0)) return items.map(Number);
  if (items.every((a) => typeof a === "string")) return items.map((a) => Array.from(pyStrip(a)).slice(0, MAX_ANSWER_TEXT).join(""));
  throw new RangeError(`An answer is a list of option indices or of typed strings, got ${JSON.stringify(answer)}.`);
}

const empty = () => ({ version: VERSION, notebooks: {} });

/** A Map-backed stand-in for localStorage (node, tests, or a browser that has none). */
export class MemoryStorage {
  constructor() {
    this.items = new Map();
  }
  getItem(key) {
    return this.items.has(key) ? this.items.get(key) : null;
  }
  setItem(key, value) {
    this.items.set(key, String(value));
  }
  removeItem(key) {
    this.items.delete(key);
  }
}

export class ProgressStore {
  /** Progress kept under `key` of `storage` (default: the page's localStorage). */
  constructor(storage = globalThis.localStorage, key = STORAGE_KEY) {
    this.storage = storage || new MemoryStorage();
    this.key = key;
    this.problem = null;
    this.data = this.read();
  }

  /** The stored progress, validated; a damaged value is kept aside under another key. Never throws. */
  read() {
    let raw;
    try {
      raw = this.storage.getItem(this.key);
    } catch (err) {
      this.problem = `The browser does not let this page read its storage (${err.message}): answers are graded but not saved.`;
      return empty();
    }
    if (raw === null) return empty();
    let data = null;
    let found;
    try {
      data = JSON.parse(raw);
      found = dataProblem(data);
    } catch (err) {
      found = `not valid JSON (${err.message})`;
    }
    if (!found) return data;
    const aside = `${this.key}.corrupt-${stamp()}`;
    try {
      this.storage.setItem(aside, raw);
      this.storage.removeItem(this.key);
      this.problem = `The saved quiz progress was damaged (${found}), so it was kept as ${aside} and a fresh progress was started.`;
    } catch (err) {
      this.problem = `The saved quiz progress is damaged (${found}) and could not be kept aside (${err.message}).`;
    }
    return empty();
  }

  update(change) {
    const data = this.read();
    const out = change(data);
    this.data = data;
    try {
      this.storage.setItem(this.key, JSON.stringify(data));
    } catch (err) {
      this.problem = `Your answer is graded but not saved: the browser refused to store it (${err.message}).`;
    }
    return out;
  }

  /** Count one graded attempt with `score` in [0, 1] and what was answered; returns the updated entry. */
  recordAttempt(notebook, questionId, score, answer = null) {
    if (typeof notebook !== "string" || !notebook) throw new RangeError("The notebook must be a non-empty string.");
    if (typeof questionId !== "string" || !questionId) throw new RangeError("The question id must be a non-empty string.");
    if (!isScore(score)) throw new RangeError(`A score is a number between 0 and 1, got ${JSON.stringify(score)}.`);
    const record = answerRecord(answer);
    const at = now();
    return this.update((data) => {
      const nb = (data.notebooks[notebook] ??= {});
      const questions = (nb.questions ??= {});
      const entry = (questions[questionId] ??= { attempts: 0, best: 0.0, last: 0.0 });
      if (entry.attempts === 0) entry.first = score;
      entry.attempts += 1;
      entry.last = score;
      entry.best = Math.max(entry.best, score);
      entry.updated = at;
      if (record !== null) {
        entry.answers ??= [];
        entry.answers.push({ answer: record, score, at });
        entry.answers.splice(0, Math.max(0, entry.answers.length - MAX_ANSWERS));
      }
      return structuredClone(entry);
    });
  }

  /** Remember whether flashcard `cardId` is known. */
  markCard(notebook, cardId, known) {
    if (typeof known !== "boolean") throw new RangeError(`known must be true or false, got ${JSON.stringify(known)}.`);
    this.update((data) => {
      const nb = (data.notebooks[notebook] ??= {});
      (nb.cards ??= {})[cardId] = { known, updated: now() };
    });
  }

  /** The stored entry of a question, or null. */
  question(notebook, questionId) {
    return this.data.notebooks[notebook]?.questions?.[questionId] ?? null;
  }

  /** Whether a card was last marked known (null: never marked). */
  card(notebook, cardId) {
    const entry = this.data.notebooks[notebook]?.cards?.[cardId];
    return entry ? entry.known : null;
  }

  /** One row per bank: answered questions, sum of best scores, known cards (store.py's summary). */
  summary(banks) {
    return banks.map((bank) => {
      const nb = this.data.notebooks[bank.notebook] || {};
      const qs = nb.questions || {};
      const cards = nb.cards || {};
      const ids = bank.questions.map((q) => q.id);
      return {
        notebook: bank.notebook,
        title: bank.title,
        answered: ids.filter((id) => id in qs).length,
        total: ids.length,
        score: ids.filter((id) => id in qs).reduce((s, id) => s + qs[id].best, 0),
        cardsKnown: bank.flashcards.filter((c) => cards[c.id]?.known === true).length,
        cardsTotal: bank.flashcards.length,
      };
    });
  }

  /**
   * The export a student hands in: the stored layout plus "exported" and, given one, "student" (the id the class
   * report counts a student by: two exports of one student count once), as JSON text.
   */
  exportJson(student = null) {
    this.data = this.read();
    const extra = student ? { student, exported: now() } : { exported: now() };
    return `${JSON.stringify({ ...this.data, ...extra }, null, 1)}\n`;
  }

  /** Erase the progress of `notebook` (or of every notebook); returns how many notebooks were erased. */
  reset(notebook = null) {
    return this.update((data) => {
      if (notebook === null) {
        const n = Object.keys(data.notebooks).length;
        data.notebooks = {};
        return n;
      }
      const had = notebook in data.notebooks;
      delete data.notebooks[notebook];
      return had ? 1 : 0;
    });
  }
}
