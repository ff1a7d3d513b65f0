package netguard

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"
)

func TestIsPublic(t *testing.T) {
	for addr, want := range map[string]bool{
		"8.8.8.8": true, "1.1.1.1": true, "2606:4700:4700::1111": true,
		"127.0.0.1": false, "::1": false, "10.1.2.3": false, "172.16.0.1": false, "192.168.1.1": false,
		"169.254.169.254": false, "100.64.0.1": false, "0.0.0.0": false, "::": false, "fd00::1": false,
		"fe80::1": false, "::ffff:127.0.0.1": false, "::ffff:10.0.0.1": false, "224.0.0.1": false,
	} {
		if got := IsPublic(netip.MustParseAddr(addr)); got != want {
			t.Errorf("IsPublic(%s) = %v, want %v", addr, got, want)
		}
	}
}

func TestClientRefusesLoopbackUnlessAllowed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("secret")) }))
	defer srv.Close()

	_, err := Client(false, 5*time.Second).Get(srv.URL)
	if !errors.Is(err, ErrPrivate) {
		t.Fatalf("loopback fetch: err = %v, want ErrPrivate", err)
	}
	// the address once, not "dial tcp 127.0.0.1:P: 127.0.0.1: refusing" (issue 49)
	host := strings.TrimPrefix(srv.URL, "http://")
	if want := "dial tcp " + host + ": " + ErrPrivate.Error(); !strings.HasSuffix(err.Error(), want) || strings.Count(err.Error(), "127.0.0.1") != 2 {
		t.Errorf("error %q, want it to end %q", err, want)
	}
	// "localhost" resolves to loopback too: the check is on the dialled address.
	_, err = Client(false, 5*time.Second).Get(strings.Replace(srv.URL, "127.0.0.1", "localhost", 1))
	if !errors.Is(err, ErrPrivate) {
		t.Fatalf("localhost fetch: err = %v, want ErrPrivate", err)
	}
	resp, err := Client(true, 5*time.Second).Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := ReadAll(resp.Body, 6)
	if err != nil || string(b) != "secret" {
		t.Fatalf("allowed fetch: %q, %v", b, err)
	}
}

func TestReadAllCaps(t *testing.T) {
	if _, err := ReadAll(strings.NewReader("123456789"), 8); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	if b, err := ReadAll(strings.NewReader("12345678"), 8); err != nil || len(b) != 8 {
		t.Fatalf("exactly at the cap: %q %v", b, err)
	}
}

// TestPermanent: what a retry cannot fix is permanent (exit 2), the rest is
// unavailable (exit 4), the same for every fetch.
func TestPermanent(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/forbidden":
			w.WriteHeader(http.StatusForbidden)
		case "/busy":
			w.WriteHeader(http.StatusServiceUnavailable)
		case "/slow-down":
			w.WriteHeader(http.StatusTooManyRequests)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		}
	}))
	defer srv.Close()
	c := Client(true, 5*time.Second)
	get := func(path string) error {
		resp, err := c.Get(srv.URL + path)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return &StatusError{URL: srv.URL + path, Status: resp.StatusCode, Text: resp.Status}
		}
		return nil
	}
	for path, want := range map[string]bool{"/forbidden": true, "/loop": true, "/file": true, "/busy": false, "/slow-down": false} {
		err := get(path)
		if err == nil || Permanent(err) != want {
			t.Errorf("%s: %v, Permanent = %v, want %v", path, err, Permanent(err), want)
		}
	}
	if !Permanent(fmt.Errorf("read: %w", os.ErrNotExist)) || Permanent(errors.New("connection reset")) {
		t.Error("a missing file is permanent, a network error is not")
	}
}

func TestRetryAfter(t *testing.T) {
	if d := RetryAfter("7"); d != 7*time.Second {
		t.Errorf("seconds: %v", d)
	}
	if d := RetryAfter("1.5"); d != 1500*time.Millisecond {
		t.Errorf("fractional seconds: %v", d)
	}
	if d := RetryAfter(time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)); d < 25*time.Second || d > 31*time.Second {
		t.Errorf("HTTP date 30 s ahead: %v", d)
	}
	for _, v := range []string{"", "soon", "-3", time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)} {
		if d := RetryAfter(v); d != 0 {
			t.Errorf("RetryAfter(%q) = %v, want 0", v, d)
		}
	}
}

// TestCheckAddr: New's opt-in opens loopback and private networks, never
// link-local (cloud metadata), multicast or reserved addresses.
func TestCheckAddr(t *testing.T) {
	for addr, want := range map[string][2]error{ // without, with the opt-in
		"8.8.8.8":                {nil, nil},
		"127.0.0.1":              {ErrPrivate, nil},
		"::1":                    {ErrPrivate, nil},
		"10.0.0.1":               {ErrPrivate, nil},
		"100.64.0.1":             {ErrPrivate, nil},
		"fd00::1":                {ErrPrivate, nil},
		"::ffff:10.0.0.1":        {ErrPrivate, nil},
		"169.254.169.254":        {ErrReserved, ErrReserved},
		"::ffff:169.254.169.254": {ErrReserved, ErrReserved},
		"fe80::1":                {ErrReserved, ErrReserved},
		"0.0.0.0":                {ErrReserved, ErrReserved},
		"224.0.0.1":              {ErrReserved, ErrReserved},
		"240.0.0.1":              {ErrReserved, ErrReserved},
	} {
		for i, allow := range []bool{false, true} {
			err := CheckAddr(netip.MustParseAddr(addr), allow)
			if want[i] == nil && err != nil || want[i] != nil && !errors.Is(err, want[i]) {
				t.Errorf("CheckAddr(%s, %v) = %v, want %v", addr, allow, err, want[i])
			}
		}
	}
}
