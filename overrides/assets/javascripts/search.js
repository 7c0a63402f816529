// Site search: MiniSearch (vendored beside this file) over one document per entry
// (search/entries.json, written by cheatsheet/site/search_index.py), shown in Material's search
// box with Material's result markup. Material's own index is left without documents.
//
// Chinese is split into overlapping character pairs on both sides, index and query, so both
// always agree on what a word is (显存不足 -> 显存 存不 不足) with no dictionary to keep in step.
// Code and English are split into API names and their parts (torch.cuda.empty_cache -> the
// whole name, cuda, empty_cache, empty, cache), English words lightly stemmed.
(function () {
  "use strict";
  var CJK = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/;
  var TOKEN = /[a-z0-9_]+(?:\.[a-z0-9_]+)*|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/g;
  // Fields: title, search words, code line, the other language's title, page; then the text (x),
  // indexed second from its own file (cheatsheet/search_index.py) since it holds most words.
  // o: what the entry's examples print (messages), so that a pasted error finds it.
  var FIELDS = ["t", "w", "c", "a", "o", "p"];
  // o counts between the title and the text when the query reads as a pasted message (it names an
  // exception or warning, or has many words), and less for a few task words, which it would
  // otherwise pull towards the error entries whose messages share them.
  var FIELD_BOOST = { t: 4, w: 4, c: 2, a: 2, o: 2, p: 0.5, x: 1 }, TASK_OUTPUT_BOOST = 0.5, MESSAGE_TERMS = 6;
  var MESSAGE = /[a-z](?:error|warning|exception)\b/i;
  var ERROR_WORDS = /error|exception|warning|traceback|错误|报错|异常|警告|怎么解决|解决办法|解决方法/i;
  // What differs between a reader's run and an example's: the traceback's header and file lines,
  // file paths, addresses, numbers and NxM shapes, taken out of both the index and the query, so that
  // a pasted message with other shapes matches the printed one. The index builder takes the same
  // out of the output lines (NOISE in cheatsheet/site/search_index.py: keep the two lists alike).
  var NOISE = [
    /traceback \(most recent call last\):?/g,
    /file "[^"]*", line [0-9]+(?:, in \S+)?/g,
    /(?:^|[\s"'(=])(?:[a-z]:|~|\.{1,2})?(?:[\\/][a-z0-9_.-]+){2,}:?(?:[0-9]+:?)?/g,
    /(?<![a-z0-9_.])0x[0-9a-f]+(?![a-z0-9_])/g,
    /(?<![a-z0-9_.])[0-9]+(?:\.[0-9]+)?(?:e[-+]?[0-9]+)?(?:x[0-9]+)*(?![a-z0-9_])/g,
  ];
  var SHOWN = 20, MIN_SCORE = 0.1, CODE_LINES = 2;
  // Question words and function words carry no topic: taken out of the query (not the index),
  // unless nothing else is left.
  // Pasted errors come with 报错, 怎么解决, 求助 around them.
  var FILLER = new RegExp("怎么解决|如何解决|解决方法|解决办法|报错了|报错|出现了|出现|求助|这个错误|是什么意思|怎么办|" +
    "怎么样|怎样|怎么|如何|为什么|为何|是什么|什么|哪些|哪个|有没有|能不能|可以|一下|的|了|吗|呢|吧|啊|请问", "g");
  var STOPWORDS = ("a an the to of in on at for from by with and or is are be do does did i my me we you it its this that " +
    "how what why when which can should would will get there").split(" ");
  var config = JSON.parse(document.getElementById("__config").textContent);
  // The 404 page's base is "/": "//" would be no address at all.
  var root = new URL(config.base.replace(/\/$/, "") + "/", location), translations = config.translations || {};
  var docs = [], heads = null, texts = null, loading = null, complete = null, boost = {}, synonyms = {};

  // freeze, freezes, freezing -> freez; layers -> layer; losses -> loss
  function stem(word) {
    if (word.length < 4 || /[^a-z]/.test(word)) return word;
    if (/ies$/.test(word)) return word.slice(0, -3) + "y";
    if (/ing$/.test(word) && word.length > 5) word = word.slice(0, -3).replace(/([^aeiouls])\1$/, "$1");
    else if (/ed$/.test(word) && word.length > 4) word = word.slice(0, -2).replace(/([^aeiouls])\1$/, "$1");
    else if (/[^su]s$/.test(word)) word = word.slice(0, -1);
    return word.length > 3 ? word.replace(/e$/, "") : word;
  }

  var termsOf = Object.create(null);  // token -> its terms: the index repeats the same tokens a lot

  function tokenTerms(token) {
    var terms = [];
    function add(term) { if (term && terms.indexOf(term) < 0) terms.push(term); }
    if (CJK.test(token)) {
      if (token.length === 1) terms.push(token);
      for (var i = 0; i + 1 < token.length; i++) terms.push(token.slice(i, i + 2));
      return terms;
    }
    if (/[._]/.test(token)) add(token);
    token.split(".").forEach(function (name) {
      var bare = name.replace(/^_+|_+$/g, "");
      if (bare.indexOf("_") >= 0) add(bare);
      bare.split("_").forEach(function (word) { add(stem(word)); });
    });
    return terms;
  }

  function tokenize(text) {
    text = text.toLowerCase();
    for (var n = 0; n < NOISE.length; n++) text = text.replace(NOISE[n], " ");
    var out = [], tokens = text.match(TOKEN) || [];
    for (var i = 0; i < tokens.length; i++) {
      var terms = termsOf[tokens[i]] || (termsOf[tokens[i]] = tokenTerms(tokens[i]));
      for (var j = 0; j < terms.length; j++) out.push(terms[j]);
    }
    return out;
  }

  // The query with the site's words added for what readers also type (内存 -> 显存, lr -> 学习率).
  function expand(query) {
    var lower = query.toLowerCase(), extra = [];
    Object.keys(synonyms).forEach(function (typed) {
      var found = CJK.test(typed) ? lower.indexOf(typed) >= 0
        : new RegExp("(^|[^a-z0-9_])" + typed.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "($|[^a-z0-9_])").test(lower);
      if (found) extra.push(synonyms[typed]);
    });
    return extra.length ? query + " " + extra.join(" ") : query;
  }

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

  function engine(fields) {
    return new MiniSearch({ fields: fields, tokenize: tokenize, processTerm: function (t) { return t; } });
  }

  // Resolves once the documents are indexed without their texts: enough to rank. `complete`
  // resolves once the texts are indexed too; the shown results are then ranked again.
  function load() {
    if (!loading) {
      loading = fetchJSON("search/entries.json").then(function (data) {
        boost = data.boost; synonyms = data.synonyms; docs = data.docs;
        heads = engine(FIELDS);
        heads.addAll(docs.map(function (doc, i) { return Object.assign({ id: i }, doc); }));
        complete = fetchJSON("search/text.json").then(function (text) {
          var body = engine(["x"]);  // in chunks, so that typing stays responsive meanwhile
          return body.addAllAsync(text.map(function (x, i) { return { id: i, x: x }; }), { chunkSize: 100 }).then(function () {
            texts = body;
            var input = document.querySelector("[data-md-component=search-query]");
            if (input && input.value.trim()) render(input.value);
          });
        });
      }).catch(function (error) { loading = null; throw error; });  // the next keystroke tries again
    }
    return loading;
  }

  function search(query) {
    var kept = tokenize(query.replace(FILLER, " ")).filter(function (t) { return STOPWORDS.indexOf(t) < 0; });
    // Does the query paste or name an error? Then error entries rank as entries, else below them.
    var aboutError = ERROR_WORDS.test(query) || kept.length >= MESSAGE_TERMS;
    if (kept.length) query = query.replace(FILLER, " ");
    var options = {
      tokenize: function (text) {
        return tokenize(text).filter(function (t) { return !kept.length || STOPWORDS.indexOf(t) < 0; });
      },
      boost: MESSAGE.test(query) || kept.length >= MESSAGE_TERMS ? FIELD_BOOST
        : Object.assign({}, FIELD_BOOST, { o: TASK_OUTPUT_BOOST }),
      combineWith: "OR",
      prefix: function (term) { return CJK.test(term) ? term.length === 1 : term.length >= 3; },
      fuzzy: function (term) { return CJK.test(term) || term.length < 4 ? false : term.length < 6 ? 1 : 2; },
      boostDocument: function (id) {
        var kind = docs[id].k;
        return (boost[kind === "error" && !aboutError ? "error-task" : kind] || 1) * (docs[id].b || 1);
      },
    };
    query = expand(query);
    // MiniSearch scores a document by the sum over fields and terms, times the number of query
    // terms it matched; summing the two indexes' results that way ranks as one index would.
    var merged = {};
    [heads].concat(texts ? [texts] : []).forEach(function (engine) {
      engine.search(query, options).forEach(function (r) {
        var m = merged[r.id] || (merged[r.id] = { id: r.id, sum: 0, queryTerms: [], terms: [] });
        m.sum += r.score / r.queryTerms.length;
        union(m.queryTerms, r.queryTerms);
        union(m.terms, r.terms);
      });
    });
    return Object.keys(merged).map(function (id) {
      var m = merged[id];
      return Object.assign({ id: m.id, score: m.sum * m.queryTerms.length, terms: m.terms }, docs[m.id]);
    }).sort(function (a, b) { return b.score - a.score; });
  }

  function union(into, more) {
    more.forEach(function (x) { if (into.indexOf(x) < 0) into.push(x); });
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

  // The results the list holds for a query, best first (it shows the first SHOWN of them).
  function listed(query) {
    var results = search(query);
    // Every result shares a word with the query; leave out the ones far below the best.
    var floor = results.length ? results[0].score * MIN_SCORE : 0;
    return results.filter(function (r) { return r.score >= floor; });
  }

  function render(query) {
    var own = container(), meta = own.firstChild, list = own.lastChild;
    if (!query.trim()) {
      meta.textContent = translations["search.result.placeholder"] || "";
      list.innerHTML = "";
      return;
    }
    var results = listed(query);
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
    load().then(function () { if (input.value === typed) render(typed); });
  }

  document.addEventListener("focusin", function (event) { if (isQuery(event.target)) load(); });
  document.addEventListener("input", function (event) { if (isQuery(event.target)) update(event.target); });
  // A shared search link (?q=) fills the box without an input event.
  document$.subscribe(function () {
    var input = document.querySelector("[data-md-component=search-query]");
    if (input && input.value) update(input);
  });

  window.cheatsheetSearch = { tokenize: tokenize, matchedWords: matchedWords, mark: mark, expand: expand, load: load,
    complete: function () { return load().then(function () { return complete; }); },
    search: function (q) { return load().then(function () { return search(q); }); },
    // What the list would show for each query, as the links' #ids ("" for a page): the search
    // benchmark ranks most queries through this, and types the rest into the box to compare.
    shown: function (queries) {
      return load().then(function () {
        return queries.map(function (q) {
          return listed(q).slice(0, SHOWN).map(function (r) { return new URL(r.u, root).hash.slice(1); });
        });
      });
    } };
})();
