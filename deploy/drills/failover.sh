#!/usr/bin/env bash
# The failover drill on this machine: a primary and a synchronous standby started from the
# PostgreSQL binaries (loopback only, removed afterwards), `dozor serve` on the multi-host URL,
# four tables submitting, SIGKILL of the primary's postmaster, promotion of the standby. It
# checks every receipt, `dozor verify` and the consistency of the checkpoints before and after,
# and prints how long the promotion and the first receipt from the new primary took.
set -euo pipefail
cd "$(dirname "$0")/../.."
for run in $(seq "${1:-1}"); do
    cargo test -q -p dozor --test failover -- --nocapture 2>&1 | grep -E '^failover drill|test result|panicked'
done
