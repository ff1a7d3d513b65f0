#!/usr/bin/env bash
# How much a helix process costs to start (issues 44 and 50), side by side in
# one run with the references: `psql -c 'select 1'` and a Go hello-world
# (fmt.Println, built with the same flags as helix). Interleaved, ROUNDS
# rounds of RUNS runs of each; for each: the median CPU (user + system) and
# wall time of a whole process, from getrusage of the child. Then helix's
# package initialisation (GODEBUG=inittrace=1 `helix version`: the sum of every
# package's init clock, median over the runs) and `helix decay run` with
# nothing to do (a migrated, empty database) against the same PostgreSQL.
# Goals (quiet machine): init <= 3 ms, `helix version` <= 0.15x psql's CPU,
# `decay run` with nothing to do <= 30 ms wall. A third reference, "the
# chosen libraries": a program that only imports the libraries the project
# chose for helix (cobra, viper, pgx, River, the MCP SDK, prometheus
# client_golang, gonum, go-mp3, robfig/cron) at helix's versions and prints a
# line: the package initialisation no helix can go below.
#
# Uses HELIX_TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable.
# Needs go, psql and python3. HELIX_BIN=path uses a binary already built.
set -euo pipefail

ROUNDS=${ROUNDS:-3}
RUNS=${RUNS:-20}
SERVER=${HELIX_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
DB=helix_bench_start_$$
dburl() { printf '%s' "$SERVER" | sed -E "s#^(postgres(ql)?://[^/]+)/[^?]*#\1/$1#"; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d)
trap 'psql -X -q "$SERVER" -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT

BIN=${HELIX_BIN:-}
if [ -z "$BIN" ]; then
  echo "== building helix and the hello-world (CGO_ENABLED=0 -trimpath -ldflags '-s -w')" >&2
  (cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$WORK/helix" ./cmd/helix)
  BIN=$WORK/helix
fi
mkdir -p "$WORK/hello"
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' >"$WORK/hello/main.go"
printf 'module hello\n\ngo 1.22\n' >"$WORK/hello/go.mod"
(cd "$WORK/hello" && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$WORK/hello-go" .)
mkdir -p "$WORK/libs"
cat >"$WORK/libs/main.go" <<'GO'
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	_ "github.com/hajimehoshi/go-mp3"
	_ "github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/prometheus/client_golang/prometheus/promhttp"
	_ "github.com/riverqueue/river"
	_ "github.com/riverqueue/river/riverdriver/riverpgxv5"
	_ "github.com/robfig/cron/v3"
	_ "github.com/spf13/cobra"
	_ "github.com/spf13/viper"
	_ "gonum.org/v1/gonum/mat"
	_ "gonum.org/v1/gonum/stat"
)

func main() {
	signal.Notify(make(chan os.Signal, 1), os.Interrupt, syscall.SIGTERM)
	fmt.Println("libs")
}
GO
sed 's#^module .*#module libs#' "$ROOT/go.mod" >"$WORK/libs/go.mod"
cp "$ROOT/go.sum" "$WORK/libs/"
(cd "$WORK/libs" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags '-s -w' -o "$WORK/libs-go" .)

psql -X -q -v ON_ERROR_STOP=1 "$SERVER" -c "CREATE DATABASE $DB" >/dev/null
URL=$(dburl "$DB")
DATABASE_URL=$URL "$BIN" migrate up >/dev/null 2>&1
DATABASE_URL=$URL "$BIN" decay run >/dev/null 2>&1 # the first run does the one-time work

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
python3 - "$ROUNDS" "$RUNS" "$BIN" "$WORK/hello-go" "$SERVER" "$URL" "$WORK/libs-go" <<'PY'
import os, resource, statistics, subprocess, sys, time

rounds, runs, helix, hello, server, url, libs = int(sys.argv[1]), int(sys.argv[2]), *sys.argv[3:]
env = dict(os.environ, DATABASE_URL=url)
cases = [
    ("helix version", [helix, "version"], env),
    ("psql -c 'select 1'", ["psql", "-X", "-q", server, "-c", "select 1"], env),
    ("go hello-world", [hello], env),
    ("the chosen libraries alone", [libs], env),
    ("helix decay run (nothing to do)", [helix, "decay", "run"], env),
]
res = {c[0]: ([], []) for c in cases}

def run(argv, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall

inits, libinits = [], []
init_ms = lambda argv: sum(float(l.split()[4]) for l in subprocess.run(argv, env=dict(env, GODEBUG="inittrace=1"), capture_output=True, text=True).stderr.splitlines() if l.startswith("init "))
for r in range(rounds):
    for i in range(runs):
        for name, argv, e in cases:
            cpu, wall = run(argv, e)
            res[name][0].append(cpu)
            res[name][1].append(wall)
        inits.append(init_ms([helix, "version"]))
        libinits.append(init_ms([libs]))

med = lambda xs: statistics.median(xs) * 1000
print(f"{'process':34} {'CPU ms (median)':>16} {'wall ms (median)':>17}")
for name, _, _ in cases:
    print(f"{name:34} {med(res[name][0]):16.2f} {med(res[name][1]):17.2f}")
psql_cpu = med(res["psql -c 'select 1'"][0])
print(f"helix version CPU / psql CPU: {med(res['helix version'][0]) / psql_cpu:.3f} (goal <= 0.15)")
print(f"helix version package init (GODEBUG=inittrace=1, sum of clocks): median {statistics.median(inits):.2f} ms, "
      f"min {min(inits):.2f} ms over {len(inits)} runs (goal <= 3 ms)")
print(f"the chosen libraries alone, package init: median {statistics.median(libinits):.2f} ms, min {min(libinits):.2f} ms")
print(f"helix decay run, nothing to do: median {med(res['helix decay run (nothing to do)'][1]):.1f} ms wall (goal <= 30 ms)")
PY
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
