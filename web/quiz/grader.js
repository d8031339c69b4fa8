// The quiz grader in JavaScript: the same rules as bertedu/teaching/quiz/core.py, for pages without a kernel.
//
// A dependency-free ES module, usable in a browser and in node. It grades a question of a bank, either as written
// in a bank file (bertedu/teaching/quiz/banks/*.yaml, read as JSON) or as exported by tools/export_banks.py:
//
//   grade(question, answer) -> {answered, score, isCorrect, percent, options, blanks}
//
// Answers by question type, as in Python: "single" an option, by index in the bank's order or by id (null = nothing
// chosen), "multiple" an array of options (empty = nothing chosen), "fill" an array of strings, one per blank (a string
// for a one-blank question).
// A single-choice answer scores 1 or 0; a multiple-choice answer (right picks - wrong picks) / correct options, never
// below 0, correct only when it picks exactly the correct options; a fill-in answer the fraction of right blanks.
// An empty answer is not graded (answered: false). An answer of the wrong shape throws a RangeError.
//
// Texts (verdicts, feedback lines, solutions) need the quiz's UI strings, exported from
// bertedu/language/words.py by tools/export_banks.py: resultLines(result, question, lang, ui) gives the lines
// Python's str(Result) gives. web/quiz/grading_cases.json is run through this file and through the Python grader
// (tests/test_web_quiz.py, web/quiz/grader.test.mjs): both must give every expected verdict.

// Sentence punctuation stripped from both ends of a typed answer (after NFKC, so ，→, and ：→:).
const EDGE_PUNCT = " \t\r\n.,;:!?。，、；：！？\"'“”‘’「」『』《》〈〉";
const EDGE_PUNCT_NO_DOT = EDGE_PUNCT.replace(".", "");
// Python's whitespace (str.isspace and the \s of re), which is not JavaScript's \s (no U+FEFF; U+001C-U+001F, U+0085).
const PY_SPACE = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const PY_SPACE_SET = new Set(
  "\t\n\v\f\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000" +
    Array.from({ length: 11 }, (_, i) => String.fromCharCode(0x2000 + i)).join(""),
);
// What a Chinese IME adds around a number (Python's _APPROX_PREFIX, _IME_DECIMAL, _MEASURE_WORD): "约 0.67", "0。67",
// "30 个", "30个词元", "4 层".
const APPROX_PREFIX = new RegExp(`^(?:≈|~|大约|约|近似)[${PY_SPACE}]*`, "u");
const IME_DECIMAL = /(?<=\p{Nd})。(?=\p{Nd})/gu;
const MEASURE_WORD = new RegExp(`(?<=[\\p{Nd}%万亿kKmMbB])[${PY_SPACE}]*(?:个词元|个|步|轮|次|维|层)$`, "u");
const DASHES = /[\u2010\u2011\u2012\u2013\u2014\u2212\ufe63\uff0d]/gu;
// Python's [^\W\d_] (a letter, or a number that is not a decimal digit) and \w, in Unicode property classes.
const WORD_HYPHEN = /(?<=[\p{L}\p{Nl}\p{No}])-(?=[\p{L}\p{Nl}\p{No}])/gu;
const SPACE_DASH = new RegExp(`[${PY_SPACE}]*-[${PY_SPACE}]*`, "gu");
const SPACES = new RegExp(`[${PY_SPACE}]+`, "gu");

// Suffix multipliers for numbers: 24% = 0.24, 110M = 110e6, 30k = 30e3, 1.1亿 = 1.1e8 ...
const MULTIPLIERS = { "%": 0.01, k: 1e3, m: 1e6, b: 1e9, 万: 1e4, 亿: 1e8 };
// ... and as words (tried in this order, as in Python): 800 million, 2.5 billion, 8 百万.
const WORD_MULTIPLIERS = [
  ["thousand", 1e3],
  ["million", 1e6],
  ["billion", 1e9],
  ["百万", 1e6],
  ["千", 1e3],
];
const NUMBER = /^[+-]?(\p{Nd}+(\.\p{Nd}*)?|\.\p{Nd}+)([eE][+-]?\p{Nd}+)?$/u;

// Python's str.casefold where it differs from a character's lowercase (Unicode 14), except two ranges casefold()
// computes: Cherokee (U+13F8-U+13FD, U+AB70-U+ABBF fold to the capitals) and Greek with a subscript iota
// (U+1F80-U+1FAF). Generated with:
//   {c: c.casefold() for c in map(chr, range(0x110000)) if c.casefold() != c.lower()}, without the ranges below
// tests/test_web_quiz.py compares casefold() with Python's on every assigned code point.
const FOLD = {
  "\u00b5": "\u03bc", "\u00df": "ss", "\u0149": "\u02bcn", "\u017f": "s", "\u01f0": "j\u030c",
  "\u0345": "\u03b9", "\u0390": "\u03b9\u0308\u0301", "\u03b0": "\u03c5\u0308\u0301", "\u03c2": "\u03c3",
  "\u03d0": "\u03b2", "\u03d1": "\u03b8", "\u03d5": "\u03c6", "\u03d6": "\u03c0", "\u03f0": "\u03ba",
  "\u03f1": "\u03c1", "\u03f5": "\u03b5", "\u0587": "\u0565\u0582", "\u1c80": "\u0432", "\u1c81": "\u0434",
  "\u1c82": "\u043e", "\u1c83": "\u0441", "\u1c84": "\u0442", "\u1c85": "\u0442", "\u1c86": "\u044a",
  "\u1c87": "\u0463", "\u1c88": "\ua64b", "\u1e96": "h\u0331", "\u1e97": "t\u0308", "\u1e98": "w\u030a",
  "\u1e99": "y\u030a", "\u1e9a": "a\u02be", "\u1e9b": "\u1e61", "\u1e9e": "ss", "\u1f50": "\u03c5\u0313",
  "\u1f52": "\u03c5\u0313\u0300", "\u1f54": "\u03c5\u0313\u0301", "\u1f56": "\u03c5\u0313\u0342",
  "\u1fb2": "\u1f70\u03b9", "\u1fb3": "\u03b1\u03b9", "\u1fb4": "\u03ac\u03b9", "\u1fb6": "\u03b1\u0342",
  "\u1fb7": "\u03b1\u0342\u03b9", "\u1fbc": "\u03b1\u03b9", "\u1fbe": "\u03b9", "\u1fc2": "\u1f74\u03b9",
  "\u1fc3": "\u03b7\u03b9", "\u1fc4": "\u03ae\u03b9", "\u1fc6": "\u03b7\u0342", "\u1fc7": "\u03b7\u0342\u03b9",
  "\u1fcc": "\u03b7\u03b9", "\u1fd2": "\u03b9\u0308\u0300", "\u1fd3": "\u03b9\u0308\u0301",
  "\u1fd6": "\u03b9\u0342", "\u1fd7": "\u03b9\u0308\u0342", "\u1fe2": "\u03c5\u0308\u0300",
  "\u1fe3": "\u03c5\u0308\u0301", "\u1fe4": "\u03c1\u0313", "\u1fe6": "\u03c5\u0342",
  "\u1fe7": "\u03c5\u0308\u0342", "\u1ff2": "\u1f7c\u03b9", "\u1ff3": "\u03c9\u03b9", "\u1ff4": "\u03ce\u03b9",
  "\u1ff6": "\u03c9\u0342", "\u1ff7": "\u03c9\u0342\u03b9", "\u1ffc": "\u03c9\u03b9", "\ufb00": "ff",
  "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl", "\ufb05": "st", "\ufb06": "st",
  "\ufb13": "\u0574\u0576", "\ufb14": "\u0574\u0565", "\ufb15": "\u0574\u056b", "\ufb16": "\u057e\u0576",
  "\ufb17": "\u0574\u056d",
};
// U+1F80-U+1FAF: Greek with a subscript iota, folded to the letter without it followed by ι (two rows of 8 per 16).
const GREEK_IOTA_BASES = ["ἀ", "ἠ", "ὠ"];

/** Python's str.casefold(), one code point at a time (no final-sigma context, as casefold has none). */
export function casefold(text) {
  let out = "";
  for (const ch of String(text)) {
    const cp = ch.codePointAt(0);
    if (FOLD[ch] !== undefined) out += FOLD[ch];
    else if (cp >= 0x1f80 && cp <= 0x1faf) {
      const base = GREEK_IOTA_BASES[(cp - 0x1f80) >> 4].codePointAt(0) + (cp & 7);
      out += String.fromCodePoint(base) + "ι";
    } else if (cp >= 0xab70 && cp <= 0xabbf) out += String.fromCodePoint(cp - 0xab70 + 0x13a0);
    else if (cp >= 0x13f8 && cp <= 0x13fd) out += String.fromCodePoint(cp - 8);
    else if (cp >= 0x13a0 && cp <= 0x13f5) out += ch;
    else out += ch.toLowerCase();
  }
  return out;
}

/** Python's str.strip(chars): drop every character of `chars` (a string) from both ends. */
function strip(text, chars) {
  const set = chars instanceof Set ? chars : new Set(chars);
  const cps = Array.from(text);
  let a = 0;
  let b = cps.length;
  while (a < b && set.has(cps[a])) a++;
  while (b > a && set.has(cps[b - 1])) b--;
  return cps.slice(a, b).join("");
}

/** Python's str.strip() without arguments: Python's whitespace, not JavaScript's trim(). */
export function pyStrip(text) {
  return strip(String(text), PY_SPACE_SET);
}

/** The canonical form of a typed text answer, used on the answer and on every accepted alternative (normalize_text). */
export function normalizeText(answer, { caseSensitive = false } = {}) {
  let s = String(answer).normalize("NFKC");
  if (!caseSensitive) s = casefold(s);
  s = s.replace(DASHES, "-");
  s = strip(s, EDGE_PUNCT);
  s = s.replace(SPACE_DASH, "-"); // "left - to - right" → "left-to-right"
  s = s.replace(WORD_HYPHEN, "");
  s = s.replace(SPACES, "");
  return strip(s, EDGE_PUNCT);
}

/** A decimal digit of any script (Unicode Nd, which Python's float() reads) as an ASCII digit. */
function asciiDigits(text) {
  return text.replace(/\p{Nd}/gu, (ch) => {
    // Unicode puts each script's digits 0-9 in a run of ten (runs can touch): the position in the run is the value.
    let cp = ch.codePointAt(0);
    let k = 0;
    while (/\p{Nd}/u.test(String.fromCodePoint(cp - 1))) {
      cp -= 1;
      k += 1;
    }
    return String(k % 10);
  });
}

function endsWithLower(s, suffix) {
  return s.toLowerCase().endsWith(suffix);
}

function dropLast(s, n) {
  const cps = Array.from(s);
  return cps.slice(0, cps.length - n).join("");
}

/**
 * Read a typed number (parse_number); null when it is not one. Accepts 0.24, .24, 2.4e-1, １２, 30,000, 30 000,
 * 0,24, 3/4, ≈0.24, what a Chinese IME types (0。24, 约 0.24, 30 个), 24%, 30k, 110M, 1B, 3万, 1.1亿, 800 million. With `unit` ("%" or "M"), a suffix equal to the
 * unit is just the unit: with unit "%", 15 and 15% both read 15.
 */
export function parseNumber(answer, unit = null) {
  let s = pyStrip(String(answer).normalize("NFKC").replace(IME_DECIMAL, "."));
  s = strip(s, EDGE_PUNCT_NO_DOT);
  s = s.replace(APPROX_PREFIX, "");
  s = pyStrip(s.replace(MEASURE_WORD, ""));
  if (/^[^\n]*\p{Nd}\.\p{Nd}+\.$/u.test(s)) s = dropLast(s, 1); // "0.24." at the end of a sentence
  s = s.replace(DASHES, "-");
  if (unit) {
    const u = pyStrip(String(unit).normalize("NFKC"));
    if (u && endsWithLower(s, u.toLowerCase())) s = pyStrip(dropLast(s, Array.from(u).length));
  }
  let multiplier = 1.0;
  const word = WORD_MULTIPLIERS.find(
    ([w]) => endsWithLower(s, w) && pyStrip(dropLast(s, Array.from(w).length)),
  );
  const last = Array.from(s).pop();
  if (word) {
    multiplier = word[1];
    s = pyStrip(dropLast(s, Array.from(word[0]).length));
  } else if (s && Object.hasOwn(MULTIPLIERS, last.toLowerCase())) {
    multiplier = MULTIPLIERS[last.toLowerCase()];
    s = pyStrip(dropLast(s, 1));
  }
  s = s.replace(/(?<=\p{Nd})[ \u00a0_'](?=\p{Nd}{3}(?![\p{L}\p{N}_]))/gu, ""); // 30 000, 30_000, 30'000
  if (/^[+-]?\p{Nd}{1,3}(,\p{Nd}{3})+(\.\p{Nd}+)?$/u.test(s)) s = s.replaceAll(",", "");
  else if (/^[+-]?\p{Nd}+,\p{Nd}+$/u.test(s)) s = s.replace(",", ".");
  let value;
  if (s.includes("/")) {
    const cut = s.indexOf("/");
    const a = parseNumber(s.slice(0, cut));
    const b = parseNumber(s.slice(cut + 1));
    value = a === null || !b ? null : a / b;
  } else if (NUMBER.test(s)) {
    value = Number(asciiDigits(s));
  } else {
    return null;
  }
  if (value === null || !Number.isFinite(value)) return null;
  return value * multiplier;
}

/** |x - value| <= tolerance, with a hair of slack for binary floating point (number_matches). */
export function numberMatches(x, value, tolerance) {
  return Math.abs(x - value) <= tolerance + 1e-9 * Math.max(1.0, Math.abs(value));
}

/** Python's round() of a float: halves go to the even neighbour (round(12.5) = 12, round(13.5) = 14). */
export function roundHalfEven(x) {
  const f = Math.floor(x);
  const d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/** Python's format(x, ".{p}g"). */
function formatG(x, p) {
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  const exp = Number(x.toExponential(p - 1).split("e")[1]);
  if (exp < -4 || exp >= p) {
    const [mant, e] = x.toExponential(p - 1).split("e");
    const m = mant.includes(".") ? mant.replace(/\.?0+$/, "") : mant;
    const sign = e[0] === "-" ? "-" : "+";
    return `${m}e${sign}${e.replace(/^[+-]/, "").padStart(2, "0")}`;
  }
  const fixed = x.toFixed(Math.max(0, p - 1 - exp));
  return fixed.includes(".") ? fixed.replace(/\.?0+$/, "") : fixed;
}

/** A short, exact-looking form of a bank number (format_number): 0.24, 30000, 1e-04 → 0.0001. */
export function formatNumber(x) {
  x = Number(x);
  if (Number.isInteger(x) && Math.abs(x) < 1e15) return String(x === 0 ? 0 : x);
  return Math.abs(x) >= 1e-4 ? formatG(x, 10) : formatG(x, 6);
}

// ------------------------------------------------------------------------------------------- questions

/**
 * A blank as the grader uses it: `answers` (every accepted text, all languages) and `answersByLanguage`, from
 * either a bank file's blank (answers: [...] or {en: [...], zh: [...]}) or an exported one (answers_by_language).
 */
export function blankSpec(blank) {
  const raw = blank.answers;
  let answers = [];
  let byLanguage = {};
  if (blank.kind === "text") {
    if (raw && !Array.isArray(raw)) {
      for (const [lang, list] of Object.entries(raw)) byLanguage[lang] = (list || []).map(String);
      answers = [...new Set(Object.values(byLanguage).flat())];
    } else {
      answers = (raw || []).map(String);
      byLanguage = blank.answers_by_language || {};
    }
  }
  return {
    kind: blank.kind,
    label: blank.label || null,
    answers,
    answersByLanguage: byLanguage,
    caseSensitive: Boolean(blank.case_sensitive),
    value: blank.value === undefined || blank.value === null ? null : Number(blank.value),
    tolerance: blank.tolerance === undefined || blank.tolerance === null ? null : Number(blank.tolerance),
    unit: blank.unit || null,
  };
}

/** (correct, readable) for one blank (grade_blank); readable is false for a numeric blank given a non-number. */
export function gradeBlank(blank, given) {
  const b = blank.answersByLanguage ? blank : blankSpec(blank);
  given = String(given);
  if (b.kind === "numeric") {
    const x = parseNumber(given, b.unit);
    if (x === null) return [false, false];
    let ok = numberMatches(x, b.value, b.tolerance);
    if (!ok && b.unit === "%" && !given.includes("%") && Math.abs(x) <= 1) {
      ok = numberMatches(x * 100, b.value, b.tolerance); // 0.15 for "15 %"
    }
    const unitKey = pyStrip(b.unit || "").toLowerCase();
    const scale = Object.hasOwn(MULTIPLIERS, unitKey) ? MULTIPLIERS[unitKey] : 0;
    if (!ok && scale > 1 && Math.abs(x) >= scale) {
      ok = numberMatches(x / scale, b.value, b.tolerance); // unit "M": 800,000,000 or 0.8B or 8亿 for 800
    }
    return [ok, true];
  }
  const opts = { caseSensitive: b.caseSensitive };
  const got = normalizeText(given, opts);
  return [b.answers.some((a) => normalizeText(a, opts) === got), true];
}

function shapeError(question, message) {
  return new RangeError(`Question '${question.id}' ${message}`);
}

/** The id of the option that was at `position` before options had ids: a, b, ... z, then option-27 ... */
export function legacyOptionId(position) {
  if (!Number.isInteger(position) || position < 0) throw new RangeError(`An option position is a whole number >= 0, got ${position}.`);
  return position < 26 ? String.fromCharCode(97 + position) : `option-${position + 1}`;
}

/** The options' ids in bank order (an option without one is named by its position). */
export function optionIds(question) {
  return (question.options || []).map((o, i) => o.id || legacyOptionId(i));
}

/**
 * The bank positions an answer to a choice question picks, sorted, each once (choice_indices). Options are named by
 * index in question.options or by id (mixed is fine); a RangeError for the wrong shape or an option that is not there.
 */
export function choiceIndices(question, answer) {
  const n = question.options.length;
  const ids = optionIds(question);
  if (answer === null || answer === undefined) return [];
  let picks;
  if (question.type === "single") {
    if (Array.isArray(answer) || answer instanceof Set) {
      throw shapeError(question, `is single-choice: give one option index or id, got ${JSON.stringify(answer)}.`);
    }
    picks = [answer];
  } else {
    if (typeof answer === "string" || typeof answer[Symbol.iterator] !== "function") {
      throw shapeError(question, `is multiple-choice: give a list of option indices or ids, got ${JSON.stringify(answer)}.`);
    }
    picks = Array.from(answer);
  }
  const out = picks.map((i) => {
    if (typeof i === "string") {
      if (!ids.includes(i)) throw shapeError(question, `has no option '${i}'; its options are ${ids.join(", ")}.`);
      return ids.indexOf(i);
    }
    if (typeof i !== "number" || !Number.isInteger(i) || i < 0 || i >= n) {
      throw shapeError(question, `has options 0..${n - 1}; ${JSON.stringify(i)} is not one of them.`);
    }
    return i;
  });
  return [...new Set(out)].sort((a, b) => a - b);
}

function verdict(selected, correct) {
  if (selected) return correct ? "right" : "wrong";
  return correct ? "missed" : "unpicked";
}

/**
 * Grade `answer` to `question` (a bank question); see the top of this file. The result holds no text:
 * `percent` is the score as Python's verdict line rounds it, `options` (index, selected, correct, verdict) and
 * `blanks` (index, given, correct, readable) the per-part outcome. resultLines() turns it into words.
 */
export function grade(question, answer) {
  const base = { questionId: question.id, notebook: question.notebook || "", kind: question.type };
  if (question.type === "single" || question.type === "multiple") {
    const picks = choiceIndices(question, answer);
    if (picks.length === 0) return { ...base, answered: false, score: 0, isCorrect: false, percent: 0, options: [], blanks: [] };
    const ids = optionIds(question);
    const options = question.options.map((o, index) => {
      const selected = picks.includes(index);
      const correct = o.correct === true;
      return { index, id: ids[index], selected, correct, verdict: verdict(selected, correct) };
    });
    const nCorrect = options.filter((o) => o.correct).length;
    const right = options.filter((o) => o.verdict === "right").length;
    const wrong = options.filter((o) => o.verdict === "wrong").length;
    const isCorrect = right === nCorrect && wrong === 0;
    let score = isCorrect ? 1.0 : Math.max(0.0, (right - wrong) / nCorrect);
    if (question.type === "single") score = isCorrect ? 1.0 : 0.0;
    return { ...base, answered: true, score, isCorrect, percent: roundHalfEven(score * 100), options, blanks: [] };
  }
  if (question.type !== "fill") throw shapeError(question, `has an unknown type ${JSON.stringify(question.type)}.`);
  const blanks = question.blanks.map(blankSpec);
  let givens = typeof answer === "string" ? [answer] : Array.from(answer || []);
  if (givens.length !== blanks.length) {
    throw shapeError(question, `has ${blanks.length} blank(s); got ${givens.length} answer(s).`);
  }
  givens = givens.map((g) => (g === null || g === undefined ? "" : String(g)));
  if (givens.some((g) => !pyStrip(g))) {
    return { ...base, answered: false, score: 0, isCorrect: false, percent: 0, options: [], blanks: [] };
  }
  const out = blanks.map((blank, index) => {
    const [correct, readable] = gradeBlank(blank, givens[index]);
    return { index, given: pyStrip(givens[index]), correct, readable };
  });
  const score = out.filter((b) => b.correct).length / out.length;
  const isCorrect = out.every((b) => b.correct);
  return { ...base, answered: true, score, isCorrect, percent: roundHalfEven(score * 100), options: [], blanks: out };
}

/** The answer that scores 1 (correct_answer): an index, an array of indices, or one string per blank. */
export function correctAnswer(question) {
  const correct = question.options ? question.options.flatMap((o, i) => (o.correct ? [i] : [])) : [];
  if (question.type === "single") return correct[0];
  if (question.type === "multiple") return correct;
  return question.blanks.map(blankSpec).map((b) => (b.kind === "numeric" ? formatNumber(b.value) : b.answers[0]));
}

// ---------------------------------------------------------------------------------------------- words

/** The `lang` text of a bilingual {en, zh} mapping ("" for none; a plain string passes through). */
export function pick(text, lang) {
  if (text === null || text === undefined) return "";
  if (typeof text === "string") return text;
  return text[lang] || text.en || "";
}

/** The UI string `key` in `lang`, with {name} fields filled in (Python's str.format with names). */
export function t(ui, key, lang, fields = {}) {
  const entry = ui[key];
  if (!entry) throw new RangeError(`No UI string named '${key}'.`);
  return entry[lang].replace(/\{(\w+)\}/g, (m, name) => (name in fields ? String(fields[name]) : m));
}

/** How feedback names blank `index` (0-based): "Blank 1 (two right)", or "Blank 1" without a label (blank_title). */
export function blankTitle(blank, index, lang, ui) {
  if (blank.label) return t(ui, "blank_named", lang, { n: index + 1, label: pick(blank.label, lang) });
  return t(ui, "blank_label", lang, { n: index + 1 });
}

/** The label of blank `index`: the bank's label, else "Blank 1" / "空 1" (blank_label). */
export function blankLabel(blank, index, lang, ui) {
  return blank.label ? pick(blank.label, lang) : t(ui, "blank_label", lang, { n: index + 1 });
}

/** The accepted answer(s) of a blank as a solution shows them: "W or E" / "0.24 (± 0.005)" (expected_text). */
export function expectedText(blank, lang, ui) {
  const b = blank.answersByLanguage ? blank : blankSpec(blank);
  if (b.kind === "numeric") {
    const unit = b.unit ? ` ${b.unit}` : "";
    const tol = b.tolerance ? ` (± ${formatNumber(b.tolerance)})` : "";
    return `${formatNumber(b.value)}${unit}${tol}`;
  }
  const answers = [...(b.answersByLanguage[lang] || [])];
  const list = answers.length ? answers : [...b.answers];
  for (const a of b.answers) if (!list.includes(a)) list.push(a);
  return list.slice(0, 3).join(t(ui, "or", lang));
}

/** The one-line verdict: "✓ Correct", "✗ Not quite · score 50%", or the request for an answer. */
export function resultMessage(result, lang, ui) {
  if (!result.answered) {
    return t(ui, { single: "need_single", multiple: "need_multiple", fill: "need_fill" }[result.kind], lang);
  }
  if (result.isCorrect) return t(ui, "correct", lang);
  return `${t(ui, "not_quite", lang)} · ${t(ui, "score", lang, { percent: result.percent })}`;
}

/** The feedback of a graded answer as lines, the lines of Python's str(Result). */
export function resultLines(result, question, lang, ui) {
  const lines = [resultMessage(result, lang, ui)];
  for (const o of result.options) {
    if (!o.selected) continue;
    const opt = question.options[o.index];
    const line = t(ui, o.correct ? "chose_right" : "chose_wrong", lang, { option: pick(opt.text, lang) });
    lines.push(`${line} ${pick(opt.explanation, lang)}`);
  }
  const missed = result.options.filter((o) => o.verdict === "missed").length;
  if (result.kind === "multiple" && missed) {
    lines.push(missed === 1 ? t(ui, "missed_one", lang) : t(ui, "missed_many", lang, { n: missed }));
  }
  if (result.kind === "multiple" && !result.isCorrect) {
    // how partial credit is counted (partial_credit_text), with the number of correct options
    lines.push(t(ui, "partial_credit", lang, { n: result.options.filter((o) => o.correct).length }));
  }
  for (const b of result.blanks) {
    const label = blankTitle(question.blanks[b.index], b.index, lang, ui);
    const key = !b.readable ? "blank_not_number" : b.correct ? "blank_right" : "blank_wrong";
    lines.push(t(ui, key, lang, { label, given: b.given }));
  }
  return lines;
}

/** The full solution as [mark, text, explanation] rows: every option, or every blank's answer (solution_lines). */
export function solutionLines(question, lang, ui) {
  if (question.type === "single" || question.type === "multiple") {
    return question.options.map((o) => [
      t(ui, o.correct ? "is_correct_option" : "is_wrong_option", lang),
      pick(o.text, lang),
      pick(o.explanation, lang),
    ]);
  }
  return question.blanks.map((b, i) => [
    "✓",
    t(ui, "accepted", lang, { label: blankTitle(b, i, lang, ui), answers: expectedText(b, lang, ui) }),
    "",
  ]);
}
