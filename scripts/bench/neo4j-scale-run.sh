#!/usr/bin/env bash
# The scale benchmark on a Neo4j 5.26 server of its own, sized for N nodes (heap and page cache
# through the test server's knobs), then the same on SQLite; records the server's pid (its CPU
# per step) and data directory (size on disk), and stops the server at the end.
#
#   scripts/bench/neo4j-scale-run.sh --nodes 100000 [--queries 100] [--heap 2g] [--pagecache 2g]
#                                    [--sqlite yes|no] [--out .bench-out/neo4j-scale-100000.log]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
NODES=100000
QUERIES=100
SQLITE=yes
HEAP=""
PAGECACHE=""
OUT=""
while [[ $# -gt 0 ]]; do
	case "$1" in
		--nodes) NODES="$2"; shift 2 ;;
		--queries) QUERIES="$2"; shift 2 ;;
		--heap) HEAP="$2"; shift 2 ;;
		--pagecache) PAGECACHE="$2"; shift 2 ;;
		--sqlite) SQLITE="$2"; shift 2 ;;
		--out) OUT="$2"; shift 2 ;;
		*) echo "unknown argument $1" >&2; exit 64 ;;
	esac
done
# About 2.5 KB of store per node with its postings, relations and a 384-d vector: a page cache
# that holds it all, and a heap for the vector index and the planner (1M nodes: 4g heap, 4g cache).
if (( NODES >= 500000 )); then : "${HEAP:=4g}" "${PAGECACHE:=4g}"; else : "${HEAP:=2g}" "${PAGECACHE:=1g}"; fi
OUT="${OUT:-.bench-out/neo4j-scale-$NODES.log}"
mkdir -p "$(dirname "$OUT")"
export NEO4J_TEST_STATE_DIR="${NEO4J_BENCH_STATE_DIR:-${TMPDIR:-/tmp}/engrama-neo4j-scale-state}"
export NEO4J_TEST_HEAP="$HEAP" NEO4J_TEST_PAGECACHE="$PAGECACHE"
SERVER=scripts/neo4j-test-server.sh
trap '$SERVER stop >/dev/null 2>&1 || true' EXIT
$SERVER start >/dev/null
set -a
# shellcheck disable=SC1091
. "$NEO4J_TEST_STATE_DIR/env"
set +a
{
	echo "# $(date -u +%FT%TZ) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), node $(node -v), neo4j heap $HEAP, page cache $PAGECACHE"
	echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$OUT"
npm run --silent bench -- neo4j-scale --nodes "$NODES" --queries "$QUERIES" --backend neo4j \
	--data-dir "$(cat "$NEO4J_TEST_STATE_DIR/data")" --server-pid "$(cat "$NEO4J_TEST_STATE_DIR/pid")" 2>&1 | tee -a "$OUT"
$SERVER stop >/dev/null 2>&1 || true
if [[ "$SQLITE" == yes ]]; then
	npm run --silent bench -- neo4j-scale --nodes "$NODES" --queries "$QUERIES" --backend sqlite 2>&1 | tee -a "$OUT"
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT"
