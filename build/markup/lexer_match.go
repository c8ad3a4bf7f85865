package markup

import (
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// chroma's lexers.Match tries each file name pattern of each lexer, as is
// and with each of a dozen ignored suffixes: about ten thousand
// filepath.Match calls, 3.4 ms for a name (5.3 for lexers.Get of a name
// that is not a lexer's, which tries two). A build asks for a few dozen
// names, and every one was paid for by every build. matchLexer and
// getLexer give the same lexer, from the same patterns tried in the same
// order, with each pattern read once: most are "*.x", a suffix to compare
// (TestLexerMatchSame).

// ignoredSuffixes is chroma's list (registry.go): a name with one of them
// matches what the name without it matches.
var ignoredSuffixes = [...]string{
	"~", ".bak", ".old", ".orig",
	".dpkg-dist", ".dpkg-old", ".ucf-dist", ".ucf-new", ".ucf-old",
	".rpmnew", ".rpmorig", ".rpmsave",
	".in",
}

// glob is a file name pattern read once: a literal name, "*" and a
// literal suffix, or another pattern, left to filepath.Match.
type glob struct {
	pattern string
	kind    byte // globExact, globSuffix or globOther
	lit     string
}

const (
	globExact = iota
	globSuffix
	globOther
)

func newGlob(p string) glob {
	switch {
	case !strings.ContainsAny(p, `*?[\`):
		return glob{pattern: p, kind: globExact, lit: p}
	case strings.HasPrefix(p, "*") && !strings.ContainsAny(p[1:], `*?[\`):
		return glob{pattern: p, kind: globSuffix, lit: p[1:]}
	}
	return glob{pattern: p, kind: globOther}
}

// match is filepath.Match(g.pattern, name) for a name with no separator;
// a pattern filepath.Match finds malformed panics, as chroma does.
func (g glob) match(name string) bool {
	switch g.kind {
	case globExact:
		return name == g.lit
	case globSuffix: // "*" takes any run of characters but a separator
		return strings.HasSuffix(name, g.lit) && !strings.Contains(name[:len(name)-len(g.lit)], "/")
	}
	ok, err := filepath.Match(g.pattern, name)
	if err != nil {
		panic(err)
	}
	return ok
}

// lexerGlobs are a lexer's patterns, each with its suffixed forms.
type lexerGlobs struct {
	lexer              chroma.Lexer
	filenames, aliases [][1 + len(ignoredSuffixes)]glob
}

type lexerIndex struct {
	lexers []lexerGlobs
	names  map[string]bool // the registry's names and aliases (lexers.Get finds them itself)
}

var lexerIdx = sync.OnceValue(func() *lexerIndex {
	x := &lexerIndex{names: map[string]bool{}}
	compile := func(ps []string) [][1 + len(ignoredSuffixes)]glob {
		out := make([][1 + len(ignoredSuffixes)]glob, len(ps))
		for i, p := range ps {
			out[i][0] = newGlob(p)
			for j, suf := range ignoredSuffixes {
				out[i][1+j] = newGlob(p + suf)
			}
		}
		return out
	}
	for _, l := range lexers.GlobalLexerRegistry.Lexers {
		cfg := l.Config()
		x.lexers = append(x.lexers, lexerGlobs{lexer: l, filenames: compile(cfg.Filenames), aliases: compile(cfg.AliasFilenames)})
		for _, n := range append([]string{cfg.Name}, cfg.Aliases...) {
			x.names[n] = true
			x.names[strings.ToLower(n)] = true
		}
	}
	return x
})

// matchLexer is lexers.Match(filename).
func matchLexer(filename string) chroma.Lexer {
	filename = filepath.Base(filename)
	x := lexerIdx()
	for _, aliases := range []bool{false, true} {
		matched := chroma.PrioritisedLexers{}
		for _, lg := range x.lexers {
			globs := lg.filenames
			if aliases {
				globs = lg.aliases
			}
			for _, g := range globs {
				for _, v := range g {
					if v.match(filename) {
						matched = append(matched, lg.lexer)
						break
					}
				}
			}
		}
		if len(matched) > 0 {
			sort.Sort(matched)
			return matched[0]
		}
	}
	return nil
}

// getLexer is lexers.Get(name).
func getLexer(name string) chroma.Lexer {
	x := lexerIdx()
	if x.names[name] || x.names[strings.ToLower(name)] {
		return lexers.Get(name) // found by name or alias, without patterns
	}
	candidates := chroma.PrioritisedLexers{}
	if l := matchLexer("filename." + name); l != nil {
		candidates = append(candidates, l)
	}
	if l := matchLexer(name); l != nil {
		candidates = append(candidates, l)
	}
	if len(candidates) == 0 {
		return nil
	}
	sort.Sort(candidates)
	return candidates[0]
}
