package markup

import (
	"strconv"
	"time"
)

// The x labels of a narrow figure (a phone) must fit in narrowW pixels,
// those of a wide one in wideW (the style sheet's container query), and
// be at most narrowMost or wideMost.
const (
	narrowW, wideW       = 320, 440
	narrowMost, wideMost = 6, 12
	labelGap             = 8   // pixels between two labels
	charW                = 6.5 // an 11 px label's character, roughly
)

// fits says whether labels at points at (of n) stand apart in a figure
// width pixels wide, placed as xAxis places them (an edge label starting
// or ending at its tick).
func fits(at []int, n int, label func(int) string, width float64) bool {
	end := -labelGap * 1.0
	for _, i := range at {
		x := center(i, n)
		w := float64(len(label(i)))*charW + 2
		left := x*width/100 - w/2
		switch {
		case x < 10:
			left = max(x-0.5, 0) * width / 100
		case x > 90:
			left = min(x+0.5, 100)*width/100 - w
		}
		if left < end+labelGap || left < 0 || left+w > width {
			return false
		}
		end = left + w
	}
	return true
}

// pickTicks is the first of the candidate sets (densest first) that fits
// a figure width wide, with at most most labels.
func pickTicks(n int, label func(int) string, width float64, most int, candidates func(yield func([]int) bool)) map[int]bool {
	set := map[int]bool{}
	for at := range candidates {
		if len(at) <= most && fits(at, n, label, width) {
			for _, i := range at {
				set[i] = true
			}
			break
		}
	}
	return set
}

// NumberTicks labels an x axis of numbered points (turns): the points
// whose number is a multiple of a round step, as few as fit.
func NumberTicks(numbers []int) []XTick {
	label := func(i int) string { return strconv.Itoa(numbers[i]) }
	top := 0
	for _, k := range numbers {
		top = max(top, k)
	}
	steps := func(yield func([]int) bool) {
		for p := 1; p <= max(top, 1); p *= 10 {
			for _, m := range []int{1, 2, 5} {
				var at []int
				for i, k := range numbers {
					if k%(m*p) == 0 {
						at = append(at, i)
					}
				}
				if !yield(at) {
					return
				}
			}
		}
	}
	n := len(numbers)
	return mergeTicks(n, pickTicks(n, label, narrowW, narrowMost, steps), pickTicks(n, label, wideW, wideMost, steps), label)
}

// DayFormat is how charts spell a day, everywhere.
const DayFormat = "2006-01-02"

// DayTicks labels an x axis of n calendar days from first: on days that
// begin a round period (every day, every other day, Mondays, months,
// quarters, years), as few as fit.
func DayTicks(first time.Time, n int) []XTick {
	periods := []func(d time.Time, i int) bool{
		func(time.Time, int) bool { return true },
		func(_ time.Time, i int) bool { return i%2 == 0 },
		func(d time.Time, _ int) bool { return d.Weekday() == time.Monday },
		func(d time.Time, _ int) bool { _, w := d.ISOWeek(); return d.Weekday() == time.Monday && w%2 == 1 },
		func(d time.Time, _ int) bool { return d.Day() == 1 },
		func(d time.Time, _ int) bool { return d.Day() == 1 && d.Month()%2 == 1 },
		func(d time.Time, _ int) bool { return d.Day() == 1 && d.Month()%3 == 1 },
		func(d time.Time, _ int) bool { return d.Day() == 1 && d.Month()%6 == 1 },
		func(d time.Time, _ int) bool { return d.YearDay() == 1 },
		func(d time.Time, _ int) bool { return d.YearDay() == 1 && d.Year()%5 == 0 },
	}
	label := func(i int) string { return first.AddDate(0, 0, i).Format(DayFormat) }
	sets := func(yield func([]int) bool) {
		for _, in := range periods {
			var at []int
			for i := 0; i < n; i++ {
				if in(first.AddDate(0, 0, i), i) {
					at = append(at, i)
				}
			}
			if !yield(at) {
				return
			}
		}
	}
	return mergeTicks(n, pickTicks(n, label, narrowW, narrowMost, sets), pickTicks(n, label, wideW, wideMost, sets), label)
}

// mergeTicks is the ticks of both sets, in point order.
func mergeTicks(n int, narrow, wide map[int]bool, label func(int) string) []XTick {
	var out []XTick
	for i := 0; i < n; i++ {
		if narrow[i] || wide[i] {
			out = append(out, XTick{At: i, Label: label(i), Narrow: narrow[i], Wide: wide[i]})
		}
	}
	return out
}
