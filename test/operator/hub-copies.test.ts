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

  it('a monitor put after a listing started is the hub’s answer to the PUT, not the listing’s older copy', async () => {
    const listing = heldListing([monitor('a'), monitor('b')]);
    const copies = createHubCopies({ listMonitors: listing.list, log });
    copies.refresh();
    const stored = { ...monitor('a'), name: 'as put' };
    // Put while the listing was under way: it may list the copy from before the write.
    await copies.put('a', () => Promise.resolve(stored));
    listing.answer();
    expect(await copies.copyOf('a')).toMatchObject({ name: 'as put' });
    expect(await copies.copyOf('b')).toMatchObject({ id: 'b' });
    // A listing begun after the answer is as new: it says what the hub holds now.
    copies.refresh();
    listing.answer();
    expect(await copies.copyOf('a')).toMatchObject({ name: 'a' });
    await copies.stop();
  });

  it('while a PUT is under way, and once it failed, the id is unknown until a listing begun after it', async () => {
    const listing = heldListing([monitor('a')]);
    const copies = createHubCopies({ listMonitors: listing.list, log });
    copies.refresh();
    listing.answer();
    let fail: (error: Error) => void = () => {};
    const put = copies.put('a', () => new Promise<Monitor>((_resolve, reject) => (fail = reject)));
    expect(await copies.copyOf('a')).toBeUndefined();
    // A listing begun while the PUT was under way may hold the copy from before it.
    copies.refresh();
    listing.answer();
    fail(new Error('the hub did not answer'));
    await expect(put).rejects.toThrow('did not answer');
    expect(await copies.copyOf('a')).toBeUndefined();
    copies.refresh();
    listing.answer();
    expect(await copies.copyOf('a')).toMatchObject({ id: 'a' });
    await copies.stop();
  });

  it('a PUT’s answer stays known when the listings fail', async () => {
    const copies = createHubCopies({ listMonitors: () => Promise.reject(new Error('429')), log });
    await copies.put('a', () => Promise.resolve(monitor('a')));
    copies.refresh();
    expect(await copies.copyOf('a')).toMatchObject({ id: 'a' });
    expect(await copies.copyOf('b')).toBeUndefined();
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
