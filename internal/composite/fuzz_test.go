package composite

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: no definition makes the parser panic, and a definition it
// accepts has what the engine relies on.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../../testdata/composite/*.yaml")
	bad, _ := filepath.Glob("../../testdata/composite/bad/*.yaml")
	for _, p := range append(files, bad...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"name":"j","version":"1","steps":[{"id":"a","skill":"x.js","when":"$.input[0] > $?.input['b'].c"}]}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		d, err := Parse(src, "fuzz.yaml", ".")
		if err != nil {
			return
		}
		if d.Name == "" || len(d.Steps) == 0 || len(d.SHA256) != 64 || d.MaxSteps < len(d.Steps) {
			t.Fatalf("accepted an incomplete definition: %+v", d)
		}
		for _, st := range d.Steps {
			if st.ID == "" || st.Skill == "" || (st.When != nil && st.When.program == nil) {
				t.Fatalf("accepted step %+v", st)
			}
		}
	})
}
