package redact

import (
	"bytes"
	"fmt"
	"maps"
	"testing"
)

// memKnown is a KnownRedacted in memory.
type memKnown struct {
	clean    map[[32]byte]bool
	redacted map[[32]byte][]byte
	rules    map[[32]byte]map[string]int
}

func (m *memKnown) Clean(k [32]byte) bool { return m.clean[k] }
func (m *memKnown) MarkClean(k [32]byte)  { m.clean[k] = true }
func (m *memKnown) Known(k [32]byte) ([]byte, map[string]int, bool) {
	if m.clean[k] {
		return nil, nil, true
	}
	out, ok := m.redacted[k]
	return bytes.Clone(out), maps.Clone(m.rules[k]), ok
}
func (m *memKnown) MarkRedacted(k [32]byte, out []byte, rules map[string]int) {
	m.redacted[k], m.rules[k] = bytes.Clone(out), maps.Clone(rules)
}

// TestKnownRedacted: a line redaction changed is remembered as redacted; a
// second redactor given the same memory scans neither it nor a clean line,
// and gives the same lines and the same counts.
func TestKnownRedacted(t *testing.T) {
	secret := line(t, "export STRIPE_KEY="+stripe+"\naws "+awsID)
	clean := line(t, "nothing to see here")
	mem := &memKnown{clean: map[[32]byte]bool{}, redacted: map[[32]byte][]byte{}, rules: map[[32]byte]map[string]int{}}
	var outs [2][2][]byte
	var counts [2]string
	for round := range 2 {
		r := newRedactor(t)
		r.Remember(mem, nil)
		scans := 0
		scanHook = func(string) { scans++ }
		outs[round][0] = r.Line("a.jsonl", secret)
		outs[round][1] = r.Line("a.jsonl", clean)
		scanHook = nil
		byRule, byFile := r.Counts()
		counts[round] = fmt.Sprint(byRule, byFile)
		if round == 0 && scans == 0 {
			t.Fatal("the first redactor scanned nothing")
		}
		if round == 1 && scans != 0 {
			t.Errorf("the second redactor scanned %d texts of lines it knew", scans)
		}
	}
	if bytes.Contains(outs[0][0], []byte(stripe)) || bytes.Contains(outs[0][0], []byte(awsID)) {
		t.Fatalf("the secret line was not redacted: %s", outs[0][0])
	}
	if !bytes.Equal(outs[0][0], outs[1][0]) || !bytes.Equal(outs[1][1], clean) {
		t.Errorf("lines differ from the cache:\n%s\n%s", outs[0][0], outs[1][0])
	}
	if counts[0] != counts[1] || counts[0] == "map[] map[]" {
		t.Errorf("counts: scanned %s, from the cache %s", counts[0], counts[1])
	}
	if len(mem.redacted) != 1 || len(mem.clean) != 1 {
		t.Errorf("remembered %d redacted, %d clean lines; want 1, 1", len(mem.redacted), len(mem.clean))
	}
}

// emptyKnown is a memKnown that says it holds nothing, and fails the test
// if it is asked anything.
type emptyKnown struct {
	*memKnown
	t *testing.T
}

func (e emptyKnown) Empty() bool { return true }
func (e emptyKnown) Known(k [32]byte) ([]byte, map[string]int, bool) {
	e.t.Error("an empty memory was asked for a line")
	return nil, nil, false
}

// TestLineOnce: LineOnce redacts as Line does and keeps a line it changed,
// redacted, but marks no line clean; and a memory that says it is empty
// is asked nothing, by Line or LineOnce, yet still told what they found.
func TestLineOnce(t *testing.T) {
	secret := line(t, "export STRIPE_KEY="+stripe)
	clean := line(t, "nothing to see here")
	newMem := func() *memKnown {
		return &memKnown{clean: map[[32]byte]bool{}, redacted: map[[32]byte][]byte{}, rules: map[[32]byte]map[string]int{}}
	}
	mem := newMem()
	r := newRedactor(t)
	r.Remember(mem, nil)
	once := r.LineOnce("a.jsonl", secret)
	if got := r.LineOnce("a.jsonl", clean); !bytes.Equal(got, clean) {
		t.Errorf("LineOnce changed a clean line: %s", got)
	}
	if want := newRedactor(t).Line("a.jsonl", secret); !bytes.Equal(once, want) {
		t.Errorf("LineOnce gives %s, Line %s", once, want)
	}
	if len(mem.clean) != 0 || len(mem.redacted) != 1 {
		t.Errorf("LineOnce remembered %d clean, %d redacted lines; want 0, 1", len(mem.clean), len(mem.redacted))
	}
	for _, f := range []func(*Redactor, string, []byte) []byte{(*Redactor).Line, (*Redactor).LineOnce} {
		m := newMem()
		r := newRedactor(t)
		r.Remember(emptyKnown{m, t}, nil)
		if got := f(r, "a.jsonl", secret); !bytes.Equal(got, once) {
			t.Errorf("with an empty memory: %s", got)
		}
		f(r, "a.jsonl", clean)
		if len(m.redacted) != 1 {
			t.Errorf("with an empty memory, %d redacted lines kept", len(m.redacted))
		}
	}
}
