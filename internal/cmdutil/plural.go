package cmdutil

import (
	"fmt"
	"math"
)

// Count is n with its noun: "1 chunk", "2 chunks". many "" adds an s.
func Count[T ~int | ~int64](n T, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	if many == "" {
		many = one + "s"
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Money is an amount of US dollars for people: cents from $1 up, two
// significant digits below ($0.52, $0.0031, $0.0000012), "$0" for nothing,
// never a run of zeros that hides a real cost ($0.0000).
func Money(usd float64) string {
	switch {
	case usd == 0:
		return "$0"
	case math.Abs(usd) >= 1:
		return fmt.Sprintf("$%.2f", usd)
	}
	digits := 1 - int(math.Floor(math.Log10(math.Abs(usd))))
	return fmt.Sprintf("$%.*f", digits, usd)
}
