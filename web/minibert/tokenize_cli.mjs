// Run the page's tokenizer from another program: `node web/minibert/tokenize_cli.mjs < request.json > reply.json`.
// Request: {"vocab": "<text of vocab.txt>", "settings": {doLowerCase, stripAccents, tokenizeChineseChars},
// "texts": [...], "maxLength": null, "words": false}. Reply: {"tokens": [[...]], "ids": [[...]] (with [CLS] and
// [SEP]), "words": [[...]] (the basic tokenizer's words, when asked)}.
// tests/test_web_minibert.py compares it with bertedu's Python tokenizer.

import { readFileSync } from "node:fs";
import { BertTokenizer } from "./tokenizer.js";

const request = JSON.parse(readFileSync(0, "utf8"));
const tokenizer = new BertTokenizer(request.vocab, request.settings || {});
const maxLength = request.maxLength ?? null;
process.stdout.write(
  JSON.stringify({
    words: request.words ? request.texts.map((t) => tokenizer.basicTokenize(t)) : null,
    tokens: request.texts.map((t) => tokenizer.tokenize(t)),
    ids: request.texts.map((t) => tokenizer.encode(t, { maxLength }).inputIds),
  }),
);
