import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../hub/src/db/database.js';
import type { MonitorChange, MonitorDependant } from '../../hub/src/monitors/monitor-dependants.js';
import type { MonitorSchemaMigration } from '../../hub/src/monitors/monitor-schema-migrations.js';
import { createMonitorService } from '../../hub/src/monitors/monitor.service.js';
import { monitorDefinitionSchema } from '../../hub/src/contract/monitor-definition.js';
import { databaseEngines } from '../harness/engines.js';
import { validMonitor } from './fixtures.js';
import { jsonColumn } from '../../hub/src/db/json-column.js';

/** A test-only schema 0.9 that spelled the frequency as `intervalMinutes`. */
const upgradeFrom09: MonitorSchemaMigration = {
  from: '0.9',
  to: '1.0',
  migrate: ({ intervalMinutes, ...rest }) => ({
    ...rest,
    frequency: { every: intervalMinutes, unit: 'MINUTE' },
  }),
};

const clock = { now: () => new Date() };

describe.each(databaseEngines)('the monitor service on $name', (engine) => {
  let db: Db;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ db, dispose } = await engine.open());
  });
  afterAll(() => dispose());
  // The service writes only monitors (the dependants below record in memory): each test starts without any.
  beforeEach(async () => {
    await db.deleteFrom('monitors').execute();
  });

  async function storeOldMonitor(id: string, schemaVersion: string) {
    const { frequency, ...rest } = validMonitor({ name: id });
    await db
      .insertInto('monitors')
      .values({
        organization_id: 'acme',
        id,
        project: 'shop',
        environment: 'production',
        name: id,
        schema_version: schemaVersion,
        definition: jsonColumn({ ...rest, version: schemaVersion, intervalMinutes: 7 }),
        updated_at: new Date('2025-01-01T00:00:00Z'),
      })
      .execute();
  }

  /** The row as stored, with its xmin: any UPDATE of the row, even one that changes nothing, gives a new xmin. */
  async function storedRow(id: string) {
    const { rows } = await sql<{
      xmin: string;
      schema_version: string;
      updated_at: Date;
      definition: unknown;
    }>`
      select xmin::text as xmin, schema_version, updated_at, definition from monitors where id = ${id}`.execute(
      db,
    );
    return rows[0];
  }

  it('answers an older stored monitor upgraded on version=latest, without writing it or telling dependants', async () => {
    const changes: MonitorChange[] = [];
    const monitors = createMonitorService({
      db,
      clock,
      locations: ['default'],
      schemaMigrations: [upgradeFrom09],
      dependants: [{ name: 'recorder', sync: (_tx, change) => Promise.resolve(void changes.push(change)) }],
    });
    await storeOldMonitor('legacy', '0.9');
    const before = await storedRow('legacy');
    const query = { project: 'shop', environment: 'production', name: 'legacy' };

    const asStored = await monitors.getByName('acme', query);
    expect(asStored).toMatchObject({ version: '0.9', intervalMinutes: 7 });

    const upgraded = await monitors.getByName('acme', { ...query, version: 'latest' });
    expect(upgraded).toMatchObject({ version: '1.0', frequency: { every: 7, unit: 'MINUTE' } });
    expect(upgraded).not.toHaveProperty('intervalMinutes');
    expect(upgraded.updatedAt).toBe('2025-01-01T00:00:00.000Z');
    const { id: _id, createdAt: _created, updatedAt: _updated, ...definition } = upgraded;
    expect(monitorDefinitionSchema.safeParse(definition).success).toBe(true);

    expect(await storedRow('legacy')).toEqual(before);
    expect(before).toMatchObject({ schema_version: '0.9', definition: { intervalMinutes: 7 } });
    expect(changes).toEqual([]);
  });

  it('reads a current monitor on version=latest without writing it', async () => {
    const monitors = createMonitorService({ db, clock, locations: ['default'] });
    const { monitor } = await monitors.create(
      'acme',
      monitorDefinitionSchema.parse(validMonitor({ name: 'current' })),
    );
    const before = await storedRow(monitor.id);
    const query = { project: monitor.project, environment: monitor.environment, name: 'current' };
    expect(await monitors.getByName('acme', { ...query, version: 'latest' })).toEqual(monitor);
    expect(await storedRow(monitor.id)).toEqual(before);
  });

  it('refuses to upgrade from a version no migration starts at', async () => {
    const monitors = createMonitorService({
      db,
      clock,
      locations: ['default'],
      schemaMigrations: [upgradeFrom09],
    });
    await storeOldMonitor('ancient', '0.5');
    await expect(
      monitors.getByName('acme', {
        project: 'shop',
        environment: 'production',
        name: 'ancient',
        version: 'latest',
      }),
    ).rejects.toThrow('no migration path from monitor schema version 0.5 to 1.0');
  });

  it('hands each dependant the change inside the transaction, and a dependant that refuses undoes the upsert', async () => {
    const seen: MonitorChange[] = [];
    const recorder: MonitorDependant = {
      name: 'recorder',
      sync: (_tx, change) => Promise.resolve(void seen.push(change)),
    };
    const refuser: MonitorDependant = {
      name: 'refuser',
      sync: (_tx, change) =>
        change.kind === 'upsert' && change.monitor.name === 'refused'
          ? Promise.reject(new Error('no integration'))
          : Promise.resolve(),
    };
    const monitors = createMonitorService({
      db,
      clock,
      locations: ['default'],
      dependants: [recorder, refuser],
    });
    const definition = monitorDefinitionSchema.parse(validMonitor({ name: 'kept' }));

    await monitors.upsert('acme', 'kept', definition);
    await monitors.upsert('acme', 'kept', definition);
    await monitors.upsert('acme', 'kept', { ...definition, frequency: { every: 9, unit: 'MINUTE' } });
    await monitors.remove('acme', 'kept');
    expect(seen.map((c) => [c.kind, c.kind === 'upsert' ? c.previous?.frequency.every : undefined])).toEqual([
      ['upsert', undefined],
      ['upsert', 5],
      ['delete', undefined],
    ]);

    const refused = monitorDefinitionSchema.parse(validMonitor({ name: 'refused' }));
    await expect(monitors.upsert('acme', 'refused', refused)).rejects.toThrow('no integration');
    expect(await db.selectFrom('monitors').selectAll().execute()).toEqual([]);
  });
});
