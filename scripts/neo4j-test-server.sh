#!/usr/bin/env bash
# Real Neo4j 5.26 Community server (embedded, Bolt, auth disabled) for integration tests.
# Built from tools/neo4j-launcher (Maven); needs only Java 17+ at run time.
#
#   scripts/neo4j-test-server.sh build                 # mvn package if the jar is missing/stale
#   scripts/neo4j-test-server.sh start [--port P]      # background server; writes .neo4j-test/env
#   scripts/neo4j-test-server.sh stop [--keep-data]    # SIGTERM, then SIGKILL; deletes data unless --keep-data
#   scripts/neo4j-test-server.sh restart               # stop --keep-data + start on the same port (outage test)
#   scripts/neo4j-test-server.sh status                # exit 0 if running, 3 if not
#   scripts/neo4j-test-server.sh run [launcher args]   # foreground (exec), e.g. --exit-on-stdin-close
#   scripts/neo4j-test-server.sh cds                   # class-data-sharing archive of the launcher (faster starts)
#
# Environment knobs:
#   MAVEN_REPO_LOCAL         Maven repository to use/cache (default ~/.m2/repository)
#   NEO4J_TEST_STATE_DIR     state dir (default <repo>/.neo4j-test)
#   NEO4J_TEST_HEAP          max heap (default 1g); NEO4J_TEST_PAGECACHE (default 64m)
#   NEO4J_TEST_JAVA          java binary (default $JAVA_HOME/bin/java or java on PATH)
#   NEO4J_TEST_JAVA_OPTS     extra JVM options
#   NEO4J_TEST_START_TIMEOUT seconds to wait for readiness (default 120)
#   NEO4J_TEST_STOP_TIMEOUT  seconds to wait after SIGTERM before SIGKILL (default 30)
#   NEO4J_TEST_LAUNCHER_ARGS extra launcher arguments, e.g. "--set dbms.security.auth_enabled=true"
#   NEO4J_TEST_FAST_START    1 = JIT tier 1 only: about half the CPU to start, slower queries
#                            (short-lived servers such as the outage test's)
#
# Every start uses the class-data-sharing archive made by `cds` when it matches the jar (about a
# third of the start CPU); without one it starts normally.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LAUNCHER_DIR="$ROOT/tools/neo4j-launcher"
JAR="$LAUNCHER_DIR/target/neo4j-launcher.jar"
CDS_ARCHIVE="$LAUNCHER_DIR/target/neo4j-launcher.jsa"
STATE_DIR="${NEO4J_TEST_STATE_DIR:-$ROOT/.neo4j-test}"
PID_FILE="$STATE_DIR/pid"
PORT_FILE="$STATE_DIR/port"
DATA_FILE="$STATE_DIR/data"
ENV_FILE="$STATE_DIR/env"
LOG_FILE="$STATE_DIR/neo4j.log"
HEAP="${NEO4J_TEST_HEAP:-1g}"
PAGECACHE="${NEO4J_TEST_PAGECACHE:-64m}"
START_TIMEOUT="${NEO4J_TEST_START_TIMEOUT:-120}"
STOP_TIMEOUT="${NEO4J_TEST_STOP_TIMEOUT:-30}"

if [[ -n "${NEO4J_TEST_JAVA:-}" ]]; then
  JAVA="$NEO4J_TEST_JAVA"
elif [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then
  JAVA="$JAVA_HOME/bin/java"
else
  JAVA="java"
fi

# JVM flags Neo4j 5 wants on Java 17 (without java.nio the page cache falls back to a slow mode
# and warns; java.io/sun.nio.ch give it native file-descriptor access for tx-log advice).
JVM_FLAGS=(
  "-Xms256m" "-Xmx$HEAP"
  "-XX:+UseG1GC" "-XX:-OmitStackTraceInFastThrow" "-XX:+DisableExplicitGC"
  "--add-opens=java.base/java.lang=ALL-UNNAMED"
  "--add-opens=java.base/java.nio=ALL-UNNAMED"
  "--add-opens=java.base/java.io=ALL-UNNAMED"
  "--add-opens=java.base/java.util=ALL-UNNAMED"
  "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED"
  "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED"
  "-Dio.netty.tryReflectionSetAccessible=true"
  "-Djdk.nio.maxCachedBufferSize=1024"
  "-Dlog4j2.disable.jmx=true"
)
[[ "${NEO4J_TEST_FAST_START:-}" == 1 ]] && JVM_FLAGS+=("-XX:TieredStopAtLevel=1")
# shellcheck disable=SC2206
[[ -n "${NEO4J_TEST_JAVA_OPTS:-}" ]] && JVM_FLAGS+=(${NEO4J_TEST_JAVA_OPTS})
# shellcheck disable=SC2206
LAUNCHER_ARGS=(${NEO4J_TEST_LAUNCHER_ARGS:-})

# the archive is only valid for the jar it was dumped from
cds_flags() {
  if [[ -f "$CDS_ARCHIVE" && "$CDS_ARCHIVE" -nt "$JAR" ]]; then
    echo "-XX:SharedArchiveFile=$CDS_ARCHIVE" "-Xlog:cds=off" "-Xlog:cds+dynamic=off"
  fi
}

log() { echo "neo4j-test-server: $*" >&2; }
die() { log "$*"; exit 1; }

# ---------------------------------------------------------------- build
jar_is_stale() {
  [[ -f "$JAR" && -d "$LAUNCHER_DIR/target/lib" ]] || return 0
  [[ -n "$(find "$LAUNCHER_DIR/pom.xml" "$LAUNCHER_DIR/src" -newer "$JAR" -print -quit 2>/dev/null)" ]]
}

cmd_build() {
  if ! jar_is_stale; then return 0; fi
  command -v mvn >/dev/null 2>&1 || die "mvn not found (apt-get install maven) and $JAR is missing or stale"
  local mvn_args=(-q -B -f "$LAUNCHER_DIR/pom.xml")
  local repo="${MAVEN_REPO_LOCAL:-$HOME/.m2/repository}"
  [[ -n "${MAVEN_REPO_LOCAL:-}" ]] && mvn_args+=("-Dmaven.repo.local=$MAVEN_REPO_LOCAL")
  log "building $JAR (maven repo: $repo)"
  local t0=$SECONDS
  # Offline first when a cache exists (works without network after the first build).
  if [[ -d "$repo/org/neo4j/neo4j" ]] && mvn "${mvn_args[@]}" -o package >"$STATE_DIR/build.log" 2>&1; then
    :
  elif mvn "${mvn_args[@]}" package >"$STATE_DIR/build.log" 2>&1; then
    :
  else
    tail -n 40 "$STATE_DIR/build.log" >&2
    die "maven build failed (full log: $STATE_DIR/build.log)"
  fi
  [[ -f "$JAR" ]] || die "build finished but $JAR is missing"
  touch "$JAR"
  log "built in $((SECONDS - t0)) s"
}

# ---------------------------------------------------------------- helpers
read_pid() { [[ -f "$PID_FILE" ]] && tr -dc '0-9' <"$PID_FILE" || true; }

# true if PID is alive and is our launcher (guards against a recycled pid)
pid_is_ours() {
  local pid="$1"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 1
  if [[ -r "/proc/$pid/cmdline" ]]; then
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q 'neo4j-launcher.jar' || return 1
  fi
  return 0
}

free_port() {
  if command -v node >/dev/null 2>&1; then
    node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
  elif command -v python3 >/dev/null 2>&1; then
    python3 -c "import socket;s=socket.socket();s.bind(('127.0.0.1',0));print(s.getsockname()[1]);s.close()"
  else
    die "need node or python3 to pick a free port (or pass --port P)"
  fi
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

show_failure() {
  local data="$1" fresh="$2"
  log "---- tail of $LOG_FILE"
  tail -n 40 "$LOG_FILE" >&2 || true
  if [[ -f "$data/logs/debug.log" ]]; then
    log "---- ERROR/WARN lines of $data/logs/debug.log"
    grep -E ' (ERROR|WARN) ' "$data/logs/debug.log" | tail -n 20 >&2 || true
  fi
  rm -f "$PID_FILE"
  # a data dir this start created is useless; one kept by stop --keep-data stays for another try
  if ((fresh)); then rm -rf "$data"; rm -f "$DATA_FILE" "$PORT_FILE"; fi
}

# ---------------------------------------------------------------- commands
cmd_start() {
  local port=""
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --port) port="$2"; shift 2 ;;
      --port=*) port="${1#--port=}"; shift ;;
      *) die "start: unknown argument $1" ;;
    esac
  done
  mkdir -p "$STATE_DIR"
  local pid; pid="$(read_pid)"
  if pid_is_ours "$pid"; then
    log "already running (pid $pid)"
    cat "$ENV_FILE"
    return 0
  fi
  cmd_build
  command -v "$JAVA" >/dev/null 2>&1 || die "java not found ($JAVA); Java 17+ is required"
  [[ -n "$port" ]] || port="$(free_port)"
  [[ "$port" =~ ^[0-9]+$ ]] || die "bad port: $port"
  if port_open "$port"; then die "port $port is already in use"; fi

  local data="${TMPDIR:-/tmp}/engrama-neo4j-$port" fresh=0
  [[ -d "$data" ]] || fresh=1
  mkdir -p "$data"
  rm -f "$ENV_FILE" "$PID_FILE" "$STATE_DIR/ready-port"
  echo "$port" >"$PORT_FILE"
  echo "$data" >"$DATA_FILE"
  : >"$LOG_FILE"

  local cds; read -r -a cds <<<"$(cds_flags)"
  local launch=("$JAVA" "${JVM_FLAGS[@]}" "${cds[@]}" -jar "$JAR" --host 127.0.0.1 --port "$port" --data "$data"
                --pagecache "$PAGECACHE" --port-file "$STATE_DIR/ready-port" "${LAUNCHER_ARGS[@]}")
  local t0; t0=$(date +%s%N)
  if command -v setsid >/dev/null 2>&1; then
    setsid "${launch[@]}" </dev/null >>"$LOG_FILE" 2>&1 &
  else
    nohup "${launch[@]}" </dev/null >>"$LOG_FILE" 2>&1 &
  fi
  pid=$!
  echo "$pid" >"$PID_FILE"

  local deadline=$((SECONDS + START_TIMEOUT))
  while ! grep -q '^NEO4J_READY ' "$LOG_FILE" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      show_failure "$data" "$fresh"
      die "server exited before it was ready"
    fi
    if ((SECONDS >= deadline)); then
      kill -KILL "$pid" 2>/dev/null || true
      while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
      show_failure "$data" "$fresh"
      die "server not ready after ${START_TIMEOUT}s"
    fi
    sleep 0.2
  done
  local uri; uri="$(grep -m1 '^NEO4J_READY ' "$LOG_FILE" | awk '{print $2}')"
  {
    echo "NEO4J_URI=$uri"
    echo "NEO4J_USERNAME=neo4j"
    echo "NEO4J_PASSWORD="
    echo "NEO4J_DATABASE=neo4j"
  } >"$ENV_FILE.tmp"
  mv "$ENV_FILE.tmp" "$ENV_FILE"
  log "ready: $uri (pid $pid, $(( ($(date +%s%N) - t0) / 1000000 )) ms, data $data)"
  cat "$ENV_FILE"
}

cmd_stop() {
  local keep=0
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --keep-data) keep=1; shift ;;
      *) die "stop: unknown argument $1" ;;
    esac
  done
  local pid; pid="$(read_pid)"
  if pid_is_ours "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    local deadline=$((SECONDS + STOP_TIMEOUT))
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
    if kill -0 "$pid" 2>/dev/null; then
      log "pid $pid still alive after ${STOP_TIMEOUT}s: SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    fi
    log "stopped (pid $pid)"
  else
    log "not running"
  fi
  rm -f "$PID_FILE" "$ENV_FILE" "$STATE_DIR/ready-port"
  if ((keep == 0)); then
    local data=""
    [[ -f "$DATA_FILE" ]] && data="$(cat "$DATA_FILE")"
    if [[ -n "$data" && "$data" == */engrama-neo4j-* && -d "$data" ]]; then
      rm -rf "$data"
    fi
    rm -f "$DATA_FILE" "$PORT_FILE"
  fi
}

cmd_restart() {
  [[ -f "$PORT_FILE" ]] || die "restart: no previous server (no $PORT_FILE); use start"
  local port; port="$(cat "$PORT_FILE")"
  cmd_stop --keep-data
  # the OS may keep the port in TIME_WAIT briefly; Neo4j binds with SO_REUSEADDR, so just wait
  # for the old listener to disappear
  local deadline=$((SECONDS + 10))
  while port_open "$port" && ((SECONDS < deadline)); do sleep 0.2; done
  cmd_start --port "$port"
}

cmd_status() {
  local pid; pid="$(read_pid)"
  if pid_is_ours "$pid"; then
    local uri=""; [[ -f "$ENV_FILE" ]] && uri="$(grep '^NEO4J_URI=' "$ENV_FILE" | cut -d= -f2-)"
    local rss; rss="$(ps -o rss= -p "$pid" 2>/dev/null | tr -d ' ')"
    echo "running pid=$pid uri=${uri:-?} rss_kb=${rss:-?} data=$(cat "$DATA_FILE" 2>/dev/null)"
    return 0
  fi
  echo "stopped"
  return 3
}

# A dynamic class-data-sharing archive: start a throwaway server once, dump the classes it loaded
# at exit. Later starts map them instead of parsing ~200 jars (start CPU ~15 s -> ~5 s measured).
cmd_cds() {
  cmd_build
  if [[ -f "$CDS_ARCHIVE" && "$CDS_ARCHIVE" -nt "$JAR" ]]; then return 0; fi
  local dir; dir="$(mktemp -d "${TMPDIR:-/tmp}/engrama-neo4j-cds-XXXXXX")"
  local tmp="$CDS_ARCHIVE.$$"
  log "dumping the class-data-sharing archive $CDS_ARCHIVE"
  local t0=$SECONDS
  NEO4J_TEST_STATE_DIR="$dir/state" NEO4J_TEST_JAVA_OPTS="${NEO4J_TEST_JAVA_OPTS:-} -XX:ArchiveClassesAtExit=$tmp -Xlog:cds=off -Xlog:cds+dynamic=off" \
    NEO4J_TEST_STOP_TIMEOUT=120 TMPDIR="$dir" "$0" start >/dev/null || { rm -rf "$dir" "$tmp"; die "cds: the server did not start"; }
  NEO4J_TEST_STATE_DIR="$dir/state" NEO4J_TEST_STOP_TIMEOUT=120 TMPDIR="$dir" "$0" stop >/dev/null 2>&1 || true
  rm -rf "$dir"
  [[ -s "$tmp" ]] || { rm -f "$tmp"; die "cds: no archive was written"; }
  mv -f "$tmp" "$CDS_ARCHIVE"
  log "cds archive written in $((SECONDS - t0)) s ($(du -m "$CDS_ARCHIVE" | cut -f1) MB)"
}

cmd_run() {
  cmd_build
  local cds; read -r -a cds <<<"$(cds_flags)"
  exec "$JAVA" "${JVM_FLAGS[@]}" "${cds[@]}" -jar "$JAR" --pagecache "$PAGECACHE" "$@"
}

mkdir -p "$STATE_DIR"
sub="${1:-}"; [[ $# -gt 0 ]] && shift
case "$sub" in
  build) cmd_build "$@" ;;
  start) cmd_start "$@" ;;
  stop) cmd_stop "$@" ;;
  restart) cmd_restart "$@" ;;
  status) cmd_status "$@" ;;
  run) cmd_run "$@" ;;
  cds) cmd_cds "$@" ;;
  *) echo "usage: $0 {build|start [--port P]|stop [--keep-data]|restart|status|run [launcher args]|cds}" >&2; exit 64 ;;
esac
