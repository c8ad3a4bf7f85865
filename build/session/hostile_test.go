package session

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Hostile shapes for the generator: each is a session a broken or malicious
// writer could produce, sized by n.
const (
	HostileTiny     = "tiny"     // n tiny records in one ordinary chain
	HostileDupUUID  = "dupuuid"  // n different records sharing one uuid
	HostileCycle    = "cycle"    // n records whose parent links form one cycle
	HostileBranches = "branches" // n answers hanging off one root prompt
	HostileLongLine = "longline" // a prompt line of n bytes, then a few normal lines

	// Variants, for the unit tests.
	HostileCycleSys  = "cycle-sys"  // one cycle of n system records without timestamps, after a root
	HostilePairs     = "pairs"      // n/2 two-record cycles of progress records
	HostileBranchSys = "branch-sys" // n prompt+answer branches off one root, no timestamps
)

var hostileShapes = []string{HostileTiny, HostileDupUUID, HostileCycle, HostileBranches, HostileLongLine}

func hostileUUID(i int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i) }

// writeHostile writes the session of the given shape into dir as
// <uuid>.jsonl and returns its path.
func writeHostile(dir, shape string, n int) (string, error) {
	sid := map[string]string{HostileTiny: "a1", HostileDupUUID: "a2", HostileCycle: "a3",
		HostileBranches: "a4", HostileLongLine: "a5", HostileCycleSys: "b1", HostilePairs: "b2",
		HostileBranchSys: "b3"}[shape]
	if sid == "" {
		return "", fmt.Errorf("unknown shape %q", shape)
	}
	sessionID := "ffffffff-0000-4000-8000-0000000000" + sid
	path := filepath.Join(dir, sessionID+".jsonl")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	ts := func(i int) string { return t0.Add(time.Duration(i) * time.Millisecond).Format(time.RFC3339Nano) }
	parent := func(p string) string {
		if p == "" {
			return "null"
		}
		return `"` + p + `"`
	}
	user := func(uuid, par, text string, i int) {
		fmt.Fprintf(w, `{"type":"user","uuid":"%s","parentUuid":%s,"sessionId":"%s","timestamp":"%s","message":{"role":"user","content":"%s"}}`+"\n",
			uuid, parent(par), sessionID, ts(i), text)
	}
	answer := func(uuid, par, text string, i int) {
		fmt.Fprintf(w, `{"type":"assistant","uuid":"%s","parentUuid":%s,"sessionId":"%s","timestamp":"%s","message":{"id":"msg_%d","role":"assistant","model":"m","content":[{"type":"text","text":"%s"}]}}`+"\n",
			uuid, parent(par), sessionID, ts(i), i, text)
	}
	switch shape {
	case HostileTiny:
		prev := ""
		for i := range n {
			id := hostileUUID(i)
			if i%2 == 0 {
				user(id, prev, fmt.Sprintf("p%d", i), i)
			} else {
				answer(id, prev, fmt.Sprintf("a%d", i), i)
			}
			prev = id
		}
	case HostileDupUUID:
		id := hostileUUID(1)
		user(id, "", "first", 0)
		for i := 1; i < n; i++ {
			answer(id, id, fmt.Sprintf("dup %d", i), i)
		}
	case HostileCycle:
		// Record i's parent is record i+1; the last one's is the first.
		for i := range n {
			p := hostileUUID((i + 1) % n)
			if i%2 == 0 {
				user(hostileUUID(i), p, fmt.Sprintf("p%d", i), i)
			} else {
				answer(hostileUUID(i), p, fmt.Sprintf("a%d", i), i)
			}
		}
	case HostileBranches:
		root := hostileUUID(0)
		user(root, "", "root", 0)
		for i := 1; i <= n; i++ {
			answer(hostileUUID(i), root, fmt.Sprintf("branch %d", i), i)
		}
	case HostileCycleSys:
		user(hostileUUID(n), "", "root", 0)
		for i := range n {
			fmt.Fprintf(w, `{"type":"system","subtype":"informational","uuid":"%s","parentUuid":"%s","content":"s%d"}`+"\n",
				hostileUUID(i), hostileUUID((i+1)%n), i)
		}
	case HostilePairs:
		user(hostileUUID(n), "", "root", 0)
		for i := 0; i+1 < n; i += 2 {
			for k := range 2 {
				fmt.Fprintf(w, `{"type":"progress","uuid":"%s","parentUuid":"%s","data":{"type":"hook_progress"},"toolUseID":"t%d"}`+"\n",
					hostileUUID(i+k), hostileUUID(i+1-k), i)
			}
		}
	case HostileBranchSys:
		root := hostileUUID(0)
		user(root, "", "root", 0)
		for i := 1; i <= n; i++ {
			fmt.Fprintf(w, `{"type":"user","uuid":"%s","parentUuid":"%s","message":{"role":"user","content":"edit %d"}}`+"\n",
				hostileUUID(2*i), root, i)
			fmt.Fprintf(w, `{"type":"assistant","uuid":"%s","parentUuid":"%s","message":{"id":"msg_%d","role":"assistant","model":"m","content":[{"type":"text","text":"answer %d"}]}}`+"\n",
				hostileUUID(2*i+1), hostileUUID(2*i), i, i)
		}
	case HostileLongLine:
		root := hostileUUID(0)
		user(root, "", "before", 0)
		fmt.Fprintf(w, `{"type":"user","uuid":"%s","parentUuid":"%s","sessionId":"%s","timestamp":"%s","message":{"role":"user","content":"`,
			hostileUUID(1), root, sessionID, ts(1))
		chunk := strings.Repeat("x", 1<<16)
		for left := n; left > 0; left -= len(chunk) {
			w.WriteString(chunk[:min(left, len(chunk))])
		}
		w.WriteString("\"}}\n")
		answer(hostileUUID(2), root, "after one", 2)
		user(hostileUUID(3), hostileUUID(2), "after two", 3)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return "", err
	}
	return path, f.Close()
}
