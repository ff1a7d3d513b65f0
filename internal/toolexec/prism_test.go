package toolexec

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/manifest/openapi"
	"github.com/helixhq/helix/internal/pgtest"
)

// prismBin is Stoplight Prism, installed by `make test` (scripts/install-prism.sh).
const prismBin = "../../.helix/prism/node_modules/.bin/prism"

// prism starts a Prism mock server of doc on a free loopback port, in the
// mode that validates every request against the document (--errors: an
// invalid request is answered 422, or 401 without its credentials), and
// returns a function that waits until it listens and returns its URL (so
// that several start together: each Node takes seconds to load).
func prism(t *testing.T, doc string) (wait func() string) {
	t.Helper()
	bin, err := filepath.Abs(prismBin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("Stoplight Prism is not installed (%v): run scripts/install-prism.sh, which make test runs", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "mock", "--errors", "-h", "127.0.0.1", "-p", strconv.Itoa(port), filepath.Join(testdata, doc))
	if testing.Verbose() {
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	}
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	started := time.Now()
	return func() string {
		t.Helper()
		// A wait, not a bound: Prism failed to listen within 60 s at a load of 35.
		for deadline := started.Add(3 * time.Minute); ; {
			if c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
				c.Close()
				return url
			}
			if time.Now().After(deadline) {
				t.Fatalf("prism mock %s did not listen within 3 min", doc)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

// Prism, validating every request against the real documents, accepts every
// request tool exec sends: path, query (arrays exploded), headers,
// credentials, JSON and multipart bodies.
func TestPrismAcceptsRequests(t *testing.T) {
	pool := pgtest.New(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "face.png"), []byte("\x89PNG\r\n\x1a\nfake"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := &Runner{HTTP: &HTTPRunner{AllowPrivate: true, FilesDir: dir,
		Secrets: &Secrets{Env: env(map[string]string{"HELIX_TOOL_UPLOADS_APIKEY": "key-123456"})}}}
	docs := []struct {
		file, namespace string
		inputs          map[string]string
	}{
		{"oai-v3.0-petstore.yaml", "", map[string]string{
			"swagger_petstore.listPets":    `{"limit": 5}`,
			"swagger_petstore.createPets":  `{"body": {"id": 7, "name": "Rex", "tag": "dog"}}`,
			"swagger_petstore.showPetById": `{"petId": "42"}`,
		}},
		{"oai-v3.0-petstore-expanded.yaml", "expanded", map[string]string{
			"expanded.findPets":       `{"tags": ["dog", "cat"], "limit": 3}`,
			"expanded.addPet":         `{"body": {"name": "Rex", "tag": "dog"}}`,
			"expanded.find_pet_by_id": `{"id": 5}`,
			"expanded.deletePet":      `{"id": 5}`,
		}},
		{"importer/uploads.yaml", "", map[string]string{
			// Not here, for Prism's own bugs (TestMultipartUpload and
			// TestEmptyRequiredParametersAndDottedNames cover them): an array
			// as repeated multipart parts ("tags must be array"), and an
			// empty allowEmptyValue query value ("must have required property").
			"uploads.uploadAvatar":       `{"memberId": "m1", "body": {"caption": "me", "avatar": "@face.png", "thumb": "@face.png"}}`,
			"uploads.listTokens":         `{"memberId": "m1", "scope": "read", "filter": "new", "X-Trace": "t1"}`,
			"uploads.articlesearch.json": `{"q": "moon"}`,
		}},
	}
	waits := make([]func() string, len(docs))
	for i, d := range docs {
		waits[i] = prism(t, d.file)
	}
	for i, d := range docs {
		url := waits[i]()
		importTools(t, pool, d.file, url, openapi.Options{Namespace: d.namespace})
		for name, input := range d.inputs {
			res, err := run(t, pool, r, name, input)
			if err != nil || res.HTTPStatus < 200 || res.HTTPStatus > 299 {
				t.Errorf("%s %s: Prism answered %d %s (%v)", d.file, name, res.HTTPStatus, res.Output, err)
			}
		}
	}
}
