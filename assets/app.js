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

  function showTarget() {
    var id = location.hash.slice(1);
    try { id = decodeURIComponent(id); } catch (e) { /* keep it raw */ }
    if (!id) return;
    var el = document.getElementById(id);
    if (!el) return;
    reveal(el);
    var box = el.classList.contains("result-anchor") ? el.closest(".tool") : el;
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
    var a = t.closest("a.anchor");
    if (a && a.getAttribute("href").charAt(0) === "#") {
      var url = location.href.split("#")[0] + a.getAttribute("href");
      copyText(url, function () { a.setAttribute("data-copied", "1"); });
    }
  });

  window.addEventListener("hashchange", showTarget);
  document.addEventListener("DOMContentLoaded", function () {
    localTimes();
    showTarget();
    document.documentElement.classList.add("js");
  });
})();
