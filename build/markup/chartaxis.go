package markup

import (
	"strconv"
	"time"
)

// How many x labels a figure holds: a narrow one (a phone) and a wide one.
const (
	narrowNumbers, wideNumbers = 5, 10
	narrowDates, wideDates     = 3, 6
)

// NumberTicks labels an x axis of numbered points (turns): the points
// whose number is a multiple of a round step, as few as fit.
func NumberTicks(numbers []int) []XTick {
	pick := func(most int) map[int]bool {
		for p := 1; ; p *= 10 {
			for _, m := range []int{1, 2, 5} {
				step := m * p
				var at []int
				for i, k := range numbers {
					if k%step == 0 {
						at = append(at, i)
					}
				}
				if len(at) <= most && (len(at) > 0 || step > len(numbers)) {
					set := map[int]bool{}
					for _, i := range at {
						set[i] = true
					}
					return set
				}
			}
		}
	}
	return mergeTicks(len(numbers), pick(narrowNumbers), pick(wideNumbers), func(i int) string { return strconv.Itoa(numbers[i]) })
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
	pick := func(most int) map[int]bool {
		for _, in := range periods {
			set := map[int]bool{}
			for i := 0; i < n; i++ {
				if in(first.AddDate(0, 0, i), i) {
					set[i] = true
				}
			}
			if len(set) <= most {
				return set
			}
		}
		return map[int]bool{}
	}
	return mergeTicks(n, pick(narrowDates), pick(wideDates), func(i int) string { return first.AddDate(0, 0, i).Format(DayFormat) })
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
