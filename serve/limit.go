package serve

import (
	"context"
	"runtime"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2/search/searcher"
)

// How much searching a request may make the server do: searches end
// with their request (bleve checks the context as it collects hits), at
// most one a processor runs at once (searchSlots), and a prefix expands
// to maxClauses words at most. A client that leaves, or many at once,
// cannot keep the processors busy or the memory growing.

// maxClauses bounds the words a search's last word, as a prefix, expands
// to (bleve makes one term searcher, with its memory, for each, and
// cannot be interrupted while it does). A prefix matching more is
// searched as the word itself.
const maxClauses = 4096

var clausesOnce sync.Once

// limitClauses sets bleve's bound on the clauses of one query, for the
// whole program, once: before any search this server runs.
func limitClauses() {
	clausesOnce.Do(func() { searcher.DisjunctionMaxClauseCount = maxClauses })
}

// isTooManyClauses tells whether a search failed for expanding to more
// than maxClauses terms (bleve's error has no type of its own).
func isTooManyClauses(err error) bool {
	return err != nil && strings.Contains(err.Error(), "TooManyClauses")
}

// searchSlots bounds the searches run at once, for all sites served: one
// a processor. A search waiting for a slot stops waiting when its request
// ends.
var searchSlots = make(chan struct{}, max(2, runtime.GOMAXPROCS(0)))

// acquire waits for a search slot, or for ctx to end; release gives a
// slot taken back.
func acquire(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case searchSlots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func release() { <-searchSlots }
