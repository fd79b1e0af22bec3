#!/usr/bin/env bash
# The randomized fault test over many seeds (docs/testing.md, "The randomized fault test"): one vitest run per
# seed, stopping at the first that fails, whose seed it prints so the failure replays alone.
#   bash scripts/nemesis.sh                    seeds 1 to 20, 6 faults each
#   NEMESIS_SEEDS="7 42" NEMESIS_FAULTS=3 bash scripts/nemesis.sh
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${NEMESIS_SEEDS:-$(seq 1 20)}
export NEMESIS_FAULTS=${NEMESIS_FAULTS:-6}
passed=0
for seed in $seeds; do
  echo "[nemesis] seed $seed, $NEMESIS_FAULTS faults"
  if ! NEMESIS_SEED=$seed npx vitest run test/faults/randomized-faults.test.ts; then
    echo "[nemesis] seed $seed failed after $passed passed; replay: NEMESIS_SEED=$seed NEMESIS_FAULTS=$NEMESIS_FAULTS npx vitest run test/faults/randomized-faults.test.ts"
    exit 1
  fi
  passed=$((passed + 1))
done
echo "[nemesis] $passed seeds passed in a row: $(echo $seeds | tr '\n' ' ')"
