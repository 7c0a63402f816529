// Site search: the ranking in search-rank.js (loaded before this file, with MiniSearch), shown in
// Material's search box with Material's result markup. Material's own index is left without
// documents. The index comes in two files: search/entries.json is fetched and indexed first and is
// enough to rank; search/text.json (each document's text) is fetched only once the first results
// are shown, and refines them: the first result waits for the smaller file alone.
(function () {
  "use strict";
  var CJK = CheatsheetRank.CJK, TOKEN = CheatsheetRank.TOKEN, tokenize = CheatsheetRank.tokenize;
  var SHOWN = 20, CODE_LINES = 2;
  var config = JSON.parse(document.getElementById("__config").textContent);
  // The 404 page's base is "/": "//" would be no address at all.
  var root = new URL(config.base.replace(/\/$/, "") + "/", location), translations = config.translations || {};
  var index = null, loading = null, complete = null;

  // search/NAME.json; from disk (file://), where a page may not fetch, the same data from
  // search/NAME.js, a script that sets it on window.__cheatsheetIndex (the copy read from disk
  // has both, as Material's offline plugin gives its own index: cheatsheet/site/search_index.py).
  function fetchJSON(path) {
    if (location.protocol === "file:") {
      return new Promise(function (resolve, reject) {
        var script = document.createElement("script");
        script.src = new URL(path.replace(/\.json$/, ".js"), root).href;
        script.onload = function () { resolve(window.__cheatsheetIndex[path]); };
        script.onerror = reject;
        document.head.appendChild(script);
      });
    }
    return fetch(new URL(path, root)).then(function (r) { return r.json(); });
  }

  // Resolves once the documents are indexed without their texts: enough to rank. `complete`
  // resolves once the texts are indexed too (fetched after the first results are shown); the
  // shown results are then ranked again.
  function load() {
    if (!loading) {
      loading = fetchJSON("search/entries.json").then(function (data) {
        index = new CheatsheetRank.Index(data);
      }).catch(function (error) { loading = null; throw error; });  // the next keystroke tries again
    }
    return loading;
  }

  function loadTexts() {
    if (!complete) {
      complete = fetchJSON("search/text.json").then(function (text) {
        return index.addTexts(text, true);
      }).then(function () {
        var input = document.querySelector("[data-md-component=search-query]");
        if (input && input.value.trim()) render(input.value);
      }).catch(function (error) { complete = null; throw error; });
    }
    return complete;
  }

  // The words to mark for a result: runs of the typed Chinese whose pairs matched, and the
  // matched code or English terms, so 显存不足 is marked as a word, never character by character.
  function matchedWords(query, terms) {
    var matched = {}, words = [];
    terms.forEach(function (t) { matched[t] = 1; });
    (query.toLowerCase().match(TOKEN) || []).forEach(function (token) {
      if (!CJK.test(token)) return;
      if (token.length === 1) {
        if (terms.some(function (t) { return t.charAt(0) === token; })) words.push(token);
        return;
      }
      // consecutive matched pairs overlap, so together they make one word
      for (var i = 0, start = -1; i < token.length; i++) {
        var pair = i + 1 < token.length && matched[token.slice(i, i + 2)];
        if (pair && start < 0) start = i;
        if (!pair && start >= 0) { words.push(token.slice(start, i + 1)); start = -1; }
      }
    });
    terms.forEach(function (t) { if (!CJK.test(t)) words.push(t); });
    return words.filter(function (w, i) { return words.indexOf(w) === i; });
  }

  function escape(text) {
    return text.replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; });
  }

  // `text` as HTML with the words marked; a Chinese word that is not in it as a whole is marked
  // by its pairs, an English stem with the rest of its word (freez -> freezing).
  function mark(text, words) {
    var parts = [];
    words.forEach(function (w) {
      if (!CJK.test(w)) parts.push("\\b" + w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "[a-z0-9_]*");
      else if (text.indexOf(w) >= 0 || w.length < 3) parts.push(w);
      else for (var i = 0; i + 1 < w.length; i++) parts.push(w.slice(i, i + 2));
    });
    if (!parts.length) return escape(text);
    parts.sort(function (a, b) { return b.length - a.length; });
    var pattern = new RegExp(parts.join("|"), "gi"), html = "", last = 0, m;
    while ((m = pattern.exec(text)) && m[0]) {
      html += escape(text.slice(last, m.index)) + "<mark>" + escape(m[0]) + "</mark>";
      last = m.index + m[0].length;
    }
    return html + escape(text.slice(last));
  }

  function container() {
    var result = document.querySelector("[data-md-component=search-result]");
    var own = result.querySelector(".cheatsheet-search");
    if (!own) {
      own = document.createElement("div");
      own.className = "cheatsheet-search";
      own.innerHTML = '<div class="md-search-result__meta"></div><ol class="md-search-result__list" role="presentation"></ol>';
      result.insertBefore(own, result.firstChild);
    }
    return own;
  }

  function count(n) {
    var key = n === 0 ? "search.result.none" : n === 1 ? "search.result.one" : "search.result.other";
    return (translations[key] || "# results").replace("#", n);
  }

  function render(query) {
    var own = container(), meta = own.firstChild, list = own.lastChild;
    if (!query.trim()) {
      meta.textContent = translations["search.result.placeholder"] || "";
      list.innerHTML = "";
      return;
    }
    var results = index.listed(query);
    meta.textContent = count(results.length);
    list.innerHTML = results.slice(0, SHOWN).map(function (r) {
      var words = matchedWords(query, r.terms);
      var url = new URL(r.u, root);
      if (words.length) url.searchParams.set("h", words.join(" "));  // Material marks them on the page
      var where = r.k === "page" ? "" : '<p class="cheatsheet-search__where">' + escape(r.p || "") + "</p>";
      var code = r.c ? "<p><code>" + mark(r.c.split("\n").slice(0, CODE_LINES).join("\n"), words) + "</code></p>" : "";
      return '<li class="md-search-result__item"><a href="' + escape(url.href) + '" class="md-search-result__link" tabindex="-1">' +
        '<article class="md-search-result__article md-typeset" data-md-score="' + r.score.toFixed(2) + '">' +
        where + "<h2>" + mark(r.t, words) + "</h2>" + code + "</article></a></li>";
    }).join("");
  }

  function isQuery(el) { return el && el.matches && el.matches("[data-md-component=search-query]"); }

  function update(input) {
    var typed = input.value;
    load().then(function () {
      if (input.value === typed) render(typed);
      loadTexts();
    });
  }

  document.addEventListener("focusin", function (event) { if (isQuery(event.target)) load(); });
  document.addEventListener("input", function (event) { if (isQuery(event.target)) update(event.target); });
  // A shared search link (?q=) fills the box without an input event.
  document$.subscribe(function () {
    var input = document.querySelector("[data-md-component=search-query]");
    if (input && input.value) update(input);
  });

  window.cheatsheetSearch = { tokenize: tokenize, matchedWords: matchedWords, mark: mark, load: load,
    expand: function (q) { return index.expand(q); },
    complete: function () { return load().then(loadTexts); },
    search: function (q) { return load().then(function () { return index.search(q); }); },
    // What the list would show for each query, as the links' #ids ("" for a page): the search
    // benchmark ranks most queries through this, and types the rest into the box to compare.
    shown: function (queries) {
      return load().then(function () {
        return queries.map(function (q) {
          return index.listed(q).slice(0, SHOWN).map(function (r) { return new URL(r.u, root).hash.slice(1); });
        });
      });
    } };
})();
