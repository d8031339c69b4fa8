// BERT's WordPiece tokenizer in JavaScript: a port of bertedu/core/tokenizer.py for the mini-BERT page.
//
// The same two stages: BasicTokenizer (clean the text, lower-case, strip accents, split punctuation and every CJK
// character; the special tokens typed in the text, such as [MASK], are kept whole) and WordPiece (greedy
// longest-match-first, "##" marks a continuation; a word with a piece that matches nothing is [UNK]). Then
// [CLS] text [SEP]. tests/test_web_minibert.py checks that it gives the Python tokenizer's tokens and ids on every
// sentence of data/ and on generated awkward texts.
//
// Character classes follow the JavaScript engine's Unicode tables; Python's may be an older Unicode version, so a
// character assigned only in the newer one can be treated differently (Python drops it as unassigned).

export const SPECIAL_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];
const [PAD, UNK, CLS, SEP, MASK] = SPECIAL_TOKENS;

// Python's str.isspace() (BERT's _is_whitespace adds nothing to it).
const SPACE = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const IS_SPACE = new RegExp(`^[${SPACE}]$`, "u");
const SPACES = new RegExp(`[${SPACE}]+`, "u");
const IS_CONTROL = /^\p{C}$/u; // Unicode category C*: control, format, surrogate, private use, unassigned
const IS_PUNCT = /^\p{P}$/u;
const IS_MARK = /^\p{Mn}$/u;

/** Read a BERT vocab.txt (one token per line, id = line number); as load_vocab, duplicates are refused. */
export function parseVocab(text) {
  const lines = String(text).replace(/^\ufeff/, "").split("\n");
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  const vocab = new Map();
  lines.forEach((line, i) => {
    const token = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (vocab.has(token)) {
      throw new RangeError(`vocab.txt: token '${token}' appears twice, on lines ${vocab.get(token) + 1} and ${i + 1}.`);
    }
    vocab.set(token, i);
  });
  if (!vocab.size) throw new RangeError("vocab.txt is empty: it holds one token per line.");
  return vocab;
}

function isWhitespace(ch) {
  return IS_SPACE.test(ch);
}

function isControl(ch) {
  if (ch === "\t" || ch === "\n" || ch === "\r") return false; // BERT treats these as whitespace
  return IS_CONTROL.test(ch);
}

function isPunctuation(ch) {
  const cp = ch.codePointAt(0);
  if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126)) return true;
  return IS_PUNCT.test(ch);
}

function isChineseChar(cp) {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x20000 && cp <= 0x2a6df) ||
    (cp >= 0x2a700 && cp <= 0x2b73f) ||
    (cp >= 0x2b740 && cp <= 0x2b81f) ||
    (cp >= 0x2b820 && cp <= 0x2ceaf) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x2f800 && cp <= 0x2fa1f)
  );
}

function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export class BertTokenizer {
  /**
   * `vocab`: the text of a vocab.txt, an array of tokens in id order, or a Map token → id. Settings as in
   * tokenizer_config.json: doLowerCase, stripAccents (null: follow doLowerCase), tokenizeChineseChars.
   */
  constructor(vocab, { doLowerCase = true, stripAccents = null, tokenizeChineseChars = true, maxInputCharsPerWord = 100 } = {}) {
    if (typeof vocab === "string") this.vocab = parseVocab(vocab);
    else if (vocab instanceof Map) this.vocab = vocab;
    else this.vocab = new Map(Array.from(vocab, (token, i) => [token, i]));
    for (const token of SPECIAL_TOKENS) {
      if (!this.vocab.has(token)) throw new RangeError(`The vocabulary has no ${token}.`);
    }
    this.idsToTokens = [];
    for (const [token, id] of this.vocab) this.idsToTokens[id] = token;
    this.doLowerCase = doLowerCase;
    this.stripAccents = stripAccents;
    this.tokenizeChineseChars = tokenizeChineseChars;
    this.maxInputCharsPerWord = maxInputCharsPerWord;
    // Longest first, so that "[MASK]" wins over a shorter token it starts with.
    const alternatives = [...SPECIAL_TOKENS].sort((a, b) => b.length - a.length).map(escapeRegExp);
    this.neverSplit = new Set(SPECIAL_TOKENS);
    this.neverSplitRe = new RegExp(`(${alternatives.join("|")})`, "u");
  }

  get padTokenId() { return this.vocab.get(PAD); }
  get unkTokenId() { return this.vocab.get(UNK); }
  get clsTokenId() { return this.vocab.get(CLS); }
  get sepTokenId() { return this.vocab.get(SEP); }
  get maskTokenId() { return this.vocab.get(MASK); }
  get vocabSize() { return this.vocab.size; }

  /** BasicTokenizer.clean_text: drop NUL, U+FFFD and control characters; every whitespace becomes a space. */
  static cleanText(text) {
    let out = "";
    for (const ch of text) {
      if (ch === "\x00" || ch === "\ufffd" || isControl(ch)) continue;
      out += isWhitespace(ch) ? " " : ch;
    }
    return out;
  }

  /** BasicTokenizer.split_on_punctuation: every punctuation character is a word of its own. */
  static splitOnPunctuation(word) {
    const pieces = [];
    let current = "";
    for (const ch of word) {
      if (isPunctuation(ch)) {
        if (current) pieces.push(current);
        pieces.push(ch);
        current = "";
      } else {
        current += ch;
      }
    }
    if (current) pieces.push(current);
    return pieces;
  }

  tokenizePlain(text) {
    text = BertTokenizer.cleanText(text);
    if (this.tokenizeChineseChars) {
      text = Array.from(text, (ch) => (isChineseChar(ch.codePointAt(0)) ? ` ${ch} ` : ch)).join("");
    }
    const words = [];
    for (let word of text.split(SPACES)) {
      if (!word) continue;
      if (this.doLowerCase) word = word.toLowerCase();
      if (this.stripAccents || (this.stripAccents === null && this.doLowerCase)) {
        word = Array.from(word.normalize("NFD")).filter((ch) => !IS_MARK.test(ch)).join("");
      }
      words.push(...BertTokenizer.splitOnPunctuation(word));
    }
    return words;
  }

  /** BasicTokenizer.tokenize: words of `text`, the special tokens typed in it kept whole. */
  basicTokenize(text) {
    const words = [];
    text.split(this.neverSplitRe).forEach((piece, i) => {
      if (i % 2 === 1) words.push(piece);
      else words.push(...this.tokenizePlain(piece));
    });
    return words;
  }

  /** WordpieceTokenizer.tokenize_word: pieces of one word, or [UNK]. */
  wordpiece(word) {
    const chars = Array.from(word);
    if (chars.length > this.maxInputCharsPerWord) return [UNK];
    const pieces = [];
    let start = 0;
    while (start < chars.length) {
      let end = chars.length;
      let piece = null;
      while (start < end) {
        const sub = chars.slice(start, end).join("");
        const candidate = start === 0 ? sub : `##${sub}`;
        if (this.vocab.has(candidate)) {
          piece = candidate;
          break;
        }
        end -= 1;
      }
      if (piece === null) return [UNK];
      pieces.push(piece);
      start = end;
    }
    return pieces;
  }

  /** Text → WordPiece tokens (no [CLS]/[SEP]). */
  tokenize(text) {
    const tokens = [];
    for (const word of this.basicTokenize(String(text))) {
      if (this.neverSplit.has(word)) tokens.push(word);
      else tokens.push(...this.wordpiece(word));
    }
    return tokens;
  }

  convertTokensToIds(tokens) {
    return tokens.map((t) => (this.vocab.has(t) ? this.vocab.get(t) : this.unkTokenId));
  }

  convertIdsToTokens(ids) {
    return Array.from(ids, (i) => {
      if (!Number.isInteger(Number(i)) || i < 0 || i >= this.idsToTokens.length) throw new RangeError(`Token id ${i} is not in the vocabulary.`);
      return this.idsToTokens[Number(i)];
    });
  }

  /** One text → {inputIds, tokenTypeIds, attentionMask}: [CLS] text [SEP], cut from the end to `maxLength`. */
  encode(text, { maxLength = null } = {}) {
    let ids = this.convertTokensToIds(this.tokenize(text));
    if (maxLength !== null) ids = ids.slice(0, Math.max(0, maxLength - 2));
    const inputIds = [this.clsTokenId, ...ids, this.sepTokenId];
    return { inputIds, tokenTypeIds: inputIds.map(() => 0), attentionMask: inputIds.map(() => 1) };
  }

  /** Several texts, padded on the right to the longest: {inputIds, tokenTypeIds, attentionMask} as arrays of rows. */
  encodeBatch(texts, { maxLength = null } = {}) {
    const rows = texts.map((t) => this.encode(t, { maxLength }));
    const T = Math.max(...rows.map((r) => r.inputIds.length));
    const pad = (row, value) => [...row, ...Array(T - row.length).fill(value)];
    return {
      inputIds: rows.map((r) => pad(r.inputIds, this.padTokenId)),
      tokenTypeIds: rows.map((r) => pad(r.tokenTypeIds, 0)),
      attentionMask: rows.map((r) => pad(r.attentionMask, 0)),
    };
  }
}
