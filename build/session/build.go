package session

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"ccsite/build/transcript"
)

// Options tune Build.
type Options struct {
	// AgentFile says the file is a sub-agent's own transcript, so its
	// sidechain records are its conversation rather than inline sub-agents.
	AgentFile bool
	// Layout names the sub-agent layout for AgentInfo ("legacy",
	// "subagents"); used with AgentFile.
	Layout string
}

// Build turns a decoded file into a session. It never fails: whatever is wrong
// with the input becomes a Problem. Sidechain records inside a main session
// file (the 1.0.x layout) become inline sub-agents in Agents.
func Build(f *transcript.File, opts Options) *Session {
	s := &Session{Path: f.Path, Unknown: map[string]int{}, memo: &sessionMemo{}, AgentName: f.Agent}
	s.Stats.Lines, s.Stats.Bytes = f.Lines, f.Bytes
	recs := fileRecords(f, s)
	s.Stats.Records = len(recs)

	var inline [][]*transcript.Record
	if !opts.AgentFile {
		recs, inline = splitSidechains(recs)
	}
	build(s, recs)
	s.ID = sessionID(f.Path, s.SessionIDs)
	if opts.AgentFile {
		s.Agent = &AgentInfo{AgentID: agentIDFromPath(f.Path, recs), Layout: opts.Layout}
		if len(s.SessionIDs) > 0 {
			s.Agent.ParentID = s.SessionIDs[0]
		}
		s.Agent.Warmup = isWarmup(s)
	}
	for i, part := range inline {
		a := &Session{Path: f.Path, Unknown: map[string]int{}, memo: &sessionMemo{}}
		a.Stats.Records = len(part)
		build(a, part)
		a.Agent = &AgentInfo{AgentID: inlineAgentID(part, i), Layout: "inline", ParentID: s.ID}
		a.ID = s.ID + "/" + a.Agent.AgentID
		a.Agent.Warmup = isWarmup(a)
		linkInline(s, a)
		s.Agents = append(s.Agents, a)
	}
	finish(s)
	for _, a := range s.Agents {
		finish(a)
	}
	return s
}

// fileRecords lists the file's records in line order, recovered ones
// included, and turns its line problems into session problems.
func fileRecords(f *transcript.File, s *Session) []*transcript.Record {
	recs := make([]*transcript.Record, 0, len(f.Records))
	for i := range f.Records {
		recs = append(recs, &f.Records[i])
	}
	recovered := false
	for _, p := range f.Problems {
		s.Problems = append(s.Problems, Problem{File: p.File, Line: p.Line, Kind: "line", Reason: p.Reason})
		for i := range p.Recovered {
			recs = append(recs, &p.Recovered[i])
			recovered = true
		}
	}
	if recovered {
		sort.SliceStable(recs, func(i, j int) bool { return recs[i].Line < recs[j].Line })
	}
	return recs
}

// node is a record in the conversation tree.
type node struct {
	rec      *transcript.Record
	uuid     string
	parent   int // index, -1 for a root
	children []int
	adopted  bool
	newest   int  // index of the newest leaf in the subtree
	talk     bool // the subtree holds an assistant record
	msg      *Message
	// The assistant message ids in the subtree, up to two distinct ones
	// (two already make it divergent from any response), and whether it
	// holds an assistant record without one.
	ids     [2]string
	idCount int
	noID    bool
}

// addID notes an assistant message id found in the node's subtree.
func (n *node) addID(id string) {
	for k := range n.idCount {
		if n.ids[k] == id {
			return
		}
	}
	if n.idCount < len(n.ids) {
		n.ids[n.idCount] = id
		n.idCount++
	}
}

// build fills s from records: tree, branches, messages, tools, side records.
func build(s *Session, recs []*transcript.Record) {
	var nodes []*node
	index := map[string]int{}
	// sideAfter[i] are displayable side records that follow node i in the
	// file; key -1 holds those before any node.
	sideAfter := map[int][]*transcript.Record{}
	seenSession := map[string]bool{}
	dupNext := map[string]int{} // uuid → the next "#n" suffix to try
	for _, r := range recs {
		if r.SessionID != "" && !seenSession[r.SessionID] {
			seenSession[r.SessionID] = true
			s.SessionIDs = append(s.SessionIDs, r.SessionID)
		}
		if !r.Known() {
			s.Unknown[r.KindLabel()]++
		}
		if r.UUID == "" || !conversational(r) {
			side(s, r)
			if displayableSide(r) {
				sideAfter[len(nodes)-1] = append(sideAfter[len(nodes)-1], r)
			}
			continue
		}
		id := r.UUID
		if j, dup := index[id]; dup {
			if bytes.Equal(nodes[j].rec.Raw, r.Raw) {
				s.Stats.Duplicates++
				continue
			}
			// The smallest free suffix only grows (names are never
			// freed): resume from the last one given for this uuid, so
			// k copies of one uuid cost O(k), not O(k²).
			n := max(dupNext[r.UUID], 2)
			for ; ; n++ {
				s.work++
				if _, taken := index[fmt.Sprintf("%s#%d", r.UUID, n)]; !taken {
					break
				}
			}
			dupNext[r.UUID] = n + 1
			id = fmt.Sprintf("%s#%d", r.UUID, n)
			s.Problems = append(s.Problems, Problem{File: s.Path, Line: r.Line, Kind: "duplicate-uuid",
				Reason: fmt.Sprintf("uuid %s already used at line %d by a different record; kept as %s", r.UUID, nodes[j].rec.Line, id)})
		}
		index[id] = len(nodes)
		nodes = append(nodes, &node{rec: r, uuid: id, parent: -1})
	}
	s.PRLinks = onePerPR(s.PRLinks)
	link(s, nodes, index)
	lines := linearize(nodes)
	s.Messages = messages(s, nodes, lines[0].seq, sideAfter, 0)
	for i, b := range lines[1:] {
		br := &Branch{Index: i + 1, ForkUUID: b.fork}
		br.Messages = messages(s, nodes, b.seq, sideAfter, i+1)
		if len(b.seq) > 0 {
			br.Leaf = nodes[nodes[b.seq[0]].newest].rec.Time
		}
		s.Branches = append(s.Branches, br)
	}
	// Side records before the first node open the live branch.
	if pre := sideAfter[-1]; len(pre) > 0 {
		var msgs []*Message
		for _, r := range pre {
			msgs = append(msgs, sideMessage(s, r, 0))
		}
		s.Messages = append(msgs, s.Messages...)
	}
	for _, b := range s.Branches {
		if j, ok := index[b.ForkUUID]; ok {
			b.Fork = nodes[j].msg
		}
	}
	pairTools(s)
}

// conversational reports whether a record with a uuid belongs in the tree.
func conversational(r *transcript.Record) bool {
	switch r.Type {
	case transcript.TypeUser, transcript.TypeAssistant, transcript.TypeSystem,
		transcript.TypeAttachment, transcript.TypeProgress:
		return true
	}
	// Unknown types with a uuid sit in the tree where they occurred.
	return !transcript.KnownType(r.Type)
}

// displayableSide reports whether a record outside the tree is still shown
// in the conversation where it occurred.
func displayableSide(r *transcript.Record) bool {
	return !r.Known() || r.Type == transcript.TypePRLink || newerEvent(r.Type)
}

// newerEvent reports the record kinds newer than 2.1.237 that show where
// they occurred: a tag and the model ending the conversation, and the
// bookkeeping ones, as events of the full view.
func newerEvent(t string) bool {
	switch t {
	case transcript.TypeTag, transcript.TypeEndedByModel, transcript.TypeIsolationLatch,
		transcript.TypeAttributionSnapshot, transcript.TypeObserverRef, transcript.TypeContextCollapseCommit,
		transcript.TypeContextCollapseSnap, transcript.TypeContextCollapseReset, transcript.TypeHistorySuppression,
		transcript.TypeMemoryMode:
		return true
	}
	return false
}

// link resolves parents, cuts cycles and adopts stray roots so the nodes form
// one tree rooted at the first root; every link it had to invent is a problem
// (or, for a compaction boundary, the logical parent).
func link(s *Session, nodes []*node, index map[string]int) {
	missing := resolveParents(nodes, index)
	cutCycles(s, nodes)
	adoptRoots(s, nodes)
	reportMissing(s, nodes, missing)
	for _, n := range nodes {
		n.children = nil
	}
	for i, n := range nodes {
		if n.parent >= 0 {
			nodes[n.parent].children = append(nodes[n.parent].children, i)
		}
	}
}

// resolveParents sets each node's parent from its parentUuid (or logical
// parent across a compaction), and marks adopted those whose parent is not
// a node; it returns the nodes whose parentUuid names no other record.
func resolveParents(nodes []*node, index map[string]int) (missing []int) {
	for i, n := range nodes {
		p := n.rec.ParentUUID
		if p == "" && n.rec.LogicalParentUUID != "" {
			p = n.rec.LogicalParentUUID // compaction: follow across the cut
		}
		if p == "" {
			continue
		}
		if j, ok := index[p]; ok && j != i {
			n.parent = j
			continue
		}
		n.adopted = true
		if n.rec.ParentUUID != "" {
			missing = append(missing, i)
		}
	}
	return missing
}

// cutCycles finds the cycles (nodes no root reaches) and cuts each at the
// first unreached node in file order, which becomes a root.
func cutCycles(s *Session, nodes []*node) {
	reached := make([]bool, len(nodes))
	children := make([][]int, len(nodes))
	for i, n := range nodes {
		if n.parent >= 0 {
			children[n.parent] = append(children[n.parent], i)
		}
	}
	mark := func(root int) {
		stack := []int{root}
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if reached[i] {
				continue
			}
			reached[i] = true
			stack = append(stack, children[i]...)
		}
	}
	for i, n := range nodes {
		if n.parent < 0 {
			mark(i)
		}
	}
	for i, n := range nodes {
		if reached[i] {
			continue
		}
		s.Problems = append(s.Problems, Problem{File: s.Path, Line: n.rec.Line, Kind: "cycle",
			Reason: fmt.Sprintf("parent links of %s form a cycle; cut here", n.uuid)})
		p := n.parent
		n.parent = -1
		n.adopted = true
		// Remove i from its old parent's children before marking.
		children[p] = without(children[p], i)
		mark(i)
	}
}

// adoptRoots makes every root but the first join the tree after the nearest
// earlier record of another tree, conversation records preferred.
func adoptRoots(s *Session, nodes []*node) {
	uf := newUnionFind(len(nodes))
	for i, n := range nodes {
		if n.parent >= 0 {
			uf.union(i, n.parent)
		}
	}
	// prevTalk[j] is the last user or assistant node at or before j, -1
	// when none: the search for a host jumps from one to the next instead
	// of visiting every record in between (O(n²) for n stray roots of
	// other types).
	prevTalk := make([]int, len(nodes))
	last := -1
	for j, n := range nodes {
		if t := n.rec.Type; t == transcript.TypeUser || t == transcript.TypeAssistant {
			last = j
		}
		prevTalk[j] = last
	}
	first := true
	for i, n := range nodes {
		if n.parent >= 0 {
			continue
		}
		if first {
			first = false
			continue
		}
		target := hostFor(s, len(nodes), uf, prevTalk, i)
		if target < 0 {
			continue
		}
		n.parent = target
		n.adopted = true
		uf.union(i, target)
	}
}

// hostFor finds the node a stray root i (not the first node) joins: the
// nearest earlier user or assistant record of another tree, else the
// nearest earlier record of another tree, else the first later record of
// another tree; -1 when there is none.
func hostFor(s *Session, count int, uf unionFind, prevTalk []int, i int) int {
	root := uf.find(i)
	for j := prevTalk[i-1]; j >= 0; {
		s.work++
		if uf.find(j) != root {
			return j
		}
		if j == 0 {
			break
		}
		j = prevTalk[j-1]
	}
	for j := i - 1; j >= 0; j-- {
		s.work++
		if uf.find(j) != root {
			return j
		}
	}
	// Nothing earlier: a later record of another tree hosts it.
	for j := i + 1; j < count; j++ {
		s.work++
		if uf.find(j) != uf.find(i) {
			return j
		}
	}
	return -1
}

// reportMissing reports each node whose parentUuid names no other record,
// with where it is shown now.
func reportMissing(s *Session, nodes []*node, missing []int) {
	for _, i := range missing {
		n := nodes[i]
		where := "shown first"
		if n.parent >= 0 {
			where = fmt.Sprintf("shown after line %d", nodes[n.parent].rec.Line)
		}
		kind, what := "dangling-parent", fmt.Sprintf("parent %s is not in this file", n.rec.ParentUUID)
		if n.rec.ParentUUID == n.rec.UUID {
			kind, what = "cycle", fmt.Sprintf("%s names itself as its parent", n.rec.UUID)
		}
		s.Problems = append(s.Problems, Problem{File: s.Path, Line: n.rec.Line, Kind: kind, Reason: what + "; " + where})
	}
}

func without(s []int, v int) []int {
	out := s[:0]
	for _, x := range s {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}

type unionFind []int

func newUnionFind(n int) unionFind {
	u := make(unionFind, n)
	for i := range u {
		u[i] = i
	}
	return u
}

func (u unionFind) find(i int) int {
	for u[i] != i {
		u[i] = u[u[i]]
		i = u[i]
	}
	return i
}

func (u unionFind) union(a, b int) { u[u.find(a)] = u.find(b) }

// line is a branch in reading order, with its fork record's uuid.
type line struct {
	fork string
	seq  []int
}

// linearize orders the tree for reading: the path to the newest leaf, with
// side subtrees that hold no user or assistant record (progress, hooks)
// inlined after their parent; every other subtree becomes a branch of its
// own, read the same way. lines[0] is the live branch.
func linearize(nodes []*node) []line {
	if len(nodes) == 0 {
		return []line{{}}
	}
	// Post-order pass for newest leaf and talk flags (children follow their
	// parents in index order after link, but not always: use an explicit order).
	order := postorder(nodes)
	for _, i := range order {
		n := nodes[i]
		t := n.rec.Type
		n.talk = t == transcript.TypeAssistant
		n.newest = i
		n.ids, n.idCount, n.noID = [2]string{}, 0, false
		if n.talk {
			if m := n.rec.Message; m == nil || m.ID == "" {
				n.noID = true
			} else {
				n.addID(m.ID)
			}
		}
		for _, c := range n.children {
			cn := nodes[c]
			if cn.talk {
				n.talk = true
			}
			if newer(nodes, cn.newest, n.newest) {
				n.newest = cn.newest
			}
			n.noID = n.noID || cn.noID
			for k := range cn.idCount {
				n.addID(cn.ids[k])
			}
		}
	}
	var roots []int
	for i, n := range nodes {
		if n.parent < 0 {
			roots = append(roots, i)
		}
	}
	queue := []line{{seq: nil}}
	pending := []struct {
		fork string
		root int
	}{}
	for ri, r := range roots {
		if ri == 0 {
			continue
		}
		// Link could not join it (no other tree at all): a branch of its own.
		pending = append(pending, struct {
			fork string
			root int
		}{"", r})
	}
	walk := func(root int) (seq []int, forks []struct {
		fork string
		root int
	}) {
		cur := root
		open := "" // the message id of the assistant response in progress
		for cur >= 0 {
			seq = append(seq, cur)
			n := nodes[cur]
			switch r := n.rec; {
			case r.Type == transcript.TypeAssistant && r.Message != nil:
				open = r.Message.ID
			case r.Type == transcript.TypeUser && !isToolResult(r):
				open = ""
			}
			// The line goes on into the child holding the newest leaf,
			// among the children that hold a response when any does: a
			// later /export or memory note must not orphan the work.
			next := -1
			for _, c := range n.children {
				if next < 0 || nodes[c].talk && !nodes[next].talk ||
					nodes[c].talk == nodes[next].talk && newer(nodes, nodes[c].newest, nodes[next].newest) {
					next = c
				}
			}
			for _, c := range n.children {
				if c == next {
					continue
				}
				if nodes[c].talk && divergent(nodes, c, open) {
					forks = append(forks, struct {
						fork string
						root int
					}{n.uuid, c})
				} else {
					seq = append(seq, preorder(nodes, c)...)
				}
			}
			cur = next
		}
		// Read in file order: it is the order things were appended, so
		// inlined side records and parallel tool results fall into place.
		byLine := func(a, b int) bool { return nodes[seq[a]].rec.Line < nodes[seq[b]].rec.Line }
		if !sort.SliceIsSorted(seq, byLine) {
			sort.SliceStable(seq, byLine)
		}
		return seq, forks
	}
	seq, forks := walk(roots[0])
	queue[0].seq = seq
	pending = append(forks, pending...)
	for len(pending) > 0 {
		p := pending[0]
		pending = pending[1:]
		seq, forks := walk(p.root)
		queue = append(queue, line{fork: p.fork, seq: seq})
		pending = append(pending, forks...)
	}
	return queue
}

// divergent reports whether the subtree at root goes another way than the
// line it hangs off: it holds an assistant response other than open.
// (A subtree with no response at all is never a branch: see talk.)
// Parallel tool calls hang their later tool_use fragments and results off
// earlier fragments of the same response, and local slash commands (/status,
// /model) hang their output off the last message without any response:
// those are read inline where they occurred, not as branches.
//
// It reads the summary linearize computed bottom-up (ids, idCount, noID), so
// it costs O(1) rather than a walk of the subtree at every level.
func divergent(nodes []*node, root int, open string) bool {
	n := nodes[root]
	return n.noID || n.idCount > 1 || n.idCount == 1 && n.ids[0] != open
}

func isToolResult(r *transcript.Record) bool {
	return r.Message != nil && r.Message.Content.Has("tool_result")
}

// newer orders records by time, then by line.
func newer(nodes []*node, a, b int) bool {
	ta, tb := nodes[a].rec.Time, nodes[b].rec.Time
	if !ta.IsZero() && !tb.IsZero() && !ta.Equal(tb) {
		return ta.After(tb)
	}
	return nodes[a].rec.Line > nodes[b].rec.Line
}

func postorder(nodes []*node) []int {
	out := make([]int, 0, len(nodes))
	type frame struct{ i, next int }
	for r, n := range nodes {
		if n.parent >= 0 {
			continue
		}
		stack := []frame{{r, 0}}
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.next < len(nodes[f.i].children) {
				c := nodes[f.i].children[f.next]
				f.next++
				stack = append(stack, frame{c, 0})
				continue
			}
			out = append(out, f.i)
			stack = stack[:len(stack)-1]
		}
	}
	return out
}

func preorder(nodes []*node, root int) []int {
	var out []int
	stack := []int{root}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		out = append(out, i)
		ch := nodes[i].children
		for k := len(ch) - 1; k >= 0; k-- {
			stack = append(stack, ch[k])
		}
	}
	return out
}

// messages turns a branch's node sequence into messages, merging assistant
// fragments that share a message id until a message of another kind than a
// tool result, progress or event intervenes.
func messages(s *Session, nodes []*node, seq []int, sideAfter map[int][]*transcript.Record, branch int) []*Message {
	var out []*Message
	var open *Message
	for _, i := range seq {
		n := nodes[i]
		r := n.rec
		if r.Type == transcript.TypeAssistant && r.Message != nil && r.Message.ID != "" &&
			open != nil && open.MessageID == r.Message.ID {
			open.Records = append(open.Records, r)
			open.Blocks = append(open.Blocks, r.Message.Content.Blocks...)
			n.msg = open
		} else {
			m := newMessage(r, n.uuid, branch)
			m.Adopted = n.adopted
			if n.parent >= 0 {
				m.ParentUUID = nodes[n.parent].uuid
			}
			n.msg = m
			out = append(out, m)
			switch {
			case m.Kind == KindAnswer || m.Kind == KindSynthetic || m.Kind == KindAPIError:
				open = m
			case m.Kind == KindToolResult || m.Kind == KindProgress || m.Kind == KindSystem ||
				m.Kind == KindAttachment || m.Kind == KindMeta || m.Kind == KindUnknown:
				// These do not end the assistant's message.
			default:
				open = nil
			}
		}
		for _, r := range sideAfter[i] {
			out = append(out, sideMessage(s, r, branch))
		}
	}
	return out
}

// sideMessage shows a record outside the tree (unknown, pr-link) in place.
func sideMessage(s *Session, r *transcript.Record, branch int) *Message {
	m := newMessage(r, r.UUID, branch)
	if m.UUID == "" {
		m.UUID = fmt.Sprintf("line-%d", r.Line)
	}
	return m
}

func newMessage(r *transcript.Record, uuid string, branch int) *Message {
	m := &Message{UUID: uuid, Line: r.Line, Time: r.Time, Type: r.Type, Subtype: r.Subtype,
		Sidechain: r.IsSidechain, Branch: branch, Records: []*transcript.Record{r}}
	if r.Message != nil {
		m.Role, m.Model, m.MessageID = r.Message.Role, r.Message.Model, r.Message.ID
		// Shared with the record, not copied (a copy per message doubled
		// the blocks' memory); capped so that merging the fragments of a
		// response appends to a copy, never into the record.
		if b := r.Message.Content.Blocks; len(b) > 0 {
			m.Blocks = slices.Clip(b)
		}
	}
	classify(m, r)
	switch m.Kind {
	case KindSystem, KindAttachment, KindProgress, KindUnknown:
		m.Raw = r.Raw
	}
	return m
}

// side records what a record outside the tree says about the session.
func side(s *Session, r *transcript.Record) {
	s.Side = append(s.Side, Side{Line: r.Line, Kind: r.KindLabel(), Time: r.Time, Record: r})
	switch r.Type {
	case transcript.TypeSummary:
		s.Summaries = append(s.Summaries, Summary{Text: r.Summary, LeafUUID: r.LeafUUID, Line: r.Line})
	case transcript.TypePRLink:
		s.PRLinks = append(s.PRLinks, PRLink{Number: r.PRNumber, URL: r.PRURL, Repository: r.PRRepository, Time: r.Time})
	}
}

// sessionID is the file's stem when it is a uuid, else the first sessionId.
func sessionID(path string, ids []string) string {
	stem := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if transcript.IsUUID(stem) || len(ids) == 0 {
		return stem
	}
	return ids[0]
}
