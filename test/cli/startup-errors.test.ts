// Start-up failures a person fixes with a setting end the process with one line naming it, exit non-zero, and no
// stack trace (issue 34). Real processes: `meerkat dev` beside a real listener on its port, `meerkat operator`
// on a machine without a cluster.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, runMeerkat } from '../harness/processes.js';

let home: string;
let taken: Server;
let takenPort: number;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'meerkat-startup-'));
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  takenPort = (taken.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((resolve) => taken.close(resolve));
  rmSync(home, { recursive: true, force: true });
});

// `meerkat dev` opens its embedded database before it listens: minutes on an overloaded machine.
describe('a port in use', { timeout: 600_000 }, () => {
  const dev = async (ports: { PORT: number; METRICS_PORT: number }) =>
    runMeerkat(['dev'], {
      HOME: home,
      MEERKAT_DATA_DIR: mkdtempSync(join(home, 'data-')),
      HOST: '127.0.0.1',
      PORT: String(ports.PORT),
      METRICS_PORT: String(ports.METRICS_PORT),
    });

  it('names the metrics port and METRICS_PORT in one line', async () => {
    const { code, stderr } = await dev({ PORT: await freePort(), METRICS_PORT: takenPort });
    expect(code).toBe(1);
    expect(stderr).toBe(
      `meerkat: cannot listen: 127.0.0.1:${takenPort} is already in use (another meerkat or program listens ` +
        'there); set METRICS_PORT to a free port\n',
    );
  });

  it('names the API port and PORT in one line', async () => {
    const { code, stderr } = await dev({ PORT: takenPort, METRICS_PORT: await freePort() });
    expect(code).toBe(1);
    expect(stderr).toMatch(
      new RegExp(`^meerkat: cannot listen: 127\\.0\\.0\\.1:${takenPort} is .*; set PORT to`),
    );
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});

describe('meerkat operator without a cluster', { timeout: 300_000 }, () => {
  const operatorSettings = { MEERKAT_URL: 'http://127.0.0.1:9', MEERKAT_API_KEY: 'mk_x', HOME: home };

  it('stops with one line naming KUBECONFIG when there is no kubeconfig and no pod', async () => {
    const { code, stderr } = await runMeerkat(['operator'], operatorSettings);
    expect(code).toBe(2);
    expect(stderr).toBe(
      'meerkat: invalid setting KUBECONFIG: no cluster to connect to: not in a pod (no service account) and no ' +
        '~/.kube/config; set it to a kubeconfig file\n',
    );
  });

  it('names the KUBECONFIG file that does not exist', async () => {
    const missing = join(home, 'nowhere.yaml');
    const { code, stderr } = await runMeerkat(['operator'], { ...operatorSettings, KUBECONFIG: missing });
    expect(code).toBe(2);
    expect(stderr).toBe(`meerkat: invalid setting KUBECONFIG: no kubeconfig file at ${missing}\n`);
  });
});

describe('meerkat worker --locations', { timeout: 300_000 }, () => {
  it('refuses a location LOCATIONS does not name, listing those it does, job locations among them', async () => {
    const { code, stderr } = await runMeerkat(['worker', '--locations', 'default,nowhere'], {
      HOME: home,
      DATABASE_URL: 'postgres://127.0.0.1:9/none',
      REDIS_URL: 'redis://127.0.0.1:9',
      SECRETS_KEY: 'ab'.repeat(32),
      LOCATIONS: JSON.stringify([
        { name: 'default', executor: 'worker' },
        {
          name: 'eu-west',
          executor: 'job',
          job: {
            namespace: 'runners',
            image: 'meerkat:test',
            hubUrl: 'http://127.0.0.1:9',
            apiKeySecret: { name: 'runner', key: 'api-key' },
          },
        },
      ]),
    });
    expect(code).toBe(2);
    expect(stderr).toContain(
      'meerkat worker: --locations: nowhere not among the locations of LOCATIONS (default, eu-west)',
    );
  });
});
