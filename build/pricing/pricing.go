// Package pricing is the table of what Claude models cost, embedded from
// pricing.json and dated, with Load to override or extend it from a file.
//
// The file format (pricing.json, and a --pricing FILE) is one JSON object:
//
//	{
//	  "date": "2026-11-25",
//	  "source": "where the prices come from",
//	  "models": {
//	    "claude-sonnet-4-5": {
//	      "input": 3, "output": 15,
//	      "cacheWrite5m": 3.75, "cacheWrite1h": 6, "cacheRead": 0.3,
//	      "longContext": {"above": 200000, "input": 6, "output": 22.5,
//	        "cacheWrite5m": 7.5, "cacheWrite1h": 12, "cacheRead": 0.6}
//	    }
//	  }
//	}
//
// Prices are USD per million tokens. longContext, when set, prices a whole
// request whose input (input, cache reads and cache writes together) is
// above "above" tokens. Model keys are normalised ids: lower case, without
// a provider prefix ("anthropic/", "us.anthropic."), a date ("-20250929",
// "@20250929"), a version ("-v1:0"), "-latest" or a "[1m]" suffix. A model
// the table does not name has no price: its cost is unknown, never $0.
//
// A file given to Load replaces the models it names and adds the others; its
// date, when set, becomes the table's.
package pricing

import (
	_ "embed"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-json-experiment/json"
)

//go:embed pricing.json
var embedded []byte

// Rates are USD per million tokens.
type Rates struct {
	Input        float64 `json:"input"`
	Output       float64 `json:"output"`
	CacheWrite5m float64 `json:"cacheWrite5m"`
	CacheWrite1h float64 `json:"cacheWrite1h"`
	CacheRead    float64 `json:"cacheRead"`
}

// Tier is a long-context price: Rates for a request whose input is above
// Above tokens.
type Tier struct {
	Above int64 `json:"above"`
	Rates
}

// Price is one model's prices.
type Price struct {
	Rates
	LongContext *Tier `json:"longContext,omitempty"`
}

// Table is a dated set of prices by normalised model id.
type Table struct {
	Date   string           `json:"date"`
	Source string           `json:"source,omitempty"`
	Models map[string]Price `json:"models"`
}

// Usage is the token accounting of one API response. CacheWrite1h is the
// part of CacheWrite written for an hour; the rest is priced as 5 minutes.
type Usage struct {
	Input, Output, CacheRead, CacheWrite, CacheWrite1h int64
}

// defaultTable is the embedded table, parsed once when the program
// starts and never changed (a value, like a compiled regexp).
var defaultTable = mustParse(embedded)

func mustParse(data []byte) *Table {
	t, err := parse(data)
	if err != nil {
		panic("pricing: embedded pricing.json: " + err.Error())
	}
	return t
}

// Default returns the embedded table. It is shared: do not change it.
func Default() *Table { return defaultTable }

func parse(data []byte) (*Table, error) {
	var t Table
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, err
	}
	models := make(map[string]Price, len(t.Models))
	for k, p := range t.Models {
		n := Normalize(k)
		if n == "" {
			return nil, fmt.Errorf("model %q: empty id", k)
		}
		if p.LongContext != nil && p.LongContext.Above <= 0 {
			return nil, fmt.Errorf("model %q: longContext.above must be positive", k)
		}
		models[n] = p
	}
	t.Models = models
	return &t, nil
}

// Load returns the embedded table overridden and extended by the file at
// path (same format); path "" gives the embedded table.
func Load(path string) (*Table, error) {
	if path == "" {
		return Default(), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	over, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("pricing %s: %w", path, err)
	}
	d := Default()
	t := &Table{Date: d.Date, Source: d.Source, Models: make(map[string]Price, len(d.Models)+len(over.Models))}
	for k, p := range d.Models {
		t.Models[k] = p
	}
	for k, p := range over.Models {
		t.Models[k] = p
	}
	if over.Date != "" {
		t.Date = over.Date
	}
	if over.Source != "" {
		t.Source = over.Source
	}
	return t, nil
}

var (
	dateSuffix = regexp.MustCompile(`[-@](\d{8}|\d{4}-\d{2}-\d{2})$`) // Anthropic's 20250929, OpenAI's 2025-08-07
	verSuffix  = regexp.MustCompile(`-v\d+(:\d+)?$`)
)

// Normalize turns a model id as transcripts and providers write it into a
// table key: "claude-opus-4-5-20251101" and "us.anthropic.claude-opus-4-5-20251101-v1:0"
// give "claude-opus-4-5"; "claude-sonnet-4-5[1m]" gives "claude-sonnet-4-5".
func Normalize(model string) string {
	if m, ok := normalized.Load(model); ok {
		return m.(string)
	}
	m := normalize(model)
	// A transcript names a handful of models, each on every response:
	// their keys are kept (0.46 CPU-s of a cold 1 GB build went to the
	// expressions). Past a few hundred names (a transcript written to
	// fill the map), new ones are worked out each time.
	if normalizedN.Add(1) <= 512 {
		normalized.Store(model, m)
	}
	return m
}

var (
	normalized  sync.Map // model id → Normalize's key
	normalizedN atomic.Int32
)

func normalize(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	m = strings.TrimSuffix(m, "[1m]")
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	if i := strings.Index(m, "anthropic."); i >= 0 {
		m = m[i+len("anthropic."):]
	}
	m = verSuffix.ReplaceAllString(m, "")
	m = strings.TrimSuffix(m, "-latest")
	m = dateSuffix.ReplaceAllString(m, "")
	return m
}

// Lookup returns the price of model, and whether the table has one.
func (t *Table) Lookup(model string) (Price, bool) {
	if t == nil {
		return Price{}, false
	}
	p, ok := t.Models[Normalize(model)]
	return p, ok
}

// Cost is the USD cost of one API response at p: at the long-context rates
// when the request's input is above the tier's threshold.
func (p Price) Cost(u Usage) float64 {
	r := p.Rates
	if lc := p.LongContext; lc != nil && u.Input+u.CacheRead+u.CacheWrite > lc.Above {
		r = lc.Rates
	}
	w1h := min(u.CacheWrite1h, u.CacheWrite)
	w5m := u.CacheWrite - w1h
	return (float64(u.Input)*r.Input + float64(u.Output)*r.Output + float64(u.CacheRead)*r.CacheRead +
		float64(w5m)*r.CacheWrite5m + float64(w1h)*r.CacheWrite1h) / 1e6
}
