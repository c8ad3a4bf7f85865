package build

import (
	"testing"
	"time"

	"ccsite/search"
)

// TestDocsHash: a unit's documents hash the same when they are the same,
// and differently when any field the index holds changes, a time's zone
// (the same instant elsewhere) included, or their order.
func TestDocsHash(t *testing.T) {
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	docs := func() []search.Doc {
		return []search.Doc{
			{ID: "p/s.html#m-1", Project: "p", Session: "s", Title: "T", Role: "prompt", Time: at, Text: "hello"},
			{ID: "p/s.html#m-2", Project: "p", Session: "s", Title: "T", Role: "tool", Tool: "Bash", Model: "m", Time: at.Add(time.Minute), Text: "ls -la"},
		}
	}
	sum := func(ds []search.Doc) string {
		hashes := make([]uint64, len(ds))
		for i := range ds {
			hashes[i] = search.DocHash(&ds[i])
		}
		return docsHash(ds, hashes)
	}
	want := sum(docs())
	if got := sum(docs()); got != want {
		t.Fatalf("the same documents hash %s and %s", want, got)
	}
	changes := map[string]func(d *search.Doc){
		"id":      func(d *search.Doc) { d.ID += "x" },
		"project": func(d *search.Doc) { d.Project = "q" },
		"session": func(d *search.Doc) { d.Session = "r" },
		"title":   func(d *search.Doc) { d.Title = "U" },
		"role":    func(d *search.Doc) { d.Role = "answer" },
		"tool":    func(d *search.Doc) { d.Tool = "Read" },
		"model":   func(d *search.Doc) { d.Model = "n" },
		"instant": func(d *search.Doc) { d.Time = d.Time.Add(time.Nanosecond) },
		"zone":    func(d *search.Doc) { d.Time = d.Time.In(time.FixedZone("X", 3600)) },
		"text":    func(d *search.Doc) { d.Text += "!" },
		"fields":  func(d *search.Doc) { d.Title, d.Role = d.Title+d.Role[:1], d.Role[1:] }, // bytes moved from one field to the next
	}
	for name, change := range changes {
		for i := range 2 {
			ds := docs()
			change(&ds[i])
			if sum(ds) == want {
				t.Errorf("document %d's %s changed, the hash did not", i, name)
			}
		}
	}
	ds := docs()
	ds[0], ds[1] = ds[1], ds[0]
	if sum(ds) == want {
		t.Error("the documents' order changed, the hash did not")
	}
}
