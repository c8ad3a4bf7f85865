// Package leakgen writes a Claude Code projects tree with secrets planted
// in every field a transcript can hold, in many contexts, and returns the
// plan: what it planted where, the probe strings that must never appear in
// anything built from the tree, and the strings that must survive
// redaction. It is the attacker's half of ccsite's leak test.
package leakgen

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// ProbeMin is the shortest probe: runs of letters and digits this long or
// longer, and windows this long of a secret's random part.
const ProbeMin = 12

// Plant is one planted secret.
type Plant struct {
	ID      int    `json:"id"`
	Kind    string `json:"kind"`
	Context string `json:"context"`
	Field   string `json:"field"`
	// File is the file (or folder) holding it, a slash path from the root.
	File   string `json:"file"`
	Secret string `json:"secret"`
	// Probes are lower-case strings any one of which, found in an output,
	// is this secret leaking: the secret whole, each of its runs of
	// ProbeMin or more letters and digits, and each window of ProbeMin
	// letters and digits of its random part. Each is unique to the plant.
	Probes []string `json:"probes"`
}

// Plan is what Write planted.
type Plan struct {
	Root   string
	Plants []Plant
	// Keep are strings that must survive redaction: ids (uuids, msg_,
	// toolu_, req_), commit hashes, thinking signatures, and ordinary code
	// that only mentions secrets.
	Keep []string
	// Sessions are the main session files (absolute paths).
	Sessions []string
	// Agents counts the sub-agent files a session claims, Orphans those
	// none does, Projects the projects the tree holds.
	Agents, Orphans, Projects int
}

// Kinds lists the kinds of secret planted, sorted.
func (p *Plan) Kinds() []string { return p.names(func(x Plant) string { return x.Kind }) }

// Contexts lists the contexts the secrets were planted in, sorted.
func (p *Plan) Contexts() []string { return p.names(func(x Plant) string { return x.Context }) }

// Fields lists the fields the secrets were planted in, sorted.
func (p *Plan) Fields() []string { return p.names(func(x Plant) string { return x.Field }) }

func (p *Plan) names(f func(Plant) string) []string {
	set := map[string]bool{}
	for _, x := range p.Plants {
		set[f(x)] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// KeepLines are everyday lines that mention secrets without holding one:
// redaction must leave them alone.
var KeepLines = []string{
	`password = getpass()`,
	`if not token: raise`,
	`API_KEY = os.environ["API_KEY"]`,
	`password: ${DB_PASSWORD}`,
	`token=$TOKEN`,
	`"password": "****"`,
	`your-api-key-here`,
	`<your-token>`,
	`def get_secret_key():`,
	`secretName: tls-cert`,
	`CalculateTotalTokenUsage: 404µs`,
	`mysql -u root -p -e 'SHOW DATABASES'`,
	`docker login -u ci-bot --password-stdin ghcr.io`,
	`curl -b cookies.txt https://api.northwind-labs.io/v1/me`,
}

// gen is one run of the generator.
type gen struct {
	r       *rand.Rand
	root    string
	plan    *Plan
	kinds   []kindDef
	kpos    int
	secrets []secret // by plant
	clock   time.Time
	files   []*session // every file, in creation order
	mains   []*session // the ordinary main sessions
	agents  []*session // sub-agent files with content
	withMet []*session // sub-agent files with a .meta.json
	inline  []*session // main sessions holding 1.0.x sidechains
	pos     map[string]int
	// planted counts the secrets made of each kind.
	planted map[string]int
}

// Write writes a projects tree under dir (made if needed) from seed, and
// returns what it planted.
func Write(dir string, seed uint64) (*Plan, error) {
	g := newGen(seed)
	g.root, g.plan.Root = dir, dir
	g.r.Shuffle(len(g.kinds), func(i, j int) { g.kinds[i], g.kinds[j] = g.kinds[j], g.kinds[i] })
	g.layout()
	g.schedule()
	g.images()
	g.specials()
	g.keepers()
	if err := g.finish(); err != nil {
		return nil, err
	}
	return g.plan, nil
}

func newGen(seed uint64) *gen {
	return &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), plan: &Plan{},
		kinds: allKinds(), clock: time.Date(2026, 2, 9, 8, 30, 0, 0, time.UTC), pos: map[string]int{}}
}

// Random helpers.

func (g *gen) str(n int, set string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[g.r.IntN(len(set))]
	}
	return string(b)
}

// sep is n characters of set with a few of seps among them (never first,
// last or side by side), keeping a run of ProbeMin or more of set.
func (g *gen) sep(n int, set, seps string) string {
	for {
		b := []byte(g.str(n, set))
		for i := 1; i < n-1; i++ {
			if g.r.IntN(20) == 0 && !strings.ContainsRune(seps, rune(b[i-1])) {
				b[i] = seps[g.r.IntN(len(seps))]
			}
		}
		if longestRun(string(b)) >= ProbeMin {
			return string(b)
		}
	}
}

func (g *gen) pick(opts ...string) string { return opts[g.r.IntN(len(opts))] }

func (g *gen) uuid() string {
	h := g.str(32, hexSet)
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-" + string("89ab"[g.r.IntN(4)]) + h[17:20] + "-" + h[20:]
}

const base58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

func (g *gen) msgID() string  { return "msg_01" + g.str(22, base58) }
func (g *gen) toolID() string { return "toolu_01" + g.str(22, base58) }
func (g *gen) reqID() string  { return "req_011C" + g.str(20, base58) }

func (g *gen) signature() string {
	b := make([]byte, 240)
	for i := range b {
		b[i] = byte(g.r.IntN(256))
	}
	return base64.StdEncoding.EncodeToString(b)
}

func (g *gen) tick() string {
	g.clock = g.clock.Add(time.Duration(2+g.r.IntN(40))*time.Second + time.Duration(g.r.IntN(1000))*time.Millisecond)
	return g.clock.Format("2006-01-02T15:04:05.000Z")
}

func (g *gen) ack() string {
	return g.pick("I'll take a look.", "Understood, checking now.", "Let me look at the config first.", "On it.")
}

func (g *gen) keep(s ...string) { g.plan.Keep = append(g.plan.Keep, s...) }

// fakeWord is what a placeholder says: a secret never does.
var fakeWord = regexp.MustCompile(`(?i)example|xxxx|test|dummy|fake|sample`)

// nextSecret makes a secret of the next kind, in turn, that fits ctx: of
// those that fit, one planted the fewest times so far, so that a kind
// that fits few contexts (a multi-line key) is not passed over more often
// than the others.
func (g *gen) nextSecret(ctx string, one bool) secret {
	if g.planted == nil {
		g.planted = map[string]int{}
	}
	var best *secret
	bestN := 0
	for i := range len(g.kinds) {
		k := g.kinds[(g.kpos+i)%len(g.kinds)]
		if best != nil && g.planted[k.name] >= bestN {
			continue
		}
		s := k.make(g)
		for fakeWord.MatchString(s.value) {
			s = k.make(g) // a random body that reads like a placeholder
		}
		if fits(ctx, s, one) {
			best, bestN = &s, g.planted[k.name]
		}
	}
	if best == nil {
		panic("leakgen: no kind fits " + ctx)
	}
	g.kpos++
	g.planted[best.kind] = bestN + 1
	return *best
}

// plant records a planted secret in file.
func (g *gen) plant(file, field, ctx string, s secret) {
	g.plan.Plants = append(g.plan.Plants, Plant{ID: len(g.plan.Plants), Kind: s.kind, Context: ctx, Field: field, File: file, Secret: s.value})
	g.secrets = append(g.secrets, s)
}

// Projects of the tree.
const (
	folderA, cwdA = "-home-kim-src-payments", "/home/kim/src/payments"
	folderB, cwdB = "-Users-ana-work-infra", "/Users/ana/work/infra"
	folderC, cwdC = "C--Users-dev-portal", `C:\Users\dev\portal`
)

// layout makes the main sessions and their sub-agents: project A in the
// 2.1.x layout (subagents folders), B in 2.0.x (agent files beside the
// sessions, one orphan), C in 1.0.x (sidechains inside the main file).
func (g *gen) layout() {
	main := func(folder, cwd, version, model string) *session {
		sid := g.uuid()
		s := g.newSession(folder+"/"+sid+".jsonl", sid, cwd, version, model)
		g.mains = append(g.mains, s)
		g.plan.Sessions = append(g.plan.Sessions, filepath.Join(g.root, filepath.FromSlash(s.rel)))
		return s
	}
	for range 4 {
		main(folderA, cwdA, "2.1.37", "claude-opus-4-5-20251101")
	}
	for range 3 {
		main(folderB, cwdB, "2.0.76", "claude-sonnet-4-5-20250929")
	}
	for range 2 {
		s := main(folderC, cwdC, "1.0.128", "claude-sonnet-4-20250514")
		g.inline = append(g.inline, s)
	}
	g.plan.Projects = 3
	// A secret in the branch of every record of two sessions.
	for _, i := range []int{1, 5} {
		s := g.mains[i]
		sec := g.nextSecret(CtxName, true)
		s.branch = "hotfix/" + sec.value
		g.plant(s.rel, "envelope.gitBranch", CtxName, sec)
	}
	// Sessions 3 and 8 have no title record: their first prompt is the
	// title, and holds a secret.
	for i, s := range g.mains {
		if i == 3 || i == 8 {
			sec := g.nextSecret(CtxProse, true)
			s.user(g.text(CtxProse, sec, true), nil)
			s.say(g.ack())
			g.plant(s.rel, "prompt.first", CtxProse, sec)
			continue
		}
		g.opener(s)
	}
	// Sub-agents: 2.1.x in <session>/subagents with a .meta.json, 2.0.x
	// beside the sessions, and one orphan.
	for i := range 4 {
		g.subagent(g.mains[i], "a"+g.str(16, hexSet), true)
	}
	for i := 4; i < 6; i++ {
		g.subagent(g.mains[i], g.str(8, hexSet), false)
	}
	orphan := g.newSession(folderB+"/agent-"+g.str(8, hexSet)+".jsonl", g.uuid(), cwdB, "2.0.76", "claude-sonnet-4-5-20250929")
	orphan.sidechain, orphan.agentID = true, strings.TrimSuffix(strings.TrimPrefix(filepath.Base(orphan.rel), "agent-"), ".jsonl")
	g.agentStart(orphan)
	g.agents = append(g.agents, orphan)
	g.plan.Orphans = 1
}

// opener starts a session with an ordinary exchange whose ids must survive.
func (g *gen) opener(s *session) {
	u := s.user(g.pick("The nightly export job fails on prod, can you find out why?",
		"Let's finish the billing migration today.", "Why is the staging deploy so slow?"), nil)
	sig, commit := g.signature(), g.str(40, hexSet)
	msg, req := s.answer(map[string]any{"type": "thinking", "thinking": "Start with the logs and the recent commits.", "signature": sig})
	first := s.last
	s.answer(text("Looking at the last deploy (commit " + commit + ") first; the failing call was " + req + "."))
	g.keep(u, first, msg, req, sig, commit)
}

// subagent adds a sub-agent to parent: in the subagents folder (with a
// .meta.json) when modern is set, else beside the session.
func (g *gen) subagent(parent *session, id string, modern bool) *session {
	dir := filepath.ToSlash(filepath.Dir(parent.rel))
	rel := dir + "/agent-" + id + ".jsonl"
	if modern {
		rel = strings.TrimSuffix(parent.rel, ".jsonl") + "/subagents/agent-" + id + ".jsonl"
	}
	ag := g.newSession(rel, parent.sid, parent.cwd, parent.version, "claude-sonnet-4-5-20250929")
	ag.sidechain, ag.agentID, ag.branch = true, id, parent.branch
	name := "Task"
	if modern {
		ag.meta = map[string]string{"agentType": "general-purpose", "description": "Audit config loading"}
		g.withMet = append(g.withMet, ag)
		name = "Agent"
	}
	prompt := "Audit how the service loads its configuration and report anything unsafe."
	tid := parent.call(name, map[string]any{"description": "Audit config loading", "prompt": prompt, "subagent_type": "general-purpose"},
		[]any{text("Audit finished: see the report.")}, false,
		map[string]any{"status": "completed", "prompt": prompt, "agentId": id, "content": []any{text("Audit finished: see the report.")},
			"totalDurationMs": 30000 + g.r.IntN(90000), "totalTokens": 9000 + g.r.IntN(20000), "totalToolUseCount": 3 + g.r.IntN(9)})
	g.keep(tid)
	g.agentStart(ag)
	g.agents = append(g.agents, ag)
	g.plan.Agents++
	return ag
}

// agentStart writes a sub-agent's first prompt: the first five hold a
// secret.
func (g *gen) agentStart(ag *session) {
	if len(g.agents) < 5 {
		sec := g.nextSecret(CtxEnv, false)
		ag.user("Audit how the service loads its configuration. The current production file is:\n\n"+g.text(CtxEnv, sec, false), nil)
		g.plant(ag.rel, "subagent.prompt", CtxEnv, sec)
	} else {
		ag.user("Audit how the service loads its configuration and report anything unsafe.", nil)
	}
	ag.say("Reading the configuration loader first.")
}

// slug is a path as Claude Code names its project folder.
func slug(p string) string {
	b := []byte(p)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			b[i] = '-'
		}
	}
	return string(b)
}

// specials plants secrets in names: project folders of sessions without
// cwd, session file names, sub-agent file names, and a cwd.
func (g *gen) specials() {
	for range 2 {
		sec := g.nextSecret(CtxName, true)
		folder := "-home-kim-" + slug(sec.value)
		sid := g.uuid()
		s := g.newSession(folder+"/"+sid+".jsonl", sid, "", "2.1.37", "claude-opus-4-5-20251101")
		g.opener(s)
		g.plan.Sessions = append(g.plan.Sessions, filepath.Join(g.root, filepath.FromSlash(s.rel)))
		g.plan.Projects++
		g.plant(folder, "name.project-folder", CtxName, sec)
	}
	for range 2 {
		sec := g.nextSecret(CtxName, true)
		s := g.newSession(folderB+"/"+sec.value+".jsonl", "", cwdB, "2.0.76", "claude-sonnet-4-5-20250929")
		g.opener(s)
		g.plan.Sessions = append(g.plan.Sessions, filepath.Join(g.root, filepath.FromSlash(s.rel)))
		g.plant(s.rel, "name.session-file", CtxName, sec)
	}
	for i := range 2 {
		sec := g.nextSecret(CtxName, true)
		ag := g.subagent(g.mains[i], sec.value, true)
		g.plant(ag.rel, "name.subagent-file", CtxName, sec)
	}
	for range 2 {
		sec := g.nextSecret(CtxName, true)
		sid := g.uuid()
		s := g.newSession("workspace-"+g.str(6, lowerSet)+"/"+sid+".jsonl", sid, "/srv/ci/workspaces/"+sec.value, "2.1.37", "claude-opus-4-5-20251101")
		g.opener(s)
		g.plan.Sessions = append(g.plan.Sessions, filepath.Join(g.root, filepath.FromSlash(s.rel)))
		g.plan.Projects++
		g.plant(s.rel, "envelope.cwd", CtxName, sec)
	}
}

// keepers writes the everyday lines that mention secrets, in a file the
// assistant writes, an answer, a command's output and a prompt.
func (g *gen) keepers() {
	m := g.mains
	py := "import os\nfrom getpass import getpass\n\n" + KeepLines[2] + "\n\n\n" + KeepLines[8] +
		"\n    token = os.environ.get(\"SECRET_TOKEN\")\n    " + KeepLines[1] + " SystemExit(\"SECRET_TOKEN is not set\")\n    return token\n\n\n" +
		"def login():\n    " + KeepLines[0] + "\n    return password\n"
	m[0].call("Write", map[string]any{"file_path": m[0].path("app/config.py"), "content": py}, "File created successfully at: "+m[0].path("app/config.py"), false, nil)
	m[4].say("Use environment variables instead of literals:\n\n```yaml\ndatabase:\n  " + KeepLines[3] + "\n```\n\n```sh\ncurl -s \"https://api.northwind-labs.io/v1/ping?" +
		KeepLines[4] + "\"\n```\n\nIn the README, write `OPENAI_API_KEY=" + KeepLines[6] + "` and `Authorization: Bearer " + KeepLines[7] + "`.")
	out := "{\n  \"user\": \"orders_app\",\n  " + KeepLines[5] + "\n}\n"
	m[7].call("Bash", map[string]any{"command": "nwctl config show --masked", "description": "Show the masked config"}, out, false, bashResult(out, ""))
	m[2].user("For reference, the patterns we allow in the repo:\n\n```\n"+strings.Join(KeepLines, "\n")+"\n```", nil)
	m[2].say(g.ack())
	g.keep(KeepLines...)
}

// finish computes the probes and writes the files.
func (g *gen) finish() error {
	count := map[string]int{}
	sets := make([][]string, len(g.plan.Plants))
	for i, s := range g.secrets {
		set := map[string]bool{}
		for _, p := range probesOf(s.value, s.mask) {
			set[p] = true
		}
		for _, x := range s.extra {
			for _, p := range probesOf(x, nil) {
				set[p] = true
			}
		}
		sets[i] = slices.Sorted(maps.Keys(set))
		for _, p := range sets[i] {
			count[p]++
		}
	}
	for i := range g.plan.Plants {
		whole := strings.ToLower(g.secrets[i].value)
		probes := []string{whole}
		for _, p := range sets[i] {
			if p != whole && count[p] == 1 {
				probes = append(probes, p)
			}
		}
		if len(probes) < 2 {
			return fmt.Errorf("leakgen: plant %d (%s) has no probe of its own", i, g.plan.Plants[i].Kind)
		}
		g.plan.Plants[i].Probes = probes
	}
	for _, s := range g.files {
		p := filepath.Join(g.root, filepath.FromSlash(s.rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(strings.Join(s.lines, "\n")+"\n"), 0o644); err != nil {
			return err
		}
		if s.meta != nil {
			b, _ := json.Marshal(s.meta)
			if err := os.WriteFile(filepath.Join(g.root, filepath.FromSlash(metaFile(s))), b, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func longestRun(s string) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if isAlnum(s[i]) {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// probesOf are the lower-case probes of v (random where mask says, all of
// it when mask is nil): v whole, its runs of ProbeMin or more letters and
// digits, and every window of ProbeMin random letters and digits.
func probesOf(v string, mask []bool) []string {
	out := []string{strings.ToLower(v)}
	for i := 0; i < len(v); {
		if !isAlnum(v[i]) {
			i++
			continue
		}
		j := i
		for j < len(v) && isAlnum(v[j]) {
			j++
		}
		if j-i >= ProbeMin {
			out = append(out, strings.ToLower(v[i:j]))
		}
		i = j
	}
	for i := 0; i+ProbeMin <= len(v); i++ {
		ok := true
		for k := i; k < i+ProbeMin && ok; k++ {
			ok = isAlnum(v[k]) && (mask == nil || mask[k])
		}
		if ok {
			out = append(out, strings.ToLower(v[i:i+ProbeMin]))
		}
	}
	return out
}
