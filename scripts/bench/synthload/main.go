// Command synthload creates a fresh, migrated database holding one user's
// synthetic memories (synthesis.Synthetic) and prints its URL, for
// scripts/bench/synthesize_rss.sh.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/url"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/memories"
	"github.com/helixhq/helix/internal/synthesis"
)

func main() {
	server := flag.String("server", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "PostgreSQL server URL")
	name := flag.String("db", "helix_rss", "database to create")
	n := flag.Int("n", 50000, "memories")
	d := flag.Int("d", 1536, "embedding dimensions")
	user := flag.String("user", "99999999-9999-4999-8999-999999999999", "user id")
	flag.Parse()
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, *server)
	check(err)
	_, err = admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{*name}.Sanitize())
	check(err)
	check(admin.Close(ctx))
	u, err := url.Parse(*server)
	check(err)
	u.Path = "/" + *name
	pool, err := pgxpool.New(ctx, u.String())
	check(err)
	defer pool.Close()
	m, err := db.NewMigrator(pool)
	check(err)
	_, err = m.Up(ctx)
	check(err)
	check(m.Close())
	ms := synthesis.Synthetic(uuid.MustParse(*user), *n, *d, 1)
	for lo := 0; lo < len(ms); lo += 5000 {
		_, err := memories.Insert(ctx, pool, ms[lo:min(lo+5000, len(ms))])
		check(err)
	}
	fmt.Println(u.String())
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
