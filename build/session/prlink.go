package session

// onePerPR keeps one link per pull request. Claude Code writes a pr-link
// record again each time a session touches a pull request (61 records for
// 6 PRs in one real session). A PR is its repository and number, or its
// URL when the record has no number. The list keeps the order the PRs
// first appeared in, each with its latest record's data.
func onePerPR(list []PRLink) []PRLink {
	if len(list) < 2 {
		return list
	}
	at := make(map[prKey]int, len(list))
	out := list[:0]
	for _, pr := range list {
		if i, ok := at[pr.key()]; ok {
			out[i] = pr
			continue
		}
		at[pr.key()] = len(out)
		out = append(out, pr)
	}
	return out
}

type prKey struct {
	repository string
	number     int
	url        string
}

func (p PRLink) key() prKey {
	if p.Number > 0 {
		return prKey{repository: p.Repository, number: p.Number}
	}
	return prKey{url: p.URL}
}
