package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"ccsite/build"
	"ccsite/build/agents"
	"ccsite/build/archive"
	"ccsite/build/pricing"
	"ccsite/build/session"
	"ccsite/search"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// usageSchema names the `ccsite usage --json` document format.
const usageSchema = "ccsite.usage/1"

// usageRow is one group's figures in `ccsite usage`.
type usageRow struct {
	Key           string   `json:"key"`
	Title         string   `json:"title,omitempty"`
	Input         int64    `json:"inputTokens"`
	Output        int64    `json:"outputTokens"`
	CacheWrite    int64    `json:"cacheWriteTokens"`
	CacheWrite1h  int64    `json:"cacheWrite1hTokens"`
	CacheRead     int64    `json:"cacheReadTokens"`
	Total         int64    `json:"totalTokens"`
	Cost          float64  `json:"cost"`
	CostUnknown   bool     `json:"costUnknown"`
	UnknownTokens int64    `json:"unknownTokens,omitzero"`
	UnknownModels []string `json:"unknownModels,omitempty"`
	Responses     int      `json:"responses"`
	// PartialOutputs counts responses whose output count is a partial
	// record (Output is then a lower bound); OutputEstimate is Output with
	// their estimates instead.
	PartialOutputs int   `json:"partialOutputs,omitzero"`
	OutputEstimate int64 `json:"outputTokensEstimate,omitzero"`
}

type usageDoc struct {
	Schema  string `json:"schema"`
	By      string `json:"by"`
	Pricing struct {
		Date   string `json:"date"`
		Source string `json:"source,omitempty"`
	} `json:"pricing"`
	Rows  []usageRow `json:"rows"`
	Total usageRow   `json:"total"`
	// Duplicates counts responses met again in another file (a resumed or
	// forked session copies its history): counted once.
	Duplicates int `json:"duplicateResponses"`
}

func rowOf(key, title string, c session.Cost) usageRow {
	return usageRow{Key: key, Title: title, Input: c.Tokens.Input, Output: c.Tokens.Output,
		CacheWrite: c.Tokens.CacheWrite, CacheWrite1h: c.CacheWrite1h, CacheRead: c.Tokens.CacheRead,
		Total: c.Tokens.Total(), Cost: round6(c.USD), CostUnknown: c.Unknown, UnknownTokens: c.UnknownTokens,
		UnknownModels: c.UnknownModels, Responses: c.Responses, PartialOutputs: c.Tokens.Partial,
		OutputEstimate: partialEstimate(c.Tokens)}
}

// partialEstimate is the output tokens with partial counts estimated, 0
// when none is partial.
func partialEstimate(t session.Tokens) int64 {
	if t.Partial == 0 {
		return 0
	}
	return t.OutputEstimate()
}

func round6(f float64) float64 { return math.Round(f*1e6) / 1e6 }

func newUsageCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "usage [flags] [PATH...]",
		Short: "Print tokens and their cost per day, project, session, model or agent",
		Long: `Print tokens (input, output, cache writes, cache reads) and their cost per
group and in total, without building a site. Each API response counts once,
sub-agents with their session, the advisor tool's calls at the advisor's
model; a model with no price is unknown ("?"), never $0. Output counts that
Claude Code recorded only in part make the output a lower bound: the line
under the table says how many, with an estimate. Prices are the dated table
in build/pricing/pricing.json; --pricing FILE (same format) replaces or adds
models. Days are UTC; --by agent has a row per coding agent (claude, codex,
gemini). On a terminal, numbers have thousands separators; to a
pipe or a file, and with --json or --csv, they are plain digits.`,
		Example: `  ccsite usage
  ccsite usage --by model --json
  ccsite usage --by agent
  ccsite usage --by project --csv ~/old-projects > cost.csv`,
	}
	f := c.Flags()
	by := f.StringP("by", "b", "day", "group by day (UTC), project, session, model or agent")
	asJSON := f.BoolP("json", "j", false, "write one JSON document")
	asCSV := f.Bool("csv", false, "write CSV")
	pricingFile := f.String("pricing", "", "prices from `FILE` (pricing.json format) over the embedded ones")
	workers := f.Int("workers", 0, "parse with `N` workers (default: one per CPU)")
	f.SortFlags = false
	c.RunE = func(c *cobra.Command, paths []string) error {
		switch *by {
		case "day", "project", "session", "model", "agent":
		default:
			return usagef("--by %q: want day, project, session, model or agent", *by)
		}
		if *asJSON && *asCSV {
			return usagef("--json and --csv exclude each other")
		}
		return status(runUsage(e, paths, *by, *asJSON, *asCSV, *pricingFile, *workers))
	}
	return c
}

func runUsage(e *env, paths []string, by string, asJSON, asCSV bool, pricingFile string, workers int) int {
	ctx, stdout, stderr, getenv := e.ctx, e.stdout, e.stderr, e.getenv
	table, err := pricing.Load(pricingFile)
	if err != nil {
		fmt.Fprintf(stderr, "ccsite usage: %v\n", err)
		return exitFail
	}
	paths, cleanup, err := inputPaths(paths, getenv, stderr, "usage", nil)
	if err != nil {
		fmt.Fprintf(stderr, "ccsite usage: %v\n", err)
		return exitFail
	}
	defer cleanup()
	doc, err := collectUsage(ctx, paths, by, table, workers)
	if err != nil {
		msg := err.Error()
		if errors.Is(err, archive.ErrNothing) {
			msg += " (looked for *.jsonl files)"
		}
		fmt.Fprintf(stderr, "ccsite usage: %s\n", strings.TrimSpace(msg))
		return exitFail
	}
	bw := bufio.NewWriter(stdout)
	defer bw.Flush()
	switch {
	case asJSON:
		err = json.MarshalWrite(bw, doc, json.Deterministic(true), jsontext.Multiline(true),
			json.FormatNilSliceAsNull(false))
		bw.WriteString("\n")
	case asCSV:
		err = writeUsageCSV(bw, doc)
	default:
		writeUsageText(bw, doc, isTerminal(stdout))
	}
	if err != nil {
		fmt.Fprintf(stderr, "ccsite usage: %v\n", err)
		return exitFail
	}
	return exitOK
}

// collectUsage reads the archive at paths and sums its API responses by
// group. A response (message id) met in several files counts once, in the
// first file read; sub-agents count with their parent session.
func collectUsage(ctx context.Context, paths []string, by string, table *pricing.Table, workers int) (usageDoc, error) {
	doc := usageDoc{Schema: usageSchema, By: by}
	doc.Pricing.Date, doc.Pricing.Source = table.Date, table.Source
	a, err := archive.Discover(ctx, paths)
	if err != nil {
		return doc, err
	}
	groups := map[string]*session.Cost{}
	titles := map[string]string{}
	seen := map[string]bool{}
	var total session.Cost
	read := 0
	add := func(key string, c session.Cost) {
		g := groups[key]
		if g == nil {
			g = &session.Cost{}
			groups[key] = g
		}
		g.Add(c)
		total.Add(c)
	}
	err = build.Load(ctx, a, build.LoadOptions{Workers: workers}, func(l build.Loaded) error {
		if l.Err != nil || l.Session == nil {
			return nil
		}
		read++
		s := l.Session
		list := append([]*session.Session{s}, s.Agents...)
		for _, x := range list {
			for _, r := range x.Responses(table) {
				if r.Model == "<synthetic>" {
					continue // written by Claude Code, not an API response
				}
				if !strings.HasPrefix(r.ID, "uuid:") {
					if seen[r.ID] {
						doc.Duplicates++
						continue
					}
					seen[r.ID] = true
				}
				var key string
				switch by {
				case "day":
					key = "unknown"
					if !r.Time.IsZero() {
						key = r.Time.UTC().Format("2006-01-02")
					}
				case "project":
					key = l.Project.Path
				case "session":
					key = s.ID
					titles[key] = s.Title
				case "model":
					key = r.Model
					if key == "" {
						key = "(none)"
					}
				case "agent":
					key = search.AgentKey(s.AgentName)
					if a := agents.ByKey(key); a != nil {
						titles[key] = a.Name
					}
				}
				add(key, r.Cost)
			}
		}
		return nil
	})
	if err != nil {
		return doc, err
	}
	if read == 0 {
		return doc, fmt.Errorf("no transcript could be read")
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	doc.Rows = make([]usageRow, 0, len(keys))
	for _, k := range keys {
		doc.Rows = append(doc.Rows, rowOf(k, titles[k], *groups[k]))
	}
	doc.Total = rowOf("total", "", total)
	return doc, nil
}

// money writes a cost: "$1.23" (under a dollar "$0.0123"), "$1.23+?" when some of it is unknown, "?"
// when all of it is.
func money(r usageRow) string {
	if r.CostUnknown && r.UnknownTokens == r.Total {
		return "?"
	}
	prec := 2
	if r.Cost < 0.995 {
		prec = 4
	}
	s := "$" + strconv.FormatFloat(r.Cost, 'f', prec, 64)
	if r.CostUnknown {
		s += "+?"
	}
	return s
}

// writeUsageText writes the table; group (on a terminal) writes counts
// with thousands separators ("1,234,567"), else they are plain digits for
// scripts.
func writeUsageText(w *bufio.Writer, doc usageDoc, group bool) {
	count := func(n int64) string { return strconv.FormatInt(n, 10) }
	cost := money
	if group {
		p := message.NewPrinter(language.English)
		count = func(n int64) string { return p.Sprintf("%d", n) }
		cost = func(r usageRow) string { return groupDollars(p, money(r)) }
	}
	head := []string{doc.By, "input", "output", "cache write", "cache read", "total", "cost"}
	rows := [][]string{head}
	line := func(r usageRow) []string {
		key := r.Key
		if r.Title != "" {
			key += "  " + session.Excerpt(r.Title, 40)
		}
		return []string{key, count(r.Input), count(r.Output),
			count(r.CacheWrite), count(r.CacheRead),
			count(r.Total), cost(r)}
	}
	for _, r := range doc.Rows {
		rows = append(rows, line(r))
	}
	rows = append(rows, line(doc.Total))
	width := make([]int, len(head))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	for n, r := range rows {
		if n == len(rows)-1 {
			fmt.Fprintln(w, strings.Repeat("-", sum(width)+2*(len(width)-1)))
		}
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			if i == 0 {
				w.WriteString(c + pad)
			} else {
				w.WriteString("  " + pad + c)
			}
		}
		w.WriteString("\n")
	}
	fmt.Fprintf(w, "prices of %s", doc.Pricing.Date)
	if doc.Total.CostUnknown {
		fmt.Fprintf(w, "; +? : %s tokens of models with no price (%s)", count(doc.Total.UnknownTokens),
			strings.Join(doc.Total.UnknownModels, ", "))
	}
	w.WriteString("\n")
	if t := doc.Total; t.PartialOutputs > 0 {
		what := fmt.Sprintf("%d responses", t.PartialOutputs)
		if t.PartialOutputs == 1 {
			what = "1 response"
		}
		fmt.Fprintf(w, "output is a lower bound: %s recorded part of its count (~%s tokens estimated)\n", what, count(int64(t.OutputEstimate)))
	}
}

// groupDollars writes the whole dollars of a money text ("$1234.50+?")
// with thousands separators ("$1,234.50+?").
func groupDollars(p *message.Printer, s string) string {
	rest, ok := strings.CutPrefix(s, "$")
	if !ok {
		return s
	}
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	whole, err := strconv.ParseInt(rest[:n], 10, 64)
	if err != nil {
		return s
	}
	return "$" + p.Sprintf("%d", whole) + rest[n:]
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

func writeUsageCSV(w io.Writer, doc usageDoc) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{doc.By, "title", "input_tokens", "output_tokens", "cache_write_tokens", "cache_write_1h_tokens",
		"cache_read_tokens", "total_tokens", "cost_usd", "cost_unknown", "unknown_tokens"})
	rec := func(r usageRow) []string {
		return []string{r.Key, r.Title, strconv.FormatInt(r.Input, 10), strconv.FormatInt(r.Output, 10),
			strconv.FormatInt(r.CacheWrite, 10), strconv.FormatInt(r.CacheWrite1h, 10),
			strconv.FormatInt(r.CacheRead, 10), strconv.FormatInt(r.Total, 10),
			strconv.FormatFloat(r.Cost, 'f', 6, 64), strconv.FormatBool(r.CostUnknown),
			strconv.FormatInt(r.UnknownTokens, 10)}
	}
	for _, r := range doc.Rows {
		cw.Write(rec(r))
	}
	cw.Write(rec(doc.Total))
	cw.Flush()
	return cw.Error()
}
