// Package netguard makes HTTP clients for URLs fetched on a user's behalf:
// they refuse loopback, private, link-local and other non-public addresses
// unless allowed, checked on the address actually dialled (so DNS tricks and
// redirects cannot reach an internal service), and cap response sizes.
package netguard

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/helixhq/helix/internal/redact"
)

// ErrPrivate is returned when a URL resolves to a non-public address.
var ErrPrivate = errors.New("refusing to fetch from a private or loopback address (pass --allow-private to allow it)")

// IsPublic reports whether ip is a routable public address.
func IsPublic(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsMulticast() || ip.IsUnspecified() || ip.IsInterfaceLocalMulticast() {
		return false
	}
	for _, p := range reserved {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

var reserved = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"), // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"), // NAT64 can map to private IPv4
	netip.MustParsePrefix("fc00::/7"),
}

// Client returns an HTTP client whose every connection is checked. timeout
// bounds the whole request; allowPrivate lifts the address check (for tests
// and for operators who mean it).
func Client(allowPrivate bool, timeout time.Duration) *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second}
	if !allowPrivate {
		d.Control = func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("netguard: %w", err)
			}
			if !IsPublic(ap.Addr()) {
				// the dial error names the address already ("dial tcp 127.0.0.1:8765: ...")
				return ErrPrivate
			}
			return nil
		}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil // a proxy would dial on our behalf, past the check
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}
	return &http.Client{Transport: tr, Timeout: timeout, CheckRedirect: checkRedirect}
}

// Options configure New.
type Options struct {
	// AllowPrivate lets connections reach loopback and private networks
	// (RFC 1918, carrier-grade NAT, IPv6 unique local) for tests and local
	// services. Unlike Client's allowPrivate it never opens link-local
	// addresses (169.254.0.0/16 and its IPv6 kin, where cloud metadata
	// services answer), multicast, or the unspecified and reserved ranges.
	AllowPrivate bool
	// Timeout bounds each request, redirects and body included (0: none).
	Timeout time.Duration
	// RootCAs, when set, replaces the system's trusted roots (tests, a
	// private CA). Certificates are always verified.
	RootCAs *x509.CertPool
	// MaxHeaderBytes caps a response's headers (0: 64 KiB).
	MaxHeaderBytes int64
}

// CheckAddr is New's dial-time check of the address actually connected to.
func CheckAddr(ip netip.Addr, allowPrivate bool) error {
	ip = ip.Unmap()
	if IsPublic(ip) {
		return nil
	}
	if ip.IsLoopback() || ip.IsPrivate() || cgnat.Contains(ip) {
		if allowPrivate {
			return nil
		}
		return fmt.Errorf("%s: %w", ip, ErrPrivate)
	}
	return fmt.Errorf("%s: %w", ip, ErrReserved)
}

// ErrReserved is an address New never connects to: link-local (where cloud
// metadata services answer), multicast, unspecified or reserved.
var ErrReserved = errors.New("refusing a link-local, metadata, multicast or reserved address: never reachable")

var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// New returns an HTTP client for requests made on an untrusted program's
// behalf (a skill): every dialled address passes CheckAddr, no proxy, TLS
// verified, capped headers. Redirects are the caller's to police (set
// CheckRedirect); by default they follow checkRedirect's rules.
func New(o Options) *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second, Control: func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("netguard: %w", err)
		}
		return CheckAddr(ap.Addr(), o.AllowPrivate)
	}}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	tr.DialContext = d.DialContext
	tr.MaxResponseHeaderBytes = o.MaxHeaderBytes
	if tr.MaxResponseHeaderBytes <= 0 {
		tr.MaxResponseHeaderBytes = 64 << 10
	}
	tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: o.RootCAs}
	tr.ForceAttemptHTTP2 = true
	return &http.Client{Transport: tr, Timeout: o.Timeout, CheckRedirect: checkRedirect}
}

// ErrRedirect is a redirect helix refuses to follow: to a scheme other than
// http(s) (file://, ftp://...), or one too many (a loop).
var ErrRedirect = errors.New("refusing the redirect")

func checkRedirect(req *http.Request, via []*http.Request) error {
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("%w to %s: only http and https are followed", ErrRedirect, redact.URL(req.URL.String(), nil))
	}
	if len(via) >= 10 {
		return fmt.Errorf("%w: stopped after 10 redirects (a loop?)", ErrRedirect)
	}
	return nil
}

// RetryAfter reads a Retry-After header, delay-seconds or an HTTP date, as
// the wait before the next attempt; 0 when absent or unreadable. Every
// provider client (speech-to-text, language models, embeddings) honours it.
func RetryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, time.Until(t))
	}
	return 0
}

// StatusError is an HTTP answer other than the one asked for.
type StatusError struct {
	URL    string
	Status int
	Text   string // resp.Status, e.g. "403 Forbidden"
}

func (e *StatusError) Error() string { return fmt.Sprintf("GET %s: %s", e.URL, e.Text) }

// HTTPStatus is the answer's status code.
func (e *StatusError) HTTPStatus() int { return e.Status }

// Permanent reports whether a failed fetch cannot succeed by retrying, so it
// is bad input (exit 2) rather than unavailable (exit 4): a refused address,
// an oversized body, a refused redirect, a missing file, or an HTTP status in
// 4xx other than 408 and 429. Every fetch on a user's behalf is classified by it.
func Permanent(err error) bool {
	if errors.Is(err, ErrPrivate) || errors.Is(err, ErrTooLarge) || errors.Is(err, ErrRedirect) || errors.Is(err, os.ErrNotExist) {
		return true
	}
	var st interface{ HTTPStatus() int }
	if errors.As(err, &st) {
		c := st.HTTPStatus()
		return c >= 400 && c < 500 && c != http.StatusRequestTimeout && c != http.StatusTooManyRequests
	}
	return false
}

// ErrTooLarge is returned by ReadAll when the body exceeds the cap.
var ErrTooLarge = errors.New("response body too large")

// ReadAll reads at most limit bytes and fails with ErrTooLarge past that.
func ReadAll(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w (over %d bytes)", ErrTooLarge, limit)
	}
	return b, nil
}
