#!/usr/bin/env bash
# Fuzz the HTTP API against its OpenAPI document (openapi/openapi.json) with schemathesis.
#
#   openapi/fuzz.sh
#
# What it does:
#   1. a Python venv in target/fuzz-venv with schemathesis (4.x) and openapi-spec-validator;
#   2. openapi-spec-validator on openapi/openapi.json (the script fails if it does not pass);
#   3. starts dozor on a throwaway data directory (its own PostgreSQL cluster) on 127.0.0.1;
#   4. one API key per role, made with `dozor apikey create`;
#   5. seeds a few signed rounds on two roulette tables (`dozor simulate`) and registers the
#      tables of the document's example records (`dozor openapi --example-tables`);
#   6. runs schemathesis with every check once with no key and once per role key, then again
#      through openapi/spelling_proxy.py, which percent-encodes the first character of every
#      path segment: each operation must answer an encoded spelling of its path as the document
#      says (a 401 without a key, never data);
#   7. counts the requests the server answered (its /metrics) and those answered 5xx.
# It exits non-zero if any request was answered 5xx or schemathesis reported any failure.
#
# Environment:
#   DOZOR_BIN            the dozor binary to test; unset: `cargo build -q` and target/debug/dozor
#   FUZZ_MAX_EXAMPLES    schemathesis --max-examples per operation and run (default 50)
#   FUZZ_ROLES           the runs, in order (default "none reporter regulator compliance admin";
#                        "none" runs without an API key)
#   FUZZ_SPELLED_ROLES   the runs through the spelling proxy (default "none reporter")
#   FUZZ_PHASES          schemathesis --phases (default: all of them)
#   FUZZ_WORKERS         schemathesis --workers (default 2)
#   FUZZ_SEED            schemathesis --seed (default: a random one, printed)
#   FUZZ_PORT            port to serve on (default: a free one)
#   FUZZ_OUT             where reports and logs go (default target/fuzz-report)
#   FUZZ_SEED_DATA=0     skip seeding the tables and rounds
#   FUZZ_KEEP=1          keep the throwaway data directory
#   FUZZ_EXTRA_ARGS      more arguments for every `schemathesis run`
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

SPEC=openapi/openapi.json
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
VENV=$ROOT/target/fuzz-venv
OUT=${FUZZ_OUT:-$ROOT/target/fuzz-report}
MAX_EXAMPLES=${FUZZ_MAX_EXAMPLES:-50}
ROLES=${FUZZ_ROLES:-none reporter regulator compliance admin}
SPELLED_ROLES=${FUZZ_SPELLED_ROLES:-none reporter}
WORKERS=${FUZZ_WORKERS:-2}
SEED=${FUZZ_SEED:-$(( (RANDOM << 15) | RANDOM ))}

log() { printf 'fuzz: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

# --- 1. tools ------------------------------------------------------------------------------
if [ ! -x "$VENV/bin/python" ]; then
    log "creating the venv $VENV"
    python3 -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c 'import schemathesis, openapi_spec_validator' 2>/dev/null; then
    log "installing schemathesis and openapi-spec-validator"
    "$VENV/bin/pip" install -q --disable-pip-version-check 'schemathesis>=4,<5' openapi-spec-validator
fi
ST="$VENV/bin/schemathesis"
log "$("$ST" --version)"

# --- 2. the document itself ----------------------------------------------------------------
log "openapi-spec-validator $SPEC"
"$VENV/bin/openapi-spec-validator" "$SPEC" || die "openapi-spec-validator rejects $SPEC"

# --- 3. the server -------------------------------------------------------------------------
if [ -z "${DOZOR_BIN:-}" ]; then
    log "building dozor (debug)"
    cargo build -q -p dozor
    DOZOR_BIN=$TARGET_DIR/debug/dozor
fi
[ -x "$DOZOR_BIN" ] || die "no dozor binary at $DOZOR_BIN"

if [ -n "${FUZZ_PORT:-}" ]; then
    PORT=$FUZZ_PORT
else
    PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
fi
BASE=http://127.0.0.1:$PORT

mkdir -p "$OUT"
rm -rf "$OUT"/*.log "$OUT"/*.rc "$OUT"/metrics.txt "$OUT"/cache "$OUT"/schemathesis.toml \
    "$OUT"/none "$OUT"/reporter "$OUT"/regulator "$OUT"/compliance "$OUT"/admin "$OUT"/spelled-*
# dozor runs its PostgreSQL cluster under the data directory, as the `postgres` user when
# started as root: the directory must be reachable by that user.
DIR=$(mktemp -d "${TMPDIR:-/tmp}/dozor-fuzz.XXXXXX")
chmod 755 "$DIR"
unset DATABASE_URL DOZOR_DATA_DIR DOZOR_API_KEY
dozor() { "$DOZOR_BIN" --data-dir "$DIR" "$@"; }

SERVER_PID=
PROXY_PID=
stop_server() {
    if [ -n "$PROXY_PID" ] && kill -0 "$PROXY_PID" 2>/dev/null; then
        kill -TERM "$PROXY_PID" 2>/dev/null || true
        wait "$PROXY_PID" 2>/dev/null || true
    fi
    PROXY_PID=
    if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
        log "stopping the server"
        kill -TERM "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    SERVER_PID=
}
cleanup() {
    stop_server
    if [ "${FUZZ_KEEP:-0}" = 1 ]; then
        log "data directory kept: $DIR"
    else
        rm -rf "$DIR"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

log "starting dozor on $BASE (data $DIR, log $OUT/server.log)"
"$DOZOR_BIN" --data-dir "$DIR" serve --bind "127.0.0.1:$PORT" --nightly-at off \
    --api-key-rate 100000 --api-key-burst 100000 \
    --address-rate 100000 --address-burst 100000 \
    >"$OUT/server.log" 2>&1 &
SERVER_PID=$!

for _ in $(seq 1 240); do
    kill -0 "$SERVER_PID" 2>/dev/null || { tail -n 30 "$OUT/server.log" >&2; die "the server exited at start"; }
    if [ "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/healthz" || true)" = 200 ]; then
        break
    fi
    sleep 0.5
done
[ "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/healthz" || true)" = 200 ] ||
    { tail -n 30 "$OUT/server.log" >&2; die "the server did not answer /healthz in 120 s"; }
log "the server is up"

# --- 4. API keys ---------------------------------------------------------------------------
# new_key ROLE: prints the token of a new key of ROLE (names are never reused: a fresh one each).
new_key() {
    dozor apikey create --name "fuzz-$1-$(date +%s%N)" --role "$1" 2>>"$OUT/apikeys.log" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])'
}

# metrics_sum [STATUS_CLASS]: the sum of every dozor_http_request_duration_seconds_count series
# (only those of the status class if given). A key of its own, made for each reading, so that
# no key revoked by the fuzzing itself gets in the way.
metrics_sum() {
    local token
    token=$(new_key reporter)
    curl -sf -H "Authorization: Bearer $token" "$BASE/metrics" >"$OUT/metrics.txt" ||
        die "GET /metrics failed"
    awk -v class="${1:-}" '
        /^dozor_http_request_duration_seconds_count[{ ]/ {
            if (class == "" || index($0, "status=\"" class "\"") > 0) sum += $NF
        }
        END { printf "%d\n", sum }' "$OUT/metrics.txt"
}

# --- 5. data -------------------------------------------------------------------------------
if [ "${FUZZ_SEED_DATA:-1}" != 0 ]; then
    log "seeding: 2 roulette tables, 20 signed rounds each"
    dozor simulate --server "$BASE" --api-key "$(new_key admin)" --game roulette \
        --tables 2 --rounds 20 --seed 7 --concurrency 2 >"$OUT/seed.log" 2>&1 ||
        { tail -n 20 "$OUT/seed.log" >&2; die "seeding failed"; }
    log "seeding: the tables of the document's example records"
    admin=$(new_key admin)
    dozor openapi --example-tables | python3 -c 'import json, sys; [print(json.dumps(r)) for r in json.load(sys.stdin)]' |
        while read -r registration; do
            code=$(curl -s -o "$OUT/seed-table.json" -w '%{http_code}' -X POST "$BASE/api/v1/tables" \
                -H "Authorization: Bearer $admin" -H 'content-type: application/json' -d "$registration")
            [ "$code" = 201 ] || die "registering an example table: $code $(cat "$OUT/seed-table.json")"
        done
fi

# --- 6. schemathesis -----------------------------------------------------------------------
BEFORE=$(metrics_sum)
log "max examples $MAX_EXAMPLES, seed $SEED, runs: $ROLES"
# schemathesis keeps the failing cases it found (for `schemathesis replay`) in a cache directory,
# by default .schemathesis/ in the working directory: kept with the reports instead.
# Every check runs (schemathesis's default; naming them on the command line would override the
# exceptions below). Checked strictly everywhere but where a rule of the server spans fields or needs what no schema
# can generate; each exception names its rule (docs/OPERATIONS.md lists them).
ACCEPTED='"2xx", "3xx", "401", "403", "404", "409", "429"'
# also_expects STATUS OPERATION...: data its schema allows may also be answered STATUS by each
# OPERATION, because of a rule of the server that spans fields or that no schema can state.
also_expects() {
    local status=$1 operation
    shift
    for operation in "$@"; do
        printf '[[operations]]\ninclude-operation-id = "%s"\n' "$operation"
        printf 'checks.positive_data_acceptance.expected-statuses = [%s, "%s"]\n\n' "$ACCEPTED" "$status"
    done
}
{
    printf '[cache]\ndirectory = "%s"\n\n' "$OUT/cache"
    # A record is accepted only with a valid ed25519 signature by a registered key of its table
    # over its canonical bytes, and a game record the rules can read: no generator makes one
    # (the document's own examples, whose tables are registered above, are accepted).
    also_expects 422 submit_record
    # A batch answers 200 with one result per item: an item that is not an envelope gets its own
    # 400 there, and the other items are still appended (a gateway's one bad table does not hold
    # up the others).
    printf '[[operations]]\ninclude-operation-id = "submit_records"\n'
    printf 'checks.negative_data_rejection.enabled = false\n\n'
    # A public key must be a point of the curve (about half of all 32-byte strings are not), and
    # a wheel's layout a permutation of the plan's segments.
    also_expects 422 register_table add_table_key
    # Posted limits are the full set of the table's game, inside its plan's range, each maximum
    # at least the table's minimum, with a reason, taking effect no earlier than a minute ago.
    also_expects 422 set_table_limits
    # A key's expiry must lie in the future.
    also_expects 422 create_api_key
    # amount_settled_h goes with "confirmed" only, "reason" with (and only with) "dismissed".
    also_expects 422 resolve_finding
    # "through" is a gaming day of "month".
    also_expects 400 rtp_report month_page
    # An export covers 1 to 93 gaming days, from <= to.
    also_expects 400 export_period
} >"$OUT/schemathesis.toml"
ST_FAILED_RUNS=0
# run_as NAME ROLE URL: one schemathesis run against URL, as ROLE, its logs under NAME.
run_as() {
    local name=$1 role=$2 url=$3
    local auth=()
    if [ "$role" != none ]; then
        auth=(-H "Authorization: Bearer $(new_key "$role")")
    fi
    log "schemathesis run as: $name"
    local rc=0
    # shellcheck disable=SC2086
    "$ST" --config-file "$OUT/schemathesis.toml" run "$SPEC" --url "$url" "${auth[@]}" \
        --max-examples "$MAX_EXAMPLES" \
        --seed "$SEED" \
        --workers "$WORKERS" \
        ${FUZZ_PHASES:+--phases "$FUZZ_PHASES"} \
        --request-timeout 60 \
        --generation-database none \
        --suppress-health-check all \
        --no-color \
        --output-sanitize false \
        --continue-on-failure \
        --report junit \
        --report-dir "$OUT/$name" \
        --report-junit-path "$OUT/$name/junit.xml" \
        ${FUZZ_EXTRA_ARGS:-} \
        >"$OUT/$name.log" 2>&1 || rc=$?
    echo "$rc" >"$OUT/$name.rc"
    tail -n 25 "$OUT/$name.log" >&2
    [ "$rc" = 0 ] || ST_FAILED_RUNS=$((ST_FAILED_RUNS + 1))
    kill -0 "$SERVER_PID" 2>/dev/null || die "the server died during the run as $name"
}
RUNS=()
for role in $ROLES; do
    run_as "$role" "$role" "$BASE"
    RUNS+=("$role")
done
if [ -n "$SPELLED_ROLES" ]; then
    PROXY_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    python3 openapi/spelling_proxy.py "$PROXY_PORT" "$PORT" >"$OUT/proxy.log" 2>&1 &
    PROXY_PID=$!
    for _ in $(seq 1 40); do
        [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PROXY_PORT/healthz" || true)" = 200 ] && break
        sleep 0.25
    done
    log "the spelling proxy is up on $PROXY_PORT"
    for role in $SPELLED_ROLES; do
        run_as "spelled-$role" "$role" "http://127.0.0.1:$PROXY_PORT"
        RUNS+=("spelled-$role")
    done
fi

# --- 7. counts -----------------------------------------------------------------------------
AFTER=$(metrics_sum)
SERVER_ERRORS=$(metrics_sum 5xx)
# The two /metrics readings themselves are counted too.
REQUESTS=$((AFTER - BEFORE - 1))

# The failures schemathesis counted (its closing line: "N failures, M errors, ..."), per run
# and per check (its "Failures:" list), added up over the runs. A run that ended non-zero with
# none counted is one failure (schemathesis itself failed).
FAILURES=$(
    python3 - "$OUT" "${RUNS[@]}" <<'EOF'
import collections
import re
import sys
from pathlib import Path

out, roles = Path(sys.argv[1]), sys.argv[2:]
total = 0
checks = collections.Counter()
listing = {}
for role in roles:
    text = (out / f"{role}.log").read_text(errors="replace")
    rc = int((out / f"{role}.rc").read_text().strip() or 1)
    closing = re.findall(r"^=+ (.*?) =+$", text, re.M)
    counted = re.findall(r"(\d+) (?:failures?|errors?)\b", closing[-1] if closing else "")
    failed = sum(int(n) for n in counted)
    if "\nFailures:\n" in text:
        listed = text.split("\nFailures:\n", 1)[1].split("\n\n", 1)[0]
        for check, n in re.findall(r"^\s*\S+ (.+): (\d+)$", listed, re.M):
            checks[check] += int(n)
    if rc != 0 and failed == 0:
        failed = 1
        checks[f"schemathesis exited {rc} (see {role}.log)"] += 1
    print(f"fuzz: {role}: {failed} failures/errors (exit {rc})", file=sys.stderr)
    total += failed
    # Which operation failed which check with which status, for the list below.
    if "= FAILURES =" in text:
        section = re.split(r"\n=+ [A-Z ]+ =+\n", text.split("= FAILURES =", 1)[1])[0]
        parts = re.split(r"\n_{3,} (.+?) _{3,}\n", section)
        for operation, body in zip(parts[1::2], parts[2::2]):
            for case in re.split(r"\n\d+\. Test Case ID: ", "\n" + body)[1:]:
                status = re.search(r"^\[(\d+)\] ", case, re.M)
                code = re.search(r'"code":"([^"]+)"', case)
                for check in re.findall(r"^- (ST\d+ .+)$", case, re.M):
                    key = (operation, check, status.group(1) if status else "-", code.group(1) if code else "-")
                    listing.setdefault(key, []).append(role)
for check, n in sorted(checks.items()):
    print(f"fuzz:   {check}: {n}", file=sys.stderr)
if listing:
    print("fuzz: distinct failures (operation: check, status, error code: runs); details in the logs", file=sys.stderr)
for (operation, check, status, code), runs in listing.items():
    print(f"fuzz:   {operation}: {check}, {status}, {code}: {' '.join(runs)}", file=sys.stderr)
print(total)
EOF
)

log "reports in $OUT"
echo "fuzz: $REQUESTS requests, $SERVER_ERRORS 5xx, schemathesis failures: $FAILURES"
if [ "$SERVER_ERRORS" != 0 ] || [ "$FAILURES" != 0 ] || [ "$ST_FAILED_RUNS" != 0 ]; then
    exit 1
fi
