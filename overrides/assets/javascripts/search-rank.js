// The site search's ranking, apart from the page: MiniSearch (vendored beside this file) over one
// document per entry (search/entries.json and search/text.json, written by
// cheatsheet/site/search_index.py). search.js shows its results in Material's search box; the
// search benchmark also runs this file in Node (benchmarks/search_rank.js), so it touches no DOM.
//
// Chinese is split into overlapping character pairs on both sides, index and query, so both
// always agree on what a word is (显存不足 -> 显存 存不 不足) with no dictionary to keep in step.
// Code and English are split into API names and their parts (torch.cuda.empty_cache -> the
// whole name, cuda, empty_cache, empty, cache), English words lightly stemmed. Latin letters and
// Chinese characters are separate tokens even without a space between them (看看view函数).
(function (root, factory) {
  if (typeof module === "object" && module.exports) module.exports = factory(require("./minisearch.js"));
  else root.CheatsheetRank = factory(root.MiniSearch);
})(this, function (MiniSearch) {
  "use strict";
  var CJK = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/;
  var TOKEN = /[a-z0-9_]+(?:\.[a-z0-9_]+)*|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/g;
  // Fields: title, search words, code line, the other language's title, page; then the text (x),
  // indexed second from its own file (cheatsheet/search_index.py) since it holds most words.
  // o: what the entry's examples print (messages), so that a pasted error finds it.
  // q: the Chinese words of the real queries of the search benchmark's tuning sets that the entry
  // answers (`asked` in the index, each query once with the entries it names): how real readers
  // say it. Only its Chinese counts: API names in it would pull a named API's neighbours up. It is
  // indexed with the text (TEXT_FIELDS), after the first results, which it would otherwise delay.
  var FIELDS = ["t", "w", "c", "a", "o", "p"], TEXT_FIELDS = ["x", "q"];
  // o counts between the title and the text when the query reads as a pasted message (it names an
  // exception or warning, or has many words), and less for a few task words, which it would
  // otherwise pull towards the error entries whose messages share them.
  var FIELD_BOOST = { t: 4, w: 4, c: 2, a: 2, o: 2, p: 0.5, q: 1, x: 1 }, TASK_OUTPUT_BOOST = 0.5, MESSAGE_TERMS = 6;
  var MESSAGE = /[a-z](?:error|warning|exception)\b/i;
  var ERROR_WORDS = /error|exception|warning|traceback|错误|报错|异常|警告|怎么解决|解决办法|解决方法/i;
  // A Chinese query that states a symptom (显存不足, 权重不匹配, 加载出错, 提示out of memory, grad为none)
  // is about an error too.
  var SYMPTOM = /不足|溢出|爆|炸|不匹配|不一致|不对|出错|失败|无法|不能|崩溃|out of memory|[为是]\s*none/i;
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
  var MIN_SCORE = 0.1;
  // Question words, particles and the small talk around a question carry no topic: taken out of
  // the query (not the index), longest first, unless nothing else is left. A single character
  // goes only where it cannot be half of a word of the sheet's (了 but not 对, which is in 对齐).
  var FILLER = new RegExp("怎么解决|如何解决|解决方法|解决办法|有没有办法|有什么办法|有没有|是什么意思|是怎么回事|怎么回事|" +
    "报错了|报错|出现了|出现|求助|求问|求教|请教|请问|大佬们|大佬|各位|谢谢|这个错误|这个问题|问题|" +
    "咋回事|咋整|咋办|怎么办|怎么样|怎样|怎么|如何|为什么|为何|为啥|是什么|什么|干什么|干嘛|干啥|啥|咋|" +
    "哪些|哪个|能不能|可不可以|是不是|是否|可以|一下|的话|呀|么|呢|吧|啊|嘛|哦|吗|的|了", "g");
  // What a question is about rarely hides in these: a match on them alone counts little.
  var GENERIC = ("函数 方法 用法 使用 作用 区别 问题 时候 时间 一个 这个 那个 我们 自己 里面 之后 之前 代码 程序 运行 " +
    "结果 情况 出现 发现 进行 需要 已经 怎么 如何 pytorch torch 训练 模型 model").split(" ");
  var GENERIC_WEIGHT = 0.3;
  // A word that many entries hold (训练, tensor, loss) says little about which one is meant: past
  // this share of the entries it counts as much as COMMON_WEIGHT, found from the index itself.
  var COMMON_SHARE = 0.125, COMMON_WEIGHT = 0.5;
  // The words the synonyms table adds for what the reader typed count this much of the reader's
  // own: they say where such a query usually leads, not what this one asks (a named API first).
  var ADDED_WEIGHT = 0.5;
  // An entry that more real queries need (n: how many of the benchmark's tuning queries it answers,
  // cheatsheet/site/search_asked.tsv) counts 1 + DEMAND * ln(1 + n) times: a tie-break between
  // entries a query matches alike, not a reason to show an entry it does not match. DEMAND was
  // chosen by two-fold cross-validation over the tuning queries (counts from one fold, scored on
  // the other).
  var DEMAND = 0.4;
  // A Chinese word becomes several overlapping pairs (显存不足 -> 3), a Latin word one term: each pair
  // counts this much, so that an API name inside Chinese text (关于cat的尺寸不对应) is not outweighed by
  // the pairs of the words around it.
  var CJK_PAIR_WEIGHT = 0.7;
  var NAMESPACE_WEIGHT = 0.5;
  var STOPWORDS = ("a an the to of in on at for from by with and or is are be do does did i my me we you it its this that " +
    "how what why when which can should would will get there").split(" ");

  // freeze, freezes, freezing -> freez; layers -> layer; losses -> loss
  function stem(word) {
    if (word.length < 4 || /[^a-z]/.test(word)) return word;
    if (/ies$/.test(word)) return word.slice(0, -3) + "y";
    if (/ing$/.test(word) && word.length > 5) word = word.slice(0, -3).replace(/([^aeiouls])\1$/, "$1");
    else if (/ed$/.test(word) && word.length > 4) word = word.slice(0, -2).replace(/([^aeiouls])\1$/, "$1");
    else if (/[^su]s$/.test(word)) word = word.slice(0, -1);
    return word.length > 3 ? word.replace(/e$/, "") : word;
  }

  // token -> its terms: the index repeats the same tokens a lot. `whole`: the terms that stand
  // for the token itself; `parts`: the words inside a compound name (empty, cache in empty_cache),
  // which the index keeps apart in fields of their own (t~, c~, ...) that count less, so that
  // "view" finds x.view() before torch.view_as_real.
  var termsOf = { all: Object.create(null), whole: Object.create(null), parts: Object.create(null) };

  function tokenTerms(token, kind) {
    var terms = [];
    function add(term) { if (term && terms.indexOf(term) < 0) terms.push(term); }
    if (CJK.test(token)) {
      if (kind === "parts") return terms;
      if (token.length === 1) terms.push(token);
      for (var i = 0; i + 1 < token.length; i++) terms.push(token.slice(i, i + 2));
      return terms;
    }
    if (/[._]/.test(token) && kind !== "parts") add(token);
    token.split(".").forEach(function (name) {
      var bare = name.replace(/^_+|_+$/g, "");
      var compound = bare.indexOf("_") >= 0;
      // no_grad also as nograd: readers drop the underscore (torch.nograd, emptycache)
      if (compound && kind !== "parts") { add(bare); add(bare.replace(/_/g, "")); }
      if (compound ? kind !== "whole" : kind !== "parts") bare.split("_").forEach(function (word) { add(stem(word)); });
    });
    return terms;
  }

  // `kind`: "whole" or "parts" for the index's fields (above); all terms for a query.
  function tokenize(text, kind) {
    kind = kind === "whole" || kind === "parts" ? kind : "all";
    text = text.toLowerCase();
    for (var n = 0; n < NOISE.length; n++) text = text.replace(NOISE[n], " ");
    var out = [], tokens = text.match(TOKEN) || [], cache = termsOf[kind];
    for (var i = 0; i < tokens.length; i++) {
      var terms = cache[tokens[i]] || (cache[tokens[i]] = tokenTerms(tokens[i], kind));
      for (var j = 0; j < terms.length; j++) out.push(terms[j]);
    }
    return out;
  }

  // The fields whose compound names' parts go to a field of their own, and how much a match
  // there counts against one in the field.
  var PARTED = ["t", "w", "c", "a"], PART_WEIGHT = 0.4;

  function engine(fields) {
    return new MiniSearch(settings(fields));
  }

  function settings(fields) {
    var all = fields.concat(fields.filter(function (f) { return PARTED.indexOf(f) >= 0; }).map(function (f) { return f + "~"; }));
    return {
      fields: all,
      extractField: function (doc, field) { return doc[field.replace("~", "")]; },
      tokenize: function (text, field) {
        if (field === "q") return tokenize(text, "all").filter(function (t) { return CJK.test(t); });
        return tokenize(text, PARTED.indexOf(field) >= 0 ? "whole" : field && field.slice(-1) === "~" ? "parts" : "all");
      },
      processTerm: function (t) { return t; },
    };
  }

  function partBoosts(boosts) {
    var out = Object.assign({}, boosts);
    PARTED.forEach(function (f) { out[f + "~"] = boosts[f] * PART_WEIGHT; });
    return out;
  }

  function union(into, more) {
    more.forEach(function (x) { if (into.indexOf(x) < 0) into.push(x); });
  }

  // Document place -> its real readers' words (q), from the index's `asked` pairs (query, places).
  function askedByDoc(data) {
    var asked = {};
    (data.asked || []).forEach(function (pair) {
      pair[1].forEach(function (i) { asked[i] = asked[i] ? asked[i] + "\n" + pair[0] : pair[0]; });
    });
    return asked;
  }

  // One language's index: `data` is search/entries.json (boost, synonyms, docs without their
  // texts), enough to rank; addTexts(texts) indexes search/text.json too, which refines it.
  // The entries have engines of their own (heads, texts); the pages and their sections another
  // (places), so that how an entry ranks depends on the entries alone: the terminal's `find`,
  // which has no pages, ranks them exactly as the site does.
  var ENTRY_KINDS = ["entry", "error"];

  function Index(data) {
    this.boost = data.boost;
    this.synonyms = data.synonyms;
    this.docs = data.docs;
    var asked = askedByDoc(data);
    Object.keys(asked).forEach(function (i) { data.docs[i].q = asked[i]; });
    this.heads = engine(FIELDS);
    this.heads.addAll(this.numbered(true));
    this.places = this.placesEngine(null);
    this.texts = null;
  }

  // The entries' documents (or the others'), each with its place in `docs` as its id.
  Index.prototype.numbered = function (entries, texts) {
    var out = [];
    this.docs.forEach(function (doc, i) {
      if ((ENTRY_KINDS.indexOf(doc.k) >= 0) !== entries) return;
      out.push(Object.assign({ id: i }, doc, texts ? { x: texts[i] } : {}));
    });
    return out;
  };

  Index.prototype.placesEngine = function (texts) {
    var places = engine(texts ? FIELDS.concat(["x"]) : FIELDS);
    places.addAll(this.numbered(false, texts));
    return places;
  };

  // The built index as data (MiniSearch's own serialization of both engines) and back: a program
  // that starts often and ranks from the same index (the terminal's `find`) loads it instead of
  // indexing again, which takes a few times longer.
  Index.prototype.toJSON = function () {
    return { boost: this.boost, synonyms: this.synonyms, docs: this.docs, heads: this.heads.toJSON(),
      texts: this.texts ? this.texts.toJSON() : null, places: this.places.toJSON(), placed: this.placed };
  };

  Index.load = function (saved) {
    var index = Object.create(Index.prototype);
    index.boost = saved.boost;
    index.synonyms = saved.synonyms;
    index.docs = saved.docs;
    index.heads = MiniSearch.loadJS(saved.heads, settings(FIELDS));
    index.texts = saved.texts ? MiniSearch.loadJS(saved.texts, settings(TEXT_FIELDS)) : null;
    index.placed = saved.placed;
    index.places = MiniSearch.loadJS(saved.places, settings(saved.placed ? FIELDS.concat(["x"]) : FIELDS));
    return index;
  };

  // A saved index cut down to what one query can reach: the terms it matches exactly, by prefix or
  // within its fuzzy distance, with every document and field statistic as saved, so MiniSearch
  // scores it exactly as the whole index. Loading the whole Chinese index takes about 0.3 s; a
  // program that answers one query (the terminal's `find`) loads this instead.
  Index.loadFor = function (saved, text) {
    var probe = Object.create(Index.prototype);
    probe.boost = saved.boost;
    probe.synonyms = saved.synonyms;
    probe.docs = saved.docs;
    var planned = probe.plan(text), options = planned.options, terms = options.tokenize(planned.query);
    function reachable(term) {
      for (var i = 0; i < terms.length; i++) {
        var q = terms[i], distance = options.fuzzy(q, i, terms);
        if (term === q || (options.prefix(q, i, terms) && term.lastIndexOf(q, 0) === 0)) return true;
        if (distance && Math.abs(term.length - q.length) <= distance && editDistance(q, term, distance) <= distance) return true;
      }
      return false;
    }
    function cut(engine) {
      return engine && Object.assign({}, engine, { index: engine.index.filter(function (e) { return reachable(e[0]); }) });
    }
    return Index.load(Object.assign({}, saved, { heads: cut(saved.heads), texts: cut(saved.texts), places: cut(saved.places) }));
  };

  // Levenshtein distance (insertions, deletions, substitutions), as MiniSearch's fuzzy search
  // counts it; past `limit` it stops early and returns more than `limit`.
  function editDistance(a, b, limit) {
    var previous = [], current = [], i, j;
    for (j = 0; j <= b.length; j++) previous[j] = j;
    for (i = 1; i <= a.length; i++) {
      current = [i];
      var best = i;
      for (j = 1; j <= b.length; j++) {
        current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
        if (current[j] < best) best = current[j];
      }
      if (best > limit) return limit + 1;
      previous = current;
    }
    return previous[b.length];
  }

  // `async`: in chunks, so that typing stays responsive meanwhile (a Promise); else at once.
  Index.prototype.addTexts = function (texts, async) {
    var body = engine(TEXT_FIELDS), self = this;
    var docs = this.numbered(true).map(function (doc) { return { id: doc.id, x: texts[doc.id], q: doc.q }; });
    this.places = this.placesEngine(texts);  // a few hundred short documents: at once
    this.placed = true;
    if (!async) { body.addAll(docs); this.texts = body; return null; }
    return body.addAllAsync(docs, { chunkSize: 100 }).then(function () { self.texts = body; });
  };

  // The query with the site's words added for what readers also type (内存 -> 显存, lr -> 学习率).
  Index.prototype.expand = function (query) {
    var lower = query.toLowerCase(), extra = [], synonyms = this.synonyms;
    Object.keys(synonyms).forEach(function (typed) {
      var found = CJK.test(typed) ? lower.indexOf(typed) >= 0
        : new RegExp("(^|[^a-z0-9_])" + typed.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "($|[^a-z0-9_])").test(lower);
      if (found) extra.push(synonyms[typed]);
    });
    return extra.length ? query + " " + extra.join(" ") : query;
  };

  // What MiniSearch is asked for a query: the query as searched (filler out, synonyms in) and the
  // search options, with `weight` for how much each matched term counts.
  Index.prototype.plan = function (query) {
    var docs = this.docs, boost = this.boost;
    var kept = tokenize(query.replace(FILLER, " ")).filter(function (t) { return STOPWORDS.indexOf(t) < 0; });
    // Does the query paste or name an error? Then error entries rank as entries, else below them.
    var aboutError = ERROR_WORDS.test(query) || (CJK.test(query) && SYMPTOM.test(query)) || kept.length >= MESSAGE_TERMS;
    if (kept.length) query = query.replace(FILLER, " ");
    var common = this.commonTerms();
    var typed = Object.create(null), expanded = this.expand(query), readers = tokenize(query);
    readers.forEach(function (t) { typed[t] = true; });
    var typing = /\s$/.test(query) ? null : readers[readers.length - 1];
    // The names before the last in a dotted name (torch, nn, functional in
    // torch.nn.functional.interpolate) say where the API lives, not what it is: they count
    // NAMESPACE_WEIGHT, unless the reader also typed them on their own.
    var namespace = Object.create(null), alone = Object.create(null);
    (query.toLowerCase().match(TOKEN) || []).forEach(function (token) {
      var names = token.split(".");
      names.slice(0, -1).forEach(function (name) { tokenTerms(name, "all").forEach(function (t) { namespace[t] = true; }); });
      if (names.length === 1) tokenTerms(token, "all").forEach(function (t) { alone[t] = true; });
    });
    function weight(term) {
      return (GENERIC.indexOf(term) >= 0 ? GENERIC_WEIGHT : common(term) ? COMMON_WEIGHT : 1) * (typed[term] ? 1 : ADDED_WEIGHT)
        * (CJK.test(term) ? CJK_PAIR_WEIGHT : 1)
        * (namespace[term] && !alone[term] ? NAMESPACE_WEIGHT : 1);
    }
    var options = {
      tokenize: function (text) {
        return tokenize(text, "all").filter(function (t) { return !kept.length || STOPWORDS.indexOf(t) < 0; });
      },
      boost: partBoosts(MESSAGE.test(query) || kept.length >= MESSAGE_TERMS ? FIELD_BOOST
        : Object.assign({}, FIELD_BOOST, { o: TASK_OUTPUT_BOOST })),
      boostTerm: weight,
      combineWith: "OR",
      // A lone Chinese character is a prefix only while it is being typed (the query's last
      // word): between two Latin words (grad为none) it is a particle, not the start of a word.
      prefix: function (term) { return CJK.test(term) ? term.length === 1 && term === typing : term.length >= 3; },
      fuzzy: function (term) { return CJK.test(term) || term.length < 4 ? false : term.length < 6 ? 1 : 2; },
      boostDocument: function (id) {
        var kind = docs[id].k;
        return (boost[kind === "error" && !aboutError ? "error-task" : kind] || 1) * (docs[id].b || 1)
          * (1 + DEMAND * Math.log1p(docs[id].n || 0));
      },
    };
    return { query: expanded, options: options, weight: weight };
  };

  // Whether a term stands in more than COMMON_SHARE of the entries (their heads or texts), each
  // term counted once. Reads MiniSearch's term index (vendored, so its shape is fixed): term ->
  // field -> document -> frequency.
  Index.prototype.commonTerms = function () {
    var engines = [this.heads, this.texts].filter(Boolean), common = this.common;
    if (!common || common.engines !== engines.length) {  // first use, or the texts were indexed since
      var entries = this.docs.filter(function (doc) { return ENTRY_KINDS.indexOf(doc.k) >= 0; }).length;
      common = this.common = { engines: engines.length, limit: COMMON_SHARE * entries, terms: Object.create(null) };
    }
    return function (term) {
      if (!(term in common.terms)) {
        var seen = new Set();
        engines.forEach(function (engine) {
          var fields = engine._index.get(term);
          if (fields) fields.forEach(function (docs) { docs.forEach(function (_, short) { seen.add(engine._documentIds.get(short)); }); });
        });
        common.terms[term] = seen.size > common.limit;
      }
      return common.terms[term];
    };
  };

  // Every document that shares a term with the query, best first.
  Index.prototype.search = function (text) {
    var docs = this.docs, planned = this.plan(text), query = planned.query, options = planned.options;
    var weight = planned.weight;
    // MiniSearch scores a document by the sum over fields and terms, times the number of query
    // terms it matched; here each matched query term counts by its weight instead, and summing
    // the two indexes' results ranks as one index would.
    var merged = {};
    [this.heads, this.places].concat(this.texts ? [this.texts] : []).forEach(function (engine) {
      engine.search(query, options).forEach(function (r) {
        var m = merged[r.id] || (merged[r.id] = { id: r.id, sum: 0, queryTerms: [], terms: [] });
        m.sum += r.score / r.queryTerms.length;
        union(m.queryTerms, r.queryTerms);
        union(m.terms, r.terms);
      });
    });
    return Object.keys(merged).map(function (id) {
      var m = merged[id], coverage = 0;
      m.queryTerms.forEach(function (t) { coverage += weight(t); });
      return Object.assign({ id: m.id, score: m.sum * coverage, terms: m.terms }, docs[m.id]);
    }).sort(function (a, b) { return b.score - a.score; });
  };

  // The results a list holds for a query, best first: every result shares a word with the query;
  // the ones far below the best are left out.
  Index.prototype.listed = function (query) {
    var results = this.search(query);
    var floor = results.length ? results[0].score * MIN_SCORE : 0;
    return results.filter(function (r) { return r.score >= floor; });
  };

  return { CJK: CJK, TOKEN: TOKEN, tokenize: tokenize, askedByDoc: askedByDoc, Index: Index };
});
