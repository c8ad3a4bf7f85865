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
  function localTimes() {
    var fmt;
    try {
      fmt = new Intl.DateTimeFormat(undefined, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short" });
    } catch (e) { return; }
    var clock = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });
    var els = document.querySelectorAll("time[datetime]");
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
      if (p.tagName === "DETAILS") p.open = true;
    }
  }

  // highlight marks, inside box, the words a search result was found by
  // (the page's ?hl= parameter), and opens what hides them.
  var highlighted = false;
  function highlight(box) {
    if (highlighted) return;
    var hl = "";
    try { hl = new URLSearchParams(location.search).get("hl") || ""; } catch (e) { return; }
    var terms = hl.toLowerCase().split(/\s+/).filter(Boolean);
    if (!terms.length) return;
    highlighted = true;
    var set = Object.create(null);
    terms.forEach(function (t) { set[t] = true; });
    var last = terms[terms.length - 1];
    var word = /[\p{L}\p{N}_]+/gu;
    var walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    var nodes = [];
    while (walker.nextNode()) nodes.push(walker.currentNode);
    var first = null;
    nodes.forEach(function (node) {
      var text = node.nodeValue, at = 0, m, frag = null;
      word.lastIndex = 0;
      while ((m = word.exec(text))) {
        var w = m[0].toLowerCase();
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
    if (first) reveal(first);
  }

  function showTarget() {
    var id = location.hash.slice(1);
    try { id = decodeURIComponent(id); } catch (e) { /* keep it raw */ }
    if (!id) return;
    var el = document.getElementById(id);
    if (!el) return;
    reveal(el);
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
    var btn = t.closest(".copy");
    if (btn) {
      copyText(codeText(btn.closest(".code-block")), function () { flash(btn, "Copied"); });
      return;
    }
    if (t.closest(".theme-toggle")) {
      toggleTheme();
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
      var ok = q.every(function (w) { return text.indexOf(w) >= 0; });
      rows[i].hidden = !ok;
      if (ok) shown++;
    }
    var empty = table.parentNode.querySelector(".empty-filter");
    if (empty) empty.hidden = shown > 0;
  }
  document.addEventListener("input", function (ev) {
    if (ev.target.matches && ev.target.matches("input.filter")) filterRows(ev.target);
  });

  // Keyboard: j/k next/previous message, t all thinking, / search or
  // filter, ? this help.
  var SHORTCUTS = [["j", "next message"], ["k", "previous message"], ["t", "open or close all thinking"],
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

  // Printing shows everything: open every closed <details>, then restore.
  var printed = [];
  window.addEventListener("beforeprint", function () {
    printed = Array.prototype.filter.call(document.querySelectorAll("details"), function (d) { return !d.open; });
    printed.forEach(function (d) { d.open = true; });
  });
  window.addEventListener("afterprint", function () {
    printed.forEach(function (d) { d.open = false; });
    printed = [];
  });

  window.addEventListener("hashchange", showTarget);
  document.addEventListener("DOMContentLoaded", function () {
    localTimes();
    sortButtons();
    showTarget();
    document.documentElement.classList.add("js");
  });
})();
