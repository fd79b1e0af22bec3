// `meerkat operator` out of a cluster, against an API server it cannot verify or reach (issue 34): one line
// naming the cause and the setting, exit non-zero, no stack. The API servers are real TLS servers on loopback,
// with certificates from a CA of the test's own (test/runner/test-certificates.ts).
import { createServer, type Server } from 'node:https';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, runMeerkat, startMeerkat } from '../harness/processes.js';
import {
  createTestAuthority,
  daysFromNow,
  type KeyPair,
  type TestAuthority,
} from '../runner/test-certificates.js';

let dir: string;
let authority: TestAuthority;
let otherAuthority: TestAuthority;
const servers: Server[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'meerkat-operator-startup-'));
  authority = createTestAuthority('API server CA');
  otherAuthority = createTestAuthority('Some other CA');
});
afterAll(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  authority.dispose();
  otherAuthority.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** An API server that answers /version as kube-apiserver does, and 403 to anything else. */
async function apiServer(pair: KeyPair): Promise<string> {
  const server = createServer(pair, (request, response) => {
    const ok = request.url === '/version';
    response.writeHead(ok ? 200 : 403, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify(ok ? { major: '1', minor: '20', gitVersion: 'v1.20.2' } : { kind: 'Status' }),
    );
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `https://127.0.0.1:${(server.address() as { port: number }).port}`;
}

const leaf = (names: string[]) =>
  authority.issue({
    commonName: 'kube-apiserver',
    names,
    notBefore: daysFromNow(-1),
    notAfter: daysFromNow(1),
  });

function kubeconfig(server: string, ca: string): string {
  const file = join(dir, `kubeconfig-${servers.length}-${Math.random().toString(36).slice(2)}.yaml`);
  const data = Buffer.from(ca).toString('base64');
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: laptop',
      `  cluster: { server: '${server}', certificate-authority-data: ${data} }`,
      'contexts:',
      '- name: laptop',
      '  context: { cluster: laptop, user: me }',
      'current-context: laptop',
      'users:',
      '- name: me',
      '  user: { token: not-a-secret }',
      '',
    ].join('\n'),
  );
  return file;
}

const operatorSettings = (KUBECONFIG: string) => ({
  KUBECONFIG,
  MEERKAT_URL: 'http://127.0.0.1:9',
  MEERKAT_API_KEY: 'mk_x',
  HOME: dir,
  STARTUP_WAIT_SECONDS: '1',
});

/** `meerkat operator` with a kubeconfig for `server` trusting `ca`, run until it exits. */
const operatorWith = (server: string, ca: string) =>
  runMeerkat(['operator'], operatorSettings(kubeconfig(server, ca)));

describe('meerkat operator and an API server it cannot use', { timeout: 120_000 }, () => {
  it('names the certificate-authority and KUBECONFIG when the server’s certificate is signed by another CA', async () => {
    const server = await apiServer(leaf(['127.0.0.1']));
    const { code, stderr } = await operatorWith(server, otherAuthority.certificate);
    expect(code).toBe(2);
    expect(stderr).toBe(
      `meerkat: invalid setting KUBECONFIG: cannot verify the API server ${server} of cluster "laptop": unable ` +
        'to verify the first certificate (UNABLE_TO_VERIFY_LEAF_SIGNATURE); its certificate-authority must be the ' +
        'CA that signed the server’s certificate\n',
    );
  });

  it('says so when the certificate is for another address', async () => {
    const server = await apiServer(leaf(['kube.example']));
    const { code, stderr } = await operatorWith(server, authority.certificate);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /^meerkat: invalid setting KUBECONFIG: cannot verify the API server .*\(ERR_TLS_CERT_ALTNAME_INVALID\)/,
    );
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('gives up on an address nothing answers after STARTUP_WAIT_SECONDS, in one line', async () => {
    const server = `https://127.0.0.1:${await freePort()}`;
    const { code, stderr } = await operatorWith(server, authority.certificate);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      new RegExp(
        `^meerkat: invalid setting KUBECONFIG: cannot reach the API server ${server} of cluster "laptop": ` +
          'connect ECONNREFUSED .* \\(gave up after 1 s, STARTUP_WAIT_SECONDS\\)\\n$',
      ),
    );
  });

  it('refuses an http:// server in one line', async () => {
    const { code, stderr } = await operatorWith('http://127.0.0.1:9', authority.certificate);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /^meerkat: invalid setting KUBECONFIG: cannot use the API server http:\/\/127\.0\.0\.1:9 .*HTTP/,
    );
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('goes on past the check when the certificate-authority is right', async () => {
    const server = await apiServer(leaf(['127.0.0.1']));
    const operator = await startMeerkat(
      ['operator'],
      {
        ...operatorSettings(kubeconfig(server, authority.certificate)),
        LOG_LEVEL: 'info',
        HOST: '127.0.0.1',
        METRICS_PORT: String(await freePort()),
        HEALTH_PORT: String(await freePort()),
        OPERATOR_LEADER_ELECTION: 'false',
      },
      /operator serving metrics and probes/,
    );
    await operator.stop();
    expect(operator.output()).not.toMatch(/invalid setting/);
  });
});
