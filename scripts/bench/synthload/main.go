// Command synthload creates a fresh, migrated database holding synthetic
// memories (synthesis.Synthetic) and prints its URL: one user's n memories
// for scripts/bench/synthesize_rss.sh, or -users U users of n memories each
// (user ids derived from -user) for scripts/bench/synthesize_all.sh.
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
	users := flag.Int("users", 1, "users of n memories each; more than one derives their ids from -user")
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
	base := uuid.MustParse(*user)
	var batch []memories.Memory
	for i := range *users {
		id := base
		if *users > 1 {
			id = uuid.NewSHA1(base, fmt.Appendf(nil, "user-%d", i))
		}
		batch = append(batch, synthesis.Synthetic(id, *n, *d, uint64(i+1))...)
		if len(batch) >= 5000 || i == *users-1 {
			for lo := 0; lo < len(batch); lo += 5000 {
				_, err := memories.Insert(ctx, pool, batch[lo:min(lo+5000, len(batch))])
				check(err)
			}
			batch = batch[:0]
		}
	}
	_, err = pool.Exec(ctx, "VACUUM ANALYZE memories")
	check(err)
	fmt.Println(u.String())
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
