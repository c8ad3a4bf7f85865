package browsertest

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp/kb"

	"ccsite/build"
	"ccsite/build/link"
)

// auditLibJS is shared by the accessibility checks: how an element is named
// in a report, colours parsed and blended, WCAG's relative luminance and
// contrast ratio, and the background an element's text is drawn on (its
// own and its ancestors' background colours composited up to the first
// opaque one, the canvas white below all).
const auditLibJS = `
const desc = el => {
	const parts = [];
	for (let e = el; e && e !== document.body && parts.length < 3; e = e.parentElement) {
		let s = e.tagName.toLowerCase();
		if (e.id && parts.length === 0 && !/^(m|tool|t|agent)-/.test(e.id)) s += "#" + e.id;
		if (typeof e.className === "string" && e.className.trim()) s += "." + e.className.trim().split(/\s+/).join(".");
		if (e.type && e.tagName === "INPUT") s += "[type=" + e.type + "]";
		parts.unshift(s);
	}
	return parts.join(" > ");
};
const own = el => {
	let s = el.tagName.toLowerCase();
	if (typeof el.className === "string" && el.className.trim()) s += "." + el.className.trim().split(/\s+/).join(".");
	if (el.type && el.tagName === "INPUT") s += "[type=" + el.type + "]";
	return s;
};
const canvas = document.createElement("canvas").getContext("2d");
const parse = c => {
	let m = /^rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)$/.exec(c);
	if (m) return [+m[1], +m[2], +m[3], m[4] === undefined ? 1 : +m[4]];
	m = /^color\(srgb ([\d.]+) ([\d.]+) ([\d.]+)(?: \/ ([\d.]+))?\)$/.exec(c);
	if (m) return [m[1] * 255, m[2] * 255, m[3] * 255, m[4] === undefined ? 1 : +m[4]];
	canvas.fillStyle = "#000"; canvas.fillStyle = c;
	return parse(canvas.fillStyle === c ? "rgb(0, 0, 0)" : canvas.fillStyle.startsWith("#")
		? "rgb(" + [1, 3, 5].map(i => parseInt(canvas.fillStyle.slice(i, i + 2), 16)).join(", ") + ")" : canvas.fillStyle);
};
const blend = (top, alpha, under) => [0, 1, 2].map(i => top[i] * alpha + under[i] * (1 - alpha));
const hex = c => "#" + c.slice(0, 3).map(v => Math.round(v).toString(16).padStart(2, "0")).join("");
const lum = c => {
	const [r, g, b] = c.slice(0, 3).map(v => { v /= 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
	return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
// background returns the colour under el's content and the element that
// gives its innermost background (null: the canvas).
const background = el => {
	const layers = [];
	let giver = null;
	for (let e = el; e; e = e.parentElement) {
		const c = parse(getComputedStyle(e).backgroundColor);
		if (c[3] > 0) { layers.push(c); if (!giver) giver = e; }
		if (c[3] >= 1) break;
	}
	let bg = [255, 255, 255];
	for (let i = layers.length - 1; i >= 0; i--) bg = blend(layers[i], layers[i][3], bg);
	return {bg, giver};
};
// measureText measures the contrast of text drawn by el in the style cs
// (el's own, or a pseudo-element's, named by what): WCAG AA asks 4.5:1,
// or 3:1 for large text (24 px, or 18.66 px bold).
const measureText = (el, text, cs, what) => {
	const {bg, giver} = background(el);
	const c = parse(cs.color);
	const alpha = c[3] * opacityUnder(el, giver);
	const fg = blend(c, alpha, bg);
	const r = ratio(fg, bg);
	const size = parseFloat(cs.fontSize), weight = parseInt(cs.fontWeight, 10);
	return {
		sel: desc(el) + what, own: own(el) + what, text: text.trim().slice(0, 40),
		fg: hex(c) + (alpha < 1 ? " at " + alpha.toFixed(2) + " = " + hex(fg) : ""), bg: hex(bg),
		ratio: Math.round(r * 100) / 100, need: size >= 24 || (size >= 18.66 && weight >= 700) ? 3 : 4.5,
		size: size + "px/" + weight,
	};
};
// opacityUnder multiplies the opacity of el and its ancestors below the
// element that gives its background.
const opacityUnder = (el, giver) => {
	let o = 1;
	for (let e = el; e && e !== giver; e = e.parentElement) o *= parseFloat(getComputedStyle(e).opacity);
	return o;
};
`

// structureJS reports headings, landmarks and elements without an
// accessible name.
const structureJS = `(() => {` + auditLibJS + `
	const headings = [...document.querySelectorAll("h1, h2, h3, h4, h5, h6")]
		.map(h => ({level: +h.tagName[1], text: h.textContent.trim().slice(0, 60)}));
	const top = sel => [...document.querySelectorAll(sel)].filter(e => !e.parentElement.closest("article, aside, main, nav, section")).length;
	const text = el => {
		let s = "";
		for (const n of el.childNodes) {
			if (n.nodeType === 3) s += n.textContent;
			else if (n.nodeType === 1 && n.getAttribute("aria-hidden") !== "true") s += n.tagName === "IMG" ? n.alt : text(n);
		}
		return s;
	};
	const name = el => {
		const by = el.getAttribute("aria-labelledby");
		if (by) return by.split(/\s+/).map(id => { const l = document.getElementById(id); return l ? l.textContent : ""; }).join(" ").trim();
		const label = (el.getAttribute("aria-label") || "").trim();
		if (label) return label;
		if (el.labels && el.labels.length) return [...el.labels].map(l => l.textContent).join(" ").trim();
		if (/^(BUTTON|A|SUMMARY)$/.test(el.tagName)) { const t = text(el).trim(); if (t) return t; }
		return (el.getAttribute("title") || "").trim();
	};
	const unnamed = [...document.querySelectorAll("button, input:not([type=hidden]), select, textarea, a[href], summary")]
		.filter(el => !name(el)).map(el => desc(el) + " " + el.outerHTML.slice(0, 80));
	return {
		headings,
		banner: top("header"),
		main: document.querySelectorAll("main").length,
		contentinfo: top("footer"),
		crumbs: document.querySelectorAll("header nav[aria-label] a, header nav[aria-label] [aria-current=page]").length,
		navs: [...document.querySelectorAll("nav")].map(n => n.getAttribute("aria-label") || ""),
		unnamed,
	};
})()`

// structureState is what structureJS returns.
type structureState struct {
	Headings []struct {
		Level int    `json:"level"`
		Text  string `json:"text"`
	} `json:"headings"`
	Banner      int      `json:"banner"`
	Main        int      `json:"main"`
	ContentInfo int      `json:"contentinfo"`
	Crumbs      int      `json:"crumbs"`
	Navs        []string `json:"navs"`
	Unnamed     []string `json:"unnamed"`
}

// structureProblems checks one h1, no heading level skipped downward,
// the landmarks (banner, breadcrumb nav, main, contentinfo) and a name on
// every control and link.
func structureProblems(page string, s structureState) (structure, names []string) {
	h1 := 0
	prev := 0
	for _, h := range s.Headings {
		if h.Level == 1 {
			h1++
		}
		if h.Level > prev+1 {
			structure = append(structure, fmt.Sprintf("%s: heading h%d %q follows h%d (a level skipped)", page, h.Level, h.Text, prev))
		}
		prev = h.Level
	}
	if h1 != 1 {
		structure = append(structure, fmt.Sprintf("%s: %d h1 elements, want 1", page, h1))
	}
	if s.Banner != 1 || s.Main != 1 || s.ContentInfo != 1 {
		structure = append(structure, fmt.Sprintf("%s: %d top-level header, %d main, %d top-level footer; want 1 each", page, s.Banner, s.Main, s.ContentInfo))
	}
	if s.Crumbs == 0 || !contains(s.Navs, "Breadcrumbs") {
		structure = append(structure, fmt.Sprintf("%s: no breadcrumb nav in the header (navs %q, %d crumbs)", page, s.Navs, s.Crumbs))
	}
	for _, u := range s.Unnamed {
		names = append(names, fmt.Sprintf("no accessible name: %s (on %s)", u, page))
	}
	return structure, names
}

// contrastJS measures the contrast of every piece of text shown (each
// element's own text nodes, its ::before and ::after content, an input's
// placeholder) against the background it is drawn on, with the opacity
// of the element and its ancestors applied to the text. WCAG AA asks 4.5:1,
// or 3:1 for large text (24 px, or 18.66 px bold). It returns the texts
// under their threshold, the lowest ratio per representative selector,
// and every text's colours (to compare two ways of reaching a theme).
const contrastJS = `(() => {` + auditLibJS + `
	const reps = %s;
	const fails = [], low = {}, prints = [];
	const record = (el, item, what) => {
		prints.push(item.sel + " " + item.fg + " on " + item.bg);
		if (item.ratio < item.need) fails.push(item);
		for (const [name, sel] of Object.entries(reps)) {
			if (what === "" && el.matches(sel) && (!low[name] || item.ratio < low[name].ratio)) low[name] = item;
		}
	};
	const measure = (el, text, cs, what) => record(el, measureText(el, text, cs, what), what);
	for (const d of document.querySelectorAll("details")) d.open = true;
	for (const el of document.body.querySelectorAll("*")) {
		if (el.closest(".sr-only, script, style, svg")) continue;
		if (!el.checkVisibility({visibilityProperty: true})) continue;
		const rect = el.getBoundingClientRect();
		if (rect.width < 2 || rect.height < 2 || rect.right + scrollX <= 0 || rect.bottom + scrollY <= 0) continue;
		const cs = getComputedStyle(el);
		const ownText = [...el.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join("");
		if (ownText.trim()) measure(el, ownText, cs, "");
		for (const p of ["::before", "::after"]) {
			const ps = getComputedStyle(el, p);
			const content = ps.content;
			if (content && content !== "none" && content !== "normal" && /^".*\S.*"$/.test(content)) measure(el, content.slice(1, -1), ps, p);
		}
		if (el.tagName === "INPUT" && el.placeholder) measure(el, el.placeholder, getComputedStyle(el, "::placeholder"), "::placeholder");
	}
	return {fails, low, prints};
})()`

// paletteJS measures every colour the stylesheet can give code and
// terminal text, whether or not the page uses it: a token of each class
// of the code styles (.chroma .X) in a code block, each terminal colour
// (.term-fgN) in a terminal output, the terminal's text on each of its
// background colours (.term-bgN). It returns those under their threshold.
const paletteJS = `(() => {` + auditLibJS + `
	const chroma = new Set(), fgs = new Set(), bgs = new Set();
	const walk = rules => {
		for (const r of rules) {
			if (r.cssRules) walk(r.cssRules);
			if (!r.selectorText || !r.style) continue;
			let m = /\.chroma \.([a-z0-9]+)$/.exec(r.selectorText);
			if (m && r.style.color && !/^(w|err|ln|lnt|lnlinks|hl)$/.test(m[1])) chroma.add(m[1]);
			m = /^\.term-(fgi?\d+)$/.exec(r.selectorText);
			if (m && r.style.color) fgs.add(m[1]);
			m = /^\.term-(bg\d+)$/.exec(r.selectorText);
			if (m) bgs.add(m[1]);
		}
	};
	for (const sheet of document.styleSheets) walk(sheet.cssRules);
	const box = document.createElement("div");
	box.innerHTML = '<div class="code-block"><pre class="chroma"><code></code></pre></div><div class="terminal"><pre class="term-out"></pre></div>';
	document.querySelector("main").appendChild(box);
	const code = box.querySelector("code"), term = box.querySelector("pre.term-out");
	const add = (parent, cls) => { const s = document.createElement("span"); s.className = cls; s.textContent = cls; parent.appendChild(s); return s; };
	const spans = [...[...chroma].sort().map(c => add(code, c)), ...[...fgs, ...bgs].sort().map(c => add(term, "term-" + c))];
	const fails = [];
	let n = 0;
	for (const sp of spans) {
		const item = measureText(sp, sp.textContent, getComputedStyle(sp), "");
		n++;
		if (item.ratio < item.need) fails.push(item);
	}
	box.remove();
	return {fails, n, chroma: chroma.size, term: fgs.size + bgs.size};
})()`

type paletteState struct {
	Fails  []contrastText `json:"fails"`
	N      int            `json:"n"`
	Chroma int            `json:"chroma"`
	Term   int            `json:"term"`
}

// representative are the kinds of text the contrast report names even
// when they pass, with their lowest ratio: selectors an element with text
// of its own matches.
var representative = map[string]string{
	"body text (.md p)":    ".md p",
	".muted":               ".muted, .muted *",
	"links":                "a[href], a[href] *",
	"links but .anchor":    "a[href]:not(.anchor), a[href]:not(.anchor) *",
	".badge":               ".badge",
	".chip":                ".chip",
	"code":                 "code, code *",
	"th":                   "th, th *",
	".tool-summary":        ".tool-summary, .tool-summary *",
	".event":               ".event, .event > a, .event > .icon",
	".term-out":            "pre.term-out, pre.term-out *",
	"time in .item-meta":   ".item-meta time",
	"diff rows (.diff td)": ".diff td, .diff td *",
	"summary":              "summary, summary > *",
	".crumbs":              ".crumbs *",
	".site-foot":           ".site-foot",
	".facts dt":            ".facts dt",
	"pre.gutter":           "pre.gutter",
	".chroma tokens":       ".chroma span",
	".item-meta .anchor":   ".item-meta .anchor",
}

// contrastText is one text element measured.
type contrastText struct {
	Sel   string  `json:"sel"` // the element and two ancestors
	Own   string  `json:"own"` // the element alone
	Text  string  `json:"text"`
	FG    string  `json:"fg"`
	BG    string  `json:"bg"`
	Ratio float64 `json:"ratio"`
	Need  float64 `json:"need"`
	Size  string  `json:"size"`
}

type contrastState struct {
	Fails  []contrastText          `json:"fails"`
	Low    map[string]contrastText `json:"low"`
	Prints []string                `json:"prints"`
}

// focusJS tabs through the page: one real Tab first (so the browser is in
// keyboard mode and :focus-visible applies), then it focuses each visible
// control and link in turn and reads how focus shows: an outline (not
// none, wider than 0) or a box-shadow, and, for a drawn outline, its
// contrast with the background around the element (WCAG 1.4.11 asks 3:1).
const focusJS = `(() => {` + auditLibJS + `
	for (const d of document.querySelectorAll("details")) d.open = true;
	const out = [];
	const els = [...document.querySelectorAll("a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]")]
		.filter(el => el.tabIndex >= 0 && !el.disabled && el.checkVisibility());
	for (const el of els) {
		el.focus({preventScroll: true});
		if (document.activeElement !== el) { out.push({sel: desc(el), problem: "cannot take the focus"}); continue; }
		const cs = getComputedStyle(el);
		const outline = cs.outlineStyle !== "none" && parseFloat(cs.outlineWidth) > 0;
		const shadow = cs.boxShadow !== "none";
		if (!el.matches(":focus-visible")) { out.push({sel: desc(el), problem: "focused from the keyboard but not :focus-visible"}); continue; }
		if (!outline && !shadow) { out.push({sel: desc(el), problem: "no outline or box-shadow when focused"}); continue; }
		if (outline && cs.outlineStyle !== "auto") {
			const {bg} = background(el.parentElement);
			const r = ratio(parse(cs.outlineColor), bg);
			if (r < 3) out.push({sel: desc(el), problem: "focus outline " + hex(parse(cs.outlineColor)) + " on " + hex(bg) + ": " + r.toFixed(2) + ":1 < 3:1"});
		}
	}
	document.activeElement.blur();
	return out;
})()`

type focusProblem struct {
	Sel     string `json:"sel"`
	Problem string `json:"problem"`
}

// firstTabJS says where the first Tab of a page went.
const firstTabJS = `(() => {
	const a = document.activeElement;
	const r = a.getBoundingClientRect();
	const cs = getComputedStyle(a);
	return {
		cls: a.className, href: a.getAttribute("href") || "",
		onScreen: r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.width > 0,
		outline: cs.outlineStyle !== "none" && parseFloat(cs.outlineWidth) > 0,
	};
})()`

type firstTab struct {
	Class    string `json:"cls"`
	Href     string `json:"href"`
	OnScreen bool   `json:"onScreen"`
	Outline  bool   `json:"outline"`
}

// focusedBox is where the focused element is.
type focusedBox struct {
	Sel        string  `json:"sel"`
	Text       string  `json:"text"`
	Body       bool    `json:"body"` // nothing focused
	Top        float64 `json:"top"`
	Bottom     float64 `json:"bottom"`
	HeadBottom float64 `json:"headBottom"`
	InHead     bool    `json:"inHead"` // the header's own controls cannot be under it
}

const focusedBoxJS = `(() => {
	const a = document.activeElement;
	const r = a.getBoundingClientRect();
	return {
		sel: a.tagName.toLowerCase() + (typeof a.className === "string" && a.className ? "." + a.className.trim().split(/\s+/).join(".") : ""),
		text: (a.textContent || "").trim().slice(0, 30),
		body: a === document.body,
		top: r.top, bottom: r.bottom,
		headBottom: Math.max(0, document.querySelector(".site-head").getBoundingClientRect().bottom),
		inHead: !!a.closest(".site-head"),
	};
})()`

// shiftTab presses Shift+Tab.
func shiftTab(tb *tab) {
	tb.t.Helper()
	for _, k := range kb.Encode('\t') {
		k.Modifiers |= int64(kb.ModifierShift)
		call(tb, input.DispatchKeyEvent, *k)
	}
}

// knownIssue is a bug a check shows: the problems match matches are
// that bug.
type knownIssue struct {
	match *regexp.Regexp
	bug   string
}

// reportProblems fails the test for each problem that no known issue
// matches, then skips it naming the known bugs that showed (the test still
// fails when there were others); it logs a known issue that no longer
// shows.
func reportProblems(t *testing.T, problems []string, known []knownIssue) {
	t.Helper()
	shown := map[string][]string{}
	for _, p := range problems {
		matched := false
		for _, k := range known {
			if k.match.MatchString(p) {
				shown[k.bug] = append(shown[k.bug], p)
				matched = true
				break
			}
		}
		if !matched {
			t.Error(p)
		}
	}
	var bugs []string
	for _, k := range known {
		if ps, ok := shown[k.bug]; ok {
			bugs = append(bugs, fmt.Sprintf("BUG: %s\n    %s", k.bug, strings.Join(ps, "\n    ")))
		} else {
			t.Logf("known bug no longer shows; remove its note: %s", k.bug)
		}
	}
	if len(bugs) > 0 {
		t.Skip(strings.Join(bugs, "\n"))
	}
}

// pageAudit is what the accessibility test found on one page in one mode.
type pageAudit struct {
	page      string
	structure structureState
	contrast  contrastState
	focus     []focusProblem
	first     firstTab
}

// TestAccessibility audits every page of the demo site, built in the
// default and the paper theme, light and dark (light from file://, dark
// over HTTP): one h1 and no heading level skipped; a banner, a breadcrumb
// nav, main and a contentinfo landmark; an accessible name on every button,
// input, link and summary; the first Tab reaching the skip link, shown;
// focus shown on every control and link, by an outline of 3:1 or more
// against its background; the text contrast of WCAG AA everywhere. The
// colours of "auto" on a dark system match those of the dark theme.
func TestAccessibility(t *testing.T) {
	sharedEnv(t)
	t.Parallel()
	reps := "{"
	var names []string
	for n := range representative {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		reps += fmt.Sprintf("%q: %q, ", n, representative[n])
	}
	reps += "}"
	contrast := fmt.Sprintf(contrastJS, reps)

	for _, theme := range []string{"default", "paper"} {
		t.Run(theme, func(t *testing.T) {
			t.Parallel()
			name := theme
			if theme == "default" {
				name = ""
			}
			s := demoSite(t, name)
			tb := newTab(t)
			s.openIn(tb)
			audits := map[string][]pageAudit{}
			palettes := map[string]paletteState{}
			for _, mode := range []string{"light", "dark"} {
				scheme := map[string]string{"light": "file", "dark": "http"}[mode]
				for _, page := range s.pages {
					tb.open(s.url(scheme, page))
					eval[bool](tb, `(document.documentElement.setAttribute("data-theme", "`+mode+`"), true)`)
					a := pageAudit{page: page}
					a.structure = eval[structureState](tb, structureJS)
					tb.press("\t")
					a.first = eval[firstTab](tb, firstTabJS)
					a.focus = eval[[]focusProblem](tb, focusJS)
					a.contrast = eval[contrastState](tb, contrast)
					audits[mode] = append(audits[mode], a)
					tb.assertClean(page)
				}
				// Over HTTP: from file:// the stylesheets' rules cannot be read.
				tb.open(s.url("http", "index.html"))
				eval[bool](tb, `(document.documentElement.setAttribute("data-theme", "`+mode+`"), true)`)
				palettes[mode] = eval[paletteState](tb, paletteJS)
			}

			t.Run("structure", func(t *testing.T) {
				var p []string
				for _, a := range audits["light"] {
					st, _ := structureProblems(a.page, a.structure)
					p = append(p, st...)
				}
				reportProblems(t, p, knownStructure)
			})
			t.Run("names", func(t *testing.T) {
				var p []string
				for _, a := range audits["light"] {
					_, n := structureProblems(a.page, a.structure)
					p = append(p, n...)
				}
				reportProblems(t, p, knownNames)
			})
			for _, mode := range []string{"light", "dark"} {
				t.Run("focus/"+mode, func(t *testing.T) {
					seen := map[string]bool{}
					var p []string
					for _, a := range audits[mode] {
						if !strings.Contains(a.first.Class, "skip") || a.first.Href != "#main" || !a.first.OnScreen || !a.first.Outline {
							p = append(p, fmt.Sprintf("%s: the first Tab focused %+v, want the skip link to #main, on screen, outlined", a.page, a.first))
						}
						for _, f := range a.focus {
							k := f.Sel + ": " + f.Problem
							if !seen[k] {
								seen[k] = true
								p = append(p, k+" (first on "+a.page+")")
							}
						}
					}
					reportProblems(t, p, knownFocus[theme+"/"+mode])
				})
				t.Run("contrast/"+mode, func(t *testing.T) {
					reportProblems(t, contrastProblems(t, audits[mode]), knownContrast[theme+"/"+mode])
				})
				t.Run("palette/"+mode, func(t *testing.T) {
					pl := palettes[mode]
					if pl.Chroma == 0 || pl.Term == 0 {
						t.Fatalf("found %d code and %d terminal colour classes in the stylesheets, want some of each", pl.Chroma, pl.Term)
					}
					t.Logf("measured %d code and terminal colour classes", pl.N)
					var p []string
					for _, f := range pl.Fails {
						p = append(p, fmt.Sprintf("contrast %.2f:1 < %.1f:1: %s (%s): text %s on %s", f.Ratio, f.Need, f.Sel, f.Size, f.FG, f.BG))
					}
					reportProblems(t, p, knownPalette[theme+"/"+mode])
				})
			}

			// Shift+Tab from the end of a long page: the browser scrolls
			// each element it focuses just into view, at the top edge,
			// where the sticky header may cover it (WCAG 2.2, 2.4.11
			// Focus Not Obscured asks that it not be hidden entirely).
			t.Run("focus-not-obscured", func(t *testing.T) {
				tb := tb.in(t)
				tb.open(s.url("http", pagingPage))
				eval[bool](tb, `(scrollTo(0, document.body.scrollHeight), true)`)
				var p []string
				for range 200 {
					shiftTab(tb)
					f := eval[focusedBox](tb, focusedBoxJS)
					if f.Body || strings.Contains(f.Sel, "skip") {
						break
					}
					if !f.InHead && f.Bottom <= f.HeadBottom {
						p = append(p, fmt.Sprintf("%s %q: focused by Shift+Tab at %.0f to %.0f px, entirely under the sticky header (to %.0f px)",
							f.Sel, f.Text, f.Top, f.Bottom, f.HeadBottom))
					}
				}
				reportProblems(t, p, nil)
				tb.assertClean(pagingPage)
			})

			// "auto" on a dark system draws what "dark" draws.
			t.Run("auto-dark", func(t *testing.T) {
				tb := tb.in(t)
				systemScheme(tb, "dark")
				defer systemScheme(tb, "light")
				for _, page := range []string{searchPage, webappProject} {
					tb.open(s.url("file", page))
					auto := eval[contrastState](tb, contrast)
					eval[bool](tb, `(document.documentElement.setAttribute("data-theme", "dark"), true)`)
					dark := eval[contrastState](tb, contrast)
					for i := range min(len(auto.Prints), len(dark.Prints)) {
						if auto.Prints[i] != dark.Prints[i] {
							t.Errorf("%s: auto on a dark system draws %s, dark draws %s", page, auto.Prints[i], dark.Prints[i])
						}
					}
					if len(auto.Prints) != len(dark.Prints) {
						t.Errorf("%s: %d texts in auto, %d in dark", page, len(auto.Prints), len(dark.Prints))
					}
				}
				tb.assertClean("auto-dark")
			})
		})
	}
}

// contrastProblems merges the pages' failures by element and colours, and
// logs the lowest ratio of each representative kind of text.
func contrastProblems(t *testing.T, audits []pageAudit) []string {
	t.Helper()
	type failure struct {
		contrastText
		pages []string
		n     int
	}
	merged := map[string]*failure{}
	var keys []string
	low := map[string]contrastText{}
	lowPage := map[string]string{}
	for _, a := range audits {
		for _, f := range a.contrast.Fails {
			k := f.Own + " " + f.FG + " " + f.BG
			if merged[k] == nil {
				merged[k] = &failure{contrastText: f}
				keys = append(keys, k)
			}
			if !contains(merged[k].pages, a.page) {
				merged[k].pages = append(merged[k].pages, a.page)
			}
			merged[k].n++
		}
		for n, l := range a.contrast.Low {
			if old, ok := low[n]; !ok || l.Ratio < old.Ratio {
				low[n], lowPage[n] = l, a.page
			}
		}
	}
	var names []string
	for n := range representative {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		l, ok := low[n]
		if !ok {
			fmt.Fprintf(&b, "\n  %-22s (none on these pages)", n)
			continue
		}
		fmt.Fprintf(&b, "\n  %-22s %5.2f:1 (need %.1f) %s on %s  %s %q", n, l.Ratio, l.Need, l.FG, l.BG, l.Sel, l.Text)
	}
	t.Logf("lowest contrast per kind of text:%s", b.String())
	sort.Strings(keys)
	var p []string
	for _, k := range keys {
		f := merged[k]
		p = append(p, fmt.Sprintf("contrast %.2f:1 < %.1f:1: %s %q (%s): text %s on %s; %d on %d page(s), e.g. %s in %s",
			f.Ratio, f.Need, f.Own, f.Text, f.Size, f.FG, f.BG, f.n, len(f.pages), f.Sel, f.pages[0]))
	}
	return p
}

// Known bugs the accessibility checks show.

// TestTranscriptHeadings opens the page of a session whose answer holds
// Markdown headings (# , ### and ##; testdata/headings): the page still has
// one h1, the session's title, and skips no heading level.
func TestTranscriptHeadings(t *testing.T) {
	sharedEnv(t)
	t.Parallel()
	dir, err := filepath.Abs(filepath.Join("testdata", "headings"))
	if err != nil {
		t.Fatal(err)
	}
	s := extraSite(t, "headings", build.Config{Paths: []string{dir}})
	page := link.Session(link.ProjectSlug("/home/test/headings"), "55555555-0000-4000-8000-000000000001")
	tb := newTab(t)
	s.openIn(tb)
	tb.open(s.url("file", page))
	st := eval[structureState](tb, structureJS)
	var levels []string
	for _, h := range st.Headings {
		levels = append(levels, fmt.Sprintf("h%d %q", h.Level, h.Text))
	}
	p, _ := structureProblems(page, st)
	reportProblems(t, p, nil)
	tb.assertClean(page)
}

// Known issues, by check: none today. A bug found later goes here (as a
// knownIssue describing it) until it is fixed; the check then skips it.
var (
	knownStructure = []knownIssue{}
	knownNames     = []knownIssue{}
	knownFocus     = map[string][]knownIssue{}
	knownContrast  = map[string][]knownIssue{}
	knownPalette   = map[string][]knownIssue{}
)
