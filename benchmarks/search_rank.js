// The site's ranking (overrides/assets/javascripts/search-rank.js) in Node, over a built site's
// index, for the search benchmark's quick figures: `node benchmarks/search_rank.js SITE` reads
// {"zh": [query, ...], "en": [...]} on standard input and writes, per language, each query's
// first results as entry ids ("" for a page), the same ids the browser's list shows. RANK_JS names
// another ranking file to compare (an earlier commit's search-rank.js, saved elsewhere).
"use strict";
const fs = require("fs");
const path = require("path");
const { Index } = require(process.env.RANK_JS || "../overrides/assets/javascripts/search-rank.js");

const SHOWN = 20;
const site = process.argv[2];
const queries = JSON.parse(fs.readFileSync(0, "utf-8"));
const out = {};
for (const [lang, texts] of Object.entries(queries)) {
  const dir = path.join(site, lang === "zh" ? "" : lang, "search");
  const index = new Index(JSON.parse(fs.readFileSync(path.join(dir, "entries.json"), "utf-8")));
  index.addTexts(JSON.parse(fs.readFileSync(path.join(dir, "text.json"), "utf-8")));
  out[lang] = texts.map((q) => index.listed(q).slice(0, SHOWN).map((r) => (r.u.split("#")[1] || "")));
}
process.stdout.write(JSON.stringify(out));
