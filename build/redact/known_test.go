package redact

import (
	"bytes"
	"encoding/json"
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

// TestLiteralsRemembered: a value whose JSON literal was found clean is
// not scanned again in a later line, escaped or not; a literal that held
// a secret, or one the URL rule changed, is redacted every time it comes;
// a literal found clean under one member name is scanned again under a
// name that says it is a secret.
func TestLiteralsRemembered(t *testing.T) {
	r := newRedactor(t)
	var texts []string
	scanHook = func(s string) { texts = append(texts, s) }
	defer func() { scanHook = nil }()
	scanned := func(part string) int {
		n := 0
		for _, s := range texts {
			if bytes.Contains([]byte(s), []byte(part)) {
				n++
			}
		}
		return n
	}
	long := "a tool's output\nof several lines\twith \"quotes\" in it"
	for range 3 {
		if out := r.Line("a.jsonl", line(t, long)); !bytes.Equal(out, line(t, long)) {
			t.Fatalf("clean line changed: %s", out)
		}
	}
	if n := scanned("several lines"); n != 1 {
		t.Errorf("a clean escaped literal scanned %d times in three lines, want 1", n)
	}
	plain := "plain words without any escape in them at all"
	for range 3 {
		r.Line("a.jsonl", line(t, plain))
	}
	if n := scanned("without any escape"); n != 1 {
		t.Errorf("a clean literal scanned %d times in three lines, want 1", n)
	}
	secret := "export STRIPE_KEY=" + stripe + "\n"
	url := "see postgres://admin:hunter2hunter@db.example.com/app for the data"
	for i := range 3 {
		if out := r.Line("a.jsonl", line(t, secret)); bytes.Contains(out, []byte(stripe)) {
			t.Errorf("round %d: the secret was published: %s", i, out)
		}
		if out := r.Line("a.jsonl", line(t, url)); bytes.Contains(out, []byte("hunter2hunter")) {
			t.Errorf("round %d: the URL's password was published: %s", i, out)
		}
	}
	// Found clean as a note, then seen as a password's value.
	value := "q8Zr2Lx7Wp4Nv9Tb3Kc6"
	note, err := json.Marshal(map[string]any{"type": "user", "note": value})
	if err != nil {
		t.Fatal(err)
	}
	pass, err := json.Marshal(map[string]any{"type": "user", "password": value})
	if err != nil {
		t.Fatal(err)
	}
	if out := r.Line("a.jsonl", note); !bytes.Equal(out, note) {
		t.Fatalf("a note changed: %s", out)
	}
	if out := r.Line("a.jsonl", pass); bytes.Contains(out, []byte(value)) {
		t.Errorf("a password's value known clean as a note's was published: %s", out)
	}
}
