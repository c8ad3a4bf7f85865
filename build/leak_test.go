package build

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"html"
	"image"
	"image/png"
	"io"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"ccsite/build/internal/leakgen"
	"ccsite/build/redact"
	"ccsite/search"
	"github.com/blevesearch/bleve/v2"
	index "github.com/blevesearch/bleve_index_api"
	"github.com/klauspost/compress/zstd"
	bolt "go.etcd.io/bbolt"
)

// leakSeed makes the planted tree ($CCSITE_LEAK_SEED makes another): any
// seed must pass.
const leakSeed = 20260211

// TestNoSecretLeaks plants a few hundred secrets (leakgen: every kind of
// secret, in every context, in every field a transcript holds), builds the
// site with the default redaction twice (cold, then --force with the cache
// warm), shares every session, and reads every byte written (the site, its
// .ccsite folder, the share files, the cache, the summaries the builds
// return) and every file name, decoded every way a secret can hide (HTML
// and JS escapes, percent-encoding, base64, image metadata, the bleve
// index's terms and stored fields): no probe of any secret may be found.
// A build without redaction shows which plants reach the output at all, so
// that no field passes by being absent; the strings that must survive
// redaction (ids, code that only mentions secrets) are checked against it.
// Set CCSITE_LEAK_DIR to keep the tree and the outputs.
func TestNoSecretLeaks(t *testing.T) {
	start := time.Now()
	t.Run("scanner", testLeakScanner)
	if t.Failed() {
		t.FailNow()
	}
	seed := uint64(leakSeed)
	if v := os.Getenv("CCSITE_LEAK_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("CCSITE_LEAK_SEED: %v", err)
		}
		seed = n
	}
	in := leakDir(t, "projects")
	plan, err := leakgen.Write(in, seed)
	if err != nil {
		t.Fatal(err)
	}
	m := newLeakMatcher()
	for i, p := range plan.Plants {
		for _, pr := range p.Probes {
			m.add(pr, i)
		}
	}
	for k, s := range plan.Keep {
		m.add(strings.ToLower(s), -1-k)
	}
	ctrl, csum := leakControl(t, plan, m, in)
	tCtrl := time.Since(start)
	run := leakRedacted(t, plan, m, in, csum)
	leakCheckReach(t, plan, ctrl)
	t.Log(leakReport(plan, ctrl, run))
	t.Logf("scanned %d files (%d MB), %d bleve documents and %d terms; %d leak hits; took %v (the unredacted build and its scan %v)",
		run.files, run.bytes>>20, run.bleveDocs, run.bleveTerms, run.nhits, time.Since(start).Round(time.Millisecond), tCtrl.Round(time.Millisecond))
	leakCheckLeaks(t, plan, run)
	leakCheckKeep(t, plan, ctrl, run)
}

// leakSync makes the bleve index of the build whose state is state, as
// the first search does.
func leakSync(t *testing.T, state string) {
	t.Helper()
	if err := search.Sync(IndexPath(state)); err != nil {
		t.Fatal(err)
	}
}

// leakControl builds and shares without redaction and scans that: which
// plants reach any output, which strings to keep the site shows.
func leakControl(t *testing.T, plan *leakgen.Plan, m *leakMatcher, in string) (*leakRun, Summary) {
	t.Helper()
	ctrl := newLeakRun(m, len(plan.Plants), len(plan.Keep))
	site, share, state := leakDir(t, "control-site"), leakDir(t, "control-share"), leakDir(t, "control-state")
	sum, err := Run(context.Background(), Config{Paths: []string{in}, Out: site, State: state, JSON: true, deferAfter: 2})
	if err != nil {
		t.Fatal(err)
	}
	leakShareAll(t, plan, share, nil)
	ctrl.area, ctrl.keepArea = "site", true
	ctrl.scanTree(t, site)
	ctrl.area, ctrl.keepArea = "share", false
	ctrl.scanTree(t, share)
	ctrl.area = "state"
	leakSync(t, state)
	ctrl.scanTree(t, state)
	return ctrl, sum
}

// leakRedacted builds with the default redaction (cold, then --force with
// the cache warm), shares every session, and scans it all.
func leakRedacted(t *testing.T, plan *leakgen.Plan, m *leakMatcher, in string, ctrl Summary) *leakRun {
	t.Helper()
	ctx := context.Background()
	site, cache, share, state := leakDir(t, "site"), leakDir(t, "cache"), leakDir(t, "share"), leakDir(t, "state")
	run := newLeakRun(m, len(plan.Plants), len(plan.Keep))
	var sums []Summary
	for i, force := range []bool{false, true} {
		red, err := redact.New(redact.Options{Secrets: true})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := Run(ctx, Config{Paths: []string{in}, Out: site, State: state, JSON: true, Redact: red, CacheDir: cache, Force: force, deferAfter: 2})
		if err != nil {
			t.Fatal(err)
		}
		leakCheckSummary(t, fmt.Sprintf("build %d", i+1), plan, sum, ctrl)
		if sum.CacheErr != nil {
			t.Errorf("build %d: cache: %v", i+1, sum.CacheErr)
		}
		sums = append(sums, sum)
		if !force {
			run.area = "site(cold)"
			run.scanTree(t, site)
			continue
		}
		if sum.HighlightHits == 0 {
			t.Errorf("the --force build took nothing from the cache: its cached paths went untested")
		}
		leakShareAll(t, plan, share, red)
	}
	// The --force build took the lines that held secrets from the cache,
	// as redacted, with what each rule found: its counts are the cold's.
	if a, b := fmt.Sprint(sums[0].Redactions), fmt.Sprint(sums[1].Redactions); a != b || len(sums[0].Redactions) == 0 {
		t.Errorf("redaction counts: cold %s, --force with the cache warm %s", a, b)
	}
	// What a build returns is output too: the CLI prints it and writes it
	// with --report (titles, sessions and files of the redaction counts).
	for i, s := range sums {
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		run.blob(fmt.Sprintf("summary/build-%d.json", i+1), data, 0)
	}
	run.area, run.keepArea, run.bleveDocs = "site", true, 0
	run.scanTree(t, site)
	run.area, run.keepArea = "share", false
	run.scanTree(t, share)
	run.area = "cache"
	run.scanTree(t, cache)
	// The build's state (manifest, search index) is not published, yet
	// holds what the pages show: it is checked as well, but for the
	// archive of the transcripts as they were. Its bleve index is made
	// when a search first needs it: made here, it is scanned too.
	// ccsite review writes its page of every redaction into the state
	// folder: scanned with it.
	rep, err := Review(ctx, ReviewConfig{Paths: []string{in}, Out: site, State: state, Redact: redact.Options{Secrets: true}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Total < len(plan.Plants)/2 {
		t.Errorf("review lists %d findings for %d plants", rep.Total, len(plan.Plants))
	}
	run.area = "state"
	leakSync(t, state)
	run.scanTree(t, state)
	last := sums[len(sums)-1]
	if run.files < 20 || run.bleveDocs == 0 || run.bleveTerms == 0 {
		t.Errorf("scanned %d files, %d bleve documents, %d bleve terms: too few to mean anything", run.files, run.bleveDocs, run.bleveTerms)
	}
	if run.bleveDocs != uint64(last.Docs) {
		t.Errorf("the bleve index holds %d documents, the build reported %d", run.bleveDocs, last.Docs)
	}
	return run
}

// leakCheckReach fails when too little reaches the output without
// redaction for the scan to prove anything: a field ccsite does not show
// cannot leak, but most must show, and every kind and context must show in
// several fields.
func leakCheckReach(t *testing.T, plan *leakgen.Plan, ctrl *leakRun) {
	t.Helper()
	reached := 0
	var unreached []string
	fields := map[string]map[string]bool{} // kind or context → fields reached
	for i, p := range plan.Plants {
		if len(ctrl.hits[i]) == 0 {
			unreached = append(unreached, fmt.Sprintf("#%d %s/%s/%s", i, p.Kind, p.Context, p.Field))
			continue
		}
		reached++
		for _, k := range []string{"kind " + p.Kind, "context " + p.Context} {
			if fields[k] == nil {
				fields[k] = map[string]bool{}
			}
			fields[k][p.Field] = true
		}
	}
	if len(unreached) > 0 {
		t.Logf("%d plants never reach the output even without redaction (ccsite shows nothing of these fields): %s",
			len(unreached), strings.Join(unreached, ", "))
	}
	if reached*10 < len(plan.Plants)*9 {
		t.Errorf("only %d of %d plants reach the output without redaction: the scan proves too little", reached, len(plan.Plants))
	}
	var keys []string
	for _, k := range plan.Kinds() {
		keys = append(keys, "kind "+k)
	}
	for _, c := range plan.Contexts() {
		keys = append(keys, "context "+c)
	}
	for _, k := range keys {
		if n := len(fields[k]); n < 2 {
			t.Errorf("the %s reaches the output in %d fields only", k, n)
		}
	}
}

// leakCheckLeaks fails for every plant found in an output, listing the
// first hit of each.
func leakCheckLeaks(t *testing.T, plan *leakgen.Plan, run *leakRun) {
	t.Helper()
	leaked, n := 0, 0
	var b strings.Builder
	for i, p := range plan.Plants {
		if len(run.hits[i]) == 0 {
			continue
		}
		leaked++
		if n < 30 {
			h := run.hits[i][0]
			fmt.Fprintf(&b, "\n  #%d %s/%s/%s (planted in %s): %q in %s", i, p.Kind, p.Context, p.Field, p.File, h.probe, h.where)
			n++
		}
	}
	if leaked > 0 {
		t.Errorf("%d of %d planted secrets leaked (the first hit of the first %d):%s", leaked, len(plan.Plants), n, b.String())
	}
}

// leakCheckKeep fails for every string that is no secret and that the
// redacted site lost, where the unredacted site has it.
func leakCheckKeep(t *testing.T, plan *leakgen.Plan, ctrl, run *leakRun) {
	t.Helper()
	var lost, absent []string
	for k, s := range plan.Keep {
		switch {
		case run.keep[k]:
		case ctrl.keep[k]:
			lost = append(lost, s)
		default:
			absent = append(absent, s)
		}
	}
	if len(lost) > 0 {
		t.Errorf("%d strings that are no secret were redacted away: %q", len(lost), lost)
	}
	if len(absent) > 0 {
		t.Logf("%d strings that must survive are not in the site even without redaction (not checkable): %q", len(absent), absent)
	}
	if len(absent)*10 > len(plan.Keep) {
		t.Errorf("%d of %d strings to keep are not in the site even without redaction: the keep check proves too little", len(absent), len(plan.Keep))
	}
	for _, s := range leakgen.KeepLines {
		if slices.Contains(absent, s) {
			t.Errorf("the everyday line %q is not in the site even without redaction", s)
		}
	}
}

// leakDir is a new folder for the test's input or outputs: under
// $CCSITE_LEAK_DIR when set (kept, to look at the leaks), else temporary.
func leakDir(t *testing.T, name string) string {
	t.Helper()
	root := os.Getenv("CCSITE_LEAK_DIR")
	if root == "" {
		return filepath.Join(t.TempDir(), name)
	}
	d := filepath.Join(root, name)
	if err := os.RemoveAll(d); err != nil {
		t.Fatal(err)
	}
	return d
}

// leakCheckSummary checks that a build made every page it should: a build
// that silently dropped sessions would pass the scan.
func leakCheckSummary(t *testing.T, name string, plan *leakgen.Plan, sum, ctrl Summary) {
	t.Helper()
	if sum.Sessions != len(plan.Sessions) || sum.Orphans != plan.Orphans || sum.Agents < plan.Agents || sum.Projects != plan.Projects {
		t.Errorf("%s: %d sessions, %d sub-agents, %d orphans, %d projects; planted %d, %d, %d, %d",
			name, sum.Sessions, sum.Agents, sum.Orphans, sum.Projects, len(plan.Sessions), plan.Agents, plan.Orphans, plan.Projects)
	}
	if len(sum.Unreadable) > 0 {
		t.Errorf("%s: unreadable: %v", name, sum.Unreadable)
	}
	if sum.Docs < len(plan.Plants)/2 || sum.Pages < len(plan.Sessions)+plan.Agents {
		t.Errorf("%s: %d search documents, %d pages: too few", name, sum.Docs, sum.Pages)
	}
	if sum.Sessions != ctrl.Sessions || sum.Agents != ctrl.Agents || sum.Pages != ctrl.Pages {
		t.Errorf("%s: %d sessions, %d agents, %d pages; without redaction %d, %d, %d", name,
			sum.Sessions, sum.Agents, sum.Pages, ctrl.Sessions, ctrl.Agents, ctrl.Pages)
	}
}

// leakShareAll shares every session of the plan into dir, and compares
// each with the next (ccsite compare's single files).
func leakShareAll(t *testing.T, plan *leakgen.Plan, dir string, red *redact.Redactor) {
	t.Helper()
	for i, f := range plan.Sessions {
		if _, err := Share(context.Background(), ShareConfig{File: f, Out: filepath.Join(dir, fmt.Sprintf("session-%02d.html", i)), Redact: red}); err != nil {
			t.Errorf("share %s: %v", f, err)
		}
		next := plan.Sessions[(i+1)%len(plan.Sessions)]
		if err := Compare(context.Background(), CompareConfig{A: f, B: next, Out: filepath.Join(dir, fmt.Sprintf("compare-%02d.html", i)), Redact: red}); err != nil {
			t.Errorf("compare %s %s: %v", f, next, err)
		}
	}
}

// leakReport is the matrix: plants, those that reach the output without
// redaction, and those leaked, by kind, context and field.
func leakReport(plan *leakgen.Plan, ctrl, run *leakRun) string {
	var b strings.Builder
	leaked, reached := 0, 0
	for i := range plan.Plants {
		if len(run.hits[i]) > 0 {
			leaked++
		}
		if len(ctrl.hits[i]) > 0 {
			reached++
		}
	}
	fmt.Fprintf(&b, "\n%d plants (%d kinds x %d contexts x %d fields), %d reach the output unredacted, %d LEAKED\n",
		len(plan.Plants), len(plan.Kinds()), len(plan.Contexts()), len(plan.Fields()), reached, leaked)
	table := func(title string, key func(leakgen.Plant) string) {
		type row struct{ planted, reached, leaked int }
		rows := map[string]*row{}
		for i, p := range plan.Plants {
			r := rows[key(p)]
			if r == nil {
				r = &row{}
				rows[key(p)] = r
			}
			r.planted++
			if len(ctrl.hits[i]) > 0 {
				r.reached++
			}
			if len(run.hits[i]) > 0 {
				r.leaked++
			}
		}
		names := make([]string, 0, len(rows))
		for k := range rows {
			names = append(names, k)
		}
		sort.Slice(names, func(i, j int) bool {
			ri, rj := rows[names[i]], rows[names[j]]
			if ri.leaked != rj.leaked {
				return ri.leaked > rj.leaked
			}
			return names[i] < names[j]
		})
		fmt.Fprintf(&b, "\nby %s:  leaked/reached/planted\n", title)
		for _, k := range names {
			r := rows[k]
			mark := ""
			if r.leaked > 0 {
				mark = "  <-- leaks"
			}
			fmt.Fprintf(&b, "  %-36s %3d/%3d/%3d%s\n", k, r.leaked, r.reached, r.planted, mark)
		}
	}
	table("kind", func(p leakgen.Plant) string { return p.Kind })
	table("context", func(p leakgen.Plant) string { return p.Context })
	table("field", func(p leakgen.Plant) string { return p.Field })
	outs := map[string]int{}
	for _, cats := range run.cats {
		for c := range cats {
			outs[c]++
		}
	}
	fmt.Fprintf(&b, "\nplants leaked, by output:\n")
	for _, c := range slices.Sorted(maps.Keys(outs)) {
		fmt.Fprintf(&b, "  %-36s %3d\n", c, outs[c])
	}
	return b.String()
}

// leakMatcher finds many lower-case probes (8 bytes or longer) at once: a
// bitmap of their first four bytes, then a map of their first eight.
type leakMatcher struct {
	pats  [][]byte
	owner []int
	bits  []uint64
	first map[uint64][]int32
}

const leakBits = 22

func newLeakMatcher() *leakMatcher {
	return &leakMatcher{bits: make([]uint64, 1<<leakBits/64), first: map[uint64][]int32{}}
}

func leakHash4(b []byte) uint32 {
	return (binary.LittleEndian.Uint32(b) * 2654435761) >> (32 - leakBits)
}

// add adds a probe found for owner (a plant, or -1-k for keep string k).
func (m *leakMatcher) add(p string, owner int) {
	if len(p) < 8 {
		panic("probe too short: " + p)
	}
	h := leakHash4([]byte(p))
	m.bits[h/64] |= 1 << (h % 64)
	k := binary.LittleEndian.Uint64([]byte(p))
	m.first[k] = append(m.first[k], int32(len(m.pats)))
	m.pats = append(m.pats, []byte(p))
	m.owner = append(m.owner, owner)
}

// find calls hit with each probe found in low (lower-case already).
func (m *leakMatcher) find(low []byte, hit func(pat int)) {
	for i := 0; i+8 <= len(low); i++ {
		h := leakHash4(low[i:])
		if m.bits[h/64]&(1<<(h%64)) == 0 {
			continue
		}
		for _, p := range m.first[binary.LittleEndian.Uint64(low[i:])] {
			if bytes.HasPrefix(low[i:], m.pats[p]) {
				hit(int(p))
			}
		}
	}
}

// leakRun scans outputs and collects what it finds.
type leakRun struct {
	m    *leakMatcher
	hits [][]leakHit       // by plant: the first few
	cats []map[string]bool // by plant: the kinds of output it leaked to
	keep []bool
	// area names what is scanned; keepArea says keep strings count there.
	area     string
	keepArea bool
	nhits    int
	files    int
	bytes    int64
	low      []byte
	// bleve's documents and terms read.
	bleveDocs  uint64
	bleveTerms int
}

type leakHit struct{ where, probe string }

// leakOutput names the kind of output a hit is in: the area (site, share,
// cache), then the bleve index, a file name, or the file's extension, and
// whether it was found decoded from base64 or an image.
func leakOutput(where string) string {
	area, rest, _ := strings.Cut(where, "/")
	var kind string
	switch {
	case strings.Contains(rest, " bleve "):
		kind = "bleve index"
	case strings.Contains(rest, " (name)"):
		kind = "file name"
	case strings.Contains(rest, " bolt "):
		kind = "bbolt"
	default:
		file, _, _ := strings.Cut(rest, " ")
		kind = strings.TrimPrefix(filepath.Ext(file), ".") + " file"
		if area == "state" {
			kind = "state " + kind
		}
	}
	switch {
	case strings.Contains(rest, " png ") || strings.Contains(rest, " jpeg "):
		kind += " (image metadata)"
	case strings.Contains(rest, " base64"):
		kind += " (base64)"
	}
	return area + ": " + kind
}

func newLeakRun(m *leakMatcher, plants, keep int) *leakRun {
	return &leakRun{m: m, hits: make([][]leakHit, plants), cats: make([]map[string]bool, plants), keep: make([]bool, keep)}
}

func (r *leakRun) find(where string, data []byte) {
	if len(data) < 8 {
		return
	}
	r.low = append(r.low[:0], data...)
	for i, c := range r.low {
		if c >= 'A' && c <= 'Z' {
			r.low[i] = c + 32
		}
	}
	r.m.find(r.low, func(p int) {
		o := r.m.owner[p]
		if o < 0 {
			if r.keepArea {
				r.keep[-1-o] = true
			}
			return
		}
		r.nhits++
		if r.cats[o] == nil {
			r.cats[o] = map[string]bool{}
		}
		r.cats[o][leakOutput(where)] = true
		if len(r.hits[o]) < 3 && !slices.ContainsFunc(r.hits[o], func(h leakHit) bool { return h.where == where }) {
			r.hits[o] = append(r.hits[o], leakHit{where: where, probe: string(r.m.pats[p])})
		}
	})
}

// scanTree scans every file and name under root, the bbolt files and the
// bleve index among them.
func (r *leakRun) scanTree(t *testing.T, root string) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		where := r.area + "/" + filepath.ToSlash(rel)
		if p != root {
			r.blob(where+" (name)", []byte(d.Name()), 0)
		}
		if d.IsDir() {
			if r.area == "state" && p == archiveDir(root) {
				// The archive keeps the transcripts as they were, on
				// purpose (a better redactor can rebuild from them); it
				// is private, like ~/.claude, and never published.
				return filepath.SkipDir
			}
			if d.Name() == "bleve" {
				if err := r.scanBleve(where, p); err != nil {
					t.Errorf("bleve index %s: %v", p, err)
				}
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		r.files++
		r.bytes += int64(len(data))
		r.blob(where, data, 0)
		if strings.HasSuffix(p, "-texts.log") {
			// The search texts log keeps a long text as an S2 block
			// (search/texts.go), which has no magic to be found by:
			// every text its index names, replaced ones included.
			err := search.EachStoredText(p, func(text []byte, s2Block bool) {
				if s2Block {
					r.blob(where+" s2", text, 1)
				}
			})
			if err != nil {
				t.Errorf("search texts %s: %v", p, err)
			}
		}
		if bytes.HasPrefix(data[min(len(data), 16):], []byte{0xED, 0xDA, 0x0C, 0xED}) || strings.HasSuffix(p, ".db") {
			if err := r.scanBolt(where, p); err != nil {
				t.Errorf("bbolt file %s: %v", p, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// scanBolt reads every key and value of a bbolt file, buckets nested.
func (r *leakRun) scanBolt(where, path string) error {
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return err
	}
	defer db.Close()
	var walk func(name string, b *bolt.Bucket) error
	walk = func(name string, b *bolt.Bucket) error {
		return b.ForEach(func(k, v []byte) error {
			r.blob(where+" bolt "+name+" key", k, 0)
			if v == nil {
				if sub := b.Bucket(k); sub != nil {
					return walk(name+"/"+string(k), sub)
				}
				return nil
			}
			r.blob(where+" bolt "+name+" value", v, 0)
			return nil
		})
	}
	return db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error { return walk(string(name), b) })
	})
}

// scanBleve reads a bleve index through bleve: its files are compressed
// (FST term dictionaries, snappy stored fields), so bytes say little. Every
// term of every field, and every stored field of every document.
func (r *leakRun) scanBleve(where, dir string) error {
	idx, err := bleve.OpenUsing(dir, map[string]any{"read_only": true})
	if err != nil {
		return err
	}
	defer idx.Close()
	fields, err := idx.Fields()
	if err != nil {
		return err
	}
	for _, f := range fields {
		dict, err := idx.FieldDict(f)
		if err != nil {
			return err
		}
		for {
			e, err := dict.Next()
			if err != nil {
				dict.Close()
				return err
			}
			if e == nil {
				break
			}
			r.bleveTerms++
			r.find(where+" bleve term "+f, []byte(e.Term))
		}
		dict.Close()
	}
	adv, err := idx.Advanced()
	if err != nil {
		return err
	}
	rd, err := adv.Reader()
	if err != nil {
		return err
	}
	defer rd.Close()
	ids, err := rd.DocIDReaderAll()
	if err != nil {
		return err
	}
	defer ids.Close()
	for {
		iid, err := ids.Next()
		if err != nil {
			return err
		}
		if iid == nil {
			break
		}
		id, err := rd.ExternalID(iid)
		if err != nil {
			return err
		}
		doc, err := rd.Document(id)
		if err != nil {
			return err
		}
		if doc == nil {
			continue
		}
		r.bleveDocs++
		r.blob(where+" bleve doc id", []byte(id), 0)
		doc.VisitFields(func(f index.Field) {
			r.blob(where+" bleve stored "+f.Name(), f.Value(), 0)
		})
	}
	return nil
}

// blob scans data as written and decoded every way: HTML entities, JS/JSON
// escapes, percent-encoding (and two of them in a row), then every base64
// run of each, and the metadata of any PNG or JPEG and gzip data in it.
func (r *leakRun) blob(where string, data []byte, depth int) {
	if len(data) == 0 || depth > 3 {
		return
	}
	seen := map[string]bool{}
	for _, v := range leakViews(data) {
		r.find(where+v.how, v.data)
		for _, run := range leakBase64Runs(v.data) {
			if seen[run] {
				continue
			}
			seen[run] = true
			for _, dec := range leakBase64Decode(run) {
				w := where + v.how + " base64"
				r.find(w, dec)
				if leakText(dec) {
					r.blob(w, dec, depth+1)
				} else {
					r.media(w, dec, depth+1)
				}
			}
		}
	}
	r.media(where, data, depth)
}

type leakView struct {
	how  string
	data []byte
}

// leakViews are data and its decodings, up to two deep.
func leakViews(data []byte) []leakView {
	decoders := []struct {
		name string
		f    func([]byte) []byte
	}{{"html", leakUnescapeHTML}, {"js", leakUnescapeJS}, {"pct", leakUnescapePct}}
	all := []leakView{{"", data}}
	level := all
	for range 2 {
		var next []leakView
		for _, v := range level {
			for _, d := range decoders {
				if strings.HasSuffix(v.how, d.name) {
					continue
				}
				if out := d.f(v.data); out != nil && !bytes.Equal(out, v.data) {
					next = append(next, leakView{v.how + " " + d.name, out})
				}
			}
		}
		all = append(all, next...)
		level = next
	}
	return all
}

func leakUnescapeHTML(b []byte) []byte {
	if bytes.IndexByte(b, '&') < 0 {
		return nil
	}
	return []byte(html.UnescapeString(string(b)))
}

// leakUnescapeJS undoes JSON and JavaScript string escapes: \uXXXX, \xXX,
// \/, \", \n and the like.
func leakUnescapeJS(b []byte) []byte {
	if bytes.IndexByte(b, '\\') < 0 {
		return nil
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' || i+1 >= len(b) {
			out = append(out, c)
			continue
		}
		i++
		switch n := b[i]; n {
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'b', 'f':
		case 'u':
			if i+4 < len(b) {
				if v, err := strconv.ParseUint(string(b[i+1:i+5]), 16, 32); err == nil {
					out = utf8.AppendRune(out, rune(v))
					i += 4
					continue
				}
			}
			out = append(out, '\\', 'u')
		case 'x':
			if i+2 < len(b) {
				if v, err := strconv.ParseUint(string(b[i+1:i+3]), 16, 8); err == nil {
					out = append(out, byte(v))
					i += 2
					continue
				}
			}
			out = append(out, '\\', 'x')
		default:
			out = append(out, n)
		}
	}
	return out
}

func leakUnescapePct(b []byte) []byte {
	if bytes.IndexByte(b, '%') < 0 {
		return nil
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '%' && i+2 < len(b) {
			if v, err := strconv.ParseUint(string(b[i+1:i+3]), 16, 8); err == nil {
				out = append(out, byte(v))
				i += 2
				continue
			}
		}
		out = append(out, b[i])
	}
	return out
}

func leakIsB64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_'
}

// leakBase64Runs are the runs of 20 or more base64 characters (either
// alphabet) in b: whole across line breaks (wrapped base64), and each line.
func leakBase64Runs(b []byte) []string {
	var out []string
	for i := 0; i < len(b); {
		if !leakIsB64(b[i]) {
			i++
			continue
		}
		j := i
		var lines []string
		var whole []byte
		lineStart := i
		for j < len(b) {
			switch {
			case leakIsB64(b[j]):
				whole = append(whole, b[j])
				j++
				continue
			case b[j] == '\n' || b[j] == '\r':
				if j+1 < len(b) && leakIsB64(b[j+1]) || j+2 < len(b) && b[j] == '\r' && b[j+1] == '\n' && leakIsB64(b[j+2]) {
					lines = append(lines, string(b[lineStart:j]))
					if b[j] == '\r' {
						j++
					}
					j++
					lineStart = j
					continue
				}
			}
			break
		}
		lines = append(lines, string(b[lineStart:j]))
		for j < len(b) && b[j] == '=' {
			j++
		}
		if len(whole) >= 20 {
			out = append(out, string(whole))
		}
		if len(lines) > 1 {
			for _, l := range lines {
				if len(l) >= 20 {
					out = append(out, l)
				}
			}
		}
		i = j
	}
	return out
}

// leakBase64Decode decodes a run at each of the four alignments (a run may
// start with other text), in either alphabet.
func leakBase64Decode(run string) [][]byte {
	s := strings.NewReplacer("-", "+", "_", "/").Replace(run)
	var out [][]byte
	for off := 0; off < 4 && len(s)-off >= 16; off++ {
		u := s[off:]
		if len(u)%4 == 1 {
			u = u[:len(u)-1]
		}
		if dec, err := base64.RawStdEncoding.DecodeString(u); err == nil {
			out = append(out, dec)
		}
	}
	return out
}

// leakText tells whether decoded bytes look like text (worth decoding
// further).
func leakText(b []byte) bool {
	n := 0
	for _, c := range b {
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\r' || c == '\t' || c >= 0x80 {
			n++
		}
	}
	return n*100 >= len(b)*90
}

var (
	leakPNGMagic  = []byte("\x89PNG\r\n\x1a\n")
	leakJPEGMagic = []byte{0xFF, 0xD8, 0xFF}
)

// media scans the metadata of every PNG and JPEG in data (their texts
// compressed or in UTF-16) and gzip data.
func (r *leakRun) media(where string, data []byte, depth int) {
	if depth > 3 {
		return
	}
	for off := 0; ; {
		i := bytes.Index(data[off:], leakPNGMagic)
		if i < 0 {
			break
		}
		p := data[off+i+8:]
		for len(p) >= 12 {
			n := int(binary.BigEndian.Uint32(p))
			if n < 0 || n > len(p)-12 {
				break
			}
			typ, body := string(p[4:8]), p[8:8+n]
			w := where + " png " + typ
			switch typ {
			case "tEXt":
				r.blob(w, body, depth+1)
			case "zTXt", "iCCP":
				if k := bytes.IndexByte(body, 0); k >= 0 && k+2 <= len(body) {
					r.blob(w, leakInflate(body[k+2:]), depth+1)
				}
			case "iTXt":
				if k := bytes.IndexByte(body, 0); k >= 0 && k+3 <= len(body) {
					flag, rest := body[k+1], body[k+3:]
					// language tag, translated keyword, then the text.
					for range 2 {
						if z := bytes.IndexByte(rest, 0); z >= 0 {
							rest = rest[z+1:]
						}
					}
					if flag == 1 {
						rest = leakInflate(rest)
					}
					r.blob(w, rest, depth+1)
				}
			case "eXIf":
				r.blob(w, body, depth+1)
				r.find(w+" utf16", bytes.ReplaceAll(body, []byte{0}, nil))
			}
			p = p[12+n:]
			if typ == "IEND" {
				break
			}
		}
		off += i + 8
	}
	for off := 0; ; {
		i := bytes.Index(data[off:], leakJPEGMagic)
		if i < 0 {
			break
		}
		p := data[off+i+2:]
		for len(p) >= 4 && p[0] == 0xFF {
			mk := p[1]
			if mk == 0xD9 || mk == 0xDA { // end, start of scan
				break
			}
			n := int(binary.BigEndian.Uint16(p[2:]))
			if n < 2 || n+2 > len(p) {
				break
			}
			body := p[4 : 2+n]
			if mk >= 0xE0 && mk <= 0xEF || mk == 0xFE {
				w := fmt.Sprintf("%s jpeg %X", where, mk)
				r.blob(w, body, depth+1)
				r.find(w+" utf16", bytes.ReplaceAll(body, []byte{0}, nil))
			}
			p = p[2+n:]
		}
		off += i + 3
	}
	if len(data) > 18 && data[0] == 0x1f && data[1] == 0x8b {
		if zr, err := gzip.NewReader(bytes.NewReader(data)); err == nil {
			if out, err := io.ReadAll(io.LimitReader(zr, 64<<20)); err == nil || len(out) > 0 {
				r.blob(where+" gzip", out, depth+1)
			}
		}
	}
	// zstd frames wherever they begin: the search texts file of a build
	// before S2 kept a long text as one, after its hash and kind
	// (search/texts.go); the archive's copies are zstd too.
	for off, n := 0, 0; n < 64; n++ {
		i := bytes.Index(data[off:], leakZstdMagic)
		if i < 0 {
			break
		}
		if zr, err := zstd.NewReader(bytes.NewReader(data[off+i:]), zstd.WithDecoderConcurrency(1)); err == nil {
			if out, _ := io.ReadAll(io.LimitReader(zr, 64<<20)); len(out) > 0 {
				r.blob(where+" zstd", out, depth+1)
			}
			zr.Close()
		}
		off += i + len(leakZstdMagic)
	}
}

var leakZstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

func leakInflate(b []byte) []byte {
	zr, err := zlib.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil
	}
	out, _ := io.ReadAll(io.LimitReader(zr, 64<<20))
	return out
}

// testLeakScanner shows the scanner finds a probe in each encoding it
// claims to read: raw, HTML entities, JS escapes, percent-encoding, base64
// (standard, URL-safe unpadded, wrapped, in a data: URI, inside HTML-escaped
// JSON), PNG zTXt and iTXt, JPEG COM and EXIF XPComment, a file name, a
// gzip file, a bbolt value and a bleve term; and finds nothing in a file
// holding each probe broken in two.
func testLeakScanner(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	mk := func() string {
		b := make([]byte, 24)
		for i := range b {
			b[i] = alnum[rng.IntN(len(alnum))]
		}
		return string(b)
	}
	names := []string{"raw", "html", "js", "pct", "b64-std", "b64-url", "b64-wrapped", "data-uri", "b64-in-json-in-html",
		"png-zTXt", "png-iTXt", "jpeg-COM", "jpeg-XPComment", "png-in-data-uri", "file-name", "gzip", "search-text", "bbolt", "bleve-term"}
	probes := map[string]string{}
	m := newLeakMatcher()
	for i, n := range names {
		probes[n] = mk()
		m.add(strings.ToLower(probes[n]), i)
	}
	dir := t.TempDir()
	write := func(name string, data []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	each := func(s, format string) string {
		var b strings.Builder
		for _, c := range []byte(s) {
			fmt.Fprintf(&b, format, c)
		}
		return b.String()
	}
	std, url := base64.StdEncoding.EncodeToString, base64.RawURLEncoding.EncodeToString
	write("raw.txt", []byte("key: "+probes["raw"]+"\n"))
	write("html.html", []byte("<p>"+each(probes["html"], "&#%d;")+"</p>"))
	write("js.js", []byte(`var x = "`+each(probes["js"], `\u%04x`)+`";`))
	write("pct.txt", []byte("https://h.test/?k="+each(probes["pct"], "%%%02X")))
	write("std.txt", []byte("x "+std([]byte("API_KEY="+probes["b64-std"]))+" y"))
	write("url.txt", []byte(url([]byte("\xfa\xfbtoken: "+probes["b64-url"]))))
	wrapped := std([]byte(strings.Repeat("lorem ipsum ", 8) + "password=" + probes["b64-wrapped"] + strings.Repeat(" dolor", 8)))
	for i := 76; i < len(wrapped); i += 77 {
		wrapped = wrapped[:i] + "\n" + wrapped[i:]
	}
	write("wrapped.txt", []byte("data:\n"+wrapped+"\n"))
	write("uri.html", []byte(`<img src="data:text/plain;base64,`+std([]byte(probes["data-uri"]))+`">`))
	write("nested.html", []byte(`<div data-x="{&#34;v&#34;:&#34;`+strings.ReplaceAll(std([]byte("secret "+probes["b64-in-json-in-html"])), "/", `\/`)+`&#34;}">`))
	write("meta.png", leakgen.PNG([3]string{"nothing", "Description " + probes["png-zTXt"], "XMP & " + probes["png-iTXt"]}))
	write("meta.jpg", leakgen.JPEG([3]string{"c " + probes["jpeg-COM"], "nothing", "xp " + probes["jpeg-XPComment"]}))
	var png1 bytes.Buffer
	png.Encode(&png1, image.NewGray(image.Rect(0, 0, 2, 2)))
	inner := leakPNGWithChunk(t, png1.Bytes(), "zTXt", append([]byte("Comment\x00\x00"), leakDeflate(probes["png-in-data-uri"])...))
	write("img.html", []byte(`<img src="data:image/png;base64,`+std(inner)+`">`))
	write("f-"+probes["file-name"]+".txt", []byte("nothing"))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("k=" + probes["gzip"]))
	zw.Close()
	write("x.gz", gz.Bytes())
	db, err := bolt.Open(filepath.Join(dir, "c.db"), 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *bolt.Tx) error {
		b, _ := tx.CreateBucketIfNotExists([]byte("b"))
		return b.Put([]byte("k"), []byte("v "+probes["bbolt"]))
	})
	db.Close()
	w, err := search.Create(filepath.Join(dir, ".ccsite", "bleve"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Add([]search.Doc{{ID: "p.html#m-1", Text: "deploy-" + probes["bleve-term"] + "-now", Role: "prompt"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := search.Sync(filepath.Join(dir, ".ccsite", "bleve")); err != nil {
		t.Fatal(err)
	}
	// A long text is kept compressed in a search texts file (of an index
	// no search made: its probe is found there alone).
	w, err = search.Create(filepath.Join(dir, ".ccsite", "unsearched"))
	if err != nil {
		t.Fatal(err)
	}
	// The probe's head said once before it: S2 then copies it from
	// there, and the probe is whole only in what the block decodes to.
	long := strings.Repeat("a long answer, kept compressed ", 40) + probes["search-text"][:16] + " (cut) " +
		probes["search-text"] + strings.Repeat(" and more words", 40)
	if _, err := w.Add([]search.Doc{{ID: "p.html#m-2", Text: long, Role: "answer"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var broken strings.Builder
	for _, n := range names {
		p := probes[n]
		broken.WriteString(p[:12] + " " + p[12:] + "\n")
	}
	write("broken.txt", []byte(broken.String()))

	r := newLeakRun(m, len(names), 0)
	r.area = "check"
	r.scanTree(t, dir)
	for i, n := range names {
		if len(r.hits[i]) == 0 {
			t.Errorf("the scanner misses a probe in %s", n)
			continue
		}
		for _, h := range r.hits[i] {
			if strings.Contains(h.where, "broken.txt") {
				t.Errorf("the scanner finds the broken %s probe: %v", n, h)
			}
		}
	}
	for i, via := range map[int]string{len(names) - 1: " bleve term ", len(names) - 2: " bolt ", len(names) - 3: " s2"} {
		if !slices.ContainsFunc(r.hits[i], func(h leakHit) bool { return strings.Contains(h.where, via) }) {
			t.Errorf("the %s probe is not found through%s: %v", names[i], via, r.hits[i])
		}
	}
}

func leakDeflate(s string) []byte {
	var b bytes.Buffer
	zw := zlib.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.Bytes()
}

// leakPNGWithChunk inserts a chunk after a PNG's IHDR.
func leakPNGWithChunk(t *testing.T, p []byte, typ string, body []byte) []byte {
	t.Helper()
	if !bytes.HasPrefix(p, leakPNGMagic) {
		t.Fatal(errors.New("not a PNG"))
	}
	var c bytes.Buffer
	binary.Write(&c, binary.BigEndian, uint32(len(body)))
	c.WriteString(typ)
	c.Write(body)
	binary.Write(&c, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), body...)))
	out := append([]byte{}, p[:33]...)
	out = append(out, c.Bytes()...)
	return append(out, p[33:]...)
}
