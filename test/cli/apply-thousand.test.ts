// GitOps at the default limits (issue 33): `meerkat apply` of 1,000 new documents against a real hub whose rate
// limits are the defaults (20 a second, burst 100) completes, and the hub answers no 429 on the way: the client
// paces itself by the hub's RateLimit headers (docs/adr/0028-quotas-and-bulk-writes.md).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadSettings } from '../../hub/src/config/settings.js';
import { rateLimitSettingsOf } from '../../hub/src/server/rate-limit.js';
import { answeredStatuses, capturedLog } from '../harness/captured-log.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { runMeerkat } from '../harness/processes.js';
import { validMonitor } from '../monitors/fixtures.js';

const DOCUMENTS = 1_000;
const PER_FILE = 100;

describe('meerkat apply of 1,000 documents at the default rate limits', () => {
  let hub: TestHub;
  let work: string;
  const log = capturedLog();

  beforeAll(async () => {
    hub = await startTestHub({
      log: log.log,
      rateLimits: rateLimitSettingsOf(loadSettings({}, 'admin')),
    });
    work = mkdtempSync(join(tmpdir(), 'meerkat-apply-1000-'));
    for (let file = 0; file < DOCUMENTS / PER_FILE; file += 1) {
      const documents = Array.from({ length: PER_FILE }, (_, index) =>
        stringify(validMonitor({ name: `bulk-${file * PER_FILE + index}`, notifications: undefined })),
      );
      writeFileSync(join(work, `monitors-${file}.yaml`), documents.join('---\n'));
    }
  });
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await hub.close();
  });

  it('creates every monitor, and the hub refuses none of its requests', { timeout: 600_000 }, async () => {
    const started = Date.now();
    const result = await runMeerkat(['apply', '-f', work], {
      MEERKAT_URL: hub.url,
      MEERKAT_API_KEY: hub.keys.acmeEditor,
      MEERKAT_CONFIG: join(work, 'no-config.yaml'),
    });
    const seconds = (Date.now() - started) / 1000;
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(`${DOCUMENTS} monitor(s): ${DOCUMENTS} created, 0 changed`);
    expect(result.code).toBe(0);
    const statuses = answeredStatuses(log);
    expect(statuses.filter((status) => status === 429)).toEqual([]);
    const stored = await hub.db
      .selectFrom('monitors')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('organization_id', '=', 'acme')
      .executeTakeFirstOrThrow();
    expect(Number(stored.count)).toBe(DOCUMENTS);
    // A figure for the ADR, not an assertion: timing depends on the machine.
    console.info(`apply-thousand: ${statuses.length} requests in ${seconds.toFixed(1)} s, none refused`);
  });
});
