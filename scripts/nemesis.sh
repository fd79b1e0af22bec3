#!/usr/bin/env bash
# The randomized fault test over many seeds (docs/testing.md, "The randomized fault test"): one vitest run per
# seed, stopping at the first that fails, whose seed it prints so the failure replays alone.
#   bash scripts/nemesis.sh                    seeds 1 to 20, 6 faults each
#   NEMESIS_SEEDS="7 42" NEMESIS_FAULTS=3 bash scripts/nemesis.sh
#   NEMESIS_TARGET=dev bash scripts/nemesis.sh  the same over `meerkat dev`; `both` runs each seed over both
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${NEMESIS_SEEDS:-$(seq 1 20)}
export NEMESIS_FAULTS=${NEMESIS_FAULTS:-6}
case ${NEMESIS_TARGET:-split} in
  split) files=test/faults/randomized-faults.test.ts ;;
  dev) files=test/faults/randomized-dev-faults.test.ts ;;
  both) files="test/faults/randomized-faults.test.ts test/faults/randomized-dev-faults.test.ts" ;;
  *)
    echo "NEMESIS_TARGET must be split, dev or both, not ${NEMESIS_TARGET}" >&2
    exit 2
    ;;
esac
passed=0
for seed in $seeds; do
  for file in $files; do
    if [ "$file" = test/faults/randomized-faults.test.ts ]; then
      echo "[nemesis] seed $seed, $NEMESIS_FAULTS faults"
    else
      echo "[nemesis] seed $seed, $NEMESIS_FAULTS faults, $file"
    fi
    if ! NEMESIS_SEED=$seed npx vitest run "$file"; then
      echo "[nemesis] seed $seed failed after $passed passed; replay: NEMESIS_SEED=$seed NEMESIS_FAULTS=$NEMESIS_FAULTS npx vitest run $file"
      exit 1
    fi
  done
  passed=$((passed + 1))
done
echo "[nemesis] $passed seeds passed in a row: $(echo $seeds | tr '\n' ' ')"
