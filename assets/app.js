// ccsite page behaviour: theme, local times, copy buttons, anchors.
// Plain script (no modules, no fetch), so it works from file:// too.
(function () {
  "use strict";
  var root = document.documentElement;
  var KEY = "ccsite-theme";

  function storedTheme() {
    try { return localStorage.getItem(KEY); } catch (e) { return null; }
  }
  function systemDark() {
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  }
  function applyTheme(t) {
    root.setAttribute("data-theme", t === "dark" || t === "light" ? t : "auto");
  }
  applyTheme(storedTheme());

  function toggleTheme() {
    var now = root.getAttribute("data-theme");
    var dark = now === "dark" || (now === "auto" && systemDark());
    var next = dark ? "light" : "dark";
    applyTheme(next);
    try { localStorage.setItem(KEY, next); } catch (e) {}
  }

  // Times are written in UTC; show them in the reader's time zone.
  function localTimes(root) {
    var fmt;
    try {
      fmt = new Intl.DateTimeFormat(undefined, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short" });
    } catch (e) { return; }
    var clock = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });
    var els = (root || document).querySelectorAll("time[datetime]");
    for (var i = 0; i < els.length; i++) {
      var d = new Date(els[i].getAttribute("datetime"));
      if (isNaN(d)) continue;
      var short = els[i].classList.contains("short");
      if (!short) els[i].title = els[i].textContent;
      els[i].textContent = (short ? clock : fmt).format(d);
    }
  }

  function copyText(text, done) {
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(done, function () { fallbackCopy(text, done); });
    } else {
      fallbackCopy(text, done);
    }
  }
  function fallbackCopy(text, done) {
    var ta = document.createElement("textarea");
    ta.value = text;
    ta.setAttribute("readonly", "");
    ta.style.position = "fixed";
    ta.style.opacity = "0";
    document.body.appendChild(ta);
    ta.select();
    try { document.execCommand("copy"); done(); } catch (e) {}
    document.body.removeChild(ta);
  }

  // The text of a code block without its line numbers.
  function codeText(block) {
    var pre = block.querySelector("pre.chroma");
    return pre ? pre.textContent : "";
  }

  function flash(button, label) {
    var old = button.textContent;
    button.textContent = label;
    button.classList.add("done");
    setTimeout(function () { button.textContent = old; button.classList.remove("done"); }, 1500);
  }

  // Open every <details> around el so it can be seen.
  function reveal(el) {
    for (var p = el; p; p = p.parentElement) {
      if (p.tagName === "DETAILS") { materialize(p); p.open = true; }
    }
  }

  // On very long pages a tool call's body waits as a JSON string in an
  // inert <script> (not parsed as HTML, no DOM, no layout) until the call
  // is opened: made here. The string is the page's own markup, escaped
  // when the site was built.
  function materialize(d) {
    var s = d.querySelector(":scope > script.later");
    if (!s || s.classList.contains("packed")) return;
    s.insertAdjacentHTML("afterend", JSON.parse(s.textContent));
    s.remove();
  }
  // A turn of a very long page waits gzipped (base64, in a JSON string):
  // made when it nears the window. Returns a promise.
  var making = [];
  function makeTurn(turn) {
    var s = turn.querySelector(":scope > script.later.packed");
    if (!s) return Promise.resolve();
    if (s.making) return s.making;
    s.making = unpack(JSON.parse(s.textContent)).then(function (html) {
      if (!s.parentNode) return;
      s.insertAdjacentHTML("afterend", html);
      s.remove();
      turn.classList.remove("later");
      turn.style.minHeight = "";
      if (view === "full") openTools(turn);
      localTimes(turn);
      scrollersSoon();
    });
    return s.making;
  }
  function unpack(b64) {
    var bin = atob(b64);
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text();
  }
  function openTools(box) {
    var tools = box.querySelectorAll("details.tool");
    for (var i = 0; i < tools.length; i++) { materialize(tools[i]); tools[i].open = true; }
  }
  // Turns of a very long page are made as they near the window.
  function watchLater() {
    var later = document.querySelectorAll(".conversation > .turn.later");
    if (!later.length) return;
    if (!window.IntersectionObserver) { for (var i = 0; i < later.length; i++) makeTurn(later[i]); return; }
    var io = new IntersectionObserver(function (entries) {
      entries.forEach(function (e) {
        if (e.isIntersecting) { io.unobserve(e.target); makeTurn(e.target); }
      });
    }, { rootMargin: "2000px 0px" });
    for (var j = 0; j < later.length; j++) io.observe(later[j]);
  }
  // findLater makes the turns not made yet (a link to one of their
  // messages), then gives the element of id.
  function findLater(id) {
    return makeAll().then(function () { return document.getElementById(id); });
  }
  function makeAll() {
    var later = document.querySelectorAll(".conversation > .turn.later");
    var all = [];
    for (var i = 0; i < later.length; i++) all.push(makeTurn(later[i]));
    return Promise.all(all);
  }

  // The session page's view: "conversation" (prompts and answers, each tool
  // call one line that opens in place; thinking and bookkeeping hidden) or
  // "full" (every call open, everything shown). From ?view=, else the last
  // one chosen, else the conversation. Set before the page is drawn.
  var VIEWS = { conversation: true, full: true };
  function urlView() {
    try { return new URLSearchParams(location.search).get("view") || ""; } catch (e) { return ""; }
  }
  function storedView() {
    try { return localStorage.getItem("ccsite-view") || ""; } catch (e) { return ""; }
  }
  var view = VIEWS[urlView()] ? urlView() : VIEWS[storedView()] ? storedView() : "conversation";
  document.documentElement.setAttribute("data-view", view);
  function setView(v, remember) {
    if (!VIEWS[v]) return;
    view = v;
    document.documentElement.setAttribute("data-view", v);
    if (remember) { try { localStorage.setItem("ccsite-view", v); } catch (e) { /* private mode */ } }
    if (v === "full") openTools(document); // (turns not made yet open theirs when made)
    else {
      var tools = document.querySelectorAll("details.tool[open]");
      for (var i = 0; i < tools.length; i++) tools[i].open = false;
    }
    var buttons = document.querySelectorAll(".view-switch button[data-view]");
    for (var j = 0; j < buttons.length; j++) buttons[j].setAttribute("aria-pressed", buttons[j].getAttribute("data-view") === v ? "true" : "false");
    if (remember && history.replaceState) {
      try {
        var q = new URLSearchParams(location.search);
        q.set("view", v);
        history.replaceState(null, "", "?" + q.toString() + location.hash);
      } catch (e) { /* a file: URL some browsers will not rewrite */ }
    }
  }
  document.addEventListener("toggle", function (ev) {
    var d = ev.target;
    if (d && d.tagName === "DETAILS" && d.open) materialize(d);
    if (d && d.tagName === "DETAILS") scrollersSoon();
  }, true);

  // A block that scrolls sideways (a long line of code or output, a wide
  // table) takes the keyboard focus while it overflows, so that it can be
  // scrolled without a mouse (WCAG 2.1.1). Checked again when the
  // window's width changes, a <details> opens or closes and a turn is
  // made: at once, then once 150 ms after the last of a burst (the full
  // view opens every tool card at once; each check lays out the whole
  // page).
  var SCROLLERS = "pre, .diff, .md table, .toc ol";
  var scrollPending = false;
  function scrollers() {
    scrollPending = false;
    lastScan = Date.now();
    var els = document.querySelectorAll(SCROLLERS), over = [];
    for (var i = 0; i < els.length; i++) {
      var el = els[i];
      over.push(el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1);
    }
    for (var j = 0; j < els.length; j++) {
      if (over[j] && !els[j].hasAttribute("tabindex")) {
        els[j].setAttribute("tabindex", "0");
        els[j].setAttribute("data-scroller", "");
      } else if (!over[j] && els[j].hasAttribute("data-scroller")) {
        els[j].removeAttribute("tabindex");
        els[j].removeAttribute("data-scroller");
      }
    }
  }
  var scrollTimer = 0, lastScan = 0;
  function scrollersSoon() {
    scrollPending = true;
    clearTimeout(scrollTimer);
    scrollTimer = setTimeout(scrollers, Date.now() - lastScan < 150 ? 150 : 0);
  }
  window.addEventListener("resize", scrollersSoon);
  // For tests: whether no check waits.
  window.ccsiteSettled = function () { return !scrollPending; };

  // The turn outline: the current turn marked as the page scrolls; on
  // narrow screens shown over the page with "o".
  function watchTurns() {
    var outline = document.getElementById("outline");
    if (!outline) return;
    var links = {};
    var all = outline.querySelectorAll("a[data-turn]");
    for (var i = 0; i < all.length; i++) links[all[i].getAttribute("data-turn")] = all[i];
    var turns = document.querySelectorAll(".conversation > .turn");
    var current = null, queued = false;
    // The current turn is the last one starting above a third of the
    // window (turns are in page order: a binary search).
    function mark() {
      queued = false;
      var line = window.innerHeight / 3, lo = 0, hi = turns.length - 1, at = 0;
      while (lo <= hi) {
        var mid = (lo + hi) >> 1;
        if (turns[mid].getBoundingClientRect().top <= line) { at = mid; lo = mid + 1; } else hi = mid - 1;
      }
      var a = turns.length ? links[turns[at].id] : null;
      if (!a || a === current) return;
      if (current) current.removeAttribute("aria-current");
      a.setAttribute("aria-current", "true");
      current = a;
      var box = outline.getBoundingClientRect(), r = a.getBoundingClientRect();
      if (r.top < box.top || r.bottom > box.bottom) outline.scrollTop += r.top - box.top - box.height / 3;
    }
    window.addEventListener("scroll", function () {
      if (!queued) { queued = true; requestAnimationFrame(mark); }
    }, { passive: true });
    mark();
    outline.addEventListener("click", function (ev) {
      if (ev.target.closest("a") && outline.classList.contains("shown")) showOutline(false);
    });
    var button = document.querySelector("button.outline-toggle");
    if (button) button.hidden = false;
  }
  // The outline over the page (narrow screens): its button says whether it
  // is shown; focus goes to the current turn when it opens, back to the
  // button when it closes.
  function showOutline(show) {
    var o = document.getElementById("outline");
    if (!o) return;
    var was = o.classList.contains("shown");
    o.classList.toggle("shown", show);
    var button = document.querySelector("button.outline-toggle");
    if (button) button.setAttribute("aria-expanded", show ? "true" : "false");
    if (show && !was) {
      var cur = o.querySelector('a[aria-current="true"]') || o.querySelector("a[data-turn]");
      if (cur) cur.focus({ preventScroll: true });
    } else if (!show && was && button && o.contains(document.activeElement)) button.focus();
  }
  function toggleOutline() {
    var o = document.getElementById("outline");
    if (o) showOutline(!o.classList.contains("shown"));
  }
  // Next or previous turn (a prompt), from the one at the top of the window.
  function stepTurn(dir) {
    var turns = Array.prototype.filter.call(document.querySelectorAll(".conversation > .turn"), function (t) { return t.offsetParent !== null; });
    if (!turns.length) return;
    var i;
    if (dir > 0) {
      for (i = 0; i < turns.length; i++) if (turns[i].getBoundingClientRect().top > 16) break;
    } else {
      for (i = turns.length - 1; i >= 0; i--) if (turns[i].getBoundingClientRect().top < 8) break;
    }
    var t = turns[Math.max(0, Math.min(turns.length - 1, i))];
    t.scrollIntoView({ block: "start" });
    if (history.replaceState) { try { history.replaceState(null, "", location.search + "#" + t.id); } catch (e) { /* file: */ } }
  }

  // highlight marks, inside box, the words a search result was found by
  // (the page's ?hl= parameter), and opens what hides them.
  var highlighted = false;
  function highlight(box) {
    if (highlighted) return;
    var hl = "";
    try { hl = new URLSearchParams(location.search).get("hl") || ""; } catch (e) { return; }
    var terms = hl.toLowerCase().split(/\s+/).filter(Boolean).map(foldWord);
    if (!terms.length) return;
    highlighted = true;
    var set = Object.create(null);
    terms.forEach(function (t) { set[t] = true; });
    var last = terms[terms.length - 1];
    // Japanese, Chinese and Korean have no spaces between words: their
    // terms are found inside the text; other words are whole words
    // (accents and widths folded, as the search index does).
    var cjk = terms.filter(function (t) { return CJKCHAR.test(t); }).map(function (t) { return t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); });
    var word = new RegExp((cjk.length ? cjk.join("|") + "|" : "") + "(?:(?!" + CJKCHAR.source + ")[\\p{L}\\p{N}_])+", "gu");
    var walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    var nodes = [];
    while (walker.nextNode()) nodes.push(walker.currentNode);
    var first = null;
    nodes.forEach(function (node) {
      var text = node.nodeValue, at = 0, m, frag = null;
      word.lastIndex = 0;
      while ((m = word.exec(text))) {
        var w = foldWord(m[0].toLowerCase());
        if (!set[w] && w.lastIndexOf(last, 0) !== 0) continue;
        frag = frag || document.createDocumentFragment();
        frag.appendChild(document.createTextNode(text.slice(at, m.index)));
        var mark = document.createElement("mark");
        mark.className = "hl";
        mark.textContent = m[0];
        frag.appendChild(mark);
        first = first || mark;
        at = m.index + m[0].length;
      }
      if (!frag) return;
      frag.appendChild(document.createTextNode(text.slice(at)));
      node.parentNode.replaceChild(frag, node);
    });
    if (first) { reveal(first); showHidden(first); }
  }

  // showHidden turns to the full view, for this visit, when el is in what
  // the conversation view hides (thinking, bookkeeping): a link or a
  // search result that leads there must show it.
  function showHidden(el) {
    if (view === "conversation" && el.offsetParent === null && document.querySelector(".view-switch")) setView("full", false);
  }

  // foldWord folds a word as the search index does (search/tokenizer.go):
  // full-width ASCII to ASCII, half-width katakana to full-width, no
  // accents on Latin, Greek and Cyrillic letters.
  var CJKCHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30FC\uFF70]/u;
  function foldWord(w) {
    var out = "";
    for (var c of w) {
      var cp = c.codePointAt(0);
      if (cp >= 0xFF01 && cp <= 0xFF5E) out += String.fromCodePoint(cp - 0xFEE0);
      else if (cp >= 0xFF66 && cp <= 0xFF9D) out += c.normalize("NFKC");
      else if (cp >= 0x80 && /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]/u.test(c)) out += c.normalize("NFD").replace(/\p{Mn}/gu, "");
      else out += c;
    }
    return out;
  }

  function showTarget() {
    var id = location.hash.slice(1);
    try { id = decodeURIComponent(id); } catch (e) { /* keep it raw */ }
    if (!id || showRange(id)) return;
    var el = document.getElementById(id);
    if (!el) {
      if (document.querySelector(".conversation > .turn.later")) findLater(id).then(function (e) { if (e) showTarget(); });
      return;
    }
    reveal(el);
    showHidden(el.classList.contains("result-anchor") ? el.closest(".tool") : el);
    var box = el.classList.contains("result-anchor") ? el.closest(".tool") : el;
    if (box) highlight(box);
    if (box) {
      box.classList.remove("target");
      void box.offsetWidth;
      box.classList.add("target");
      box.scrollIntoView({ block: "start" });
    }
  }

  document.addEventListener("click", function (ev) {
    var t = ev.target;
    if (!(t instanceof Element)) return;
    if (t.closest("button.outline-toggle")) {
      toggleOutline();
      return;
    }
    // A tap beside the outline shown over the page closes it.
    var shownOutline = document.querySelector(".outline.shown");
    if (shownOutline && !shownOutline.contains(t)) showOutline(false);
    var btn = t.closest(".copy");
    if (btn) {
      copyText(codeText(btn.closest(".code-block")), function () { flash(btn, "Copied"); });
      return;
    }
    if (t.closest(".theme-toggle")) {
      toggleTheme();
      return;
    }
    var copyBtn = t.closest("button.copy-text");
    if (copyBtn) {
      copyText(copyBtn.getAttribute("data-copy") || "", function () { flash(copyBtn, "Copied"); });
      return;
    }
    var viewButton = t.closest(".view-switch button[data-view]");
    if (viewButton) {
      setView(viewButton.getAttribute("data-view"), true);
      return;
    }
    var sortBtn = t.closest("button.sort");
    if (sortBtn) {
      sortTable(sortBtn.closest("th"));
      return;
    }
    var a = t.closest("a.anchor");
    if (a && a.getAttribute("href").charAt(0) === "#") {
      var url = location.href.split("#")[0] + a.getAttribute("href");
      copyText(url, function () { a.setAttribute("data-copied", "1"); });
    }
  });

  // Lists: sort by a column (click its header), filter rows by text.
  function sortTable(th) {
    var table = th.closest("table");
    var col = Array.prototype.indexOf.call(th.parentNode.children, th);
    var num = th.getAttribute("data-sort") === "num";
    var asc = th.getAttribute("aria-sort") !== "ascending";
    var heads = th.parentNode.children;
    for (var i = 0; i < heads.length; i++) heads[i].removeAttribute("aria-sort");
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    function key(row) {
      var cell = row.cells[col];
      var v = cell.hasAttribute("data-v") ? cell.getAttribute("data-v") : cell.textContent;
      return num ? (parseFloat(v) || (isNaN(Date.parse(v)) ? 0 : Date.parse(v))) : v.toLowerCase();
    }
    rows.sort(function (a, b) {
      var ka = key(a), kb = key(b);
      var c = ka < kb ? -1 : ka > kb ? 1 : 0;
      return asc ? c : -c;
    });
    for (var j = 0; j < rows.length; j++) body.appendChild(rows[j]);
  }
  function sortButtons() {
    var ths = document.querySelectorAll("table.sortable th[data-sort]");
    for (var i = 0; i < ths.length; i++) {
      var th = ths[i];
      var b = document.createElement("button");
      b.type = "button";
      b.className = "sort";
      while (th.firstChild) b.appendChild(th.firstChild);
      b.setAttribute("aria-label", "Sort by " + b.textContent);
      th.appendChild(b);
    }
  }
  function filterRows(input) {
    var table = document.getElementById(input.getAttribute("data-filter"));
    if (!table) return;
    var q = input.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    var rows = table.tBodies[0].rows;
    for (var i = 0; i < rows.length; i++) {
      var text = rows[i].textContent.toLowerCase();
      var ok = q.every(function (w) { return text.indexOf(w) >= 0; }) && agentOk(rows[i]);
      rows[i].hidden = !ok;
      if (ok) shown++;
    }
    var empty = table.parentNode.querySelector(".empty-filter");
    if (empty) empty.hidden = shown > 0;
  }
  document.addEventListener("input", function (ev) {
    if (ev.target.matches && ev.target.matches("input.filter")) filterRows(ev.target);
  });
  // Tag facets: a tag's button filters the list to its sessions ("#tag"
  // in the filter box); pressed again, it clears it.
  function filterTag(tag) {
    var input = document.querySelector("input.filter");
    if (!input) return;
    input.value = tag && input.value !== "#" + tag ? "#" + tag : "";
    filterRows(input);
    var bs = document.querySelectorAll("button.tag-facet");
    for (var i = 0; i < bs.length; i++) bs[i].setAttribute("aria-pressed", String(input.value === "#" + bs[i].getAttribute("data-tag")));
  }
  document.addEventListener("click", function (ev) {
    var b = ev.target.closest && ev.target.closest("button.tag-facet");
    if (b) filterTag(b.getAttribute("data-tag"));
  });
  if (/^#tag=/.test(location.hash)) filterTag(decodeURIComponent(location.hash.slice(5)));
  // Agent facets: an agent's button shows only its sessions (rows whose
  // data-agent is its key; a row without one is Claude Code's), with the
  // filter box's words; pressed again, every agent's.
  var agentOn = "";
  function agentOk(row) { return !agentOn || (row.getAttribute("data-agent") || "claude") === agentOn; }
  function filterAgent(key) {
    agentOn = key && agentOn !== key ? key : "";
    var bs = document.querySelectorAll("button.agent-facet");
    for (var i = 0; i < bs.length; i++) bs[i].setAttribute("aria-pressed", String(agentOn === bs[i].getAttribute("data-agent")));
    var input = document.querySelector("input.filter[data-filter=sessions]");
    if (input) filterRows(input);
    var recent = document.querySelectorAll("table.recent-sessions tbody tr");
    for (var j = 0; j < recent.length; j++) recent[j].hidden = !agentOk(recent[j]);
  }
  document.addEventListener("click", function (ev) {
    var b = ev.target.closest && ev.target.closest("button.agent-facet");
    if (b) filterAgent(b.getAttribute("data-agent"));
  });
  document.addEventListener("DOMContentLoaded", function () {
    if (/^#agent=/.test(location.hash)) filterAgent(decodeURIComponent(location.hash.slice(7)));
  });

  // Keyboard: j/k next/previous message, t all thinking, / search or
  // filter, ? this help.
  var SHORTCUTS = [["j", "next message"], ["k", "previous message"], ["t", "open or close all thinking"],
    ["n", "next turn (prompt)"], ["p", "previous turn (prompt)"], ["v", "conversation or full view"], ["o", "show the turn outline"],
    ["/", "search (or filter the list)"], ["?", "show this help"], ["Esc", "close this help"]];
  function messages() {
    return Array.prototype.slice.call(document.querySelectorAll(".conversation > .turn > .item, .conversation .item"))
      .filter(function (el, i, all) { return all.indexOf(el) === i && el.offsetParent !== null; });
  }
  function step(dir) {
    var items = messages();
    if (!items.length) return;
    // Items scrolled to by j/k sit 12px down (html's scroll-padding-top):
    // "the current one" is the one there.
    var at = 12;
    var i;
    if (dir > 0) {
      for (i = 0; i < items.length; i++) if (items[i].getBoundingClientRect().top > at + 4) break;
    } else {
      for (i = items.length - 1; i >= 0; i--) if (items[i].getBoundingClientRect().top < at - 4) break;
    }
    var el = items[Math.max(0, Math.min(items.length - 1, i))];
    el.scrollIntoView({ block: "start" });
    el.classList.remove("target");
    void el.offsetWidth;
    el.classList.add("target");
    if (el.id && history.replaceState) history.replaceState(null, "", "#" + el.id);
  }
  function toggleThinking() {
    var all = document.querySelectorAll("details.thinking");
    var open = false;
    for (var i = 0; i < all.length; i++) if (!all[i].open) { open = true; break; }
    for (var j = 0; j < all.length; j++) all[j].open = open;
  }
  function help() {
    var d = document.getElementById("shortcuts");
    if (!d) {
      d = document.createElement("dialog");
      d.id = "shortcuts";
      d.setAttribute("aria-label", "Keyboard shortcuts");
      var h = document.createElement("h2");
      h.textContent = "Keyboard shortcuts";
      var dl = document.createElement("dl");
      SHORTCUTS.forEach(function (s) {
        var dt = document.createElement("dt");
        var k = document.createElement("kbd");
        k.textContent = s[0];
        dt.appendChild(k);
        var dd = document.createElement("dd");
        dd.textContent = s[1];
        dl.appendChild(dt);
        dl.appendChild(dd);
      });
      var close = document.createElement("button");
      close.type = "button";
      close.textContent = "Close";
      close.addEventListener("click", function () { d.close(); });
      d.appendChild(h);
      d.appendChild(dl);
      d.appendChild(close);
      document.body.appendChild(d);
    }
    if (d.open) d.close(); else if (d.showModal) d.showModal(); else d.setAttribute("open", "");
  }
  document.addEventListener("keydown", function (ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    var t = ev.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) {
      if (ev.key === "Escape") t.blur();
      return;
    }
    switch (ev.key) {
      case "j": step(1); break;
      case "k": step(-1); break;
      case "t": toggleThinking(); break;
      case "n": stepTurn(1); break;
      case "p": stepTurn(-1); break;
      case "v": if (document.querySelector(".view-switch")) setView(view === "full" ? "conversation" : "full", true); else return; break;
      case "o": toggleOutline(); break;
      case "Escape": { var o = document.querySelector(".outline.shown"); if (!o) return; showOutline(false); break; }
      case "/": {
        var box = document.querySelector("input.filter") || document.getElementById("search");
        if (!box) return;
        box.focus();
        break;
      }
      case "?": help(); break;
      default: return;
    }
    ev.preventDefault();
  });

  // The history page's filters: by branch and by file (each line names
  // its own by number, data-b=" 0 3 "). Without script every line shows.
  function historyFilter() {
    var form = document.querySelector(".history-filter");
    var list = document.getElementById("history");
    if (!form || !list) return;
    form.hidden = false;
    var sb = form.querySelector("[data-history=b]"), sf = form.querySelector("[data-history=f]");
    var count = form.querySelector(".history-count");
    var none = document.querySelector(".page-history .empty-filter");
    function has(el, key, v) { return v === "" || (" " + (el.getAttribute(key) || "") + " ").indexOf(" " + v + " ") >= 0; }
    function apply() {
      var b = sb ? sb.value : "", f = sf ? sf.value : "", shown = 0, all = 0;
      list.querySelectorAll("li[data-b]").forEach(function (li) {
        var ok = has(li, "data-b", b) && has(li, "data-f", f);
        li.hidden = !ok;
        all++;
        if (ok) shown++;
      });
      list.querySelectorAll("li.h-run").forEach(function (run) {
        var any = run.querySelector("li[data-b]:not([hidden])");
        run.hidden = !any;
        var d = run.querySelector("details");
        if (d && (b || f)) d.open = !!any;
      });
      document.querySelectorAll(".h-files li[data-file]").forEach(function (li) {
        li.hidden = f !== "" && li.getAttribute("data-file") !== f;
      });
      if (count) count.textContent = b || f ? shown + " of " + all + " shown" : "";
      if (none) none.hidden = shown > 0;
    }
    form.addEventListener("change", apply);
    form.addEventListener("submit", function (ev) { ev.preventDefault(); });
    apply();
  }
  document.addEventListener("DOMContentLoaded", historyFilter);

  // "Compare with…" on a session page: the list of the other sessions
  // (compare-index.js, beside compare.html, loaded as a script: fetch is
  // blocked from file://) when the field is first used, this project's
  // unless "whole archive" is ticked; a title typed is turned into its id.
  function compareWith() {
    var form = document.querySelector("form.compare-with");
    if (!form) return;
    var input = form.querySelector("input[name=b]"), list = form.querySelector("datalist");
    var all = form.querySelector("input[name=all]"), self = form.querySelector("input[name=a]").value;
    var project = form.getAttribute("data-project") || "", entries = null, asked = false;
    // A session id two pages share (a file copied under another name) is
    // told apart by its page.
    var count = {};
    function key(e) { return count[e.id] > 1 ? e.page : e.id; }
    function fill() {
      if (!entries) return;
      list.textContent = "";
      entries.forEach(function (e) {
        if (key(e) === self || (!all.checked && e.project !== project)) return;
        var o = document.createElement("option");
        o.value = key(e);
        o.label = e.title + (all.checked ? " · " + e.project : "") + (e.start ? " · " + e.start.slice(0, 10) : "");
        list.appendChild(o);
      });
    }
    function ask() {
      if (asked) return;
      asked = true;
      window.ccsiteCompareIndex = function (es) {
        entries = es;
        es.forEach(function (e) { count[e.id] = (count[e.id] || 0) + 1; });
        if (count[self] > 1) {
          var here = decodeURIComponent(location.pathname);
          es.forEach(function (e) { if (e.id === self && here.slice(-e.page.length - 1) === "/" + e.page) self = e.page; });
          form.querySelector("input[name=a]").value = self;
        }
        fill();
      };
      var sc = document.createElement("script");
      sc.src = form.getAttribute("action").replace(/[^\/]*$/, "compare-index.js");
      document.head.appendChild(sc);
    }
    // A session that continues another (a resume, a fork): compare the
    // two at once, each named by its page.
    var from = document.querySelector("a.continued-from"), base = form.action.replace(/[^\/?#]*([?#].*)?$/, "");
    if (from && from.href.indexOf(base) === 0 && location.href.indexOf(base) === 0) {
      var page = function (u) { return decodeURIComponent(u.slice(base.length).split(/[?#]/)[0]); };
      var direct = document.createElement("a");
      direct.className = "compare-continued";
      direct.href = form.action + "?a=" + encodeURIComponent(page(from.href)) + "&b=" + encodeURIComponent(page(location.href));
      direct.textContent = "or with the session it continues";
      form.appendChild(direct);
    }
    input.addEventListener("focus", ask);
    input.addEventListener("input", ask);
    all.addEventListener("change", fill);
    form.addEventListener("submit", function () {
      var v = input.value.trim().toLowerCase();
      (entries || []).some(function (e) {
        if (key(e) !== self && e.title.toLowerCase() === v) { input.value = key(e); return true; }
        return false;
      });
      all.disabled = true; // not a parameter of the compare page
    });
  }
  document.addEventListener("DOMContentLoaded", compareWith);

  // Printing shows everything: open every closed <details>, then restore.
  var printed = [];
  // In the conversation view the tool calls stay one line on paper too.
  window.addEventListener("beforeprint", function () {
    printed = Array.prototype.filter.call(document.querySelectorAll("details"), function (d) {
      return !d.open && !(view === "conversation" && d.classList.contains("tool"));
    });
    printed.forEach(function (d) { materialize(d); d.open = true; });
  });
  window.addEventListener("afterprint", function () {
    printed.forEach(function (d) { d.open = false; });
    printed = [];
  });

  // A range of turns: #t-3..t-7 marks turns 3 to 7 of a session page and
  // scrolls to the first; ?embed=t-3..t-7 shows only them, in the
  // conversation view, as a page to put in an <iframe> (the header, the
  // outline and the other turns hidden; a link back to the whole session;
  // its height and the turns it shows posted to the page around it).
  // Shift-click in the outline, or "Embed turns…", gives the link and the
  // snippet.
  var RANGE = /^t-(\d+)\.\.(?:t-)?(\d+)$/;
  function parseRange(s) {
    var m = RANGE.exec(s || "");
    if (!m) return null;
    var a = +m[1], b = +m[2];
    return a <= b ? { from: a, to: b } : { from: b, to: a };
  }
  function rangeName(r) { return "t-" + r.from + "..t-" + r.to; }
  function turnNumber(id) { var m = /^t-(\d+)$/.exec(id || ""); return m ? +m[1] : -1; }
  // The page's own turns (not those of a sub-agent shown on a shared page).
  function ownTurns() {
    var c = document.querySelector("article.session .conversation");
    return c ? Array.prototype.slice.call(c.querySelectorAll(":scope > .turn")) : [];
  }
  function turnsIn(r) {
    return ownTurns().filter(function (t) { var n = turnNumber(t.id); return n >= r.from && n <= r.to; });
  }
  function turnsLabel(picked) {
    var a = turnNumber(picked[0].id), b = turnNumber(picked[picked.length - 1].id);
    return a === b ? "Turn " + a : "Turns " + a + "–" + b;
  }
  // The page's address: its canonical one when the site has a base URL
  // (build --base-url), so a snippet made on a local copy points to the
  // published page.
  function pageURL() {
    var c = document.querySelector('link[rel="canonical"]');
    return ((c && c.href) || location.href).split("#")[0].split("?")[0];
  }
  var embedParam = "";
  try { embedParam = new URLSearchParams(location.search).get("embed") || ""; } catch (e) { /* old browser */ }
  var embedding = embedParam !== "";
  if (embedding) {
    document.documentElement.setAttribute("data-embed", "");
    view = "conversation";
    document.documentElement.setAttribute("data-view", view);
  }
  // markRange marks the turns of r (clamped to the session's) and says so
  // in a status line above them; it returns the first, or null when none
  // is in r (the status line then says that the range is not there).
  function markRange(r) {
    var old = document.querySelectorAll(".in-range");
    for (var i = 0; i < old.length; i++) old[i].classList.remove("in-range", "range-first", "range-last");
    var status = document.getElementById("range-status");
    var turns = ownTurns();
    if (!turns.length) return null;
    var fresh = !status;
    if (fresh) {
      status = document.createElement("p");
      status.id = "range-status";
      status.className = "range-status";
      status.setAttribute("role", "status");
    }
    // A live region is announced when its text changes after it is in the
    // page: a new one gets its text a moment after.
    function say(text) {
      if (fresh) setTimeout(function () { status.textContent = text; }, 100);
      else status.textContent = text;
    }
    var picked = r ? turnsIn(r) : [];
    if (!picked.length) {
      turns[0].parentNode.insertBefore(status, turns[0]);
      say(r ? "Turns " + r.from + "–" + r.to + " are not in this session: it has turns " + turnNumber(turns[0].id) + "–" + turnNumber(turns[turns.length - 1].id) + "." : "");
      return null;
    }
    picked.forEach(function (t) {
      t.classList.add("in-range");
      makeTurn(t);
      var a = document.querySelector('#outline a[data-turn="' + t.id + '"]');
      if (a) a.classList.add("in-range");
    });
    picked[0].classList.add("range-first");
    picked[picked.length - 1].classList.add("range-last");
    picked[0].parentNode.insertBefore(status, picked[0]);
    say(turnsLabel(picked) + " of " + turns.length + " marked.");
    return picked[0];
  }
  // showRange handles a #t-3..t-7 target (showTarget asks it first).
  function showRange(id) {
    if (embedding || !RANGE.test(id)) return false;
    var first = markRange(parseRange(id));
    function go() {
      var status = document.getElementById("range-status");
      if (status) status.scrollIntoView({ block: "start" });
      if (first) {
        var o = document.querySelector('#outline a[data-turn="' + first.id + '"]');
        if (o) o.scrollIntoView({ block: "nearest" });
      }
    }
    go();
    // On a very long page the turns above are made first, as for any
    // target below them (findLater), so that the page does not move after.
    if (first && document.querySelector(".conversation > .turn.later")) makeAll().then(go);
    return true;
  }
  function postHeight() {
    if (window.parent === window) return;
    var b = document.body, cs = getComputedStyle(b);
    var h = b.getBoundingClientRect().height + parseFloat(cs.marginTop) + parseFloat(cs.marginBottom);
    var shown = ownTurns().filter(function (t) { return t.offsetParent !== null; }).map(function (t) { return t.id; });
    try { window.parent.postMessage({ ccsiteEmbed: 1, height: Math.ceil(h), turns: shown }, "*"); } catch (e) { /* no parent to tell */ }
  }
  function embedPage() {
    var r = parseRange(embedParam), turns = ownTurns();
    var picked = r ? turnsIn(r) : [];
    var shown = picked.length ? picked : turns;
    shown.forEach(function (t) { t.classList.add("embed-shown"); makeTurn(t); });
    var h1 = document.querySelector("article.session h1");
    var bar = document.createElement("h1"); // the page's heading: its session's title, which turns
    bar.className = "embed-bar";
    var back = document.createElement("a");
    back.href = pageURL() + (picked.length ? "#" + rangeName({ from: turnNumber(picked[0].id), to: turnNumber(picked[picked.length - 1].id) }) : "");
    back.target = "_blank";
    back.rel = "noopener";
    back.textContent = h1 ? h1.textContent : document.title;
    bar.appendChild(back);
    var what = picked.length ? turnsLabel(picked) + " of " + turns.length : (r ? "Turns " + r.from + "–" + r.to + " are not in this session: all " + turns.length + " shown" : "All " + turns.length + " turns");
    bar.appendChild(document.createTextNode(" · " + what + " · Claude Code session"));
    var main = document.getElementById("main");
    if (main) main.insertBefore(bar, main.firstChild);
    postHeight();
    if (window.ResizeObserver) new ResizeObserver(postHeight).observe(document.body);
    window.addEventListener("load", postHeight);
  }

  // The dialog: from and to, the link to the range and the snippet.
  function htmlAttr(s) { return s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;"); }
  var SIZER = '<script>addEventListener("message",function(e){var d=e.data;if(!d||d.ccsiteEmbed!==1)return;' +
    'document.querySelectorAll("iframe").forEach(function(f){if(f.contentWindow===e.source)f.style.height=d.height+"px"})})</' + 'script>';
  function embedSnippet(r) {
    var h1 = document.querySelector("article.session h1");
    var title = (h1 ? h1.textContent : document.title) + ", turns " + r.from + "–" + r.to;
    return '<iframe src="' + htmlAttr(pageURL() + "?embed=" + rangeName(r)) + '" title="' + htmlAttr(title) +
      '" width="100%" height="480" style="border:1px solid #8888;border-radius:8px" loading="lazy"></iframe>\n' + SIZER;
  }
  function field(d, label, tag, cls) {
    var p = document.createElement("p");
    var l = document.createElement("label");
    l.textContent = label;
    var f = document.createElement(tag);
    f.className = cls;
    f.readOnly = true;
    if (tag === "textarea") f.rows = 4;
    f.id = "embed-" + cls;
    l.htmlFor = f.id;
    var copy = document.createElement("button");
    copy.type = "button";
    copy.className = "copy-text";
    copy.textContent = "Copy";
    copy.setAttribute("aria-label", "Copy " + label.toLowerCase());
    p.appendChild(l);
    p.appendChild(f);
    p.appendChild(copy);
    d.appendChild(p);
    return f;
  }
  function embedDialog(r) {
    var d = document.getElementById("embed-dialog");
    var turns = ownTurns();
    if (!turns.length) return;
    var lo = turnNumber(turns[0].id), hi = turnNumber(turns[turns.length - 1].id);
    if (!d) {
      d = document.createElement("dialog");
      d.id = "embed-dialog";
      d.setAttribute("aria-labelledby", "embed-title");
      var h = document.createElement("h2");
      h.id = "embed-title";
      h.textContent = "Embed turns";
      d.appendChild(h);
      var p = document.createElement("p");
      p.className = "embed-range";
      ["from", "to"].forEach(function (k) {
        var l = document.createElement("label");
        l.textContent = k === "from" ? "From turn " : " to ";
        var i = document.createElement("input");
        i.type = "number";
        i.name = k;
        i.min = lo;
        i.max = hi;
        l.appendChild(i);
        p.appendChild(l);
        i.addEventListener("input", function () { fillDialog(d); });
      });
      d.appendChild(p);
      field(d, "Link to these turns", "input", "link");
      field(d, "Snippet to paste (an iframe)", "textarea", "snippet");
      var note = document.createElement("p");
      note.className = "muted small";
      note.textContent = "The snippet's script sizes the frame to the turns; without it the frame is 480 px high and scrolls. ";
      var open = document.createElement("a");
      open.className = "embed-preview";
      open.target = "_blank";
      open.rel = "noopener";
      open.textContent = "Open the embedded page";
      note.appendChild(open);
      d.appendChild(note);
      var close = document.createElement("button");
      close.type = "button";
      close.textContent = "Close";
      close.addEventListener("click", function () { d.close(); });
      d.appendChild(close);
      document.body.appendChild(d);
    }
    r = r || { from: lo, to: Math.min(hi, lo + 4) };
    d.querySelector("input[name=from]").value = Math.max(lo, Math.min(r.from, hi));
    d.querySelector("input[name=to]").value = Math.max(lo, Math.min(r.to, hi));
    fillDialog(d);
    if (!d.open) { if (d.showModal) d.showModal(); else d.setAttribute("open", ""); }
  }
  function fillDialog(d) {
    var r = parseRange("t-" + (parseInt(d.querySelector("input[name=from]").value, 10) || 0) + "..t-" + (parseInt(d.querySelector("input[name=to]").value, 10) || 0));
    var link = pageURL() + "#" + rangeName(r), snippet = embedSnippet(r);
    var l = d.querySelector(".link"), s = d.querySelector(".snippet");
    l.value = link;
    l.nextElementSibling.setAttribute("data-copy", link);
    s.value = snippet;
    s.nextElementSibling.setAttribute("data-copy", snippet);
    d.querySelector(".embed-preview").href = pageURL() + "?embed=" + rangeName(r);
  }
  // Shift-click in the outline: the turns from the last one clicked (or
  // the one the address names) to this one.
  var rangeStart = -1;
  document.addEventListener("click", function (ev) {
    var t = ev.target;
    if (!(t instanceof Element)) return;
    if (t.closest("button.embed-open")) { embedDialog(null); return; }
    var a = t.closest("#outline a[data-turn]");
    if (!a) return;
    var n = turnNumber(a.getAttribute("data-turn"));
    if (!ev.shiftKey) { rangeStart = n; return; }
    ev.preventDefault();
    var from = rangeStart >= 0 ? rangeStart : turnNumber(location.hash.slice(1));
    if (from < 0) from = n;
    var r = parseRange("t-" + from + "..t-" + n);
    markRange(r);
    try { history.replaceState(null, "", "#" + rangeName(r)); } catch (e) { /* a file: URL some browsers will not rewrite */ }
    embedDialog(r);
  }, true);
  document.addEventListener("DOMContentLoaded", function () {
    if (embedding) { embedPage(); return; }
    var b = document.querySelector(".embed-turns");
    if (b && ownTurns().length) b.hidden = false;
  });

  window.addEventListener("hashchange", showTarget);
  document.addEventListener("DOMContentLoaded", function () {
    watchLater();
    if (document.querySelector(".view-switch")) setView(view, false);
    watchTurns();
    localTimes();
    sortButtons();
    showTarget();
    scrollersSoon();
    document.documentElement.classList.add("js");
  });
})();
