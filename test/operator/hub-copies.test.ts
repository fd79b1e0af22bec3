import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { Monitor } from '../../hub/src/contract/monitor-definition.js';
import { createHubCopies } from '../../operator/src/hub-copies.js';

const log = pino({ level: 'silent' });
const monitor = (id: string) => ({ id, name: id }) as unknown as Monitor;

/** A listing that answers when the test says so. */
function heldListing(monitors: Monitor[]) {
  let answer: (() => void) | undefined;
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    list: () => {
      calls += 1;
      return new Promise<Monitor[]>((resolve) => {
        answer = () => resolve(monitors);
      });
    },
    answer: () => answer?.(),
  };
}

describe('the hub’s copies as the operator last listed them', () => {
  it('knows nothing before a listing, then each listed copy, and null for a monitor the listing lacks', async () => {
    const copies = createHubCopies({ listMonitors: () => Promise.resolve([monitor('a')]), log });
    expect(await copies.copyOf('a')).toBeUndefined();
    copies.refresh();
    expect(await copies.copyOf('a')).toMatchObject({ id: 'a' });
    expect(await copies.copyOf('b')).toBeNull();
    await copies.stop();
  });

  it('a pass during a listing waits for it; one listing serves refreshes asked meanwhile', async () => {
    const listing = heldListing([monitor('a')]);
    const copies = createHubCopies({ listMonitors: listing.list, log });
    copies.refresh();
    const pending = copies.copyOf('a');
    copies.refresh();
    listing.answer();
    expect(await pending).toMatchObject({ id: 'a' });
    expect(listing.calls).toBe(1);
    await copies.stop();
  });

  it('a monitor written after a listing started is unknown until the next listing', async () => {
    const listing = heldListing([monitor('a'), monitor('b')]);
    const copies = createHubCopies({ listMonitors: listing.list, log });
    copies.refresh();
    copies.forget('a'); // put while the listing was under way: it may list the copy from before the write
    listing.answer();
    expect(await copies.copyOf('a')).toBeUndefined();
    expect(await copies.copyOf('b')).toMatchObject({ id: 'b' });
    copies.refresh();
    listing.answer();
    expect(await copies.copyOf('a')).toMatchObject({ id: 'a' });
    await copies.stop();
  });

  it('a listing that fails leaves nothing known, so each pass asks the hub', async () => {
    let fail = false;
    const copies = createHubCopies({
      listMonitors: () => (fail ? Promise.reject(new Error('429')) : Promise.resolve([monitor('a')])),
      log,
    });
    copies.refresh();
    expect(await copies.copyOf('a')).toMatchObject({ id: 'a' });
    fail = true;
    copies.refresh();
    expect(await copies.copyOf('a')).toBeUndefined();
    await copies.stop();
  });
});
