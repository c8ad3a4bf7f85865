// ccsite serve --watch adds this script to the pages it serves (never to
// the site's files): when the site has been rebuilt, the page reloads and
// the reader stays where they were. A browser's own restoration keeps the
// scroll position but not which <details> were open, so the position it
// restores no longer shows the same text; this restores both, in that
// order, once the page script has run (it scrolls to the URL's #target).
(function () {
  "use strict";
  var KEY = "ccsite-live-reload";
  var me = document.currentScript;
  var since = (me && me.getAttribute("data-build")) || "";

  var source = new EventSource("/_ccsite/live?since=" + encodeURIComponent(since));
  source.addEventListener("reload", function () {
    source.close();
    var open = Array.prototype.map.call(document.querySelectorAll("details"), function (d) { return d.open; });
    try {
      sessionStorage.setItem(KEY, JSON.stringify({
        url: location.href, x: window.scrollX, y: window.scrollY, open: open,
      }));
    } catch (e) { /* no storage: a plain reload */ }
    location.reload();
  });

  var saved = null;
  try {
    saved = JSON.parse(sessionStorage.getItem(KEY) || "null");
    sessionStorage.removeItem(KEY);
  } catch (e) { return; }
  if (!saved || saved.url !== location.href) return;
  if ("scrollRestoration" in history) history.scrollRestoration = "manual";
  // This script runs at the end of <body>: its DOMContentLoaded listener
  // comes after the page script's, which scrolls to the target. (What
  // loads later, such as images, moves the page no more than in any
  // browser's own restoration: scroll anchoring keeps the reader's place.)
  document.addEventListener("DOMContentLoaded", function () {
    var all = document.querySelectorAll("details");
    for (var i = 0; i < all.length && i < saved.open.length; i++) all[i].open = saved.open[i];
    window.scrollTo(saved.x, saved.y);
  });
  // From then on, a reload by hand restores as the browser does.
  window.addEventListener("load", function () {
    if ("scrollRestoration" in history) history.scrollRestoration = "auto";
  });
})();
