package serve

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// hostCheck tells the Host names the server answers to. A web page can
// point a name of its own at 127.0.0.1 once it is loaded (DNS rebinding)
// and then read this server as its own origin: every transcript, and
// /api/search. Such a request names the page's host, so answering only
// the names the server was started for stops it. An IP address is never
// rebound, so any is answered when the server listens on every address.
type hostCheck struct {
	names map[string]bool // hostName form
	anyIP bool            // listening on a wildcard address
}

// newHostCheck allows the loopback names, the host of addr (the address
// listened on; "" for none) and the names in allow.
func newHostCheck(addr string, allow []string) hostCheck {
	c := hostCheck{names: map[string]bool{"localhost": true}}
	if addr != "" {
		host := addr
		if h, _, err := net.SplitHostPort(addr); err == nil {
			host = h
		}
		h := hostName(host)
		if a, err := netip.ParseAddr(h); h == "" || err == nil && a.IsUnspecified() {
			c.anyIP = true
		} else {
			c.names[h] = true
		}
	}
	for _, n := range allow {
		if h := hostName(n); h != "" {
			c.names[h] = true
		}
	}
	return c
}

// hostName is a Host header's (or an address's) host in the form the
// check compares: without a port or brackets, in lower case, without a
// trailing dot; an IP address in its usual form (an IPv4 address mapped
// into IPv6 as IPv4).
func hostName(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if a, err := netip.ParseAddr(host); err == nil {
		return a.Unmap().String()
	}
	return host
}

// allows tells whether a request naming host (its Host header) is
// answered.
func (c hostCheck) allows(host string) bool {
	h := hostName(host)
	switch {
	case h == "":
		return false
	case c.names[h]:
		return true
	}
	if a, err := netip.ParseAddr(h); err == nil {
		return a.IsLoopback() || c.anyIP
	}
	return false
}

// wrap answers the requests c allows with next, others with 421
// Misdirected Request and how to allow them.
func (c hostCheck) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c.allows(r.Host) {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusMisdirectedRequest)
		name := hostName(r.Host)
		if name == "" {
			fmt.Fprintln(w, "ccsite serve: a request must name the host it is for (Host header)")
			return
		}
		fmt.Fprintf(w, "ccsite serve answers only for localhost, its loopback addresses and the host it listens on, not %q "+
			"(a guard against DNS rebinding); to serve that name too, start it with --allow-host %s\n", name, name)
	})
}
