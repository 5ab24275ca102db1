#!/usr/bin/env bash
# Runs the engine and search benchmarks on SQLite and on a real Neo4j 5.26 (a server of its own,
# started here and stopped afterwards), recording wall time, the CPU time of the benchmark process
# and of the Neo4j JVM, and the load average before and after each run (docs/benchmarks-neo4j.md).
#
#   scripts/bench/neo4j-bench-run.sh [--sizes 10000] [--queries 100] [--out .bench-out/neo4j-bench.log]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
SIZES=10000
QUERIES=100
OUT=.bench-out/neo4j-bench.log
while [[ $# -gt 0 ]]; do
	case "$1" in
		--sizes) SIZES="$2"; shift 2 ;;
		--queries) QUERIES="$2"; shift 2 ;;
		--out) OUT="$2"; shift 2 ;;
		*) echo "unknown argument $1" >&2; exit 64 ;;
	esac
done
mkdir -p "$(dirname "$OUT")"
: >"$OUT"
export NEO4J_TEST_STATE_DIR="${NEO4J_BENCH_STATE_DIR:-${TMPDIR:-/tmp}/engrama-neo4j-bench-state}"
SERVER=scripts/neo4j-test-server.sh
trap '$SERVER stop >/dev/null 2>&1 || true' EXIT
$SERVER start >/dev/null
set -a
# shellcheck disable=SC1091
. "$NEO4J_TEST_STATE_DIR/env"
set +a
JAVA_PID="$(cat "$NEO4J_TEST_STATE_DIR/pid")"
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
HZ="$(getconf CLK_TCK)"

log() { echo "$*" | tee -a "$OUT"; }
log "# $(date -u +%FT%TZ) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), node $(node -v), neo4j test server $NEO4J_URI"

run() {
	local title="$1"; shift
	log ""
	log "## $title"
	log "\$ $*"
	log "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
	local j0; j0="$(ticks "$JAVA_PID")"
	/usr/bin/time -f "bench process: wall %e s, user %U s, sys %S s, max RSS %M KB" -o "$OUT.time" "$@" 2>&1 | tee -a "$OUT"
	local j1; j1="$(ticks "$JAVA_PID")"
	cat "$OUT.time" | tee -a "$OUT"
	log "neo4j JVM CPU during the run: $(awk -v a="$j0" -v b="$j1" -v hz="$HZ" 'BEGIN{printf "%.1f s", (b-a)/hz}')"
	log "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
}

run "engine, sqlite" npm run --silent bench -- engine --sizes "$SIZES" --backend sqlite
run "engine, neo4j" npm run --silent bench -- engine --sizes "$SIZES" --backend neo4j
run "search, same memory on both backends" npm run --silent bench -- neo4j-search --sizes "$SIZES" --queries "$QUERIES"
rm -f "$OUT.time"
