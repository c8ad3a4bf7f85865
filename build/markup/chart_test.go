package markup

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestChartScale: value scales end on a round number at or above the
// peak, with at most the asked number of steps of 1, 2 or 5 times a power
// of ten, and their ticks are spelled as people write them.
func TestChartScale(t *testing.T) {
	for _, c := range []struct {
		peak, most, step, top int64
	}{
		{0, 3, 1, 1}, {1, 3, 1, 1}, {7, 3, 5, 10}, {90, 3, 50, 100}, {1234, 3, 500, 1500}, {58_000, 3, 20_000, 60_000}, {1_250_000, 4, 500_000, 1_500_000},
	} {
		if step, top := niceScale(c.peak, c.most); step != c.step || top != c.top {
			t.Errorf("niceScale(%d, %d) = %d, %d; want %d, %d", c.peak, c.most, step, top, c.step, c.top)
		}
	}
	for _, c := range []struct {
		v, step int64
		tokens  string
		usd     string
	}{
		{0, 500, "0", "$0"},
		{500, 500, "500", "$0.0005"},
		{1500, 500, "1.5k", "$0.0015"},
		{20_000, 20_000, "20k", "$0.02"},
		{400_000, 200_000, "400k", "$0.40"},
		{1_200_000, 200_000, "1.2M", "$1.20"},
		{3_000_000, 1_000_000, "3M", "$3"},
		{1_500_000_000, 500_000_000, "1.5G", "$1,500"},
	} {
		if got := TokensUnit.Spell(c.v, c.step); got != c.tokens {
			t.Errorf("tokens tick %d (step %d) = %q, want %q", c.v, c.step, got, c.tokens)
		}
		if got := USDUnit.Spell(c.v, c.step); got != c.usd {
			t.Errorf("dollar tick %d (step %d) = %q, want %q", c.v, c.step, got, c.usd)
		}
	}
}

// TestChartXTicks: x labels fall on round turn numbers and on days that
// begin a week, a month or a year, few enough for a narrow figure and a
// wide one; short axes label every point in both.
func TestChartXTicks(t *testing.T) {
	spell := func(ts []XTick) string {
		var b strings.Builder
		for _, x := range ts {
			fmt.Fprintf(&b, "%s", x.Label)
			if x.Narrow && !x.Wide {
				b.WriteString("n")
			} else if x.Wide && !x.Narrow {
				b.WriteString("w")
			}
			b.WriteString(" ")
		}
		return strings.TrimSpace(b.String())
	}
	numbers := func(from, to int) []int {
		var out []int
		for i := from; i <= to; i++ {
			out = append(out, i)
		}
		return out
	}
	for _, c := range []struct {
		numbers []int
		want    string
	}{
		{numbers(1, 3), "1 2 3"},
		{numbers(2, 41), "5w 10 15w 20 25w 30 35w 40"},
		{numbers(1, 400), "50w 100 150w 200 250w 300 350w 400"},
	} {
		if got := spell(NumberTicks(c.numbers)); got != c.want {
			t.Errorf("NumberTicks(%d…%d) = %q, want %q", c.numbers[0], c.numbers[len(c.numbers)-1], got, c.want)
		}
	}
	day := time.Date(2026, 2, 25, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		n    int
		want string
	}{
		{2, "2026-02-25 2026-02-26"},
		{20, "2026-03-02 2026-03-09 2026-03-16"},
		{120, "2026-03-01 2026-04-01w 2026-05-01 2026-06-01w"},
		{800, "2026-07-01w 2027-01-01 2027-07-01w 2028-01-01"},
	} {
		if got := spell(DayTicks(day, c.n)); got != c.want {
			t.Errorf("DayTicks(%d days) = %q, want %q", c.n, got, c.want)
		}
	}
	// A year from June: two-monthly labels would touch in a 440 px
	// figure (the first starts at its tick): quarters.
	if got, want := spell(DayTicks(time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), 369)), "2025-07-01 2025-10-01w 2026-01-01 2026-04-01w"; got != want {
		t.Errorf("DayTicks(a year from June) = %q, want %q", got, want)
	}
}
