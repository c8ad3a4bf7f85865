// ccsite search: queries the site's static index (search/*.js, derived
// from the bleve index at build time) in the browser, with no server and
// from file://, where fetch, modules, workers and WebAssembly all fail:
// every shard is a classic script that hands its data to ccsiteSearch.put.
// When the site is served by `ccsite serve`, /api/search answers instead.
//
// Scoring is bleve's BM25, reproduced term for term (see search/query.go):
// a conjunction of the words and phrases, one query norm over all terms,
// prefix expansions scaled by their coordination factor, filters unscored;
// ties go by document number, which is the order of time, then id.
(function () {
  "use strict";
  if (window.ccsiteSearch) return;

  var script = document.currentScript;
  var root = script ? script.src.replace(/assets\/search\.js(\?.*)?$/, "") : "";

  var manifest = null, manifestWaiters = [];
  var shards = Object.create(null);   // name → data
  var pending = Object.create(null);  // name → {promise, resolve, reject}

  // ---- loading ---------------------------------------------------------

  function inject(src, onerror) {
    var s = document.createElement("script");
    s.src = src;
    s.async = true;
    s.onerror = onerror;
    document.head.appendChild(s);
  }

  function loadManifest() {
    if (manifest) return Promise.resolve(manifest);
    return new Promise(function (resolve, reject) {
      manifestWaiters.push([resolve, reject]);
      if (manifestWaiters.length > 1) return;
      inject(root + "search/index.js", function () {
        var w = manifestWaiters; manifestWaiters = [];
        w.forEach(function (x) { x[1](new Error("this site has no search index (search/index.js did not load)")); });
      });
    });
  }

  function load(name) {
    if (shards[name]) return Promise.resolve(shards[name]);
    var p = pending[name];
    if (!p) {
      p = pending[name] = {};
      api.loaded.push(name);
      p.promise = new Promise(function (resolve, reject) { p.resolve = resolve; p.reject = reject; });
      inject(root + "search/" + name + ".js", function () {
        delete pending[name];
        p.reject(new Error("search shard " + name + " did not load"));
      });
    }
    return p.promise;
  }

  // ---- numbers: the shards' code (search/static.go, varint) -------------

  var DIGIT = new Int8Array(128).fill(-1);
  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".split("").forEach(function (c, i) { DIGIT[c.charCodeAt(0)] = i; });

  function Reader(s) { this.s = s; this.i = 0; }
  Reader.prototype.more = function () { return this.i < this.s.length; };
  Reader.prototype.next = function () {
    var n = 0, d;
    for (;;) {
      d = DIGIT[this.s.charCodeAt(this.i++)];
      if (d < 32) return n * 32 + d;
      n = n * 32 + (d - 32);
    }
  };

  // postings decodes a term's postings in a layer whose first document is
  // base: {docs, freqs, lens (the documents' field lengths, for scoring),
  // src and at (where each posting's positions are: see positions)}.
  // Positions are read only for phrases, so a common term costs no array
  // per document.
  function decodePostings(s, base) {
    var r = new Reader(s), docs = [], freqs = [], lens = [], src = [], at = [], doc = -1;
    while (r.more()) {
      var v = r.next();
      doc += Math.floor(v / 2) + 1;
      var f = v % 2 ? r.next() + 2 : 1;
      lens.push(r.next());
      src.push(s); at.push(r.i);
      for (var k = 0; k < f; k++) r.next();
      docs.push(base + doc); freqs.push(f);
    }
    return { docs: docs, freqs: freqs, lens: lens, src: src, at: at };
  }

  // positions are the k-th posting's positions of postings l.
  function positions(l, k) {
    var r = new Reader(l.src[k]), f = l.freqs[k], ps = new Array(f), last = 0;
    r.i = l.at[k];
    for (var j = 0; j < f; j++) { last += r.next(); ps[j] = last; }
    return ps;
  }

  // ---- layers --------------------------------------------------------------

  // The index is cut into layers (search/static.go, layerCuts): runs of
  // consecutive documents, each with its own term, meta and display shards
  // numbered from the layer's first document. A term's postings are its
  // postings in every layer, in layer order.
  function layers() {
    if (!manifest.starts) {
      var at = 0;
      manifest.starts = manifest.layers.map(function (l) { var s = at; at += l.n; return s; });
    }
    return manifest.layers;
  }

  // layerOf is the index of the layer holding document doc.
  function layerOf(doc) {
    var st = manifest.starts, lo = 0, hi = st.length - 1, at = 0;
    while (lo <= hi) {
      var m = (lo + hi) >> 1;
      if (st[m] <= doc) { at = m; lo = m + 1; } else hi = m - 1;
    }
    return at;
  }

  // ---- terms -------------------------------------------------------------

  // Terms are in bleve's order, UTF-8 bytes, which is code point order.
  function cmp(a, b) {
    var n = Math.min(a.length, b.length);
    for (var i = 0; i < n; i++) {
      var x = a.charCodeAt(i), y = b.charCodeAt(i);
      if (x === y) continue;
      // A surrogate (U+D800–DFFF) stands for a code point above U+FFFF.
      var xs = x >= 0xd800 && x <= 0xdfff, ys = y >= 0xd800 && y <= 0xdfff;
      if (xs !== ys) return xs ? 1 : -1;
      return x < y ? -1 : 1;
    }
    return a.length - b.length;
  }

  // shardFor is the index of a layer's term shard that would hold term.
  function shardFor(layer, term) {
    var t = layer.terms, lo = 0, hi = t.length - 1, at = 0;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (cmp(t[mid][0], term) <= 0) { at = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return at;
  }

  function termShard(layer, i) {
    return load(layer.terms[i][1]).then(function (d) {
      if (!d.map) {
        d.map = Object.create(null);
        for (var k = 0; k < d.terms.length; k++) d.map[d.terms[k]] = k;
      }
      return d;
    });
  }

  // getTerm decodes a shard's k-th term's postings (once per shard and
  // base: the same shard may serve two layers).
  function getTerm(shard, k, base) {
    if (!shard.dec) shard.dec = Object.create(null);
    var key = base + ":" + k, p = shard.dec[key];
    if (!p) p = shard.dec[key] = decodePostings(shard.posts[k], base);
    return p;
  }

  var FIELDS = ["docs", "freqs", "lens", "src", "at"];
  var EMPTY = { docs: [], freqs: [], lens: [], src: [], at: [] };

  // concat joins a term's postings of successive layers.
  function concat(term, parts) {
    parts = parts.filter(function (p) { return p.docs.length; });
    var out = { term: term };
    FIELDS.forEach(function (f) {
      if (parts.length === 1) out[f] = parts[0][f];
      else {
        out[f] = [].concat.apply([], parts.map(function (p) { return p[f]; }));
      }
    });
    return out;
  }

  function lookup(term) {
    var ls = layers();
    return Promise.all(ls.map(function (layer, li) {
      if (!layer.terms.length) return EMPTY;
      return termShard(layer, shardFor(layer, term)).then(function (d) {
        var k = d.map[term];
        return k === undefined ? EMPTY : getTerm(d, k, manifest.starts[li]);
      });
    })).then(function (parts) { return concat(term, parts); });
  }

  // expand lists the postings of every term starting with prefix, in order.
  function expand(prefix) {
    var ls = layers();
    return Promise.all(ls.map(function (layer, li) {
      var out = [];
      if (!layer.terms.length) return out;
      function from(i) {
        return termShard(layer, i).then(function (d) {
          var k = 0;
          // first term >= prefix
          var lo = 0, hi = d.terms.length;
          while (lo < hi) { var m = (lo + hi) >> 1; if (cmp(d.terms[m], prefix) < 0) lo = m + 1; else hi = m; }
          for (k = lo; k < d.terms.length && d.terms[k].lastIndexOf(prefix, 0) === 0; k++) {
            out.push([d.terms[k], getTerm(d, k, manifest.starts[li])]);
          }
          if (k === d.terms.length && i + 1 < layer.terms.length &&
              layer.terms[i + 1][0].lastIndexOf(prefix, 0) === 0) return from(i + 1);
          return out;
        });
      }
      // The shards after the first whose first term starts with prefix
      // hold expansions too: ask for them all at once.
      var at = shardFor(layer, prefix);
      for (var j = at + 1; j < layer.terms.length && layer.terms[j][0].lastIndexOf(prefix, 0) === 0; j++) termShard(layer, j).catch(function () { /* from() reports it */ });
      return from(at);
    })).then(function (perLayer) {
      // every term once, in order, with its postings in every layer
      var byTerm = new Map();
      perLayer.forEach(function (list) {
        list.forEach(function (e) {
          var ps = byTerm.get(e[0]);
          if (!ps) byTerm.set(e[0], ps = []);
          ps.push(e[1]);
        });
      });
      var terms = Array.from(byTerm.keys()).sort(cmp);
      return terms.map(function (t) { return concat(t, byTerm.get(t)); });
    });
  }

  // ---- document metadata (days) -------------------------------------------
  // Only date filters read the meta shards: scoring takes the lengths from
  // the postings, the other filters read filter terms, and a result's kind,
  // project and session come with its display text.

  function metaShard(name) {
    return load(name).then(function (d) {
      if (!d.day) {
        var r = new Reader(d.s), day = [];
        while (r.more()) day.push(r.next());
        d.day = day;
      }
      return d;
    });
  }

  // metaAt places document doc: its layer, its meta shard's file and its
  // row there.
  function metaAt(doc) {
    var li = layerOf(doc), layer = manifest.layers[li], k = doc - manifest.starts[li];
    var size = manifest.metaDocs;
    return { layer: layer, file: layer.meta[Math.floor(k / size)], row: k % size };
  }

  // metaFor loads the meta shards that cover docs; it resolves to a function
  // giving a document's meta record: {day}.
  function metaFor(docs) {
    layers();
    var need = Object.create(null), list = [];
    docs.forEach(function (doc) {
      var f = metaAt(doc).file;
      if (!need[f]) { need[f] = true; list.push(f); }
    });
    return Promise.all(list.map(metaShard)).then(function () {
      return function (doc) {
        var at = metaAt(doc);
        return { day: shards[at.file].day[at.row] + at.layer.day0 };
      };
    });
  }

  function displayFor(docs) {
    layers();
    return Promise.all(docs.map(function (doc) {
      var li = layerOf(doc), layer = manifest.layers[li], local = doc - manifest.starts[li];
      var firsts = layer.docs, lo = 0, hi = firsts.length - 1, i = 0;
      while (lo <= hi) { var m = (lo + hi) >> 1; if (firsts[m][0] <= local) { i = m; lo = m + 1; } else hi = m - 1; }
      return load(firsts[i][1]).then(function (d) {
        var row = d[2][local - firsts[i][0]], kind = layer.kinds[row[5]];
        return {
          page: d[0][row[0]], anchor: row[1], title: d[1][row[2]], time: row[3], text: row[4],
          role: kind[0], tool: kind[1], model: kind[2], agent: kind[3] || "", project: layer.projects[row[6]], session: d[3][row[7]]
        };
      });
    }));
  }

  // ---- queries -----------------------------------------------------------

  // analysis mirrors search/tokenizer.go: a word is a run of letters,
  // numbers and underscores; each character folded (full-width ASCII to
  // ASCII, half-width katakana to full-width, accents off Latin, Greek and
  // Cyrillic letters); runs of Han, Hiragana, Katakana (with ー) and Hangul
  // inside a word become overlapping bigrams (a lone character stays one);
  // tokens lower-cased. analyze gives each token with its range in text (in
  // UTF-16 units); alone adds every CJK character alone (for marking).
  var WORDCHAR = /[\p{L}\p{N}_]/u;
  var CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30FC\uFF70]/u;
  var FOLDED = /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]/u;
  function fold(c) {
    var cp = c.codePointAt(0);
    if (cp < 0x80) return c;
    if (cp >= 0xFF01 && cp <= 0xFF5E) return String.fromCodePoint(cp - 0xFEE0);
    if (cp >= 0xFF66 && cp <= 0xFF9D) return c.normalize("NFKC");
    if (FOLDED.test(c)) return c.normalize("NFD").replace(/\p{Mn}/gu, "");
    return c;
  }
  // ASCII word characters: letters, digits, underscore.
  var ASCIIWORD = new Uint8Array(128);
  for (var c0 = 0; c0 < 128; c0++) ASCIIWORD[c0] = /[A-Za-z0-9_]/.test(String.fromCharCode(c0)) ? 1 : 0;
  // stop, when given, is called with the tokens so far after each word;
  // analyze returns them as they are once it says true.
  function analyze(text, alone, stop) {
    var out = [], run = [], at = 0;
    function flush() {
      for (var i = 0; i < run.length;) {
        var j = i;
        while (j < run.length && run[j].cjk === run[i].cjk) j++;
        if (!run[i].cjk) {
          var w = "";
          for (var k = i; k < j; k++) w += run[k].s;
          out.push({ t: w.toLowerCase(), at: run[i].at, end: run[j - 1].end });
        } else if (j - i === 1) {
          out.push({ t: run[i].s.toLowerCase(), at: run[i].at, end: run[i].end, alone: true });
        } else {
          for (var b = i; b + 1 < j; b++) {
            if (alone) out.push({ t: run[b].s.toLowerCase(), at: run[b].at, end: run[b].end, alone: true });
            out.push({ t: (run[b].s + run[b + 1].s).toLowerCase(), at: run[b].at, end: run[b + 1].end });
          }
          if (alone) out.push({ t: run[j - 1].s.toLowerCase(), at: run[j - 1].at, end: run[j - 1].end, alone: true });
        }
        i = j;
      }
      run = [];
    }
    for (var ch of String(text)) {
      var code = ch.charCodeAt(0);
      if (code < 128 ? ASCIIWORD[code] : WORDCHAR.test(ch)) {
        var f = code < 128 ? ch : fold(ch);
        run.push({ s: f, at: at, end: at + ch.length, cjk: code >= 128 && CJK.test(String.fromCodePoint(f.codePointAt(0))) });
      } else if (run.length) {
        flush();
        if (stop && stop(out)) return out;
      }
      at += ch.length;
    }
    if (run.length) flush();
    return out;
  }
  function tokens(text) {
    return analyze(text, false).map(function (t) { return t.t; });
  }

  var FILTER = /\b(project|session|tool|role|model|agent|after|before):("[^"]*"|[^\t\n\f\r ]+)/gi;
  // ROLES are the roles a document can have (search.Roles).
  var ROLES = ["prompt", "answer", "thinking", "tool", "agent", "teammate", "commit"];
  var PHRASE = /"([^"]*)"/g;

  function parseDay(v) {
    var m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
    if (!m) return null;
    var y = +m[1], mo = +m[2], d = +m[3];
    var t = Date.UTC(y, mo - 1, d);
    var dt = new Date(t);
    if (dt.getUTCFullYear() !== y || dt.getUTCMonth() !== mo - 1 || dt.getUTCDate() !== d) return null;
    return Math.floor(t / 86400000);
  }

  // parse takes a query apart as search/query.go's parse does. A filter
  // with a value it cannot have sets q.error, the message Go gives
  // (search.QueryError).
  function parse(text) {
    var q = { words: [], phrases: [], project: "", session: "", tool: "", role: "", model: "", agent: "", after: null, before: null, error: "" };
    text = String(text).replace(FILTER, function (all, key, val) {
      val = val.replace(/^"+|"+$/g, "");
      var k = key.toLowerCase();
      switch (k) {
        case "project": q.project = val; break;
        case "session": q.session = val; break;
        case "tool": q.tool = val; break;
        case "role": q.role = val.toLowerCase(); break;
        case "model": q.model = val; break;
        case "agent": q.agent = val.toLowerCase(); break;
        case "after":
        case "before": {
          var d = parseDay(val);
          if (d === null) {
            if (!q.error) q.error = k + ": want a date like 2026-01-02, not " + JSON.stringify(val);
          } else if (k === "after") q.after = d;
          else q.before = d;
          break;
        }
      }
      return " ";
    });
    if (!q.error && q.role && ROLES.indexOf(q.role) < 0) {
      q.error = "role must be one of " + ROLES.join(", ") + ", not " + JSON.stringify(q.role);
    }
    text = text.replace(PHRASE, function (all) {
      var t = tokens(all);
      if (t.length) q.phrases.push(t);
      return " ";
    });
    text.split(/\s+/).forEach(function (w) {
      var t = tokens(w);
      if (t.length) q.words.push(t);
    });
    q.empty = isEmpty(q);
    return q;
  }

  function isEmpty(q) {
    return !q.words.length && !q.phrases.length && !q.project && !q.session && !q.tool && !q.role && !q.model && !q.agent &&
      q.after === null && q.before === null;
  }

  // scoped adds a scope ({session, project}: the fields of search.Query)
  // to a parsed query; a filter written in the text wins, as in
  // search/query.go.
  function scoped(q, scope) {
    if (scope) {
      if (!q.session && scope.session) q.session = scope.session;
      if (!q.project && scope.project) q.project = scope.project;
      q.empty = isEmpty(q);
    }
    return q;
  }

  function idf(n, df) { return Math.log(1 + (n - df + 0.5) / (df + 0.5)); }

  // A clause is a term, a phrase (terms at consecutive positions) or a
  // prefix (any of its expansions); each leaf is one term's postings.
  function clauses(q, prefix) {
    var out = [];
    q.words.forEach(function (toks, i) {
      if (toks.length > 1) out.push({ kind: "phrase", terms: toks });
      else if (prefix && i === q.words.length - 1) out.push({ kind: "prefix", terms: toks });
      else out.push({ kind: "term", terms: toks });
    });
    q.phrases.forEach(function (toks) {
      out.push({ kind: toks.length > 1 ? "phrase" : "term", terms: toks });
    });
    return Promise.all(out.map(function (c) {
      if (c.kind !== "prefix") {
        return Promise.all(c.terms.map(lookup)).then(function (ls) { c.leaves = ls; return c; });
      }
      return expand(c.terms[0]).then(function (ls) {
        // bleve: no expansion, or only the word itself, is a plain term
        if (!ls.length || (ls.length === 1 && ls[0].term === c.terms[0])) {
          c.kind = "term";
          return lookup(c.terms[0]).then(function (l) { c.leaves = [l]; return c; });
        }
        c.leaves = ls;
        return c;
      });
    }));
  }

  // A slot is a leaf and a posting of it, as one number: posting k of
  // leaf li is k * SLOT + li (no array per document).
  var SLOT = 67108864;

  // matchClause is a clause's matching documents with, per document, the
  // slot of the leaf that matches it, or for a prefix matched by several
  // expansions, their slots in leaf order (an array).
  function matchClause(c) {
    var m = new Map(), leaves = c.leaves;
    if (c.kind === "prefix") {
      for (var li = 0; li < leaves.length; li++) {
        var docs = leaves[li].docs;
        for (var k = 0; k < docs.length; k++) {
          var e = m.get(docs[k]), code = k * SLOT + li;
          if (e === undefined) m.set(docs[k], code);
          else if (typeof e === "number") m.set(docs[k], [e, code]);
          else e.push(code);
        }
      }
      return m;
    }
    // term or phrase: every leaf must hold the document
    var first = leaves[0].docs;
    if (leaves.length === 1) {
      for (var k1 = 0; k1 < first.length; k1++) m.set(first[k1], k1 * SLOT);
      return m;
    }
    var idx = leaves.map(function (l) {
      var at = new Map();
      for (var k = 0; k < l.docs.length; k++) at.set(l.docs[k], k);
      return at;
    });
    for (var k2 = 0; k2 < first.length; k2++) {
      var doc = first[k2], slots = [k2 * SLOT], ok = true;
      for (var lj = 1; lj < leaves.length; lj++) {
        var s = idx[lj].get(doc);
        if (s === undefined) { ok = false; break; }
        slots.push(s * SLOT + lj);
      }
      if (!ok) continue;
      if (c.kind === "phrase" && !phraseAt(leaves, slots)) continue;
      m.set(doc, slots);
    }
    return m;
  }

  // phraseAt tells whether the leaves occur at consecutive positions.
  function phraseAt(leaves, slots) {
    var ps = leaves.map(function (l, li) { return positions(l, Math.floor(slots[li] / SLOT)); }), start = ps[0];
    outer:
    for (var a = 0; a < start.length; a++) {
      for (var li = 1; li < leaves.length; li++) {
        var want = start[a] + li, found = false;
        for (var b = 0; b < ps[li].length; b++) if (ps[li][b] === want) { found = true; break; }
        if (!found) continue outer;
      }
      return true;
    }
    return false;
  }

  // run finds and ranks the documents for a parsed query: {total, hits}
  // with the best size hits, best first.
  function run(q, prefix, size) {
    return Promise.all([clauses(q, prefix), filterSets(q)]).then(function (r) {
      var cs = r[0], sets = r[1];
      var n = manifest.n;
      // one norm over every leaf of every clause (boost 1; filters add 0)
      var sumW = 0;
      cs.forEach(function (c) {
        c.leaves.forEach(function (l) {
          l.idf = idf(n, l.docs.length);
          sumW += l.idf * l.idf;
        });
      });
      var qn = 1 / Math.sqrt(sumW);
      var matches = cs.map(matchClause);
      // candidates: documents in every clause and every filter's set
      var all = matches.concat(sets), cand = [];
      if (all.length) {
        var smallest = 0;
        all.forEach(function (m, i) { if (m.size < all[smallest].size) smallest = i; });
        all[smallest].forEach(function (v, doc) {
          for (var i = 0; i < all.length; i++) if (!all[i].has(doc)) return;
          cand.push(doc);
        });
        if (!cs.length) cand.sort(function (a, b) { return a - b; });
      } else {
        for (var d = 0; d < n; d++) cand.push(d);
      }
      var filt = dayFn(q);
      return (filt ? metaFor(cand) : Promise.resolve(null)).then(function (meta) {
        var K1 = manifest.k1, B = manifest.b, avgdl = manifest.avgdl;
        var docs = [], scores = [];
        // leaf slot's term score for a document of norm
        function term(c, code, norm) {
          var l = c.leaves[code % SLOT], tf = Math.sqrt(l.freqs[Math.floor(code / SLOT)]);
          var v = l.idf * (tf * K1) / (tf + K1 * norm);
          var qw = l.idf * qn;
          return qw !== 1 ? v * qw : v;
        }
        for (var ci0 = 0; ci0 < cand.length; ci0++) {
          var doc = cand[ci0];
          if (filt && !filt(meta(doc))) continue;
          var score = 0;
          if (cs.length) {
            var f0 = matches[0].get(doc), code0 = typeof f0 === "number" ? f0 : f0[0];
            var len = cs[0].leaves[code0 % SLOT].lens[Math.floor(code0 / SLOT)];
            var nm = Math.fround(1 / Math.sqrt(len)), fl = 1 / (nm * nm);
            var norm = 1 - B + (B * fl / avgdl);
            for (var ci = 0; ci < cs.length; ci++) {
              var c = cs[ci], slots = matches[ci].get(doc), sum = 0, count = 1;
              if (typeof slots === "number") sum = term(c, slots, norm);
              else {
                for (var s = 0; s < slots.length; s++) sum += term(c, slots[s], norm);
                count = slots.length;
              }
              if (c.kind === "prefix") sum = sum * (count / c.leaves.length);
              score += sum;
            }
          }
          docs.push(doc);
          scores.push(score);
        }
        // Ties (equal to 12 digits, as in search/query.go) go by id. Only
        // the documents that may be among the best size are ranked: those
        // scoring at least the size-th best score less 1e-11 of it (less
        // than a 12th digit); a lower score rounds, to 12 digits, below
        // size others, so it cannot be among them.
        var keep = docs.length;
        if (docs.length > size) {
          var sorted = Float64Array.from(scores).sort();
          var t = sorted[sorted.length - size], floor = t - Math.abs(t) * 1e-11;
          keep = 0;
          for (var i = 0; i < docs.length; i++) if (scores[i] >= floor) keep++;
        }
        var hits = [];
        for (var j = 0; j < docs.length; j++) {
          if (keep < docs.length && scores[j] < floor) continue;
          hits.push({ doc: docs[j], score: scores[j], key: Number(scores[j].toPrecision(12)) });
        }
        hits.sort(function (a, b) { return b.key - a.key || a.doc - b.doc; });
        return { total: docs.length, hits: hits.slice(0, size) };
      });
    });
  }

  // The filters on a document's session, role, tool, model and project
  // read postings: the static index holds each document under a term per
  // value (search/static.go, filterTerms). filterSets resolves to one set
  // of documents per such filter (a project filter matches several
  // names).
  function filterSets(q) {
    var fs = [];
    if (q.session) fs.push([" s:" + q.session]);
    if (q.role) fs.push([" r:" + q.role]);
    if (q.tool) fs.push([" t:" + q.tool]);
    if (q.model) fs.push([" m:" + q.model]);
    if (q.agent) fs.push([" a:" + q.agent]);
    if (q.project) {
      var p = q.project, wild = /[*?]/.test(p), names = Object.create(null), list = [];
      layers().forEach(function (l) {
        l.projects.forEach(function (name) {
          if (names[name]) return;
          names[name] = true;
          if (name === p || (!wild && (name.endsWith("/" + p) || name.endsWith("\\" + p)))) list.push(" p:" + name);
        });
      });
      fs.push(list);
    }
    return Promise.all(fs.map(function (terms) {
      return Promise.all(terms.map(lookup)).then(function (ls) {
        var set = new Set();
        ls.forEach(function (l) { for (var i = 0; i < l.docs.length; i++) set.add(l.docs[i]); });
        return set;
      });
    }));
  }

  // dayFn tests a document's meta against the date filters, or is null.
  function dayFn(q) {
    if (q.after === null && q.before === null) return null;
    return function (m) {
      return (q.after === null || m.day >= q.after) && (q.before === null || m.day <= q.before);
    };
  }


  // query runs text against the static index: {total, hits: [{id, page,
  // anchor, title, project, session, role, tool, model, time, excerpt,
  // score}]}, best first; excerpt is the part of the document's display
  // text around its first match. opts: {prefix: the last word as a
  // prefix, size: hits to describe (default 20), from: how many of the
  // best to skip (a later page; default 0), scope: {session, project}}.
  function query(text, opts) {
    opts = opts || {};
    var t0 = performance.now();
    var q = scoped(parse(text), opts.scope);
    if (q.error) return Promise.reject(new Error(q.error));
    if (q.empty) return Promise.reject(new Error("Type words to find, \"a phrase\", or filters such as tool:Bash."));
    return loadManifest().then(function () {
      return run(q, !!opts.prefix, (opts.from || 0) + (opts.size || 20));
    }).then(function (all) {
      var top = all.hits.slice(opts.from || 0);
      return displayFor(top.map(function (h) { return h.doc; })).then(function (shown) {
        var hits = top.map(function (h, i) {
          var d = shown[i];
          var anchor = d.anchor.split("?")[0];
          return {
            id: d.page + "#" + d.anchor, doc: h.doc, score: h.score, page: d.page, anchor: anchor,
            title: d.title, project: d.project, session: d.session, role: d.role, tool: d.tool, model: d.model, agent: d.agent,
            time: d.time ? new Date(d.time * 1000).toISOString() : "", excerpt: around(d.text || "", q, !!opts.prefix)
          };
        });
        var res = { total: all.total, hits: hits, terms: termsOf(q), ms: performance.now() - t0, source: "static" };
        api.last = res;
        return res;
      });
    });
  }

  // ---- snippets -----------------------------------------------------------

  var WIDTH = 240; // characters, as search/query.go's snippets (bytes there)

  // firstMatch finds in text the first place a query's word or phrase
  // matches, as tokens (the last word as a prefix while typing): {at, end}
  // in characters, or null.
  function firstMatch(text, q, prefix) {
    var seqs = [];
    q.words.forEach(function (w, i) {
      seqs.push({ terms: w, prefix: prefix && w.length === 1 && i === q.words.length - 1 });
    });
    q.phrases.forEach(function (p) { seqs.push({ terms: p }); });
    if (!seqs.length) return null;
    // A CJK character asked alone is found inside longer runs.
    var lone = seqs.filter(function (sq) {
      var t = sq.terms;
      return t.length === 1 && t[0].length <= 2 && Array.from(t[0]).length === 1 && CJK.test(t[0]);
    });
    if (lone.length) {
      var alone = analyze(text, true).filter(function (t) { return t.alone; });
      for (var a = 0; a < alone.length; a++) {
        for (var s0 = 0; s0 < lone.length; s0++) {
          if (alone[a].t === lone[s0].terms[0]) return { at: alone[a].at, end: alone[a].end };
        }
      }
    }
    // The tokens are checked as they come, and the analysis stops at the
    // first match: a long text is seldom read to its end.
    var found = null, next = 0;
    function check(toks, final) {
      for (; next < toks.length; next++) {
        for (var s = 0; s < seqs.length; s++) {
          var terms = seqs[s].terms, n = terms.length;
          if (next + n > toks.length) {
            if (!final) return false; // wait for the tokens after
            continue;
          }
          var ok = true;
          for (var k = 0; ok && k < n; k++) {
            ok = seqs[s].prefix ? toks[next + k].t.lastIndexOf(terms[k], 0) === 0 : toks[next + k].t === terms[k];
          }
          if (ok) { found = { at: toks[next].at, end: toks[next + n - 1].end }; return true; }
        }
      }
      return false;
    }
    var toks = analyze(text, false, function (t) { return check(t, false); });
    if (!found) check(toks, true);
    return found;
  }

  function lowSurrogate(text, i) { var c = text.charCodeAt(i); return c >= 0xdc00 && c <= 0xdfff; }

  // around cuts about WIDTH characters of text around its first match (the
  // start when none is found), on spaces where one is near, with "…"
  // where it cut.
  function around(text, q, prefix) {
    if (text.length <= WIDTH) return text;
    var hit = firstMatch(text, q, prefix);
    var from = 0, to;
    if (hit) {
      from = Math.max(0, hit.at - Math.floor(WIDTH / 3));
      if (from > 0) {
        var sp = text.indexOf(" ", from);
        if (sp >= 0 && sp < hit.at && sp - from < 24) from = sp + 1;
      }
    }
    to = Math.min(text.length, Math.max(from + WIDTH, hit ? hit.end : 0));
    if (to < text.length) {
      var sp2 = text.lastIndexOf(" ", to);
      if (sp2 > (hit ? hit.end : from) && to - sp2 < 24) to = sp2;
    }
    if (from > 0 && lowSurrogate(text, from)) from++;
    if (to < text.length && lowSurrogate(text, to)) to--;
    return (from > 0 ? "…" : "") + text.slice(from, to) + (to < text.length ? "…" : "");
  }

  function termsOf(q) {
    var out = [];
    q.words.forEach(function (t) { out = out.concat(t); });
    q.phrases.forEach(function (t) { out = out.concat(t); });
    return out;
  }

  var api = {
    manifest: function (m) {
      // Each layer's entry is a file of its own (search/static.go,
      // manifestLayer), so the manifest an update rewrites stays small:
      // the manifest is ready once they are all in.
      Promise.all(m.layers.map(function (l) {
        return l.file ? load(l.file) : l;
      })).then(function (entries) {
        m.layers = entries;
        manifest = m;
        var w = manifestWaiters; manifestWaiters = [];
        w.forEach(function (x) { x[0](m); });
      }, function (err) {
        var w = manifestWaiters; manifestWaiters = [];
        w.forEach(function (x) { x[1](err); });
      });
    },
    put: function (name, a, b) {
      var data = name.charAt(0) === "t" ? { terms: a, posts: b } : name.charAt(0) === "m" ? { s: a } : a;
      shards[name] = data;
      var p = pending[name];
      if (p) { delete pending[name]; p.resolve(data); }
    },
    query: query,
    search: function (text, prefix, scope, from, size) { return search(text, prefix, scope, from, size); },
    around: around,
    parse: parse,
    tokens: tokens,
    root: root,
    served: false,
    loaded: [], // the shards asked for, in order
    last: null
  };
  window.ccsiteSearch = api;

  // ---- the search page -----------------------------------------------------

  // viaAPI asks `ccsite serve`'s /api/search; it resolves to null when there
  // is no such API (a static host), so the static index answers instead.
  // search/api.js says whether there is one: the build writes it saying
  // no, and `ccsite serve` answers it saying yes, so no request ever fails.
  // The API gives the best n hits (n at most API_MAX): a later page asks
  // for them all and keeps its own; past API_MAX, the static index answers.
  var API_MAX = 200;
  function viaAPI(text, prefix, scope, from, size) {
    var pq = scoped(parse(text), scope);
    if (!api.served || !/^https?:$/.test(location.protocol) || pq.empty || pq.error || from + size > API_MAX) return Promise.resolve(null);
    var t0 = performance.now();
    var url = root + "api/search?n=" + (from + size) + "&q=" + encodeURIComponent(text) + (prefix ? "&prefix=1" : "");
    if (scope && scope.session) url += "&session=" + encodeURIComponent(scope.session);
    if (scope && scope.project) url += "&project=" + encodeURIComponent(scope.project);
    return fetch(url, { headers: { Accept: "application/json" } }).then(function (r) {
      var json = /json/.test(r.headers.get("Content-Type") || "");
      if (!json) { api.served = false; return null; }
      return r.json().then(function (body) {
        if (!r.ok) {
          if (r.status === 503) { api.served = false; return null; }
          throw new Error(body.error || ("search failed: " + r.status));
        }
        var q = parse(text);
        return {
          total: body.total, terms: termsOf(q), ms: performance.now() - t0, source: "api",
          hits: body.hits.slice(from).map(function (h) {
            return { id: h.id, page: h.page, anchor: h.anchor, title: h.title, project: h.project, session: h.session, role: h.role,
              tool: h.tool || "", model: h.model || "", agent: h.agent || "", time: h.time, snippet: h.snippet, score: h.score };
          })
        };
      });
    }, function () { api.served = false; return null; });
  }

  // search finds the hits of text from the from-th best, size of them
  // (default: the best PAGE).
  function search(text, prefix, scope, from, size) {
    from = from || 0;
    size = size || PAGE;
    return viaAPI(text, prefix, scope, from, size).then(function (res) {
      return res || query(text, { prefix: prefix, scope: scope, from: from, size: size });
    });
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // marked fills node with text, wrapping the words a query matched in
  // <mark>: whole terms, and words starting with the last term while typing.
  function marked(node, text, terms, prefix) {
    var set = Object.create(null);
    terms.forEach(function (t) { set[t] = true; });
    var last = prefix && terms.length ? terms[terms.length - 1] : "";
    var at = 0;
    // Bigrams overlap: a mark starts where the last one ended.
    analyze(text, true).forEach(function (tk) {
      var w = tk.t;
      if (tk.end <= at || !(set[w] || (last && !tk.alone && w.lastIndexOf(last, 0) === 0))) return;
      var from = Math.max(tk.at, at);
      node.appendChild(document.createTextNode(text.slice(at, from)));
      node.appendChild(el("mark", "", text.slice(from, tk.end)));
      at = tk.end;
    });
    node.appendChild(document.createTextNode(text.slice(at)));
  }

  // safeSnippet copies the API's snippet (escaped text with <mark>s) into
  // node keeping only text and <mark>: nothing in it can run.
  function safeSnippet(node, html) {
    var doc = new DOMParser().parseFromString("<p>" + html + "</p>", "text/html");
    doc.body.firstChild.childNodes.forEach(function (c) {
      if (c.nodeType === 3) node.appendChild(document.createTextNode(c.textContent));
      else if (c.nodeName === "MARK") node.appendChild(el("mark", "", c.textContent));
      else node.appendChild(document.createTextNode(c.textContent || ""));
    });
  }

  function shortProject(p) {
    var parts = String(p || "").split(/[\\/]/).filter(Boolean);
    return parts.length ? parts[parts.length - 1] : p;
  }

  var dateFormat = null; // made once: a formatter per call is slow
  function when(iso) {
    if (!iso || /^0001-/.test(iso)) return "";
    var d = new Date(iso);
    if (isNaN(d)) return "";
    if (!dateFormat) dateFormat = new Intl.DateTimeFormat(undefined, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
    return dateFormat.format(d);
  }

  // sessionPage is the page of the session a sub-agent's page belongs to
  // (build/link: "proj/sess/agent-x.html" beside "proj/sess.html").
  var AGENT_PAGE = /\/agent-[^\/]*\.html$/;
  // AGENT_NAMES names the agents (build/agents: agents.All) a result
  // says it is from; Claude Code's, the default, say nothing.
  var AGENT_NAMES = { codex: "Codex", gemini: "Gemini CLI" };
  function sessionPage(page) { return String(page).replace(AGENT_PAGE, ".html"); }

  // The results are shown a page of PAGE hits at a time ("More results"
  // adds the next), gathered by session: a session's heading where its
  // best hit ranks, its hits under it in their order, the first SHOW shown
  // and the rest behind "N more in this session".
  var PAGE = 20, SHOW = 3;

  // resultsView starts showing a search's results in list.
  function resultsView(list, res, prefix) {
    var hl = res.terms.join(" ");
    list.replaceChildren();
    return { list: list, groups: Object.create(null), q: hl ? "?hl=" + encodeURIComponent(hl) : "",
      terms: res.terms, prefix: prefix, total: res.total, shown: 0, ms: 0 };
  }

  // addHits shows hits after those shown: each under its session's
  // heading, made for the first of them. It returns the first heading's
  // link made, or null.
  function addHits(v, res) {
    var first = null;
    v.total = res.total;
    v.ms += res.ms;
    res.hits.forEach(function (h) {
      var key = h.session || sessionPage(h.page);
      var g = v.groups[key];
      if (!g) {
        g = v.groups[key] = newGroup(h);
        v.list.appendChild(g.li);
        first = first || g.link;
      }
      if (!g.named && !AGENT_PAGE.test(h.page)) { // the session's own title, not a sub-agent's
        g.named = true;
        g.title.textContent = h.title || "Untitled session";
      }
      g.link.href = g.page + v.q;
      var item = hitItem(v, h);
      item.hidden = g.n >= SHOW && !g.open;
      g.ul.appendChild(item);
      g.n++;
      groupCounts(g);
    });
    v.shown += res.hits.length;
    return first;
  }

  function newGroup(h) {
    var g = { n: 0, open: false, named: false, page: sessionPage(h.page), project: h.project, agent: h.agent };
    g.li = el("li", "hit-group");
    var head = el("h2", "hit-head");
    g.link = el("a", "hit-session");
    g.title = el("span", "hit-title", h.title || "Untitled session");
    g.link.appendChild(g.title);
    head.appendChild(g.link);
    g.li.appendChild(head);
    g.meta = el("div", "hit-meta");
    g.li.appendChild(g.meta);
    g.ul = el("ul", "hit-list");
    g.li.appendChild(g.ul);
    g.more = el("button", "hit-more");
    g.more.type = "button";
    g.more.hidden = true;
    g.more.setAttribute("aria-expanded", "false");
    g.more.addEventListener("click", function () {
      g.open = !g.open;
      var items = g.ul.children;
      for (var i = SHOW; i < items.length; i++) items[i].hidden = !g.open;
      groupCounts(g);
      if (g.open && items[SHOW]) items[SHOW].querySelector("a").focus();
    });
    g.li.appendChild(g.more);
    return g;
  }

  // groupCounts says how many hits a session has, and how many more its
  // button shows.
  function groupCounts(g) {
    g.meta.textContent = [AGENT_NAMES[g.agent] || "", shortProject(g.project), g.n === 1 ? "" : g.n + " matches"].filter(Boolean).join(" · ");
    var hidden = g.n - SHOW;
    g.more.hidden = hidden <= 0;
    g.more.setAttribute("aria-expanded", g.open ? "true" : "false");
    g.more.textContent = g.open ? "Show fewer" : hidden === 1 ? "1 more in this session" : hidden + " more in this session";
  }

  function hitItem(v, h) {
    var item = el("li", "hit");
    var link = el("a", "hit-link");
    link.href = h.page + v.q + "#" + h.anchor;
    var what = h.role === "tool" && h.tool ? h.tool : h.role;
    if (AGENT_PAGE.test(h.page) && h.role !== "agent") what = "agent " + what;
    link.appendChild(el("span", "hit-what", what));
    var t = when(h.time);
    if (t) link.appendChild(el("span", "hit-when", t));
    item.appendChild(link);
    var p = el("p", "hit-snippet");
    if (h.snippet !== undefined) safeSnippet(p, h.snippet);
    else marked(p, h.excerpt || "", v.terms, v.prefix);
    item.appendChild(p);
    return item;
  }

  // showCounts says how many results there are and how many are shown,
  // and offers the next page when there is one.
  function showCounts(v, status, more, scopeLabel) {
    status.className = "search-status";
    status.textContent = v.total === 0 ? "No results" + (scopeLabel ? " " + scopeLabel : "") + "." :
      (v.total === 1 ? "1 result" : v.total + " results") + (scopeLabel ? " " + scopeLabel : "") +
      (v.total > v.shown ? ", the best " + v.shown + " shown" : "") + " (" + Math.round(v.ms) + " ms)";
    if (!more) return;
    var left = v.total - v.shown;
    more.parentNode.hidden = left <= 0;
    more.disabled = false;
    more.textContent = "More results (" + left + " left)";
  }

  // scopeOf reads the scope from the page's URL: ?scope=session|project
  // with &session=ID and &project=PATH (what the header box on a session
  // or project page sends); without scope, the narrowest given.
  function scopeOf(params) {
    var session = params.get("session") || "", project = params.get("project") || "";
    var scope = params.has("scope") ? params.get("scope") : (session ? "session" : project ? "project" : "");
    if (scope === "session" && !session) scope = "";
    if (scope === "project" && !project) scope = "";
    if (scope !== "session" && scope !== "project") scope = "";
    return { scope: scope, session: session, project: project };
  }

  function initPage() {
    var list = document.getElementById("search-results");
    var box = document.getElementById("search");
    var status = document.getElementById("search-status");
    if (!list || !box || !status) return;
    var form = box.form, seq = 0, timer = 0;
    var view = null; // the results shown
    var moreButton = document.getElementById("search-more");
    var params = new URLSearchParams(location.search);
    var sc = scopeOf(params);
    var select = document.getElementById("search-scope");
    var hidSession = document.getElementById("search-session"), hidProject = document.getElementById("search-project");
    if (select && (sc.session || sc.project)) {
      if (sc.session) select.appendChild(new Option("this session", "session"));
      if (sc.project) select.appendChild(new Option("this project (" + shortProject(sc.project) + ")", "project"));
      select.value = sc.scope;
      select.hidden = false;
      if (hidSession && sc.session) { hidSession.value = sc.session; hidSession.disabled = false; }
      if (hidProject && sc.project) { hidProject.value = sc.project; hidProject.disabled = false; }
    }
    function scope() {
      var v = select && !select.hidden ? select.value : "";
      if (v === "session") return { session: sc.session };
      if (v === "project") return { project: sc.project };
      return null;
    }
    function scopeLabel() {
      var v = select && !select.hidden ? select.value : "";
      return v === "session" ? "in this session" : v === "project" ? "in project " + shortProject(sc.project) : "";
    }
    api.scope = scope;
    // The manifest is small: fetch it now, so the first query only waits
    // for its own shards.
    loadManifest().catch(function () { /* reported by the first query */ });
    function go(prefix) {
      var text = box.value;
      var my = ++seq;
      if (!text.trim()) {
        list.textContent = "";
        status.textContent = "";
        view = null;
        if (moreButton) moreButton.parentNode.hidden = true;
        return;
      }
      status.textContent = "Searching…";
      var sc0 = scope();
      search(text, prefix, sc0).then(function (res) {
        if (my !== seq) return;
        view = resultsView(list, res, prefix);
        view.text = text;
        view.scope = sc0;
        addHits(view, res);
        showCounts(view, status, moreButton, scopeLabel());
        api.lastShown = text;
        api.lastSource = res.source;
        api.lastScope = scope();
        document.dispatchEvent(new CustomEvent("ccsite:results", { detail: res }));
      }, function (err) {
        if (my !== seq) return;
        list.textContent = "";
        view = null;
        if (moreButton) moreButton.parentNode.hidden = true;
        status.className = "search-status error";
        status.textContent = err.message;
        document.dispatchEvent(new CustomEvent("ccsite:results", { detail: { error: err.message } }));
      });
    }
    // more shows the next page of the results shown; a search started
    // meanwhile makes its answer stale, and it is dropped.
    function more() {
      if (!view || view.shown >= view.total || moreButton.disabled) return;
      var my = seq, v = view, focused = document.activeElement === moreButton;
      moreButton.disabled = true;
      moreButton.textContent = "Loading more…";
      search(v.text, v.prefix, v.scope, v.shown, PAGE).then(function (res) {
        if (my !== seq || v !== view) return;
        var first = addHits(v, res);
        showCounts(v, status, moreButton, scopeLabel());
        // The keyboard goes on from the first session the page added.
        if (focused) (first || (moreButton.parentNode.hidden ? v.list.querySelector(".hit-group:last-child a") : moreButton)).focus();
        document.dispatchEvent(new CustomEvent("ccsite:results", { detail: res }));
      }, function (err) {
        if (my !== seq || v !== view) return;
        moreButton.disabled = false;
        moreButton.textContent = "More results";
        status.className = "search-status error";
        status.textContent = err.message;
      });
    }
    if (moreButton) moreButton.addEventListener("click", more);
    function remember() {
      var u = "?q=" + encodeURIComponent(box.value);
      if (sc.session || sc.project) {
        u += "&scope=" + encodeURIComponent(select ? select.value : "");
        if (sc.session) u += "&session=" + encodeURIComponent(sc.session);
        if (sc.project) u += "&project=" + encodeURIComponent(sc.project);
      }
      try {
        history.replaceState(null, "", u);
      } catch (e) { /* file:// may refuse; the results still show */ }
    }
    box.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { go(true); }, 60);
    });
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      clearTimeout(timer);
      remember();
      go(true);
    });
    box.addEventListener("change", remember);
    if (select) select.addEventListener("change", function () { remember(); go(true); });
    var q = params.get("q");
    if (q) {
      box.value = q;
      go(true);
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", initPage);
  else initPage();
})();
