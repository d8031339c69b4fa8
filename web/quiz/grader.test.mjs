// node --test web/quiz/grader.test.mjs: the shared grading cases (grading_cases.json) through grader.js.
// The Python grader runs the same table in tests/test_web_quiz.py, which also starts this file.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { casefold, formatNumber, grade, normalizeText, parseNumber, roundHalfEven } from "./grader.js";

const table = JSON.parse(readFileSync(new URL("./grading_cases.json", import.meta.url), "utf8"));

function question(id) {
  return { id, notebook: "99_web_cases", ...table.questions[id] };
}

for (const c of table.cases) {
  test(c.name, () => {
    const q = question(c.question);
    if (c.expect.error) {
      assert.throws(() => grade(q, c.answer), RangeError);
      return;
    }
    const r = grade(q, c.answer);
    assert.equal(r.answered, c.expect.answered, "answered");
    assert.equal(r.isCorrect, c.expect.correct, "correct");
    assert.ok(Math.abs(r.score - c.expect.score) <= 1e-12, `score ${r.score} != ${c.expect.score}`);
    if ("percent" in c.expect) assert.equal(r.percent, c.expect.percent, "percent");
    if ("options" in c.expect) assert.deepEqual(r.options.map((o) => o.verdict), c.expect.options, "options");
    if ("blanks" in c.expect) {
      assert.deepEqual(r.blanks.map((b) => [b.correct, b.readable]), c.expect.blanks, "blanks");
    }
  });
}

test("every question of the table has a case", () => {
  const used = new Set(table.cases.map((c) => c.question));
  assert.deepEqual([...used].sort(), Object.keys(table.questions).sort());
});

test("Python's round: halves to even", () => {
  assert.deepEqual([0.5, 1.5, 2.5, 12.5, 13.5, 66.66666666666666, 33.33333333333333].map(roundHalfEven), [0, 2, 2, 12, 14, 67, 33]);
});

test("helpers used by the renderer", () => {
  assert.equal(casefold("Straße ΣΑΣ"), "strasse σασ");
  assert.equal(normalizeText(" Left – to – Right. "), "lefttoright");
  assert.equal(parseNumber("15%", "%"), 15);
  assert.equal(parseNumber("1.1亿"), 110000000.00000001);
  assert.equal(parseNumber("nan"), null);
  assert.deepEqual([0.0001, 0.24, 30000, 1e-5, 1 / 3].map(formatNumber), ["0.0001", "0.24", "30000", "1e-05", "0.3333333333"]);
});
