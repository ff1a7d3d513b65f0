package cmdutil

import "testing"

func TestCountAndMoney(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Count(1, "chunk", ""), "1 chunk"}, {Count(0, "chunk", ""), "0 chunks"}, {Count(int64(2), "memory", "memories"), "2 memories"},
		{Money(0), "$0"}, {Money(12.345), "$12.35"}, {Money(0.52), "$0.52"}, {Money(0.0031), "$0.0031"},
		{Money(0.0000012), "$0.0000012"}, {Money(0.004), "$0.0040"}, {Money(0.00004), "$0.000040"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
