// The worker's admission (hub/src/worker/admission.ts): the one bound on what a worker holds and checks, and the
// counters its metric shows. How the queues use it is in run-queue-conformance.test.ts and the fault tier
// (worker-overload.test.ts).
import { describe, expect, it } from 'vitest';
import { createAdmission } from '../../hub/src/worker/admission.js';

const superseded = () => new Error('superseded');

describe('a worker’s admission', () => {
  it('holds up to its limit, and a job alone larger than it only while it holds nothing', () => {
    const admission = createAdmission({ checks: 1, heldSlots: 4 });
    expect(admission.tryHold(3, superseded, 'first')).toBe(true);
    expect(admission.tryHold(2, superseded, 'first')).toBe(false);
    expect(admission.tryHold(1, superseded, 'first')).toBe(true);
    admission.release(4);
    expect(admission.tryHold(10, superseded, 'first')).toBe(true);
    expect(admission.state().held).toBe(10);
  });

  it('makes room by shedding slots waiting for a check, the largest organization’s oldest first', async () => {
    const admission = createAdmission({ checks: 1, heldSlots: 4 });
    let finish = () => {};
    const running = admission.checks.run(() => new Promise<void>((resolve) => (finish = resolve)), 'a');
    expect(admission.tryHold(4, superseded, 'first')).toBe(true);
    const outcomes: string[] = [];
    const waiter = (org: string, name: string) =>
      admission.checks
        .run(() => Promise.resolve(outcomes.push(`${name} checked`)), org, true)
        .catch(() => outcomes.push(`${name} shed`));
    const waiting = [waiter('a', 'a1'), waiter('b', 'b1'), waiter('b', 'b2')];
    expect(admission.state()).toMatchObject({ checking: 1, waitingForCheck: 3 });
    expect(admission.tryHold(1, superseded, 'first')).toBe(true);
    finish();
    await running;
    await Promise.all(waiting);
    expect(outcomes).toEqual(['b1 shed', 'a1 checked', 'b2 checked']);
  });

  it('sheds nothing for a job it hands back anyway', async () => {
    const admission = createAdmission({ checks: 1, heldSlots: 2 });
    let finish = () => {};
    const running = admission.checks.run(() => new Promise<void>((resolve) => (finish = resolve)));
    expect(admission.tryHold(2, superseded, 'first')).toBe(true);
    let shed = false;
    const waiting = admission.checks.run(() => Promise.resolve(), 'a', true).catch(() => (shed = true));
    // Two over the limit, one sheddable: shedding it would not make room.
    expect(admission.tryHold(2, superseded, 'first')).toBe(false);
    finish();
    await running;
    await waiting;
    expect(shed).toBe(false);
  });

  it('counts results waiting for their write, and says when a full worker may take jobs again', async () => {
    const admission = createAdmission({ checks: 2, heldSlots: 4 });
    let written = () => {};
    const write = admission.awaitWrite(() => new Promise<void>((resolve) => (written = resolve)));
    expect(admission.state().awaitingWrite).toBe(1);
    written();
    await write;
    expect(admission.state().awaitingWrite).toBe(0);
    expect(admission.tryHold(4, superseded, 'first')).toBe(true);
    expect(admission.hasRoom('later')).toBe(false);
    admission.release(2);
    expect(admission.hasRoom('later')).toBe(true);
  });

  it('keeps a tenth of its limit for the first lane: later lanes stop short of it, and resume at half', () => {
    const admission = createAdmission({ checks: 1, heldSlots: 20 });
    expect(admission.tryHold(18, superseded, 'later')).toBe(true);
    // 19 is past the later lanes' 18; the first lane's batches still fit, up to the whole limit.
    expect(admission.tryHold(1, superseded, 'later')).toBe(false);
    expect(admission.tryHold(2, superseded, 'first')).toBe(true);
    expect(admission.tryHold(1, superseded, 'first')).toBe(false);
    expect(admission.hasRoom('first')).toBe(false);
    admission.release(2);
    expect(admission.hasRoom('first')).toBe(true);
    expect(admission.hasRoom('later')).toBe(false);
    admission.release(8);
    expect(admission.hasRoom('later')).toBe(true);
  });
});
