import { Server, ServerCredentials } from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Assertion } from '../../hub/src/contract/assertion.js';
import type { MonitorDefinitionInput } from '../../hub/src/contract/monitor-definition.js';
import { createEgressPolicy } from '../../hub/src/egress/egress-policy.js';
import { createMonitorRunner } from '../../hub/src/runner/monitor-runner.js';
import { loopbackEgress } from '../harness/egress.js';
import { assertionNode, monitorOf, runContext } from './monitor-builders.js';
import { createTestAuthority, daysFromNow, type TestAuthority } from './test-certificates.js';

type GrpcNodeInput = Extract<
  NonNullable<MonitorDefinitionInput['nodes']>[number],
  { type: 'GRPC_HEALTH_CHECK' }
>;

/** A grpc-js server on a loopback port; `health` adds the official grpc.health.v1 implementation. */
async function startGrpcServer(credentials: ServerCredentials, health?: HealthImplementation) {
  const server = new Server();
  health?.addToServer(server);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', credentials, (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return { port, close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())) };
}

describe('GRPC_HEALTH_CHECK against real grpc-js servers with the health service', () => {
  let ca: TestAuthority;
  const health = new HealthImplementation({
    '': 'SERVING',
    'shop.v1.Cart': 'SERVING',
    'shop.v1.Search': 'NOT_SERVING',
  });
  let plain: Awaited<ReturnType<typeof startGrpcServer>>;
  let secure: Awaited<ReturnType<typeof startGrpcServer>>;
  let bare: Awaited<ReturnType<typeof startGrpcServer>>;
  let runner: ReturnType<typeof createMonitorRunner>;

  beforeAll(async () => {
    ca = createTestAuthority();
    const pair = ca.issue({
      commonName: 'localhost',
      names: ['localhost', '127.0.0.1'],
      notBefore: daysFromNow(-1),
      notAfter: daysFromNow(60),
    });
    const tls = ServerCredentials.createSsl(null, [
      { private_key: Buffer.from(pair.key), cert_chain: Buffer.from(pair.cert) },
    ]);
    [plain, secure, bare] = await Promise.all([
      startGrpcServer(ServerCredentials.createInsecure(), health),
      startGrpcServer(tls, health),
      startGrpcServer(ServerCredentials.createInsecure()),
    ]);
    runner = createMonitorRunner({ egress: loopbackEgress, extraCaCertificates: [ca.certificate] });
  });
  afterAll(async () => {
    await runner.close();
    await Promise.all([plain.close(), secure.close(), bare.close()]);
    ca.dispose();
  });

  const grpcNode = (port: number, more: Partial<GrpcNodeInput> = {}): GrpcNodeInput => ({
    id: 'health',
    type: 'GRPC_HEALTH_CHECK',
    host: '127.0.0.1',
    port,
    ...more,
  });
  const serving: Assertion = {
    nodeId: 'health',
    subject: 'servingStatus',
    predicate: { type: 'binary', operator: 'EQUAL', expected: 'SERVING' },
  };
  const run = (node: GrpcNodeInput, assertions: Assertion[] = [serving], runWith = runner) =>
    runWith.run(monitorOf([node, assertionNode('checks', assertions)], [['health', 'checks']]), runContext());

  it('asks the server as a whole over cleartext HTTP/2 and passes on SERVING', async () => {
    const outcome = await run(grpcNode(plain.port));
    expect(outcome.errors).toEqual([]);
    const [step] = outcome.steps;
    expect(step?.request).toEqual({ method: 'Check', url: `grpc://127.0.0.1:${plain.port}/` });
    expect(step?.grpc).toEqual({ code: 0, servingStatus: 'SERVING' });
    expect(typeof step?.timings?.firstByteMs).toBe('number');
  });

  it('asks about one service, and the assertion fails on NOT_SERVING', async () => {
    expect((await run(grpcNode(plain.port, { service: 'shop.v1.Cart' }))).errors).toEqual([]);
    const outcome = await run(grpcNode(plain.port, { service: 'shop.v1.Search' }));
    expect(outcome.steps[0]).toMatchObject({ status: 'passed', grpc: { servingStatus: 'NOT_SERVING' } });
    expect(outcome.errorClasses).toEqual(['assertion']);
    expect(outcome.steps[1]?.assertions?.[0]).toMatchObject({ passed: false, actual: 'NOT_SERVING' });
  });

  it('follows a status change on the server', async () => {
    health.setStatus('shop.v1.Orders', 'SERVING');
    expect((await run(grpcNode(plain.port, { service: 'shop.v1.Orders' }))).success).toBe(true);
    health.setStatus('shop.v1.Orders', 'NOT_SERVING');
    expect((await run(grpcNode(plain.port, { service: 'shop.v1.Orders' }))).success).toBe(false);
  });

  it('reports a service the health service does not know as SERVICE_UNKNOWN', async () => {
    const outcome = await run(grpcNode(plain.port, { service: 'shop.v1.Nothing' }));
    expect(outcome.steps[0]?.grpc).toEqual({ code: 5, servingStatus: 'SERVICE_UNKNOWN' });
  });

  it('fails the step on a server without the health service', async () => {
    const outcome = await run(grpcNode(bare.port));
    expect(outcome.errorClasses).toEqual(['http']);
    expect(outcome.errors[0]).toMatch(
      /^health: grpc:\/\/127\.0\.0\.1:\d+\/: grpc-status 12 \(UNIMPLEMENTED\)/,
    );
  });

  it('speaks TLS with ALPN h2, records the certificate and judges it', async () => {
    const outcome = await run(grpcNode(secure.port, { host: 'localhost', tls: true }), [
      serving,
      {
        nodeId: 'health',
        subject: 'certificateExpiresInDays',
        predicate: { type: 'binary', operator: 'GREATER_THAN', expected: 30 },
      },
    ]);
    expect(outcome.errors).toEqual([]);
    expect(outcome.steps[0]?.tls).toMatchObject({ verified: true, issuer: 'CN=Meerkat Test CA' });
    expect(typeof outcome.steps[0]?.timings?.tlsMs).toBe('number');
  });

  it('fails on an untrusted certificate unless verify_tls is false', async () => {
    const untrusting = createMonitorRunner({ egress: loopbackEgress });
    try {
      const node = grpcNode(secure.port, { host: 'localhost', tls: true });
      const refused = await run(node, [serving], untrusting);
      expect(refused.errorClasses).toEqual(['tls']);
      const accepted = await run({ ...node, verify_tls: false }, [serving], untrusting);
      expect(accepted.errors).toEqual([]);
      expect(accepted.steps[0]?.tls?.verified).toBe(false);
    } finally {
      await untrusting.close();
    }
  });

  it('is refused by the egress policy on the address it connects to', async () => {
    const strict = createMonitorRunner({ egress: createEgressPolicy() });
    try {
      const outcome = await run(grpcNode(plain.port, { host: 'localhost' }), [serving], strict);
      expect(outcome.errors[0]).toMatch(/egress policy denies/);
    } finally {
      await strict.close();
    }
  });
});
