import { Gauge, type Registry } from 'prom-client';
import { METRIC_PREFIX } from '../../system/metrics-registry.js';

/**
 * `meerkat_worker_slots_held` and `meerkat_worker_slots_held_limit`: the slots this worker holds now (waiting for
 * their time or a check place, checking, or waiting for their write) and WORKER_MAX_HELD_SLOTS. A worker at its
 * limit takes no more, and the slots nobody takes are shed and counted (docs/adr/0040-overload-is-shed.md).
 */
export function registerHeldSlotsMetric(registry: Registry, held: () => number, limit: number): void {
  new Gauge({
    name: `${METRIC_PREFIX}worker_slots_held`,
    help: 'Scheduled slots this worker holds now: waiting for their time or a check place, checking, or writing.',
    registers: [registry],
    collect() {
      this.set(held());
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}worker_slots_held_limit`,
    help: 'WORKER_MAX_HELD_SLOTS: the slots this worker holds at most before it takes no more.',
    registers: [registry],
  }).set(limit);
}
