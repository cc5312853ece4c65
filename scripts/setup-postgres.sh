#!/usr/bin/env bash
# Make the local PostgreSQL server (127.0.0.1:5432, trust auth, user postgres)
# have the pgvector extension (`vector`) available.
#
# - Starts the Debian cluster if it is not accepting connections.
# - If `vector` is already available: only checks it and exits (fast path).
# - Otherwise builds pgvector from Debian's `pgvector` SOURCE package from
#   trixie (bookworm has no PostgreSQL 15 build of it) against the installed
#   server's headers, and installs it with `make install`.
#
# The trixie source line is deb-src only and lives in a private file that apt
# reads only when this script passes it explicitly, so no binary package from
# trixie can ever be installed and later `apt-get update` runs are unaffected.
#
# Needs root (apt-get, make install). Idempotent. Env overrides:
#   PGHOST (127.0.0.1), PGPORT (5432), PGUSER (postgres),
#   PG_START_WAIT (30: seconds to wait for a cluster it started)
set -euo pipefail

export PGHOST="${PGHOST:-127.0.0.1}"
export PGPORT="${PGPORT:-5432}"
export PGUSER="${PGUSER:-postgres}"
export PGCONNECT_TIMEOUT="${PGCONNECT_TIMEOUT:-10}"
export PGOPTIONS="${PGOPTIONS:--c client_min_messages=warning}"
export DEBIAN_FRONTEND=noninteractive
APT_Q=(-q -o Dpkg::Use-Pty=0)

SRC_LIST=/etc/apt/lore-pgvector-src.list   # NOT in sources.list.d on purpose
CHECK_DB=lore_ci_check

log() { printf '[setup-postgres] %s\n' "$*"; }
die() { printf '[setup-postgres] ERROR: %s\n' "$*" >&2; exit 1; }
psql_q() { psql -X -v ON_ERROR_STOP=1 -qAt -d postgres "$@"; }

# --- 1. server running? ------------------------------------------------------
if ! pg_isready -q -h "$PGHOST" -p "$PGPORT"; then
  log "PostgreSQL not accepting connections at $PGHOST:$PGPORT; starting cluster(s)"
  [ -d /etc/postgresql ] || die "no /etc/postgresql: PostgreSQL server is not installed"
  for d in /etc/postgresql/*/main; do
    [ -d "$d" ] || continue
    v="$(basename "$(dirname "$d")")"
    pg_ctlcluster --skip-systemctl-redirect "$v" main start || true
  done
  for _ in $(seq 1 "${PG_START_WAIT:-30}"); do
    pg_isready -q -h "$PGHOST" -p "$PGPORT" && break
    sleep 1
  done
  pg_isready -h "$PGHOST" -p "$PGPORT" || die "PostgreSQL did not come up"
fi

server_num="$(psql_q -c 'SHOW server_version_num')"
PG_MAJOR=$((server_num / 10000))
PG_CONFIG="/usr/lib/postgresql/$PG_MAJOR/bin/pg_config"
log "server: PostgreSQL $(psql_q -c 'SHOW server_version') (major $PG_MAJOR)"

vector_available() {
  [ -n "$(psql_q -c "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")" ]
}

verify() {
  psql_q -c "DROP DATABASE IF EXISTS $CHECK_DB WITH (FORCE)"
  psql_q -c "CREATE DATABASE $CHECK_DB"
  local out rc=0
  out="$(psql -X -v ON_ERROR_STOP=1 -qAt -d "$CHECK_DB" \
    -c 'CREATE EXTENSION IF NOT EXISTS vector' \
    -c "SELECT extversion FROM pg_extension WHERE extname = 'vector'" \
    -c "SELECT '[1,2,3]'::vector <=> '[1,2,4]'::vector" 2>&1)" || rc=$?
  psql_q -c "DROP DATABASE IF EXISTS $CHECK_DB WITH (FORCE)" || true
  [ "$rc" -eq 0 ] || die "CREATE EXTENSION vector failed: $out"
  log "vector extension OK (version $(sed -n 1p <<<"$out"), cosine distance check $(sed -n 2p <<<"$out"))"
}

# --- 2. fast path -------------------------------------------------------------
if vector_available; then
  log "vector extension already available"
  verify
  exit 0
fi

# --- 3. build deps (bookworm) -----------------------------------------------
[ "$(id -u)" -eq 0 ] || die "vector extension missing and not root: cannot install it"

have_build_deps() {
  [ -x "$PG_CONFIG" ] &&
    [ -f "$("$PG_CONFIG" --pgxs 2>/dev/null)" ] &&
    [ -f "$("$PG_CONFIG" --includedir-server 2>/dev/null)/postgres.h" ] &&
    command -v make >/dev/null && command -v gcc >/dev/null &&
    command -v dpkg-source >/dev/null &&
    # pgxs builds LLVM bitcode too when the server was built with LLVM
    { ! grep -q '^with_llvm[[:space:]]*=[[:space:]]*yes' \
        "$(dirname "$("$PG_CONFIG" --pgxs)")/../Makefile.global" 2>/dev/null ||
      command -v "$(sed -n 's/^CLANG[[:space:]]*=[[:space:]]*//p' \
        "$(dirname "$("$PG_CONFIG" --pgxs)")/../Makefile.global")" >/dev/null; }
}

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q ' installed$'; }
DEPS=()
for p in "postgresql-server-dev-$PG_MAJOR" build-essential dpkg-dev; do
  installed "$p" || DEPS+=("$p")   # only missing ones: never upgrade dpkg & co.
done
if have_build_deps && [ "${#DEPS[@]}" -eq 0 ]; then
  log "build dependencies already installed"
elif [ "${#DEPS[@]}" -eq 0 ]; then
  die "build dependency packages installed but pg_config/pgxs/gcc/make/clang missing"
else
  log "installing build dependencies: ${DEPS[*]}"
  # Try with the existing package lists first; refresh them only if needed
  # (no lists on a clean image, or stale lists pointing at removed versions).
  if ! { apt-cache show "${DEPS[@]}" >/dev/null 2>&1 &&
         apt-get install -y "${APT_Q[@]}" --no-install-recommends "${DEPS[@]}"; }; then
    log "apt-get update (system sources)"
    apt-get update "${APT_Q[@]}"
    apt-get install -y "${APT_Q[@]}" --no-install-recommends "${DEPS[@]}"
  fi
  have_build_deps || die "build dependencies still missing after install"
fi

# --- 4. private deb-src line for trixie, same mirror as the system's ----------
# First URI of a Debian archive entry (not -security/-updates/-backports) in
# the system's sources, deb822 (*.sources) or one-line (*.list) format.
find_mirror() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk '
      function flush() { if (uri != "" && main) { print uri; found = 1; exit } uri = ""; main = 0 }
      /^[[:space:]]*$/ { flush(); next }
      /^[[:space:]]*#/ { next }
      tolower($1) == "uris:"   { uri = $2 }
      tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+$/) main = 1 }
      END { if (!found) flush() }
    ' "$f" | grep -v -e '-security' | head -n1
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    [ "$f" = "$SRC_LIST" ] && continue
    sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" |
      awk '($1 == "deb" || $1 == "deb-src") && $3 ~ /^[a-z]+$/ { print $2 }' |
      grep -v -e '-security' | head -n1
  done
}
MIRROR="$(find_mirror | grep -E '^https?://' | head -n1 || true)"
[ -n "$MIRROR" ] || die "could not find the Debian mirror in /etc/apt/sources.list{,.d/}"
MIRROR="${MIRROR%/}"

KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
if [ -f "$KEYRING" ]; then
  SRC_LINE="deb-src [signed-by=$KEYRING] $MIRROR trixie main"
else
  SRC_LINE="deb-src $MIRROR trixie main"
fi
if [ "$(cat "$SRC_LIST" 2>/dev/null || true)" != "$SRC_LINE" ]; then
  printf '%s\n' "$SRC_LINE" >"$SRC_LIST"
fi
log "source list $SRC_LIST: $SRC_LINE"

# apt options that make apt see ONLY the private deb-src list, and keep the
# system's other package lists (no List-Cleanup).
APT_SRC_OPTS=(
  -o "Dir::Etc::sourcelist=$SRC_LIST"
  -o "Dir::Etc::sourceparts=-"
  -o "APT::Get::List-Cleanup=0"
)
log "apt-get update (trixie deb-src only)"
apt-get "${APT_SRC_OPTS[@]}" update "${APT_Q[@]}"

# --- 5. fetch, build, install ---------------------------------------------------
WORK="$(mktemp -d /tmp/lore-pgvector.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
log "apt-get source pgvector/trixie into $WORK"
apt-get "${APT_SRC_OPTS[@]}" -o APT::Sandbox::User=root \
  source --download-only "${APT_Q[@]}" pgvector/trixie
dsc=""
for f in "$WORK"/pgvector_*.dsc; do [ -f "$f" ] && dsc="$f"; done
[ -n "$dsc" ] || die "pgvector .dsc not downloaded"
dpkg-source -x "$dsc" "$WORK/src" >/dev/null
log "building $(basename "$dsc" .dsc) for PostgreSQL $PG_MAJOR"

# OPTFLAGS= : no -march=native (portable build, as Debian's own package does).
MAKE_ARGS=(USE_PGXS=1 "PG_CONFIG=$PG_CONFIG" OPTFLAGS=)
make -C "$WORK/src" -j"$(nproc)" "${MAKE_ARGS[@]}" >"$WORK/build.log" 2>&1 ||
  { tail -n 50 "$WORK/build.log" >&2; die "pgvector build failed"; }
make -C "$WORK/src" "${MAKE_ARGS[@]}" install >>"$WORK/build.log" 2>&1 ||
  { tail -n 50 "$WORK/build.log" >&2; die "pgvector install failed"; }

vector_available || die "pgvector installed but 'vector' not in pg_available_extensions"
verify
log "done"
