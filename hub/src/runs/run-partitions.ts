import { dayPartitionsOf } from '../db/day-partitions.js';

/** `runs` is partitioned by day of `created_at` (docs/adr/0021-bounded-run-storage.md): runs_pYYYYMMDD. */
export const runPartitions = dayPartitionsOf('runs', 'created_at');

/** `run_folds` is partitioned by day of `hour` (docs/adr/0061-fold-old-passing-runs.md) and kept as long as runs. */
export const runFoldPartitions = dayPartitionsOf('run_folds', 'hour');
