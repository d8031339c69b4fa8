// Bank text to HTML: the Markdown subset of bertedu/teaching/quiz/render.py (markdown_to_html), in JavaScript.
//
// Paragraphs (blank line), "- " lists, **bold**, *italic*, `code`, inline math $...$ and display math $$...$$ (left
// as TeX, escaped, for the page's offline math renderer), and blank markers [blank 1] / [空 1]. Everything else is
// escaped, so [CLS] or a < b are safe. tests/test_web_quiz.py checks that this gives Python's HTML for every text of
// every bank.

const MATH = /\$\$[^]+?\$\$|\$[^$\n]+?\$/gu;
const CODE = /`([^`\n]+)`/gu;
const BOLD = /\*\*([^]+?)\*\*/gu;
// Python: (?<!WORD)(?<!\*)\*(?!\s)([^*\n]+?)(?<!\s)\*(?!WORD)(?!\*) with Unicode \s, where WORD is \w less CJK and
// full-width forms (a Chinese character next to a `*` does not make it literal; a Latin letter or digit does).
const W = "\\p{L}\\p{N}_";
const CJK = "\\u2e80-\\u9fff\\uac00-\\ud7af\\uf900-\\ufaff\\uff00-\\uffef";
const S = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const ITALIC = new RegExp(
  `(?:(?<![${W}])|(?<=[${CJK}]))(?<!\\*)\\*(?![${S}])([^*\\n]+?)(?<![${S}])\\*(?:(?![${W}])|(?=[${CJK}]))(?!\\*)`,
  "gu",
);
const BLANK = /\[[\t\n\v\f\r \x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*(?:blank|空)[\t\n\v\f\r \x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*([0-9]+)[\t\n\v\f\r \x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*\]/giu;
const TOKEN_RE = /\x00(\d+)\x00/gu;
const PARAGRAPH_BREAK = new RegExp(`\\n[${S}]*\\n`, "u");
const LIST_ITEM = new RegExp(`^[${S}]*[-*] `, "u");

/** Python's html.escape(text, quote=False). */
export function escapeHtml(text) {
  return String(text).replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** How [blank n] appears inside a prompt: an underlined gap with its number (blank_marker_html). */
export function blankMarkerHtml(n) {
  return `<span style="border-bottom:1px solid currentColor;padding:0 1.5em">(${n})</span>`;
}

function rstripSpace(line) {
  return line.replace(new RegExp(`[${S}]+$`, "u"), "");
}

function stripSpace(text) {
  return text.replace(new RegExp(`^[${S}]+|[${S}]+$`, "gu"), "");
}

/** Render the Markdown subset; math is passed through (escaped) for the page's math renderer. */
export function markdownToHtml(text) {
  const stash = [];
  const keep = (fragment) => {
    stash.push(fragment);
    return `\x00${stash.length - 1}\x00`;
  };
  let s = String(text).replaceAll("\x00", "\ufffd");
  s = s.replace(CODE, (m, code) => keep(`<code>${escapeHtml(code)}</code>`));
  s = s.replace(MATH, (m) => keep(escapeHtml(m)));
  s = escapeHtml(s);
  s = s.replace(BLANK, (m, n) => keep(blankMarkerHtml(Number(n))));
  s = s.replace(BOLD, "<strong>$1</strong>");
  s = s.replace(ITALIC, "<em>$1</em>");
  const blocks = [];
  for (const para of stripSpace(s).split(PARAGRAPH_BREAK)) {
    const lines = para.split("\n").map(rstripSpace);
    if (lines.length && lines.every((line) => LIST_ITEM.test(line))) {
      blocks.push(`<ul>${lines.map((line) => `<li>${line.replace(LIST_ITEM, "")}</li>`).join("")}</ul>`);
    } else {
      blocks.push(`<p>${lines.join("<br>")}</p>`);
    }
  }
  return restore(blocks.join(""), stash);
}

function restore(text, stash) {
  const put = (m, index, limit) => {
    const i = Number(index);
    return i < limit ? stash[i].replace(TOKEN_RE, (m2, j) => put(m2, j, i)) : m;
  };
  return text.replace(TOKEN_RE, (m, i) => put(m, i, stash.length));
}
