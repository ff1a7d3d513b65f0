package cmdutil

import "fmt"

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
