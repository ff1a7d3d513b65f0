package owner

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/db"
)

// kinds are the owned registries, as doctor names them.
var kinds = []struct{ noun, table string }{
	{"skills", "helix_skills"},
	{"composites", "helix_composite_skills"},
	{"tools", "tool_manifests"},
	{"schedules", "helix_schedules"},
}

// Count is how many items (names) one owner has of each kind.
type Count struct {
	Owner  Owner
	Counts map[string]int // skills, composites, tools, schedules
}

func (c Count) String() string {
	var parts []string
	for _, k := range kinds {
		if n := c.Counts[k.noun]; n == 1 {
			parts = append(parts, "1 "+strings.TrimSuffix(k.noun, "s"))
		} else if n > 1 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k.noun))
		}
	}
	return c.Owner.String() + ": " + strings.Join(parts, ", ")
}

// Shadow is a shared item that users' own items of the same name shadow.
type Shadow struct {
	Kind, Name string
	By         int  // how many users have their own of the name
	Nobody     bool // every user who owns anything of the kind has their own: the shared one reaches none of them
}

// Report counts the items each owner has (shared first, then by user) and
// the shared items users shadow with their own.
func Report(ctx context.Context, q db.Querier) ([]Count, []Shadow, error) {
	var union, shadow []string
	for _, k := range kinds {
		union = append(union, fmt.Sprintf(`SELECT '%s' AS kind, user_id, count(DISTINCT name)::int AS n FROM %s GROUP BY user_id`, k.noun, k.table))
		shadow = append(shadow, fmt.Sprintf(`SELECT '%[1]s' AS kind, s.name,
			(SELECT count(DISTINCT u.user_id) FROM %[2]s u WHERE u.name = s.name AND u.user_id IS NOT NULL)::int AS by,
			(SELECT count(DISTINCT u.user_id) FROM %[2]s u WHERE u.user_id IS NOT NULL)::int AS owners
			FROM (SELECT DISTINCT name FROM %[2]s WHERE user_id IS NULL) s`, k.noun, k.table))
	}
	rows, err := q.Query(ctx, strings.Join(union, " UNION ALL ")+` ORDER BY user_id NULLS FIRST, kind`)
	if err != nil {
		return nil, nil, err
	}
	var counts []Count
	for rows.Next() {
		var kind string
		var user *uuid.UUID
		var n int
		if err := rows.Scan(&kind, &user, &n); err != nil {
			rows.Close()
			return nil, nil, err
		}
		o := FromPtr(user)
		if len(counts) == 0 || counts[len(counts)-1].Owner != o {
			counts = append(counts, Count{Owner: o, Counts: map[string]int{}})
		}
		counts[len(counts)-1].Counts[kind] = n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	rows, err = q.Query(ctx, `SELECT kind, name, by, owners FROM (`+strings.Join(shadow, " UNION ALL ")+`) x WHERE by > 0 ORDER BY kind, name`)
	if err != nil {
		return nil, nil, err
	}
	var shadows []Shadow
	for rows.Next() {
		var sh Shadow
		var owners int
		if err := rows.Scan(&sh.Kind, &sh.Name, &sh.By, &owners); err != nil {
			rows.Close()
			return nil, nil, err
		}
		sh.Nobody = sh.By == owners
		shadows = append(shadows, sh)
	}
	rows.Close()
	return counts, shadows, rows.Err()
}
