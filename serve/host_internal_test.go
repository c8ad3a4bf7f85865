package serve

import "testing"

func TestHostName(t *testing.T) {
	for in, want := range map[string]string{
		"localhost": "localhost", "LocalHost.:8080": "localhost", "[::1]:80": "::1", "[::1]": "::1", "::1": "::1",
		"[0:0:0:0:0:0:0:1]": "::1", "[::ffff:127.0.0.1]:1": "127.0.0.1", "127.0.0.1:": "127.0.0.1", "Box.LAN.": "box.lan", "": "",
	} {
		if got := hostName(in); got != want {
			t.Errorf("hostName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHostCheckAddrs(t *testing.T) {
	for _, c := range []struct {
		addr     string
		yes, not []string
	}{
		{"", []string{"localhost", "127.0.0.1", "127.1.2.3:9", "[::1]", "box"}, []string{"10.0.0.1", "evil.example", "", ":80"}},
		{"127.0.0.1:8080", []string{"localhost", "127.0.0.1:8080", "[::1]:8080"}, []string{"10.0.0.1", "evil.example"}},
		{"192.168.1.5:8080", []string{"localhost", "192.168.1.5", "192.168.1.5:8080", "[::ffff:192.168.1.5]"}, []string{"192.168.1.6", "evil.example"}},
		{"mybox.lan:8080", []string{"localhost", "mybox.lan", "MyBox.Lan.:8080"}, []string{"10.0.0.1", "evil.example", "mybox"}},
		{":8080", []string{"localhost", "10.0.0.1:8080", "[2001:db8::1]"}, []string{"evil.example", "mybox.lan"}},
		{"0.0.0.0:8080", []string{"10.0.0.1"}, []string{"evil.example"}},
		{"[::]:8080", []string{"10.0.0.1", "[fe80::1]"}, []string{"evil.example"}},
	} {
		hc := newHostCheck(c.addr, []string{"box"})
		for _, h := range c.yes {
			if !hc.allows(h) {
				t.Errorf("listening on %q: Host %q refused", c.addr, h)
			}
		}
		for _, h := range c.not {
			if hc.allows(h) {
				t.Errorf("listening on %q: Host %q answered", c.addr, h)
			}
		}
	}
}
