// node --test web/quiz/progress.test.mjs: quiz progress in the browser's storage (progress.js).

import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_ANSWERS, MemoryStorage, ProgressStore, STORAGE_KEY, answerRecord, dataProblem } from "./progress.js";

test("attempts keep first, best, last and the answers; a second store sees them", () => {
  const storage = new MemoryStorage();
  const store = new ProgressStore(storage);
  store.recordAttempt("03_masking_strategy", "select-fraction", 0.0, 2);
  const entry = store.recordAttempt("03_masking_strategy", "select-fraction", 1.0, [0]);
  assert.equal(entry.attempts, 2);
  assert.deepEqual([entry.first, entry.best, entry.last], [0, 1, 1]);
  assert.deepEqual(entry.answers.map((a) => a.answer), [[2], [0]]);
  store.recordAttempt("03_masking_strategy", "select-fraction", 0.5, ["  W  ", "0.3"]);
  const again = new ProgressStore(storage);
  assert.deepEqual(again.question("03_masking_strategy", "select-fraction").answers[2].answer, ["W", "0.3"]);
  assert.equal(again.question("03_masking_strategy", "select-fraction").best, 1);
  assert.equal(dataProblem(JSON.parse(storage.getItem(STORAGE_KEY))), null);
});

test("only the last answers are kept", () => {
  const store = new ProgressStore(new MemoryStorage());
  for (let i = 0; i < MAX_ANSWERS + 5; i++) store.recordAttempt("nb", "q", 0, [i]);
  const entry = store.question("nb", "q");
  assert.equal(entry.attempts, MAX_ANSWERS + 5);
  assert.equal(entry.answers.length, MAX_ANSWERS);
  assert.deepEqual(entry.answers[0].answer, [5]);
  assert.equal(entry.first, 0);
});

test("cards, summary, export and reset", () => {
  const store = new ProgressStore(new MemoryStorage());
  store.markCard("nb", "c1", true);
  store.markCard("nb", "c2", false);
  store.recordAttempt("nb", "q1", 0.5, [1, 2]);
  const bank = { notebook: "nb", title: {}, questions: [{ id: "q1" }, { id: "q2" }], flashcards: [{ id: "c1" }, { id: "c2" }] };
  assert.deepEqual(store.summary([bank])[0], {
    notebook: "nb", title: {}, answered: 1, total: 2, score: 0.5, cardsKnown: 1, cardsTotal: 2,
  });
  const exported = JSON.parse(store.exportJson());
  assert.match(exported.exported, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
  assert.equal(dataProblem(exported), null);
  assert.equal(store.card("nb", "c1"), true);
  assert.equal(store.reset("nb"), 1);
  assert.equal(store.card("nb", "c1"), null);
});

test("a damaged value is kept aside and a fresh progress starts", () => {
  const storage = new MemoryStorage();
  storage.setItem(STORAGE_KEY, '{"version": 1, "notebooks": {"nb": {"questions": {"q": {"attempts": 0}}}}}');
  const store = new ProgressStore(storage);
  assert.match(store.problem, /damaged .*attempts/);
  const aside = [...storage.items.keys()].find((k) => k.startsWith(`${STORAGE_KEY}.corrupt-`));
  assert.ok(aside, "the damaged value must be kept");
  assert.deepEqual(store.data, { version: 1, notebooks: {} });
  storage.setItem(STORAGE_KEY, "{not json");
  assert.match(new ProgressStore(storage).problem, /not valid JSON/);
});

test("a browser that refuses to store: graded, not saved, and told", () => {
  const storage = new MemoryStorage();
  storage.setItem = () => {
    throw new Error("QuotaExceededError");
  };
  const store = new ProgressStore(storage);
  const entry = store.recordAttempt("nb", "q", 1, [0]);
  assert.equal(entry.attempts, 1);
  assert.match(store.problem, /not saved.*QuotaExceededError/);
});

test("answers are checked like store.py's answer_record", () => {
  assert.deepEqual(answerRecord(3), [3]);
  assert.deepEqual(answerRecord("x".repeat(300))[0].length, 200);
  assert.equal(answerRecord(null), null);
  assert.throws(() => answerRecord([1, "a"]), RangeError);
  assert.throws(() => answerRecord([-1]), RangeError);
  assert.throws(() => new ProgressStore(new MemoryStorage()).recordAttempt("nb", "q", 1.5), RangeError);
});

test("an export carries the student's id and is named by it (the class report counts a student by the id)", async () => {
  const { exportFileName } = await import("./render.js");
  const store = new ProgressStore(new MemoryStorage());
  store.recordAttempt("nb", "q", 1, ["a"]);
  const exported = JSON.parse(store.exportJson("0f3c9a5e2b7d4c1a8e6f0b2d4c6a8e1f"));
  assert.equal(exported.student, "0f3c9a5e2b7d4c1a8e6f0b2d4c6a8e1f");
  assert.equal(dataProblem(exported), null);
  assert.equal(exportFileName(exported.student), "bertedu-progress-0f3c9a5e2b7d4c1a8e6f0b2d4c6a8e1f.json");
  assert.equal("student" in JSON.parse(store.exportJson()), false);
});
