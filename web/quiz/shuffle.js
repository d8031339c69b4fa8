// The order in which a student sees a question's options, in the browser: the rule of
// bertedu/teaching/quiz/shuffle.py, so a web page and a notebook show one student the same order.
//
// Options are sorted by the SHA-256 (hex) of "student id/notebook/question id/option id": stable for one student
// and question (no random state, only ids), different between students, and different between the questions of
// one student (the question's id is in the key). Grading, progress and exports never see this order: they name
// options by id. web/quiz/shuffle_cases.json holds (student, notebook, question, options) -> order rows that both
// tests/test_quiz_shuffle.py (Python) and web/quiz/shuffle.test.mjs (node) check.
//
// The student id is a random token kept in localStorage ("bertedu-student-id"), made on the first visit, the
// browser's counterpart of $BERTEDU_HOME/student-id; an export carries it ("student") and is named by it.
// SHA-256 is computed here in plain JavaScript: crypto.subtle exists only in secure contexts (https or
// localhost), and a class server may serve the site over plain http.

export const STUDENT_KEY = "bertedu-student-id";
const TOKEN = /^[A-Za-z0-9._@-]{1,128}$/; // shuffle.py's rule for a student id

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

/** SHA-256 of a string's UTF-8 bytes, as 64 lowercase hex digits (Python's hashlib.sha256(...).hexdigest()). */
export function sha256Hex(text) {
  const bytes = new TextEncoder().encode(text);
  const total = Math.ceil((bytes.length + 9) / 64) * 64;
  const data = new Uint8Array(total);
  data.set(bytes);
  data[bytes.length] = 0x80;
  const view = new DataView(data.buffer);
  view.setUint32(total - 8, Math.floor((bytes.length * 8) / 2 ** 32));
  view.setUint32(total - 4, (bytes.length * 8) >>> 0);
  const h = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Uint32Array(64);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  for (let at = 0; at < total; at += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(at + 4 * i);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    let [a, b, c, d, e, f, g, k] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
      const t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      [k, g, f, e, d, c, b, a] = [g, f, e, (d + t1) >>> 0, c, b, a, (t1 + t2) >>> 0];
    }
    [a, b, c, d, e, f, g, k].forEach((x, i) => {
      h[i] = (h[i] + x) >>> 0;
    });
  }
  return Array.from(h, (x) => x.toString(16).padStart(8, "0")).join("");
}

/**
 * The bank positions of a question's options in the order `student` sees them (shuffle.py's option_order):
 * sorted by SHA-256 of "student/notebook/question/option". Fill-in questions (no options): [].
 */
export function optionOrder(student, notebook, questionId, optionIds) {
  if (typeof student !== "string" || !student) throw new RangeError(`A student id is a non-empty string, got ${JSON.stringify(student)}.`);
  const keys = optionIds.map((id) => sha256Hex(`${student}/${notebook}/${questionId}/${id}`));
  return optionIds.map((_, i) => i).sort((i, j) => (keys[i] < keys[j] ? -1 : keys[i] > keys[j] ? 1 : 0));
}

function newToken() {
  const bytes = new Uint8Array(16);
  if (globalThis.crypto?.getRandomValues) globalThis.crypto.getRandomValues(bytes);
  else bytes.forEach((_, i) => { bytes[i] = Math.floor(Math.random() * 256); });
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * This browser's student id: the token kept under STUDENT_KEY in `storage` (default localStorage), made on first
 * use (32 hex digits, as shuffle.py makes one). Never throws: when the browser keeps nothing, the id lasts as long
 * as the page (the order then changes between visits, which a stored id prevents).
 */
export function studentId(storage = globalThis.localStorage) {
  let kept = null;
  try {
    kept = storage ? storage.getItem(STUDENT_KEY) : null;
  } catch {
    storage = null; // the browser keeps nothing: a token for this page only
  }
  if (kept && TOKEN.test(kept)) return kept;
  const token = storage ? newToken() : (studentId.page ??= newToken());
  try {
    storage?.setItem(STUDENT_KEY, token);
  } catch {
    return (studentId.page ??= token);
  }
  return token;
}
