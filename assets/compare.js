// ccsite: the compare page (compare.html?a=<session>&b=<session>). It
// loads the compare index and the two sessions' facts as <script src>
// (fetch is blocked from file://), or reads them inlined (ccsite compare),
// and shows them side by side. Every text from a transcript goes in with
// textContent.
(function () {
  "use strict";

  var facts = {}; // by page (or id): what ccsiteFacts gave
  var index = null;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = String(text);
    return e;
  }
  function add(parent, child) { parent.appendChild(child); return child; }

  window.ccsiteFacts = function (id, f) { facts[f.page || id] = f; };

  function load(src, done, fail) {
    var s = document.createElement("script");
    s.src = src;
    s.onload = done;
    s.onerror = fail;
    document.head.appendChild(s);
  }

  function thousands(n) { return Number(n || 0).toLocaleString("en-US"); }
  function span(ms) {
    ms = ms || 0;
    if (ms < 1000) return ms + " ms";
    if (ms < 60000) return Math.floor(ms / 1000) + " s";
    if (ms < 3600000) return Math.floor(ms / 60000) + " min " + Math.floor(ms / 1000) % 60 + " s";
    return Math.floor(ms / 3600000) + " h " + Math.floor(ms / 60000) % 60 + " min";
  }
  function usd(v) { return v < 0.01 && v > 0 ? "<$0.01" : "$" + v.toFixed(2); }
  function pct(a, b) { return b > 0 ? Math.round((b - a) / b * 100) + "%" : ""; }
  function safeURL(u) { return /^https?:\/\//i.test(u || "") ? u : ""; }

  function status(root, text) {
    var s = root.querySelector(".compare-status");
    if (s) s.textContent = text;
  }

  function start() {
    var root = document.getElementById("compare");
    if (!root) return;
    var inline = window.ccsiteInline;
    if (inline) {
      var form = root.querySelector(".compare-pick");
      if (form) form.hidden = true;
      show(root, inline.a, inline.b);
      return;
    }
    var q = new URLSearchParams(location.search);
    var a = q.get("a") || "", b = q.get("b") || "";
    var ia = root.querySelector("input[name=a]"), ib = root.querySelector("input[name=b]");
    if (ia) ia.value = a;
    if (ib) ib.value = b;
    status(root, "Loading the list of sessions…");
    window.ccsiteCompareIndex = function (entries) { index = entries; };
    load(root.getAttribute("data-index"), function () {
      fillList(root);
      pick(root, a, b);
    }, function () {
      status(root, "The list of sessions (compare-index.js) could not be loaded.");
    });
  }

  function fillList(root) {
    var dl = root.querySelector("datalist");
    if (!dl || !index) return;
    var count = {};
    index.forEach(function (e) { count[e.id] = (count[e.id] || 0) + 1; });
    index.forEach(function (e) {
      var o = el("option");
      o.value = count[e.id] > 1 ? e.page : e.id; // an id two pages share: the page
      o.label = e.title + " · " + e.project + (e.start ? " · " + e.start.slice(0, 10) : "");
      dl.appendChild(o);
    });
  }

  // find is the index's entry for key: a session id, a page, or a title.
  function find(key) {
    if (!index || !key) return null;
    var lower = key.toLowerCase(), byTitle = null;
    for (var i = 0; i < index.length; i++) {
      var e = index[i];
      if (e.id === key || e.page === key) return e;
      if (!byTitle && e.title.toLowerCase() === lower) byTitle = e;
    }
    if (byTitle) return byTitle;
    var pre = index.filter(function (e) { return e.id.indexOf(key) === 0; });
    return pre.length === 1 ? pre[0] : null;
  }

  function pick(root, a, b) {
    if (!a || !b) { status(root, "Choose two sessions to compare."); return; }
    var ea = find(a), eb = find(b);
    if (!ea || !eb) { status(root, "No session " + (ea ? b : a) + " in this site."); return; }
    var base = root.getAttribute("data-index").replace(/[^\/]*$/, "");
    var left = ea.page === eb.page ? 1 : 2;
    var failed = false;
    var done = function () { if (--left === 0 && !failed) show(root, facts[ea.page], facts[eb.page]); };
    var fail = function () { failed = true; status(root, "A session's figures could not be loaded."); };
    load(base + ea.facts, done, fail);
    if (ea.page !== eb.page) load(base + eb.facts, done, fail);
  }

  function show(root, A, B) {
    if (!A || !B) { status(root, "A session's figures are missing."); return; }
    status(root, "");
    var out = root.querySelector(".compare-out");
    out.textContent = "";
    document.title = A.title + " vs " + B.title + " · ccsite";
    add(out, verdict(A, B));
    add(out, table(A, B));
    var tools = toolTable(A, B);
    if (tools) add(out, tools);
    var files = fileTable(A, B);
    if (files) add(out, files);
    var commits = commitLists(A, B);
    if (commits) add(out, commits);
    add(out, turns(A, B));
  }

  // verdict says in words which is cheaper, faster, touched more.
  function verdict(A, B) {
    var p = el("ul", "compare-verdict");
    var say = function (t) { add(p, el("li", null, t)); };
    if (A.costUSD !== B.costUSD) {
      var ca = A.costUSD < B.costUSD;
      say((ca ? "A" : "B") + " is cheaper: " + (ca ? A.cost : B.cost) + " against " + (ca ? B.cost : A.cost) +
        " (" + pct(Math.min(A.costUSD, B.costUSD), Math.max(A.costUSD, B.costUSD)) + " less).");
    } else say("Both cost " + A.cost + ".");
    if (A.activeMs !== B.activeMs) {
      var fa = A.activeMs < B.activeMs;
      say((fa ? "A" : "B") + " is faster: " + (fa ? A.active : B.active) + " active against " + (fa ? B.active : A.active) + ".");
    }
    var la = lines(A), lb = lines(B);
    if ((A.files || []).length !== (B.files || []).length || la !== lb) {
      var ma = (A.files || []).length * 1e9 + la > (B.files || []).length * 1e9 + lb;
      say((ma ? "A" : "B") + " touched more: " + files(ma ? A : B) + " against " + files(ma ? B : A) + ".");
    }
    return p;
  }
  function lines(f) { return (f.files || []).reduce(function (n, x) { return n + x.added + x.removed; }, 0); }
  function files(f) {
    var n = (f.files || []).length, add = 0, del = 0;
    (f.files || []).forEach(function (x) { add += x.added; del += x.removed; });
    return n + (n === 1 ? " file" : " files") + " (+" + add + " −" + del + ")";
  }

  function titleCell(f, who) {
    var th = el("th", "cmp-" + who);
    th.scope = "col";
    add(th, el("span", "cmp-who", who.toUpperCase() + " "));
    if (f.page) {
      var a = add(th, el("a", "cmp-title", f.title));
      a.href = f.page;
    } else add(th, el("span", "cmp-title", f.title));
    add(th, el("span", "cmp-project muted", f.project));
    return th;
  }

  // row adds a line of the table: its values' text, and which is better
  // (lower wins when better is "low", higher when "high").
  function row(tb, label, key, va, vb, na, nb, better, note) {
    var tr = add(tb, el("tr", "cmp-row"));
    tr.setAttribute("data-fact", key);
    add(tr, el("th", null, label)).scope = "row";
    var cells = [add(tr, el("td", "cmp-a")), add(tr, el("td", "cmp-b"))];
    add(cells[0], el("span", "v", va));
    add(cells[1], el("span", "v", vb));
    if (better && na !== nb && na != null && nb != null) {
      var win = (better === "low") === (na < nb) ? 0 : 1;
      cells[win].classList.add("better");
      add(cells[win], el("span", "cmp-note", " " + note));
    }
    return tr;
  }

  function table(A, B) {
    var t = el("table", "compare-facts");
    add(t, el("caption", "sr-only", "The two sessions' figures"));
    var hr = add(add(t, el("thead")), el("tr"));
    add(hr, el("td"));
    add(hr, titleCell(A, "a"));
    add(hr, titleCell(B, "b"));
    var tb = add(t, el("tbody"));
    var agent = function (f) { return f.agent + (f.versions && f.versions.length ? " " + f.versions.join(", ") : ""); };
    row(tb, "Agent", "agent", agent(A), agent(B));
    row(tb, "Models", "models", (A.models || []).join(", ") || "—", (B.models || []).join(", ") || "—");
    row(tb, "Started", "start", A.start.Zero ? "time unknown" : A.start.UTC, B.start.Zero ? "time unknown" : B.start.UTC);
    row(tb, "Ended", "end", A.end.Zero ? "time unknown" : A.end.UTC, B.end.Zero ? "time unknown" : B.end.UTC);
    row(tb, "Cost", "cost", A.cost, B.cost, A.costUSD, B.costUSD, "low", "cheaper");
    var tot = function (f) { var t = f.tokens; return t.in + t.out + t.cacheRead + t.cacheWrite; };
    row(tb, "Tokens", "tokens", A.tokens.text, B.tokens.text, tot(A), tot(B), "low", "fewer");
    row(tb, "Active", "active", A.active, B.active, A.activeMs, B.activeMs, "low", "faster");
    var split = function (f) {
      var s = f.split;
      return "model " + span(s.model) + " · tools " + span(s.tools) + " · waiting " + span(s.waiting) + " · idle " + span(s.idle);
    };
    row(tb, "Time split", "split", split(A), split(B));
    row(tb, "Turns", "turns", A.turns, B.turns, A.turns, B.turns, "low", "fewer");
    row(tb, "Messages", "messages", A.messages, B.messages);
    row(tb, "Tool calls", "toolCalls", A.toolCalls, B.toolCalls, A.toolCalls, B.toolCalls, "low", "fewer");
    row(tb, "Errors", "errors", A.errors, B.errors, A.errors, B.errors, "low", "fewer");
    row(tb, "Sub-agents", "agents", A.agents, B.agents);
    row(tb, "Files touched", "files", files(A), files(B), lines(A), lines(B), "high", "touched more");
    row(tb, "Commits", "commits", (A.commits || []).length, (B.commits || []).length);
    var wrap = el("div", "compare-scroll");
    add(wrap, t);
    return wrap;
  }

  function toolTable(A, B) {
    var names = {}, order = [];
    var count = function (f, k) {
      (f.tools || []).forEach(function (x) {
        if (!names[x.Name]) { names[x.Name] = [0, 0]; order.push(x.Name); }
        names[x.Name][k] = x.Count;
      });
    };
    count(A, 0);
    count(B, 1);
    if (!order.length) return null;
    order.sort(function (x, y) {
      var d = names[y][0] + names[y][1] - names[x][0] - names[x][1];
      return d || (x < y ? -1 : x > y ? 1 : 0);
    });
    var sec = el("section", "compare-tools");
    add(sec, el("h2", null, "Tool calls by tool"));
    var t = add(el("div", "compare-scroll"), el("table", "compare-facts"));
    add(sec, t.parentNode);
    var hr = add(add(t, el("thead")), el("tr"));
    add(hr, el("th", null, "Tool")).scope = "col";
    add(hr, el("th", null, "A")).scope = "col";
    add(hr, el("th", null, "B")).scope = "col";
    var tb = add(t, el("tbody"));
    order.forEach(function (n) {
      var tr = add(tb, el("tr"));
      add(tr, el("th", "tool-name", n)).scope = "row";
      add(tr, el("td", "cmp-a" + (names[n][0] > names[n][1] ? " more" : ""), names[n][0]));
      add(tr, el("td", "cmp-b" + (names[n][1] > names[n][0] ? " more" : ""), names[n][1]));
    });
    return sec;
  }

  function fileTable(A, B) {
    var by = {}, order = [];
    var put = function (f, k) {
      (f.files || []).forEach(function (x) {
        if (!by[x.path]) { by[x.path] = [null, null]; order.push(x.path); }
        by[x.path][k] = x;
      });
    };
    put(A, 0);
    put(B, 1);
    if (!order.length) return null;
    order.sort();
    var sec = el("section", "compare-files");
    add(sec, el("h2", null, "Files touched"));
    var t = add(el("div", "compare-scroll"), el("table", "compare-facts"));
    add(sec, t.parentNode);
    var hr = add(add(t, el("thead")), el("tr"));
    ["File", "A", "B"].forEach(function (h) { add(hr, el("th", null, h)).scope = "col"; });
    var tb = add(t, el("tbody"));
    var cell = function (x, cls) {
      var td = el("td", cls);
      if (!x) { td.textContent = "—"; return td; }
      add(td, el("span", "cmp-add", "+" + x.added));
      add(td, document.createTextNode(" "));
      add(td, el("span", "cmp-del", "−" + x.removed));
      add(td, el("span", "muted", " · turn" + (x.turns.length > 1 ? "s " : " ") + x.turns.join(", ")));
      return td;
    };
    order.forEach(function (p) {
      var tr = add(tb, el("tr"));
      add(tr, el("th", "cmp-path", p)).scope = "row";
      add(tr, cell(by[p][0], "cmp-a"));
      add(tr, cell(by[p][1], "cmp-b"));
    });
    return sec;
  }

  function commitLists(A, B) {
    if (!(A.commits || []).length && !(B.commits || []).length) return null;
    var sec = el("section", "compare-commits");
    add(sec, el("h2", null, "Commits"));
    var grid = add(sec, el("div", "cmp-pair"));
    [A, B].forEach(function (f, k) {
      var col = add(grid, el("div", "cmp-col " + (k ? "cmp-b" : "cmp-a")));
      add(col, el("p", "cmp-who", k ? "B" : "A"));
      var ul = add(col, el("ul", "cmp-commit-list"));
      if (!(f.commits || []).length) add(ul, el("li", "muted", "none"));
      (f.commits || []).forEach(function (c) {
        var li = add(ul, el("li", "commit"));
        var u = safeURL(c.url);
        var h = add(li, el(u ? "a" : "span", "hash"));
        add(h, el("code", null, c.short));
        if (u) { h.href = u; h.rel = "nofollow noopener noreferrer"; }
        add(li, el("span", "commit-subject", " " + c.subject));
        if (c.turn) add(li, el("span", "muted", " · turn " + c.turn));
      });
    });
    return sec;
  }

  // same says two turns line up: the same prompt, or both before the
  // first prompt.
  function same(x, y) {
    if (x.hasPrompt !== y.hasPrompt) return false;
    return x.hash === y.hash;
  }

  // align pairs the turns of two sessions: their shared first turns
  // (prefix), then the longest common run of the rest's prompts; turns
  // in neither pair stand alone.
  function align(ta, tb) {
    var k = 0;
    while (k < ta.length && k < tb.length && same(ta[k], tb[k])) k++;
    // Bookkeeping before the first prompt alone is no shared start.
    if (!ta.slice(0, k).some(function (t) { return t.hasPrompt; })) k = 0;
    var ra = ta.slice(k), rb = tb.slice(k), rows = [];
    var n = ra.length, m = rb.length;
    var L = null;
    if (n * m <= 4000000 && n && m) {
      L = [];
      for (var i = 0; i <= n; i++) L.push(new Uint32Array(m + 1));
      for (i = n - 1; i >= 0; i--) {
        for (var j = m - 1; j >= 0; j--) {
          L[i][j] = same(ra[i], rb[j]) && ra[i].hasPrompt ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
        }
      }
    }
    i = 0; j = 0;
    while (i < n || j < m) {
      if (L && i < n && j < m && same(ra[i], rb[j]) && ra[i].hasPrompt && L[i][j] === L[i + 1][j + 1] + 1) {
        rows.push({ a: ra[i++], b: rb[j++] });
      } else if (i < n && (!L || j >= m || L[i + 1][j] >= L[i][j + 1])) {
        rows.push({ a: ra[i++] });
      } else {
        rows.push({ b: rb[j++] });
      }
    }
    return { shared: k, rest: rows };
  }

  function turnCell(f, t, who) {
    var d = el("div", "cmp-turn cmp-" + who);
    d.setAttribute("data-turn", t.index);
    var head = add(d, el("p", "cmp-turn-head"));
    add(head, el("span", "cmp-who", who.toUpperCase() + " "));
    var label = t.hasPrompt ? "Turn " + t.index : "Before the first prompt";
    if (f.page) {
      var a = add(head, el("a", null, label));
      a.href = f.page + "#" + t.anchor;
    } else add(head, el("span", null, label));
    if (t.excerpt) add(head, el("span", "cmp-excerpt", " · " + t.excerpt));
    var meta = [];
    if (t.tools) meta.push(t.tools + (t.tools === 1 ? " tool call" : " tool calls") + (t.toolNames ? " (" + t.toolNames + ")" : ""));
    if (t.took) meta.push(t.took);
    if (t.cost) meta.push(t.cost);
    if (t.errors) meta.push(t.errors + (t.errors === 1 ? " error" : " errors"));
    if (meta.length) add(d, el("p", "cmp-turn-meta muted", meta.join(" · ")));
    return d;
  }

  function pairRow(A, B, r) {
    var d = el("div", "cmp-pair" + (r.a && r.b ? " matched" : ""));
    if (r.a) add(d, turnCell(A, r.a, "a"));
    if (r.b) add(d, turnCell(B, r.b, "b"));
    return d;
  }

  function turns(A, B) {
    var sec = el("section", "compare-turns");
    add(sec, el("h2", null, "Turns"));
    var ta = A.turnList || [], tb = B.turnList || [];
    var al = align(ta, tb);
    var matched = al.rest.filter(function (r) { return r.a && r.b; }).length;
    if (al.shared) {
      var det = add(sec, el("details", "cmp-shared"));
      var last = ta[al.shared - 1];
      add(det, el("summary", null, "The first " + (al.shared === 1 ? "turn is" : al.shared + " turns are") +
        " the same in both (up to turn " + last.index + ")"));
      for (var i = 0; i < al.shared; i++) add(det, pairRow(A, B, { a: ta[i], b: tb[i] }));
    }
    var div = add(sec, el("div", "cmp-diverge"));
    div.id = "diverge";
    var xa = ta[al.shared], xb = tb[al.shared];
    if (!xa && !xb) {
      add(div, el("strong", null, "The two sessions have the same prompts throughout."));
    } else if (al.shared) {
      var where = xa && xb ? (xa.index === xb.index ? "turn " + xa.index : "A's turn " + xa.index + " and B's turn " + xb.index)
        : xa ? "A's turn " + xa.index + " (B ends there)" : "B's turn " + xb.index + " (A ends there)";
      add(div, el("strong", null, "They diverge at " + where + "."));
      div.setAttribute("data-a", xa ? xa.index : "");
      div.setAttribute("data-b", xb ? xb.index : "");
    } else if (matched) {
      add(div, el("strong", null, "They differ from the first turn; " + matched + (matched === 1 ? " later prompt matches" : " later prompts match") + "."));
    } else {
      add(div, el("strong", null, "No prompt is shared: the two conversations follow one under the other."));
    }
    var body = add(sec, el("div", "cmp-rest"));
    if (!matched && !al.shared) {
      [[A, ta, "a"], [B, tb, "b"]].forEach(function (x) {
        var col = add(body, el("div", "cmp-apart"));
        add(col, el("h3", null, (x[2] === "a" ? "A · " : "B · ") + x[0].title));
        x[1].forEach(function (t) { add(col, turnCell(x[0], t, x[2])); });
      });
      return sec;
    }
    al.rest.forEach(function (r) { add(body, pairRow(A, B, r)); });
    return sec;
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
