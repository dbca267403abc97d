#!/bin/bash
# The full database walk against the offline verifier with PostgreSQL and dozor on separate
# cores (docs/PERFORMANCE.md, "pinned"): every process of the cluster on core 1, `dozor verify`
# of the database and of the same ledger's inspection export each on core 0, side by side,
# PAIRS times; prints each pair's seconds (wall, user, system) and ratio, then the median ratio.
#
# Usage: deploy/bench/pinned-verify.sh DATABASE_URL EXPORT_DIR OPERATOR_KEY [PAIRS]
# The ledger and its export are those `dozor bench verify --entries 1000000` leaves (its output
# names the export and the operator key); the cluster must be running and reachable over TCP
# (over the cluster's Unix socket the reading thread waits on the socket's small send buffer).
set -euo pipefail
url=${1:?DATABASE_URL}
export_dir=${2:?EXPORT_DIR}
key=${3:?OPERATOR_KEY}
pairs=${4:-5}
dozor=${DOZOR:-target/release/dozor}
cores=$(nproc --all)
if [ "$cores" -lt 2 ]; then
    echo "pinned-verify: needs two cores, this machine has $cores" >&2
    exit 1
fi
port=$(sed -E 's|.*:([0-9]+)/.*|\1|' <<<"$url")
postmaster=$(pgrep -o -f "postgres.*(-p $port|port=$port)" || true)
if [ -z "$postmaster" ]; then
    echo "pinned-verify: no PostgreSQL found listening on port $port" >&2
    exit 1
fi
# The postmaster and every process it started; backends started later inherit its core.
for pid in $postmaster $(pgrep -P "$postmaster"); do
    taskset -pc 1 "$pid" >/dev/null
done
timed() {
    /usr/bin/time -f "%e %U %S" taskset -c 0 "$dozor" verify "$@" --operator-key "$key" \
        2>&1 >/dev/null | tail -1
}
ratios=()
for i in $(seq "$pairs"); do
    database=$(DATABASE_URL=$url timed)
    offline=$(timed "$export_dir")
    ratio=$(awk -v d="${database%% *}" -v o="${offline%% *}" 'BEGIN { printf "%.3f", d / o }')
    ratios+=("$ratio")
    echo "pair $i: database [$database] offline [$offline] ratio $ratio"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{ r[NR] = $1 } END {
    m = (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
    printf "median ratio %.3f of %d pairs\n", m, NR }'
