#!/usr/bin/env bash
# `helix synthesize --all-users --full` on U users × N memories of D
# dimensions (default 1,000 × 100 × 1,536) against the floor of reading the
# same rows: one binary COPY (through psql) of the columns synthesis reads,
# in the order it reads them. Runs them interleaved R times (default 3) and
# prints wall times, the client's CPU (psql's, helix's: GNU time, user +
# sys), the CPU of the PostgreSQL backends serving each (scripts/bench/pgcpu.sh),
# and the ratios to the COPY floor: in wall time and PostgreSQL CPU (issues
# 20, 37: ≤ 1.3×), and in client + PostgreSQL CPU, helix + its backends
# against psql + the COPY's backend (issue 50: ≤ 1.3×). With
# BASE=<git revision> that revision's helix runs too, and its output
# (--full --dry-run --output json: every user, not only the changed ones)
# must equal this tree's byte for byte. URL=<a database synthload made>
# reuses it instead of loading one (it is kept).
#
#   scripts/bench/synthesize_all.sh            # 1,000 × 100 × 1,536
#   U=200 D=384 R=5 BASE=main scripts/bench/synthesize_all.sh
# Needs the test server of HELIX_TEST_DATABASE_URL (as make test does), on
# this machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
U=${U:-1000} N=${N:-100} D=${D:-1536} R=${R:-3} BASE=${BASE:-} URL=${URL:-}
. scripts/bench/pgcpu.sh
SERVER=${HELIX_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
DB=helix_all_$$
dir=$(mktemp -d)
if [ -n "$URL" ]; then
  trap 'rm -rf "$dir"' EXIT
else
  trap 'rm -rf "$dir"; psql "$SERVER" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null' EXIT
fi
CGO_ENABLED=0 go build -o "$dir/helix" ./cmd/helix
bins=("$dir/helix")
if [ -n "$BASE" ]; then
  mkdir "$dir/base"
  git archive "$BASE" | tar -x -C "$dir/base"
  (cd "$dir/base" && CGO_ENABLED=0 go build -o "$dir/helix-base" ./cmd/helix)
  bins=("$dir/helix-base" "$dir/helix")
fi
if [ -n "$URL" ]; then
  url=$URL DB=$(basename "${URL%%\?*}")
else
  echo "loading $U users × $N memories of $D dimensions..." >&2
  url=$(go run ./scripts/bench/synthload -server "$SERVER" -db "$DB" -users "$U" -n "$N" -d "$D")
fi
# as autovacuum would soon after a bulk load: otherwise it may start
# during one of the runs below and take CPU from that run alone
psql "$url" -qc "VACUUM ANALYZE memories"
if [ -n "$BASE" ]; then
  for b in "${bins[@]}"; do
    HELIX_DATABASE_URL=$url "$b" synthesize --all-users --full --dry-run --output json >"$b.json" 2>/dev/null
  done
  cmp -s "$dir/helix-base.json" "$dir/helix.json" || { echo "outputs differ from $BASE's" >&2; exit 1; }
  echo "output (--full --dry-run --output json, $(wc -c <"$dir/helix.json") bytes): identical to $BASE's"
fi
copy="\\copy (SELECT id, content, embedding::real[], emotional_valence, created_at FROM memories ORDER BY user_id, created_at, id) TO '/dev/null' (FORMAT binary)"
for i in $(seq "$R"); do
  echo "load: $(uptime)"
  pgcpu_start "$DB"
  /usr/bin/time -f '%e %U %S' -o "$dir/time" psql "$url" -qc "$copy"
  cpg=$(pgcpu_stop)
  read -r c user sys <"$dir/time"
  ccpu=$(echo "$user + $sys" | bc)
  printf 'run %d: COPY floor  %6.2f s wall, PostgreSQL %5.2f CPU-s, psql  %5.2f CPU-s; both %5.2f CPU-s\n' "$i" "$c" "$cpg" "$ccpu" "$(echo "$cpg + $ccpu" | bc)"
  for b in "${bins[@]}"; do
    pgcpu_start "$DB"
    HELIX_DATABASE_URL=$url /usr/bin/time -f '%e %U %S' -o "$dir/time" "$b" synthesize --all-users --full --log-format json 2>"$dir/err" >/dev/null ||
      { pgcpu_stop >/dev/null; cat "$dir/err" >&2; exit 1; }
    hpg=$(pgcpu_stop)
    read -r wall user sys <"$dir/time"
    hcpu=$(echo "$user + $sys" | bc)
    printf 'run %d: %-11s %6.2f s wall, PostgreSQL %5.2f CPU-s, helix %5.2f CPU-s; both %5.2f CPU-s; to COPY: wall %.2f, PostgreSQL CPU %.2f, helix+PostgreSQL CPU to psql+PostgreSQL %.2f\n' "$i" "$(basename "$b")" \
      "$wall" "$hpg" "$hcpu" "$(echo "$hpg + $hcpu" | bc)" "$(echo "$wall / $c" | bc -l)" "$(echo "$hpg / $cpg" | bc -l)" \
      "$(echo "($hpg + $hcpu) / ($cpg + $ccpu)" | bc -l)"
  done
done
echo "load: $(uptime)"
echo "users: $U  memories: $(psql "$url" -Atc "SELECT count(*) FROM memories")  dims: $D  patterns written: $(psql "$url" -Atc "SELECT count(*) FROM memory_synthesis")"
