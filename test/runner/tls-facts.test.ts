import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Assertion } from '../../hub/src/contract/assertion.js';
import { monitorDefinitionSchema } from '../../hub/src/contract/monitor-definition.js';
import { createMonitorRunner } from '../../hub/src/runner/monitor-runner.js';
import { loopbackEgress } from '../harness/egress.js';
import { monitorDefinition } from '../harness/monitors.js';
import { trackedCloser } from './broken-targets.js';
import { startTargetServer } from './target-server.js';
import { assertionNode, httpNode, monitorOf, runContext } from './monitor-builders.js';
import {
  createTestAuthority,
  daysFromNow,
  selfSigned,
  type KeyPair,
  type TestAuthority,
} from './test-certificates.js';

interface TlsTarget {
  url: string;
  close(): Promise<void>;
}

async function startTlsTarget(pair: KeyPair, minVersion?: 'TLSv1.2' | 'TLSv1.3'): Promise<TlsTarget> {
  const server = createServer(
    { ...pair, ...(minVersion === undefined ? {} : { minVersion }) },
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    },
  );
  const close = trackedCloser(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `https://localhost:${(server.address() as AddressInfo).port}`, close };
}

const check = (subject: Assertion['subject'], operator: string, expected?: unknown): Assertion =>
  ({
    nodeId: 'probe',
    subject,
    predicate: expected === undefined ? { type: 'unary', operator } : { type: 'binary', operator, expected },
  }) as Assertion;

describe('TLS facts of HTTPS requests, against real TLS servers with certificates made here', () => {
  let ca: TestAuthority;
  const targets: Record<string, TlsTarget> = {};
  let runner: ReturnType<typeof createMonitorRunner>;

  beforeAll(async () => {
    ca = createTestAuthority();
    const leaf = (notBefore: Date, notAfter: Date, names = ['localhost', '127.0.0.1']) =>
      ca.issue({ commonName: names[0] ?? 'localhost', names, notBefore, notAfter });
    const [valid, nearExpiry, expired, wrongName, self] = await Promise.all([
      startTlsTarget(leaf(daysFromNow(-1), daysFromNow(90)), 'TLSv1.3'),
      startTlsTarget(leaf(daysFromNow(-80), daysFromNow(5))),
      startTlsTarget(leaf(daysFromNow(-60), daysFromNow(-2))),
      startTlsTarget(leaf(daysFromNow(-1), daysFromNow(90), ['api.example.test'])),
      startTlsTarget(selfSigned('localhost')),
    ]);
    Object.assign(targets, { valid, nearExpiry, expired, wrongName, self });
    runner = createMonitorRunner({ egress: loopbackEgress, extraCaCertificates: [ca.certificate] });
  });
  afterAll(async () => {
    await runner.close();
    await Promise.all(Object.values(targets).map((target) => target.close()));
    ca.dispose();
  });

  const runAgainst = (url: string, assertions: Assertion[], verify?: boolean) =>
    runner.run(
      monitorOf(
        [
          httpNode('probe', url, '/', verify === undefined ? {} : { verify_tls: verify }),
          ...(assertions.length === 0 ? [] : [assertionNode('checks', assertions)]),
        ],
        assertions.length === 0 ? [] : [['probe', 'checks']],
      ),
      runContext(),
    );

  it('records the chain, names, version and verdict of a verified connection', async () => {
    const outcome = await runAgainst(targets.valid?.url as string, [
      check('certificateExpiresInDays', 'GREATER_THAN', 14),
      check('tlsVersion', 'GREATER_THAN_OR_EQUAL', 1.2),
      check('certificateIssuer', 'CONTAINS', 'Meerkat Test CA'),
      check('certificateVerified', 'IS_TRUE'),
    ]);
    expect(outcome.errors).toEqual([]);
    const tls = outcome.steps[0]?.tls;
    expect(tls).toMatchObject({
      version: 'TLSv1.3',
      verified: true,
      subject: 'CN=localhost',
      issuer: 'CN=Meerkat Test CA',
      subjectAltNames: ['DNS:localhost', 'IP Address:127.0.0.1'],
    });
    expect(tls?.verifyError).toBeUndefined();
    // The leaf ends in 90 days, before the CA's ten years: it is the earliest of the chain.
    const leafDays = (Date.parse(tls?.leafNotAfter ?? '') - Date.now()) / 86_400_000;
    expect(Math.round(leafDays)).toBe(90);
    expect(tls?.earliestNotAfter).toBe(tls?.leafNotAfter);
    expect(outcome.steps[1]?.assertions?.map((a) => a.actual)).toEqual([
      expect.closeTo(90, 0),
      1.3,
      'CN=Meerkat Test CA',
      true,
    ]);
  });

  it('fails "expires in more than 14 days" on a certificate that ends in 5', async () => {
    const outcome = await runAgainst(targets.nearExpiry?.url as string, [
      check('certificateExpiresInDays', 'GREATER_THAN', 14),
    ]);
    expect(outcome.success).toBe(false);
    expect(outcome.errorClasses).toEqual(['assertion']);
    const [assertion] = outcome.steps[1]?.assertions ?? [];
    expect(assertion?.passed).toBe(false);
    expect(Math.round(assertion?.actual as number)).toBe(5);
  });

  it('fails the request on an expired certificate, a wrong name or a self-signed one', async () => {
    const expectations: Array<[string, RegExp]> = [
      ['expired', /certificate has expired/],
      ['wrongName', /Hostname\/IP does not match certificate's altnames/],
      ['self', /self-signed certificate/],
    ];
    for (const [name, message] of expectations) {
      const outcome = await runAgainst(targets[name]?.url as string, []);
      expect(outcome.success, name).toBe(false);
      expect(outcome.errorClasses, name).toEqual(['tls']);
      expect(outcome.errors[0], name).toMatch(message);
    }
  });

  it('with verify_tls false passes on the expired certificate and records why it did not verify', async () => {
    const outcome = await runAgainst(
      targets.expired?.url as string,
      [check('certificateVerified', 'IS_FALSE'), check('certificateExpiresInDays', 'LESS_THAN', 0)],
      false,
    );
    expect(outcome.errors).toEqual([]);
    expect(outcome.steps[0]?.tls).toMatchObject({ verified: false, verifyError: 'CERT_HAS_EXPIRED' });
  });

  it('keeps verified and unverified connections apart: verification still applies after an unverified run', async () => {
    const url = targets.self?.url as string;
    expect((await runAgainst(url, [], false)).success).toBe(true);
    const verified = await runAgainst(url, []);
    expect(verified.errorClasses).toEqual(['tls']);
  });

  it('a plain http node has no TLS facts, and a certificate assertion on it fails', async () => {
    const plainTarget = await startTargetServer();
    try {
      const outcome = await runAgainst(plainTarget.url, [
        check('certificateExpiresInDays', 'GREATER_THAN', 14),
      ]);
      expect(outcome.steps[0]?.status).toBe('passed');
      expect(outcome.steps[0]?.tls).toBeUndefined();
      expect(outcome.steps[1]?.assertions?.[0]).toMatchObject({ passed: false, actual: undefined });
    } finally {
      await plainTarget.close();
    }
  });

  it('refuses a subject the node type does not have, naming the field', () => {
    const parsed = monitorDefinitionSchema.safeParse(
      monitorDefinition({
        nodes: [
          { id: 'wait', type: 'WAIT', duration_ms: 1 },
          {
            id: 'checks',
            type: 'ASSERTION',
            assertions: [
              {
                nodeId: 'wait',
                subject: 'status',
                predicate: { type: 'binary', operator: 'EQUAL', expected: 200 },
              },
            ],
          },
        ],
        edges: [{ from: 'wait', to: 'checks' }],
      }),
    );
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['nodes', 1, 'assertions', 0, 'nodeId']);
  });
});
