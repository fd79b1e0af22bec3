// The outbox repository and its drain on both engines: PostgreSQL (workers, the hub) and PGlite (`meerkat dev`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../hub/src/db/database.js';
import { drainNotificationOutbox } from '../../hub/src/notifications/notification-outbox.js';
import {
  countPendingDeliveries,
  recordDeliveries,
} from '../../hub/src/notifications/notification-outbox.repository.js';
import { databaseEngines } from '../harness/engines.js';
import { recordingDeliveryQueue } from './notification-fixtures.js';

const job = (eventId: string) => ({ organizationId: 'acme', eventId, channelKey: 'webhook', ruleId: 'nr_1' });

describe.each(databaseEngines)('the notification outbox on $name', (engine) => {
  let db: Db;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    ({ db, dispose } = await engine.open());
  });
  afterAll(() => dispose());

  it('keeps nothing of a transaction that rolled back', async () => {
    await expect(
      db.transaction().execute(async (tx) => {
        await recordDeliveries(tx, [job('evt_rolled_back')]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await countPendingDeliveries(db)).toBe(0);
  });

  it('hands committed rows over oldest first, in batches, and deletes them', async () => {
    const ids = Array.from({ length: 130 }, (_, i) => `evt_${String(i).padStart(3, '0')}`);
    await db.transaction().execute((tx) => recordDeliveries(tx, ids.map(job)));
    expect(await countPendingDeliveries(db)).toBe(130);
    const deliveries = recordingDeliveryQueue();
    expect(await drainNotificationOutbox(db, deliveries)).toBe(130);
    expect(deliveries.jobs).toEqual(ids.map(job));
    expect(await countPendingDeliveries(db)).toBe(0);
  });

  it('keeps the rows when the queue refuses them, for the next drain', async () => {
    await db.transaction().execute((tx) => recordDeliveries(tx, [job('evt_refused')]));
    const refusing = recordingDeliveryQueue();
    refusing.enqueue = () => Promise.reject(new Error('Redis is away'));
    await expect(drainNotificationOutbox(db, refusing)).rejects.toThrow('Redis is away');
    expect(await countPendingDeliveries(db)).toBe(1);
    const deliveries = recordingDeliveryQueue();
    expect(await drainNotificationOutbox(db, deliveries)).toBe(1);
    expect(deliveries.jobs).toEqual([job('evt_refused')]);
  });
});
