package db_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"io"
	"math/big"
	"net"
	neturl "net/url"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/pgtest"
)

// TestReadsCoalesce: a large result is read in few, large reads, each
// wake-up taking what the kernel gathered meanwhile, not one per 8 kB the
// server writes: over TCP, and over TLS (where a read returns a record,
// whatever the buffer above asks, and reads are counted under it). A stream as fast as the server can
// send it (24 MB) needs no waits when the client is the slower one and
// never more than one every other read;
// a stream the server paces (rows of 64 kB, 1 ms apart, which a client
// that keeps up would read in 8 reads each) is read in at most 3 a row
// over TCP, waiting. After the waits the socket's SO_RCVLOWAT is 1 again
// (a read that parked with it high would not wake for a reply shorter
// than it) and the connection answers.
func TestReadsCoalesce(t *testing.T) {
	t.Parallel()
	plain := pgtest.URL(t)
	for name, url := range map[string]string{"tcp": plain, "tls": tlsRelay(t, plain)} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			c := openConn(t, url)
			if db.OverTLS(c.Conn()) != (name == "tls") {
				t.Fatalf("%s: the connection is TLS: %v", name, !(name == "tls"))
			}
			stream := func(sql string, rows, width int) (reads, waits int) {
				t.Helper()
				reads0, waits0 := db.ReadCounts(c.Conn())
				r, err := c.Query(ctx, sql, rows, width)
				if err != nil {
					t.Fatal(err)
				}
				got := 0
				for r.Next() {
					if v := r.RawValues()[0]; len(v) != width {
						t.Fatalf("row %d: %d bytes", got, len(v))
					}
					got++
				}
				if r.Err() != nil || got != rows {
					t.Fatalf("%d rows (%v), want %d", got, r.Err(), rows)
				}
				reads, waits = db.ReadCounts(c.Conn())
				t.Logf("%d rows of %d bytes in %d reads, %d of them after a wait", rows, width, reads-reads0, waits-waits0)
				return reads - reads0, waits - waits0
			}

			const rows, width = 3000, 8000
			reads, waits := stream(`SELECT repeat('x', $2) FROM generate_series(1, $1)`, rows, width)
			most := rows * width / (16 << 10) * 3 / 2 // a TLS record (16 kB) a read
			if name == "tcp" {
				most = rows * width / (32 << 10)
			}
			// a wait is followed by reads that take what it gathered (a wait
			// before every read is what a wait judged by a read's size did
			// over TLS); how many waits depends on who is slower, here the
			// relay under the race detector
			if reads > most || 2*waits > reads {
				t.Errorf("%d bytes in %d reads (at most %d) with %d waits (at most one every other read)", rows*width, reads, most, waits)
			}

			reads, waits = stream(`SELECT repeat('x', $2), pg_sleep(0.001) FROM generate_series(1, $1)`, 100, 64<<10)
			if waits == 0 || name == "tcp" && reads > 3*100 {
				t.Errorf("a paced stream of 100 rows of 64 kB in %d reads (at most 300 over TCP) with %d waits (want some)", reads, waits)
			}
			if v, err := db.RcvLowat(c.Conn()); err != nil || v != 1 {
				t.Fatalf("SO_RCVLOWAT %d (%v) after the stream, want 1", v, err)
			}
			var n int
			if err := c.QueryRow(ctx, `SELECT 7`).Scan(&n); err != nil || n != 7 {
				t.Fatalf("the next query: %d, %v", n, err)
			}
		})
	}
}

// tlsRelay serves PostgreSQL's wire protocol over TLS in front of the
// server of url, which the tests reach without it: it answers a client's
// SSLRequest with S, completes the handshake with a throwaway certificate
// and relays the decrypted bytes both ways. It returns url through it,
// with sslmode=require.
func tlsRelay(t *testing.T, url string) string {
	t.Helper()
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	target := u.Host
	go func() {
		for {
			client, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer client.Close()
				var req [8]byte // length 8, code 80877103
				if _, err := io.ReadFull(client, req[:]); err != nil || binary.BigEndian.Uint32(req[4:]) != 80877103 {
					return
				}
				if _, err := client.Write([]byte{'S'}); err != nil {
					return
				}
				secure := tls.Server(client, cfg)
				server, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer server.Close()
				go func() { io.Copy(server, secure); server.Close() }()
				io.Copy(secure, server)
			}()
		}
	}()
	u.Host = l.Addr().String()
	q := u.Query()
	q.Set("sslmode", "require")
	u.RawQuery = q.Encode()
	return u.String()
}
