import { dayPartitionsOf } from '../db/day-partitions.js';

/** `runs` is partitioned by day of `created_at` (docs/adr/0021-bounded-run-storage.md): runs_pYYYYMMDD. */
export const runPartitions = dayPartitionsOf('runs', 'created_at');
