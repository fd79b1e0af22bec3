import { Gauge, type Registry } from 'prom-client';
import { METRIC_PREFIX } from '../../system/metrics-registry.js';

/**
 * A worker's admission (worker/admission.ts, docs/adr/0044-one-door-per-concern.md) as gauges:
 * `meerkat_worker_slots_held` against `meerkat_worker_slots_held_limit` (WORKER_MAX_HELD_SLOTS), and
 * `meerkat_worker_admission{counter}`: checks under way (against `meerkat_worker_checks_limit`, WORKER_CONCURRENCY),
 * slots waiting for a check place, checked results waiting for their write. A worker at its held limit takes no
 * more, and the slots nobody takes are shed and counted (docs/adr/0040-overload-is-shed.md).
 */
export function registerAdmissionMetrics(
  registry: Registry,
  admission: {
    limits: { heldSlots: number; checks: number };
    state(): { held: number; checking: number; waitingForCheck: number; awaitingWrite: number };
  },
): void {
  new Gauge({
    name: `${METRIC_PREFIX}worker_slots_held`,
    help: 'Scheduled slots and runs this worker holds now: waiting for their time or a check place, checking, or writing.',
    registers: [registry],
    collect() {
      this.set(admission.state().held);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}worker_slots_held_limit`,
    help: 'WORKER_MAX_HELD_SLOTS: the slots this worker holds at most before it takes no more.',
    registers: [registry],
  }).set(admission.limits.heldSlots);
  new Gauge({
    name: `${METRIC_PREFIX}worker_admission`,
    help: 'What the held slots of this worker are doing: checking, waiting_for_check, awaiting_write.',
    labelNames: ['counter'],
    registers: [registry],
    collect() {
      const state = admission.state();
      this.set({ counter: 'checking' }, state.checking);
      this.set({ counter: 'waiting_for_check' }, state.waitingForCheck);
      this.set({ counter: 'awaiting_write' }, state.awaitingWrite);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}worker_checks_limit`,
    help: 'WORKER_CONCURRENCY: the checks this worker has under way at most.',
    registers: [registry],
  }).set(admission.limits.checks);
}
