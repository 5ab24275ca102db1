#!/usr/bin/env bash
# The scale benchmark for each size: on a Neo4j 5.26 server of its own, sized for N nodes (heap
# and page cache through the test server's knobs), then the same on SQLite; records the server's
# pid (its CPU per step) and data directory (size on disk), stops the server after each size, and
# ends with one table of every size's steps, SQLite beside Neo4j, with the load after each.
#
#   scripts/bench/neo4j-scale-run.sh --sizes 50000,100000 [--queries 100] [--heap 2g] [--pagecache 2g]
#                                    [--sqlite yes|no] [--out .bench-out/neo4j-scale-50000,100000.log]
#   (--nodes N is --sizes N)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
SIZES=100000
QUERIES=100
SQLITE=yes
HEAP=""
PAGECACHE=""
OUT=""
while [[ $# -gt 0 ]]; do
	case "$1" in
		--sizes|--nodes) SIZES="$2"; shift 2 ;;
		--queries) QUERIES="$2"; shift 2 ;;
		--heap) HEAP="$2"; shift 2 ;;
		--pagecache) PAGECACHE="$2"; shift 2 ;;
		--sqlite) SQLITE="$2"; shift 2 ;;
		--out) OUT="$2"; shift 2 ;;
		*) echo "unknown argument $1" >&2; exit 64 ;;
	esac
done
OUT="${OUT:-.bench-out/neo4j-scale-$SIZES.log}"
mkdir -p "$(dirname "$OUT")"
SUMMARIES="$(mktemp -d)"
export NEO4J_TEST_STATE_DIR="${NEO4J_BENCH_STATE_DIR:-${TMPDIR:-/tmp}/engrama-neo4j-scale-state}"
SERVER=scripts/neo4j-test-server.sh
trap '$SERVER stop >/dev/null 2>&1 || true; rm -rf "$SUMMARIES"' EXIT
{
	echo "# $(date -u +%FT%TZ) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), node $(node -v), sizes $SIZES"
	echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$OUT"
for NODES in ${SIZES//,/ }; do
	# About 2.5 KB of store per node with its postings, relations and a 384-d vector: a page cache
	# that holds it all, and a heap for the vector index and the planner (1M nodes: 4g heap, 4g cache).
	if (( NODES >= 500000 )); then H="${HEAP:-4g}" P="${PAGECACHE:-4g}"; else H="${HEAP:-2g}" P="${PAGECACHE:-1g}"; fi
	export NEO4J_TEST_HEAP="$H" NEO4J_TEST_PAGECACHE="$P"
	$SERVER start >/dev/null
	set -a
	# shellcheck disable=SC1091
	. "$NEO4J_TEST_STATE_DIR/env"
	set +a
	echo "## $NODES nodes: neo4j heap $H, page cache $P; load before $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT"
	npm run --silent bench -- neo4j-scale --nodes "$NODES" --queries "$QUERIES" --backend neo4j --summary "$SUMMARIES/neo4j-$NODES.json" \
		--data-dir "$(cat "$NEO4J_TEST_STATE_DIR/data")" --server-pid "$(cat "$NEO4J_TEST_STATE_DIR/pid")" 2>&1 | tee -a "$OUT"
	$SERVER stop >/dev/null 2>&1 || true
	if [[ "$SQLITE" == yes ]]; then
		npm run --silent bench -- neo4j-scale --nodes "$NODES" --queries "$QUERIES" --backend sqlite --summary "$SUMMARIES/sqlite-$NODES.json" 2>&1 | tee -a "$OUT"
	fi
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT"
echo "" | tee -a "$OUT"
node scripts/bench/neo4j-scale-table.mjs "$SUMMARIES"/*.json | tee -a "$OUT"
