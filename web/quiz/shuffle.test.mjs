// node --test web/quiz/shuffle.test.mjs: each student's option order (shuffle.js), the rule of
// bertedu/teaching/quiz/shuffle.py, checked on the table both languages share (shuffle_cases.json).

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { MemoryStorage } from "./progress.js";
import { STUDENT_KEY, optionOrder, sha256Hex, studentId } from "./shuffle.js";

const CASES = JSON.parse(readFileSync(new URL("./shuffle_cases.json", import.meta.url), "utf8")).cases;

test("SHA-256 in plain JavaScript gives node's digest (empty, ASCII, UTF-8, block edges)", () => {
  const texts = ["", "abc", "注意力-头/ü", "a".repeat(55), "a".repeat(56), "a".repeat(64), "x".repeat(1000)];
  for (const text of texts) {
    assert.equal(sha256Hex(text), createHash("sha256").update(text, "utf8").digest("hex"), JSON.stringify(text.slice(0, 20)));
  }
});

test("every row of the shared table: the order Python's option_order gives", () => {
  assert.ok(CASES.length >= 20, "the table has rows");
  for (const c of CASES) {
    assert.deepEqual(optionOrder(c.student, c.notebook, c.question, c.options), c.order, `${c.student} ${c.notebook}/${c.question}`);
  }
});

test("one student's order changes from question to question (the question is in the key)", () => {
  const ids = ["a", "b", "c", "d"];
  const orders = new Set();
  for (let k = 0; k < 20; k++) orders.add(optionOrder("alice", "06_mini_pretraining", `q${k}`, ids).join());
  assert.ok(orders.size > 5, `only ${orders.size} orders over 20 questions`);
});

test("a student id is made once, kept in the storage, and is a valid token", () => {
  const storage = new MemoryStorage();
  const first = studentId(storage);
  assert.match(first, /^[0-9a-f]{32}$/);
  assert.equal(storage.getItem(STUDENT_KEY), first);
  assert.equal(studentId(storage), first);
  assert.notEqual(studentId(new MemoryStorage()), first, "another browser, another id");
  storage.setItem(STUDENT_KEY, "not a token!");
  assert.match(studentId(storage), /^[0-9a-f]{32}$/, "a damaged id is replaced");
});
