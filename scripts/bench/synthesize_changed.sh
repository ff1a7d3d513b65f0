#!/usr/bin/env bash
# What the nightly `helix synthesize --all-users` costs as a function of how
# many users' memories changed since the last run (issue 37): USERS users ×
# PER memories of DIM dimensions (default 1,000 × 100 × 1,536). After a first
# run (every user new to helix: the first 100 % run), the runs follow with
# the percentages of SEQ (default 0 1 10 100 1 0) of the users changed (one
# memory each edited, as the platform's apps would), each printing its wall
# time, helix's CPU (GNU time), the CPU of the PostgreSQL backends serving it
# (scripts/bench/pgcpu.sh) and their total as a share of the last 100 %
# run's (the first run's when SEQ has none). Goals: 1 % changed ≤ 5 % and
# 0 % changed ≤ 1 % of the 100 % run's total CPU. Each run's selected users
# must be exactly the changed ones.
#
#   scripts/bench/synthesize_changed.sh
#   USERS=400 PER=60 DIM=384 scripts/bench/synthesize_changed.sh
#   URL=postgres://…/db_synthload_made scripts/bench/synthesize_changed.sh   # reuse (and modify) a loaded database
#
# Uses the Postgres server the tests use (HELIX_TEST_DATABASE_URL, else
# postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable), on this machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
USERS=${USERS:-1000} PER=${PER:-100} DIM=${DIM:-1536} URL=${URL:-} SEQ=${SEQ:-0 1 10 100 1 0}
SERVER=${HELIX_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
. scripts/bench/pgcpu.sh
WORK=$(mktemp -d)
NAME=helix_bench_synth_changed_$$
if [ -n "$URL" ]; then
	trap 'rm -rf "$WORK"' EXIT
else
	trap 'rm -rf "$WORK"; psql -X -q "$SERVER" -c "DROP DATABASE IF EXISTS $NAME WITH (FORCE)" >/dev/null 2>&1 || true' EXIT
fi
CGO_ENABLED=0 go build -o "$WORK/helix" ./cmd/helix
if [ -n "$URL" ]; then
	NAME=$(basename "${URL%%\?*}")
else
	echo "loading $USERS users × $PER memories of $DIM dimensions..." >&2
	URL=$(go run ./scripts/bench/synthload -server "$SERVER" -db "$NAME" -users "$USERS" -n "$PER" -d "$DIM")
fi
USERS=$(psql -X -Atc "SELECT count(DISTINCT user_id) FROM memories" "$URL")
export HELIX_DATABASE_URL=$URL XDG_CONFIG_HOME=$WORK HELIX_CONFIG=
psql -X -q -c "VACUUM ANALYZE" "$URL"

field() { grep -o "\"$2\": *[0-9]*" "$1" | tail -1 | grep -o "[0-9]*$"; }
# run LABEL WANT: one nightly run; WANT users must be selected
run() {
	pgcpu_start "$NAME"
	/usr/bin/time -f '%e %U %S' -o "$WORK/time" "$WORK/helix" synthesize --all-users --output json >"$WORK/out.json" 2>"$WORK/err" ||
		{ pgcpu_stop >/dev/null; cat "$WORK/err" >&2; exit 1; }
	local pg wall user sys got
	pg=$(pgcpu_stop)
	read -r wall user sys <"$WORK/time"
	got=$(field "$WORK/out.json" users)
	[ "$got" = "$2" ] || { echo "$1: $got users selected, want $2" >&2; exit 1; }
	echo "$1 $got $wall $(echo "$user + $sys" | bc) $pg" >>"$WORK/results"
	printf '%-12s %5s users  %7.2f s wall  helix %6.2f CPU-s  PostgreSQL %6.2f CPU-s  (load %s)\n' "$1" "$got" "$wall" "$(echo "$user + $sys" | bc)" "$pg" "$(cut -d' ' -f1 /proc/loadavg)"
}
# change PCT: edit one memory of PCT % of the users (a different sample each time)
round=0
change() {
	round=$((round + 1))
	local n=$((USERS * $1 / 100))
	psql -X -q -v ON_ERROR_STOP=1 "$URL" -c "UPDATE memories SET content = content || ' (edited $round)' WHERE id IN (
		SELECT DISTINCT ON (user_id) id FROM memories WHERE user_id IN (
			SELECT user_id FROM memories GROUP BY user_id ORDER BY md5(user_id::text || '$round') LIMIT $n)
		ORDER BY user_id, id)"
	CHANGED=$n
}

echo "first run: every user is new to helix" >&2
: >"$WORK/results"
run first "$USERS"
for pct in $SEQ; do
	change "$pct"
	run "$pct%" "$CHANGED"
done

echo
echo "data: $USERS users × $PER memories, $DIM dims; machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
awk '$1 == "first" && !full || $1 == "100%" { full = $4 + $5 } { row[NR] = $0 } END {
	printf "%-6s %6s %9s %9s %9s %14s\n", "run", "users", "wall s", "helix s", "pg s", "total/100%"
	for (i = 1; i <= NR; i++) { split(row[i], f, " "); printf "%-6s %6s %9.2f %9.2f %9.2f %13.2f%%\n", f[1], f[2], f[3], f[4], f[5], 100 * (f[4] + f[5]) / full }
}' "$WORK/results"
