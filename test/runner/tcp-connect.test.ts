import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Assertion } from '../../hub/src/contract/assertion.js';
import type { MonitorDefinitionInput } from '../../hub/src/contract/monitor-definition.js';
import { createEgressPolicy } from '../../hub/src/egress/egress-policy.js';
import { createMonitorRunner } from '../../hub/src/runner/monitor-runner.js';
import { loopbackEgress } from '../harness/egress.js';
import { freePort } from '../harness/processes.js';
import { trackedCloser } from './broken-targets.js';
import { assertionNode, monitorOf, runContext, secretsOf } from './monitor-builders.js';
import { createTestAuthority, daysFromNow, type TestAuthority } from './test-certificates.js';

type TcpNodeInput = Extract<NonNullable<MonitorDefinitionInput['nodes']>[number], { type: 'TCP_CONNECT' }>;

const tcpNode = (port: number, more: Partial<TcpNodeInput> = {}): TcpNodeInput => ({
  id: 'port',
  type: 'TCP_CONNECT',
  host: '127.0.0.1',
  port,
  ...more,
});

async function listening(server: Server): Promise<{ port: number; close: () => Promise<void> }> {
  const close = trackedCloser(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, close };
}

describe('TCP_CONNECT against real TCP servers on loopback', () => {
  let ca: TestAuthority;
  let echo: Awaited<ReturnType<typeof listening>>;
  let banner: Awaited<ReturnType<typeof listening>>;
  let silent: Awaited<ReturnType<typeof listening>>;
  let tlsEcho: Awaited<ReturnType<typeof listening>>;
  const echoed: string[] = [];
  let runner: ReturnType<typeof createMonitorRunner>;

  beforeAll(async () => {
    ca = createTestAuthority();
    const pair = ca.issue({
      commonName: 'localhost',
      names: ['localhost', '127.0.0.1'],
      notBefore: daysFromNow(-1),
      notAfter: daysFromNow(30),
    });
    const echoOn = (socket: Socket) =>
      socket.on('data', (chunk: Buffer) => {
        echoed.push(chunk.toString());
        socket.write(chunk);
      });
    [echo, banner, silent, tlsEcho] = await Promise.all([
      listening(createServer(echoOn)),
      listening(createServer((socket) => socket.end('220 mail.example.test ESMTP ready\r\n'))),
      listening(createServer(() => undefined)),
      listening(createTlsServer(pair, echoOn)),
    ]);
    runner = createMonitorRunner({ egress: loopbackEgress, extraCaCertificates: [ca.certificate] });
  });
  afterAll(async () => {
    await runner.close();
    await Promise.all([echo.close(), banner.close(), silent.close(), tlsEcho.close()]);
    ca.dispose();
  });

  const run = (node: TcpNodeInput, assertions: Assertion[] = [], secrets = runContext()) =>
    runner.run(
      monitorOf(
        [node, ...(assertions.length === 0 ? [] : [assertionNode('checks', assertions)])],
        assertions.length === 0 ? [] : [['port', 'checks']],
      ),
      secrets,
    );

  it('passes when the port opens, with connect timed', async () => {
    const outcome = await run(tcpNode(echo.port));
    expect(outcome.errors).toEqual([]);
    const [step] = outcome.steps;
    expect(step?.request).toEqual({ method: 'TCP', url: `tcp://127.0.0.1:${echo.port}` });
    expect(typeof step?.timings?.connectMs).toBe('number');
    expect(step?.received).toBeUndefined();
  });

  it('sends, reads until the expected text and lets assertions judge the bytes', async () => {
    const outcome = await run(tcpNode(echo.port, { send: 'PING meerkat\r\n', expect: 'meerkat' }), [
      {
        nodeId: 'port',
        subject: 'text',
        predicate: { type: 'binary', operator: 'STARTS_WITH', expected: 'PING' },
      },
      {
        nodeId: 'port',
        subject: 'responseTime',
        predicate: { type: 'binary', operator: 'LESS_THAN', expected: 60000 },
      },
    ]);
    expect(outcome.errors).toEqual([]);
    expect(outcome.steps[0]?.received).toEqual({ bytes: 14, excerpt: 'PING meerkat\r\n' });
    expect(typeof outcome.steps[0]?.timings?.firstByteMs).toBe('number');
  });

  it('reads a banner the server sends first', async () => {
    const outcome = await run(tcpNode(banner.port, { expect: '220 ' }));
    expect(outcome.errors).toEqual([]);
    expect(outcome.steps[0]?.received?.excerpt).toBe('220 mail.example.test ESMTP ready\r\n');
  });

  it('fails as an assertion when the connection ends without the expected text', async () => {
    const outcome = await run(tcpNode(banner.port, { expect: '+OK' }));
    expect(outcome.errorClasses).toEqual(['assertion']);
    expect(outcome.errors[0]).toBe(
      `port: tcp://127.0.0.1:${banner.port}: the connection closed after 35 bytes without "+OK"`,
    );
    expect(outcome.steps[0]?.received?.bytes).toBe(35);
  });

  it('times out waiting for the expected text, saying so', async () => {
    const outcome = await run(tcpNode(silent.port, { expect: 'hello', timeout_ms: 200 }));
    expect(outcome.errorClasses).toEqual(['timeout']);
    expect(outcome.errors[0]).toContain('timed out after 200 ms waiting for "hello"');
  });

  it('fails with class connection on a closed port', async () => {
    const port = await freePort();
    const outcome = await run(tcpNode(port));
    expect(outcome.errorClasses).toEqual(['connection']);
    expect(outcome.errors[0]).toBe(`port: tcp://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`);
  });

  it('speaks TLS, records the facts and judges them', async () => {
    const outcome = await run(
      tcpNode(tlsEcho.port, { host: 'localhost', tls: true, send: 'hello', expect: 'hello' }),
      [
        {
          nodeId: 'port',
          subject: 'certificateExpiresInDays',
          predicate: { type: 'binary', operator: 'GREATER_THAN', expected: 14 },
        },
      ],
    );
    expect(outcome.errors).toEqual([]);
    const [step] = outcome.steps;
    expect(step?.request?.url).toBe(`tls://localhost:${tlsEcho.port}`);
    expect(step?.tls).toMatchObject({
      verified: true,
      issuer: 'CN=Meerkat Test CA',
      subject: 'CN=localhost',
    });
    expect(typeof step?.timings?.tlsMs).toBe('number');
  });

  it('fails on a certificate for another name unless verify_tls is false', async () => {
    const node = tcpNode(tlsEcho.port, { tls: true, server_name: 'db.example.test' });
    const verified = await run(node);
    expect(verified.errorClasses).toEqual(['tls']);
    expect(verified.errors[0]).toContain("Hostname/IP does not match certificate's altnames");
    const unverified = await run({ ...node, verify_tls: false });
    expect(unverified.errors).toEqual([]);
    expect(unverified.steps[0]?.tls).toMatchObject({
      verified: false,
      verifyError: 'ERR_TLS_CERT_ALTNAME_INVALID',
    });
  });

  it('sends a $secret and keeps its value out of the outcome', async () => {
    echoed.length = 0;
    const outcome = await run(
      tcpNode(echo.port, { send: { $secret: { ref: 'redis_auth' } }, expect: 'AUTH' }),
      [],
      runContext(secretsOf({ redis_auth: 'AUTH s3cr3t-value\r\n' })),
    );
    expect(outcome.errors).toEqual([]);
    expect(echoed.join('')).toBe('AUTH s3cr3t-value\r\n');
    expect(JSON.stringify(outcome)).not.toContain('s3cr3t-value');
  });

  it('is refused by the egress policy on the address it connects to', async () => {
    const strict = createMonitorRunner({ egress: createEgressPolicy() });
    try {
      const outcome = await strict.run(monitorOf([tcpNode(echo.port, { host: 'localhost' })]), runContext());
      expect(outcome.success).toBe(false);
      expect(outcome.errors[0]).toMatch(/egress policy denies/);
    } finally {
      await strict.close();
    }
  });
});
