package size

import "testing"

func TestParse(t *testing.T) {
	for in, want := range map[string]int64{
		"1048576": 1 << 20, "128MiB": 128 << 20, "512 KiB": 512 << 10, "256Mi": 256 << 20, "1gib": 1 << 30,
		"1GB": 1e9, "64M": 64e6, "1k": 1000, "1.5KiB": 1536, "0": 0, "2TiB": 2 << 40,
	} {
		if n, err := Parse(in); err != nil || n != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", in, n, err, want)
		}
	}
	for _, in := range []string{"", "MiB", "12 parsecs", "-5", "1e9", "99999999999999999999GiB", "1..2"} {
		if n, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) = %d, want an error", in, n)
		}
	}
}

func TestFormat(t *testing.T) {
	for n, want := range map[int64]string{64 << 20: "64 MiB", 1e9: "1 GB", 1000001: "1000001 bytes", 1 << 10: "1 KiB", 0: "0 bytes"} {
		if got := Format(n); got != want {
			t.Errorf("Format(%d) = %q, want %q", n, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"128MiB", "64M", "512 KiB", "1", "99999999999999999999GiB", "1e9", "1.5GB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := Parse(s)
		if err == nil && n < 0 {
			t.Fatalf("Parse(%q) = %d", s, n)
		}
		if err == nil {
			if back, err := Parse(Format(n)); err != nil || back != n {
				t.Fatalf("Parse(Format(%d)) = %d, %v", n, back, err)
			}
		}
	})
}
