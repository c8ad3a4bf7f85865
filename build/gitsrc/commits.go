package gitsrc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"ccsite/build/session"
)

// MaxCommits is how many commits History keeps: the newest of the
// repository's branches.
const MaxCommits = 2000

// trailerKey is the trailer a commit names its checkpoints in.
const trailerKey = "Entire-Checkpoint"

// branches are the repository's branches whose commits History lists:
// its local branches and origin's (a clone has most of them there only),
// an origin branch named origin/X when a local X points elsewhere; never
// Entire's own (entire/…).
func branches(refs []refInfo) (names, oids []string) {
	local := map[string]string{}
	for _, prefix := range []string{"refs/heads/", "refs/remotes/origin/"} {
		for _, ref := range refs {
			name, ok := strings.CutPrefix(ref.name, prefix)
			if !ok || ref.typ != "commit" || name == "HEAD" || name == "entire" || strings.HasPrefix(name, "entire/") {
				continue
			}
			if prefix == "refs/heads/" {
				local[name] = ref.oid
			} else if oid, ok := local[name]; ok {
				if oid == ref.oid {
					continue
				}
				name = "origin/" + name
			}
			names, oids = append(names, name), append(oids, ref.oid)
		}
	}
	return names, oids
}

// history reads the newest MaxCommits commits of the branches, with their
// Entire-Checkpoint trailers, in one git log.
func (r *repo) history(ctx context.Context, refs []refInfo, name, web string, cps []Checkpoint) (*History, error) {
	h := &History{Name: name, WebURL: web, Checkpoints: cps}
	names, tips := branches(refs)
	if len(tips) == 0 {
		return h, nil
	}
	args := []string{"log", "-z", "--date-order", "-n", strconv.Itoa(MaxCommits),
		"--format=%H %ct %P%n%(trailers:key=" + trailerKey + ",valueonly,separator=%x1f)%n%an%n%s"}
	out, err := r.output(ctx, append(append(args, tips...), "--")...)
	if err != nil {
		return nil, err
	}
	byHash := map[string]int{}
	var parents [][]string
	for _, rec := range strings.Split(string(out), "\x00") {
		f := strings.SplitN(rec, "\n", 4)
		if len(f) < 4 {
			continue
		}
		head := strings.Fields(f[0])
		if len(head) < 2 {
			continue
		}
		sec, _ := strconv.ParseInt(head[1], 10, 64)
		c := Commit{Hash: head[0], When: time.Unix(sec, 0).UTC(), Author: f[2], Subject: f[3]}
		for _, id := range strings.Split(f[1], "\x1f") {
			if id = strings.TrimSpace(id); id != "" {
				c.Checkpoints = append(c.Checkpoints, id)
			}
		}
		byHash[c.Hash] = len(h.Commits)
		h.Commits = append(h.Commits, c)
		parents = append(parents, head[2:])
	}
	markBranches(h.Commits, parents, byHash, names, tips)
	sort.SliceStable(h.Commits, func(i, j int) bool {
		a, b := h.Commits[i], h.Commits[j]
		if !a.When.Equal(b.When) {
			return a.When.After(b.When)
		}
		return a.Hash < b.Hash
	})
	return h, nil
}

// markBranches names, on each commit read, the branches whose history
// holds it (among the commits read).
func markBranches(commits []Commit, parents [][]string, byHash map[string]int, names, tips []string) {
	for b, tip := range tips {
		seen := map[int]bool{}
		stack := []string{tip}
		for len(stack) > 0 {
			i, ok := byHash[stack[len(stack)-1]]
			stack = stack[:len(stack)-1]
			if !ok || seen[i] {
				continue
			}
			seen[i] = true
			commits[i].Branches = append(commits[i].Branches, names[b])
			stack = append(stack, parents[i]...)
		}
	}
	for i := range commits {
		sort.Strings(commits[i].Branches)
	}
}

// trailerProblems reports each trailer naming a checkpoint that was not
// found (ids: every checkpoint met, readable or not).
func trailerProblems(h *History, ids map[string]bool) []session.Problem {
	var probs []session.Problem
	for _, c := range h.Commits {
		for _, id := range c.Checkpoints {
			if !ids[id] {
				probs = append(probs, session.Problem{File: "git:commit " + c.Hash, Kind: "checkpoint",
					Reason: trailerKey + ": " + strconv.Quote(id) + " names no checkpoint found (" + c.Subject + ")"})
			}
		}
	}
	return probs
}

// Digest is a hash of what History says of the repository as a whole
// (its name and web address), which every page may show; "" for none.
// What a session's pages show of it is in SessionDigests.
func (h *History) Digest() string {
	if h == nil {
		return ""
	}
	d := sha256.New()
	fmt.Fprintf(d, "%q %q\n", h.Name, h.WebURL)
	return hex.EncodeToString(d.Sum(nil)[:16])
}

// SessionDigests hashes, by session id, what History says of each
// session: its checkpoints and the commits naming them. A build keys a
// session's pages on it, so that a new commit re-renders the sessions it
// names, not every page.
func (h *History) SessionDigests() map[string]string {
	if h == nil {
		return nil
	}
	sessions := map[string][]string{} // checkpoint id → sessions
	parts := map[string][]string{}    // session → its lines
	for _, cp := range h.Checkpoints {
		sessions[cp.ID] = append(sessions[cp.ID], cp.SessionID)
		parts[cp.SessionID] = append(parts[cp.SessionID], fmt.Sprintf("checkpoint %s %q %q %q %d %q %q",
			cp.ID, cp.Ref, cp.TurnID, cp.Branch, cp.Created.UnixNano(), cp.FilesTouched, cp.LastUUID))
	}
	for _, c := range h.Commits {
		line := fmt.Sprintf("commit %s %d %q %q %q %q", c.Hash, c.When.Unix(), c.Author, c.Subject, c.Branches, c.Checkpoints)
		seen := map[string]bool{}
		for _, id := range c.Checkpoints {
			for _, sid := range sessions[id] {
				if !seen[sid] {
					seen[sid] = true
					parts[sid] = append(parts[sid], line)
				}
			}
		}
	}
	out := make(map[string]string, len(parts))
	for sid, lines := range parts {
		d := sha256.Sum256([]byte(strings.Join(lines, "\n")))
		out[sid] = hex.EncodeToString(d[:16])
	}
	return out
}

// trailers counts the checkpoints the commits name.
func (h *History) trailers() int {
	n := 0
	for _, c := range h.Commits {
		n += len(c.Checkpoints)
	}
	return n
}
