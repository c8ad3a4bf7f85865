package search

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestTimeFilterAndTies: after: and before: keep the documents of their
// days (UTC), to the nanosecond at midnight; documents of equal score come
// in time order, those with no time the index can hold first, then by id:
// the order the static index numbers them in.
func TestTimeFilterAndTies(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	times := map[string]time.Time{
		"a": at("2026-03-05T00:00:00Z"),
		"b": at("2026-03-04T23:59:59.999999999Z"),
		"c": at("2026-03-05T23:59:59.999999999+00:00"),
		"d": at("2026-03-06T00:00:00Z"),
		"e": at("2026-03-05T01:30:00+02:00"), // 2026-03-04 in UTC
		"f": {},                              // none
		"g": at("1969-12-31T23:59:59Z"),      // before the epoch
		"h": at("1500-01-01T00:00:00Z"),      // before what the index holds
		"i": at("2026-03-05T00:00:00Z"),      // as a, later id
	}
	dir := filepath.Join(t.TempDir(), "idx")
	w, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	var docs []Doc
	for id, tm := range times {
		docs = append(docs, Doc{ID: "p/s.html#" + id, Project: "p", Session: "s", Role: "answer", Time: tm, Text: "alpha"})
	}
	if _, err := w.Add(docs); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	x, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	ids := func(q Query) []string {
		q.Size = 50
		res, err := x.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range res.Hits {
			out = append(out, h.Anchor)
			// Results give the time to the second.
			if want := times[h.Anchor].Truncate(time.Second); !h.Time.Equal(want) && hasTime(want) {
				t.Errorf("%s: time %s, want %s", h.Anchor, h.Time, want)
			}
		}
		return out
	}
	for _, c := range []struct {
		q    Query
		want []string
	}{
		{Query{Text: "alpha"}, []string{"f", "h", "g", "e", "b", "a", "i", "c", "d"}},
		{Query{Text: "alpha after:2026-03-05"}, []string{"a", "i", "c", "d"}},
		{Query{Text: "alpha before:2026-03-05"}, []string{"g", "e", "b", "a", "i", "c"}},
		{Query{Text: "after:2026-03-05 before:2026-03-05"}, []string{"a", "i", "c"}},
		{Query{Text: "alpha before:2026-03-04"}, []string{"g", "e", "b"}},
		{Query{Text: "alpha after:1970-01-01"}, []string{"e", "b", "a", "i", "c", "d"}},
		// A time that is not a midnight keeps its whole day.
		{Query{Text: "alpha", After: at("2026-03-05T12:00:00Z"), Before: at("2026-03-05T12:00:00Z")}, []string{"a", "i", "c"}},
	} {
		if got := ids(c.q); !slices.Equal(got, c.want) {
			t.Errorf("%+v: %q, want %q", c.q, got, c.want)
		}
	}
	// The static index numbers them in the same order.
	var got []string
	metas := map[string]meta{}
	for i := range docs {
		metas[docs[i].ID] = newMeta(&docs[i], DocHash(&docs[i]))
	}
	for _, m := range numberedMap(metas) {
		got = append(got, m.id[len("p/s.html#"):])
	}
	if want := []string{"f", "h", "g", "e", "b", "a", "i", "c", "d"}; !slices.Equal(got, want) {
		t.Errorf("static numbers %q, want %q", got, want)
	}
}

// TestOrderKey: the order key sorts as the times do, across the epoch and
// at the ends of what the index holds.
func TestOrderKey(t *testing.T) {
	ts := []time.Time{
		time.Unix(0, -1<<62), time.Unix(-1, 0), time.Unix(0, -1), time.Unix(0, 0), time.Unix(0, 1),
		time.Unix(1, 0), time.Unix(1<<32, 5), time.Unix(0, 1<<62),
	}
	for i := 1; i < len(ts); i++ {
		a, b := orderKey(ts[i-1]), orderKey(ts[i])
		if len(a) != 16 || len(b) != 16 || a >= b {
			t.Errorf("orderKey(%v) = %s, orderKey(%v) = %s: want shorter first, both 16 digits", ts[i-1], a, ts[i], b)
		}
	}
}
