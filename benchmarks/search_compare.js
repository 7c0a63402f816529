// Another client-side engine against the site's: FlexSearch (npm flexsearch, a dev dependency)
// over the same index files as the site's MiniSearch ranking (search-rank.js), to see whether the
// engine, rather than the site's own tokenizing and weighting around it, decides the figures.
// `node benchmarks/search_compare.js SITE ENGINE` (RANK_JS: another search-rank.js) reads
// {"zh": [query, ...], "en": [...]} on standard input and writes each query's first results as
// entry ids, like search_rank.js; on standard error one JSON line per language: the index's build
// time in ms (the first build in this process, then the median of nine more) and its exported
// size in bytes. ENGINE:
//   minisearch  the site's Index (search-rank.js) itself: its ranking, build time and size
//   flex        FlexSearch Document, one index per field (t w c a o p, the texts x, the readers' q), terms
//               from the site's tokenizer; the query as the site prepares it (filler words out,
//               synonyms added, stopwords out); each field's ranked ids merged as the sum of the
//               site's field boost / (rank + 1)
//   flex-prior  flex, each score times the site's document boost (entry kind, the entry's b)
//   flex-own    FlexSearch's own text handling: Charset.CJK (a term per character) for zh, the
//               default encoder with its English pack and forward (prefix) tokenizing for en; the
//               same prepared query text, fields and merge
// Nothing here is tuned: FlexSearch's defaults apart from suggest (a result need not match every
// term, as with the site's OR) and a limit that returns every match.
"use strict";
const fs = require("fs");
const path = require("path");
const { Document, Charset, Encoder } = require("flexsearch");
const EnglishPack = require("flexsearch/lang/en");
const { Index, askedByDoc, tokenize } = require(process.env.RANK_JS || "../overrides/assets/javascripts/search-rank.js");

const SHOWN = 20;
const FIELDS = ["t", "w", "c", "a", "o", "p", "x", "q"];
const [site, engine = "flex"] = process.argv.slice(2);
const queries = JSON.parse(fs.readFileSync(0, "utf-8"));

// What the site's Index.search passes to MiniSearch for `query`: the prepared query text and the
// options (query tokenizer, field boosts, document boost), caught at its first engine call (which
// then throws, so nothing after it runs), so that FlexSearch gets the same query without a copy
// of the site's word lists.
function prepared(data, query) {
  const probe = Object.assign(Object.create(Index.prototype), data, { texts: null });
  const caught = {};
  probe.heads = { search: (text, options) => { Object.assign(caught, { text, options }); throw caught; } };
  try {
    probe.search(query);
  } catch (e) {
    if (e !== caught) throw e;
  }
  if (!caught.options) throw new Error("search-rank.js no longer calls its engine as this script expects");
  return caught;
}

function flexIndex(lang, state) {
  const own = lang === "zh" ? { encoder: Charset.CJK } : { encoder: new Encoder(Charset.Default, EnglishPack), tokenize: "forward" };
  // The site's tokenizer for the documents, its query tokenizer (stopwords out) while searching.
  const options = engine === "flex-own" ? own : { encode: (text) => (state.queryTokenize || tokenize)(text) };
  return new Document(Object.assign({ document: { id: "id", index: FIELDS } }, options));
}

function build(lang, data, texts, state) {
  if (engine === "minisearch") {
    const index = new Index(data);
    index.addTexts(texts);
    return index;
  }
  const index = flexIndex(lang, state);
  const asked = askedByDoc(data);  // the real readers' words (q), as the site's Index gathers them
  data.docs.forEach((doc, i) => index.add(Object.assign({ id: i, x: texts[i], q: asked[i] || "" }, doc)));
  return index;
}

function exportedSize(index) {
  if (engine === "minisearch") return Buffer.byteLength(JSON.stringify(index.heads)) + Buffer.byteLength(JSON.stringify(index.texts));
  let size = 0;
  index.export((key, value) => { size += Buffer.byteLength(key) + Buffer.byteLength(value || ""); });
  return size;
}

function ranked(index, data, query, state) {
  if (engine === "minisearch") return index.listed(query).map((r) => r.id);
  const { text, options } = prepared(data, query);
  state.queryTokenize = options.tokenize;
  const fields = index.search(text, { suggest: true, limit: data.docs.length });
  state.queryTokenize = null;
  const scores = new Map();
  for (const { field, result } of fields) {
    result.forEach((id, rank) => scores.set(id, (scores.get(id) || 0) + options.boost[field] / (rank + 1)));
  }
  if (engine === "flex-prior") scores.forEach((s, id) => scores.set(id, s * options.boostDocument(id)));
  return [...scores.keys()].sort((a, b) => scores.get(b) - scores.get(a) || a - b);
}

const out = {};
for (const [lang, texts] of Object.entries(queries)) {
  const dir = path.join(site, lang === "zh" ? "" : lang, "search");
  const data = JSON.parse(fs.readFileSync(path.join(dir, "entries.json"), "utf-8"));
  const bodies = JSON.parse(fs.readFileSync(path.join(dir, "text.json"), "utf-8"));
  const state = {}, times = [];
  let index;
  for (let i = 0; i < 10; i++) {
    const start = performance.now();
    index = build(lang, data, bodies, state);
    times.push(performance.now() - start);
  }
  const rest = times.slice(1).sort((a, b) => a - b);
  process.stderr.write(JSON.stringify({ engine, lang, build_ms_first: times[0], build_ms_median: rest[4],
    export_bytes: exportedSize(index) }) + "\n");
  out[lang] = texts.map((q) => ranked(index, data, q, state).slice(0, SHOWN).map((id) => data.docs[id].u.split("#")[1] || ""));
}
process.stdout.write(JSON.stringify(out));
