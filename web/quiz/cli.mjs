// Run the JavaScript grader from another program: `node web/quiz/cli.mjs < request.json > reply.json`.
//
// The request is one JSON object; each key present is one job, and the reply has the same keys:
//   casefold:  [string]                -> [string]            (casefold)
//   normalize: [[string, caseSensitive]] -> [string]          (normalizeText)
//   parse:     [[string, unit | null]] -> [number | null]     (parseNumber)
//   grade:     [{question, answer, lang}] -> [{result, lines, error}]  (grade, resultLines)
//   solution:  [{question, lang}]      -> [rows]              (solutionLines)
//   correct:   [question]              -> [answer]            (correctAnswer)
//   format:    [number]                -> [string]            (formatNumber)
//   progress:  [{op: "attempt", notebook, id, score, answer} | {op: "card", notebook, id, known}]
//                                      -> the export's JSON text (ProgressStore, progress.js)
//   markdown:  [string]                -> [string]            (markdownToHtml, markdown.js)
//   order:     [[student, notebook, question id, [option id]]] -> [[bank position]]  (optionOrder, shuffle.js)
//   sha256:    [string]                -> [hex string]        (sha256Hex, shuffle.js)
// "student", when given, goes into the progress export (as the page's Export button writes it).
// "ui" holds the quiz's UI strings (tools/export_banks.py writes them) for the jobs that produce text.
// tests/test_web_quiz.py uses it to compare this grader with the Python one.

import { readFileSync } from "node:fs";
import {
  casefold,
  correctAnswer,
  formatNumber,
  grade,
  normalizeText,
  parseNumber,
  resultLines,
  solutionLines,
} from "./grader.js";
import { markdownToHtml } from "./markdown.js";
import { MemoryStorage, ProgressStore } from "./progress.js";
import { optionOrder, sha256Hex } from "./shuffle.js";

const request = JSON.parse(readFileSync(0, "utf8"));
const ui = request.ui || {};
const reply = {};

if (request.casefold) reply.casefold = request.casefold.map((s) => casefold(s));
if (request.normalize) {
  reply.normalize = request.normalize.map(([s, caseSensitive]) => normalizeText(s, { caseSensitive }));
}
if (request.parse) reply.parse = request.parse.map(([s, unit]) => parseNumber(s, unit));
if (request.markdown) reply.markdown = request.markdown.map((s) => markdownToHtml(s));
if (request.progress) {
  const store = new ProgressStore(new MemoryStorage());
  for (const step of request.progress) {
    if (step.op === "attempt") store.recordAttempt(step.notebook, step.id, step.score, step.answer);
    else store.markCard(step.notebook, step.id, step.known);
  }
  reply.progress = store.exportJson(request.student || null);
}
if (request.order) reply.order = request.order.map(([student, notebook, id, options]) => optionOrder(student, notebook, id, options));
if (request.sha256) reply.sha256 = request.sha256.map((s) => sha256Hex(s));
if (request.format) reply.format = request.format.map((x) => formatNumber(x));
if (request.correct) reply.correct = request.correct.map((q) => correctAnswer(q));
if (request.solution) reply.solution = request.solution.map(({ question, lang }) => solutionLines(question, lang, ui));
if (request.grade) {
  reply.grade = request.grade.map(({ question, answer, lang }) => {
    try {
      const result = grade(question, answer);
      return { result, lines: request.ui ? resultLines(result, question, lang || "en", ui) : null, error: null };
    } catch (err) {
      return { result: null, lines: null, error: `${err.name}: ${err.message}` };
    }
  });
}
process.stdout.write(JSON.stringify(reply));
