package search

import (
	"context"
	"errors"
	"fmt"
	"html"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Query is a search: words that must all match, "quoted phrases", and
// filters. Filters can also be written in Text as project:NAME tool:NAME
// role:NAME model:NAME agent:KEY session:ID after:YYYY-MM-DD before:YYYY-MM-DD (a
// filter in Text wins over the field).
type Query struct {
	Text    string
	Project string // matched against the project path or its last element
	// Session is a session's id: its documents and its sub-agents'.
	Session string
	Tool    string
	Role    string
	Model   string
	// Agent is an agent's key (agents.All): its sessions' documents.
	Agent string
	// After and Before filter by day (UTC): documents from After's day
	// on, and before Before, a midnight as before: gives it (another time
	// keeps the whole of its day).
	After  time.Time
	Before time.Time
	// Prefix makes the last word match as a prefix (search as you type).
	Prefix bool
	Size   int
}

// Hit is one result.
type Hit struct {
	ID      string    `json:"id"`
	Page    string    `json:"page"`
	Anchor  string    `json:"anchor"`
	Project string    `json:"project"`
	Session string    `json:"session"`
	Title   string    `json:"title"`
	Role    string    `json:"role"`
	Tool    string    `json:"tool,omitempty"`
	Model   string    `json:"model,omitempty"`
	Agent   string    `json:"agent,omitempty"`
	Time    time.Time `json:"time"`
	Score   float64   `json:"score"`
	// Snippet is the text around the matches, HTML-escaped, matches in <mark>.
	Snippet string `json:"snippet"`
}

// Results are a query's hits, best first.
type Results struct {
	Total uint64        `json:"total"`
	Hits  []Hit         `json:"hits"`
	Took  time.Duration `json:"-"`
}

// ErrEmpty is returned for a query with no words and no filters.
var ErrEmpty = fmt.Errorf("empty query: give words to find, \"a phrase\", or filters such as tool:Bash")

// Roles are the roles a document can have (role:R, Query.Role).
var Roles = []string{"prompt", "answer", "thinking", "tool", "agent", "teammate", "commit"}

// QueryError is a query that cannot be run as written: a filter with a
// value it cannot have. Its message says what is valid. It is the user's
// mistake (a usage error, an HTTP 400), as is ErrEmpty.
type QueryError struct {
	Filter string // "role", "after", "before"
	Value  string
	Want   string // what is valid, as a sentence
}

func (e *QueryError) Error() string {
	return fmt.Sprintf("%s, not %q", e.Want, e.Value)
}

// IsUsage reports whether err is a query the user wrote wrong: ErrEmpty
// or a *QueryError.
func IsUsage(err error) bool {
	var qe *QueryError
	return errors.Is(err, ErrEmpty) || errors.As(err, &qe)
}

// Check reports what is wrong with q, as Search would, without an index.
func (q Query) Check() error {
	_, err := parse(q)
	return err
}

var (
	reFilter = regexp.MustCompile(`(?i)\b(project|session|tool|role|model|agent|after|before):("[^"]*"|\S+)`)
	rePhrase = regexp.MustCompile(`"([^"]*)"`)
)

// parsed is a query taken apart.
type parsed struct {
	words   [][]string // each word's tokens (several: a phrase)
	phrases [][]string
	q       Query
}

func parse(q Query) (parsed, error) {
	p := parsed{q: q}
	var bad error
	text := reFilter.ReplaceAllStringFunc(q.Text, func(m string) string {
		sub := reFilter.FindStringSubmatch(m)
		v := strings.Trim(sub[2], `"`)
		switch strings.ToLower(sub[1]) {
		case "project":
			p.q.Project = v
		case "session":
			p.q.Session = v
		case "tool":
			p.q.Tool = v
		case "role":
			p.q.Role = strings.ToLower(v)
		case "model":
			p.q.Model = v
		case "agent":
			p.q.Agent = strings.ToLower(v)
		case "after", "before":
			t, err := time.Parse("2006-01-02", v)
			switch {
			case err != nil:
				if bad == nil {
					bad = &QueryError{Filter: strings.ToLower(sub[1]), Value: v, Want: strings.ToLower(sub[1]) + ": want a date like 2026-01-02"}
				}
			case strings.EqualFold(sub[1], "after"):
				p.q.After = t
			default:
				p.q.Before = t.Add(24 * time.Hour)
			}
		}
		return " "
	})
	text = rePhrase.ReplaceAllStringFunc(text, func(m string) string {
		if toks := Tokens(m); len(toks) > 0 {
			p.phrases = append(p.phrases, toks)
		}
		return " "
	})
	for _, w := range strings.Fields(text) {
		if toks := Tokens(w); len(toks) > 0 {
			p.words = append(p.words, toks)
		}
	}
	if bad != nil {
		return p, bad
	}
	p.q.Role = strings.ToLower(p.q.Role)
	if p.q.Role != "" && !slices.Contains(Roles, p.q.Role) {
		return p, &QueryError{Filter: "role", Value: p.q.Role, Want: "role must be one of " + strings.Join(Roles, ", ")}
	}
	if len(p.words) == 0 && len(p.phrases) == 0 && p.q.Project == "" && p.q.Session == "" && p.q.Tool == "" && p.q.Role == "" &&
		p.q.Model == "" && p.q.Agent == "" && p.q.After.IsZero() && p.q.Before.IsZero() {
		return p, ErrEmpty
	}
	return p, nil
}

// build makes the bleve query: every word and phrase must match the text,
// and every filter its field. The static index's reader (assets/search.js)
// scores the same way, so the query's shape is kept simple on purpose:
//
//   - always a conjunction at the top, whose query norm reaches every term
//     (bleve sets one norm, 1/sqrt(sum of idf²), on all leaves);
//   - filters carry boost 0, so they narrow the results without adding to
//     the scores or the norm;
//   - the last word, as a prefix, is bleve's prefix query: a disjunction
//     of the terms it expands to, whose score is scaled by the share of
//     them a document holds.
func (p parsed) build() query.Query {
	var must []query.Query
	for i, toks := range p.words {
		last := i == len(p.words)-1
		switch {
		case len(toks) > 1:
			must = append(must, phraseQuery(toks))
		case last && p.q.Prefix:
			pq := bleve.NewPrefixQuery(toks[0])
			pq.SetField("text")
			must = append(must, pq)
		default:
			tq := bleve.NewTermQuery(toks[0])
			tq.SetField("text")
			must = append(must, tq)
		}
	}
	for _, toks := range p.phrases {
		if len(toks) == 1 {
			tq := bleve.NewTermQuery(toks[0])
			tq.SetField("text")
			must = append(must, tq)
		} else {
			must = append(must, phraseQuery(toks))
		}
	}
	keyword := func(field, v string) {
		if v == "" {
			return
		}
		tq := bleve.NewTermQuery(v)
		tq.SetField(field)
		tq.SetBoost(0)
		must = append(must, tq)
	}
	keyword("tool", p.q.Tool)
	keyword("role", p.q.Role)
	keyword("model", p.q.Model)
	keyword("agent", p.q.Agent)
	keyword("session", p.q.Session)
	if p.q.Project != "" {
		// The full path, or its last elements (a wildcard on the path,
		// unless the name holds wildcard characters itself).
		exact := bleve.NewTermQuery(p.q.Project)
		exact.SetField("project")
		exact.SetBoost(0)
		or := []query.Query{exact}
		if !strings.ContainsAny(p.q.Project, "*?") {
			for _, sep := range []string{"/", `\`} {
				w := bleve.NewWildcardQuery("*" + sep + p.q.Project)
				w.SetField("project")
				w.SetBoost(0)
				or = append(or, w)
			}
		}
		d := bleve.NewDisjunctionQuery(or...)
		d.SetBoost(0)
		must = append(must, d)
	}
	if !p.q.After.IsZero() || !p.q.Before.IsZero() {
		// By day: After's day on, up to Before's (exclusive) end.
		var from, to string
		if !p.q.After.IsZero() {
			from = dayKey(p.q.After)
		}
		if !p.q.Before.IsZero() {
			to = dayKey(p.q.Before.Add(-time.Nanosecond))
		}
		yes := true
		dq := bleve.NewTermRangeInclusiveQuery(from, to, &yes, &yes)
		dq.SetField("day")
		dq.SetBoost(0)
		must = append(must, dq)
	}
	return bleve.NewConjunctionQuery(must...)
}

// scored tells whether a query has words or phrases: one of filters only
// is not scored (every match scores 0) and its results go by id.
func (p parsed) scored() bool { return len(p.words) > 0 || len(p.phrases) > 0 }

const tieSlack = 10

// tieKey is a score rounded to 12 significant digits.
func tieKey(score float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(score, 'g', 12, 64), 64)
	return v
}

// Search runs q.
func (x *Index) Search(ctx context.Context, q Query) (Results, error) {
	p, err := parse(q)
	if err != nil {
		return Results{}, err
	}
	size := q.Size
	if size <= 0 {
		size = 20
	}
	// A few more than asked: ties are settled below, and a tie may cross
	// the cut.
	req := bleve.NewSearchRequestOptions(p.build(), size+tieSlack, 0, false)
	if !p.scored() {
		req.Score = "none"
	}
	req.Fields = []string{"project", "session", "title", "role", "tool", "model", "agent", "time", "text"}
	// Ties go by time, then id: the static index's numbers (see
	// numbered), so results are stable and the browser's the same.
	req.SortByCustom(search.SortOrder{&search.SortScore{Desc: true},
		&search.SortField{Field: "order", Type: search.SortFieldAsString, Missing: search.SortFieldMissingFirst}, &search.SortDocID{}})
	stats, err := x.bm25()
	if err != nil {
		return Results{}, fmt.Errorf("search: %w", err)
	}
	if stats != nil {
		ctx = context.WithValue(ctx, search.BM25StatsKey, stats)
	}
	res, err := x.idx.SearchInContext(ctx, req)
	if err != nil {
		return Results{}, fmt.Errorf("search: %w", err)
	}
	out := Results{Total: res.Total, Took: res.Took}
	an := x.idx.Mapping().AnalyzerNamed(Analyzer)
	// order is each hit's place in bleve's order, which ties keep.
	order := map[string]int{}
	for i, h := range res.Hits {
		order[h.ID] = i
		hit := Hit{ID: h.ID, Score: h.Score}
		hit.Page, hit.Anchor, _ = strings.Cut(h.ID, "#")
		hit.Anchor, _, _ = strings.Cut(hit.Anchor, "?") // "?thinking": a second doc of one message
		str := func(k string) string { s, _ := h.Fields[k].(string); return s }
		hit.Project, hit.Session, hit.Title = str("project"), str("session"), str("title")
		hit.Role, hit.Tool, hit.Model, hit.Agent = str("role"), str("tool"), str("model"), str("agent")
		if t, err := time.Parse(time.RFC3339, str("time")); err == nil {
			hit.Time = t
		}
		hit.Snippet = snippet(str("text"), p.matchSpans(an, str("text")), 240)
		out.Hits = append(out.Hits, hit)
	}
	// bleve adds a document's term scores in an order that depends on its
	// internal numbering, so equal scores can differ in the last bits;
	// scores equal to 12 digits count as tied (the static reader does the
	// same), and ties go in bleve's order of time and id.
	sort.SliceStable(out.Hits, func(i, j int) bool {
		a, b := tieKey(out.Hits[i].Score), tieKey(out.Hits[j].Score)
		if a != b {
			return a > b
		}
		return res.Hits[order[out.Hits[i].ID]].Sort[1] < res.Hits[order[out.Hits[j].ID]].Sort[1] ||
			res.Hits[order[out.Hits[i].ID]].Sort[1] == res.Hits[order[out.Hits[j].ID]].Sort[1] &&
				out.Hits[i].ID < out.Hits[j].ID
	})
	out.Hits = out.Hits[:min(size, len(out.Hits))]
	return out, nil
}

// snippet cuts about width bytes of text around the first match, escaped,
// with every match inside it wrapped in <mark>.
func snippet(text string, spans []span, width int) string {
	spans = slices.DeleteFunc(spans, func(s span) bool { return s.end > len(text) || s.start >= s.end })
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	from := 0
	if len(spans) > 0 {
		from = max(0, spans[0].start-width/3)
	}
	to := min(len(text), from+width)
	// Keep whole UTF-8 characters.
	for from > 0 && from < len(text) && text[from]&0xC0 == 0x80 {
		from--
	}
	for to < len(text) && text[to]&0xC0 == 0x80 {
		to++
	}
	var b strings.Builder
	if from > 0 {
		b.WriteString("…")
	}
	pos := from
	for _, s := range spans {
		if s.start < pos || s.end > to {
			continue
		}
		b.WriteString(html.EscapeString(text[pos:s.start]))
		b.WriteString("<mark>" + html.EscapeString(text[s.start:s.end]) + "</mark>")
		pos = s.end
	}
	b.WriteString(html.EscapeString(text[pos:to]))
	if to < len(text) {
		b.WriteString("…")
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
