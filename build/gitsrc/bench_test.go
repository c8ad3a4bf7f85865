package gitsrc

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestMakeBenchRepo makes, when CCSITE_BENCH_REPO=DIR and CCSITE_CORPUS
// are set, the repository docs/benchmarks.md measures build --git on:
// DIR/repo.git holds 300 checkpoint refs in Entire's current layout made
// from the corpus's session transcripts (as many of them in two
// checkpoints, the first half of their lines, then all, as make 300
// refs: 119 of the 181) and a main branch with a commit naming each,
// and DIR/folder
// the same transcripts (their last copies) as a folder, for the same
// build from a folder. With CCSITE_BENCH_MORE=1 it adds one checkpoint
// ref to DIR/repo.git (a session's third copy, one line longer), and a
// commit naming it: the build after one new checkpoint (CCSITE_BENCH_MORE=2
// another, and so on).
func TestMakeBenchRepo(t *testing.T) {
	out, corpus := os.Getenv("CCSITE_BENCH_REPO"), os.Getenv("CCSITE_CORPUS")
	if out == "" || corpus == "" {
		t.Skip("CCSITE_BENCH_REPO and CCSITE_CORPUS are not set")
	}
	needGit(t)
	sessions := corpusSessions(t, corpus)
	repo := filepath.Join(out, "repo.git")
	if more, _ := strconv.Atoi(os.Getenv("CCSITE_BENCH_MORE")); more > 0 {
		s := sessions[0]
		id := ulid(900+more, "MX")
		body := s.body + fmt.Sprintf(`{"type":"user","uuid":"bench-more-%d","parentUuid":null,"sessionId":%q,"timestamp":"2026-03-01T00:00:00Z","message":{"role":"user","content":"one more"}}`+"\n", more, s.sid)
		fastImport(t, repo, []fastCommit{{ref: cpRef(id), files: checkpointFiles(id, s.sid, "2026-03-01T00:00:00Z", body, nil), when: 1780000000 + int64(more)},
			{ref: "refs/heads/main", parent: true, from: "refs/heads/main^0", message: "more\n\nEntire-Checkpoint: " + id + "\n", files: map[string]string{"more.txt": fmt.Sprintf("more %d\n", more)}, when: 1780000000 + int64(more)}})
		return
	}
	git(t, out, "init", "-q", "--bare", repo)
	// As many sessions in two checkpoints as make 300 refs.
	double := max(0, 300-len(sessions))
	var commits []fastCommit
	n := 0
	for i, s := range sessions {
		if len(commits) >= 300 {
			break
		}
		if i < double {
			lines := strings.SplitAfter(s.body, "\n")
			half := strings.Join(lines[:len(lines)/2], "")
			id := ulid(n, "A"+safe[n%len(safe):n%len(safe)+1])
			n++
			commits = append(commits, fastCommit{ref: cpRef(id), files: checkpointFiles(id, s.sid, "2026-01-01T00:00:00Z", half, nil)})
		}
		id := ulid(n, "B"+safe[n%len(safe):n%len(safe)+1])
		n++
		commits = append(commits, fastCommit{ref: cpRef(id), files: checkpointFiles(id, s.sid, "2026-02-01T00:00:00Z", s.body, nil)})
		p := filepath.Join(out, "folder", "p", s.sid+".jsonl")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s.body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A main branch with a commit naming each checkpoint.
	for i, c := range commits[:len(commits):len(commits)] {
		id := c.ref[strings.LastIndexByte(c.ref, '/')+1:]
		commits = append(commits, fastCommit{ref: "refs/heads/main", parent: i > 0, message: fmt.Sprintf("change %d\n\nEntire-Checkpoint: %s\n", i, id),
			files: map[string]string{fmt.Sprintf("f%d.txt", i): "x\n"}})
	}
	fastImport(t, repo, commits)
	commits = commits[:len(commits)/2]
	t.Logf("%d checkpoint refs, %d sessions (%d in two)", len(commits), min(len(sessions), len(commits)), double)
}

// safe are characters of ULIDs.
const safe = "ABCDEFGHJKMNPQRSTVWX"

type corpusSession struct{ sid, body string }

// corpusSessions reads the corpus's session transcripts (MANIFEST.tsv's
// kind "session", under 4 MB), one per session id, sorted by path.
func corpusSessions(t *testing.T, corpus string) []corpusSession {
	f, err := os.Open(filepath.Join(corpus, "MANIFEST.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var paths []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if size, _ := strconv.Atoi(f[min(4, len(f)-1)]); len(f) > 16 && f[15] == "session" && size < 4<<20 {
			paths = append(paths, f[0])
		}
	}
	sort.Strings(paths)
	seen := map[string]bool{}
	var out []corpusSession
	for _, p := range paths {
		data, err := os.ReadFile(filepath.Join(corpus, p))
		if err != nil {
			t.Fatal(err)
		}
		var sn sniffer
		sn.Write(data)
		sn.finish()
		if sn.sid == "" || seen[sn.sid] || sn.claude == 0 {
			continue
		}
		seen[sn.sid] = true
		body := string(data)
		if !strings.HasSuffix(body, "\n") {
			body += "\n"
		}
		out = append(out, corpusSession{sid: sn.sid, body: body})
	}
	return out
}
