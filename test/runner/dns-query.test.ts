import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import dns2 from 'dns2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Assertion } from '../../hub/src/contract/assertion.js';
import {
  monitorDefinitionSchema,
  type MonitorDefinitionInput,
} from '../../hub/src/contract/monitor-definition.js';
import { createEgressPolicy } from '../../hub/src/egress/egress-policy.js';
import { createMonitorRunner } from '../../hub/src/runner/monitor-runner.js';
import { loopbackEgress } from '../harness/egress.js';
import { monitorDefinition } from '../harness/monitors.js';
import { freePort } from '../harness/processes.js';
import { assertionNode, monitorOf, runContext } from './monitor-builders.js';

type DnsNodeInput = Extract<NonNullable<MonitorDefinitionInput['nodes']>[number], { type: 'DNS_QUERY' }>;
const { Packet } = dns2;

/** The zone the test's DNS server (dns2, over UDP and TCP on one loopback port) answers from. */
const ZONE: Record<string, Array<Record<string, unknown>>> = {
  'api.example.test/A': [{ address: '192.0.2.10' }, { address: '192.0.2.11' }],
  'example.test/MX': [{ priority: 10, exchange: 'mx1.example.test' }],
  'example.test/TXT': [{ data: ['v=spf1 ', '-all'] }],
};

describe('DNS_QUERY against a real DNS server on loopback', () => {
  let server: ReturnType<typeof dns2.createServer>;
  let port: number;
  let silent: UdpSocket;
  let silentPort: number;
  const transports: string[] = [];
  let runner: ReturnType<typeof createMonitorRunner>;

  beforeAll(async () => {
    port = await freePort();
    server = dns2.createServer({
      udp: true,
      tcp: true,
      handle: (request, send, client) => {
        transports.push('remoteAddress' in client ? 'TCP' : 'UDP');
        const response = Packet.createResponseFromRequest(request);
        const [question] = request.questions;
        const typeName = Object.entries(Packet.TYPE).find(([, code]) => code === question?.type)?.[0];
        const records = ZONE[`${question?.name}/${typeName}`];
        if (records === undefined) response.header.rcode = 3; // NXDOMAIN
        for (const record of records ?? [])
          response.answers.push({
            name: question?.name,
            type: question?.type,
            class: Packet.CLASS.IN,
            ttl: 300,
            ...record,
          } as never);
        void send(response);
      },
    });
    await server.listen({ udp: { port, address: '127.0.0.1' }, tcp: { port, address: '127.0.0.1' } });
    silent = createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    silentPort = silent.address().port;
    runner = createMonitorRunner({ egress: loopbackEgress });
  });
  afterAll(async () => {
    await runner.close();
    await server.close();
    silent.close();
  });

  const dnsNode = (more: Partial<DnsNodeInput> = {}): DnsNodeInput => ({
    id: 'lookup',
    type: 'DNS_QUERY',
    name: 'api.example.test',
    record_type: 'A',
    resolver: '127.0.0.1',
    resolver_port: port,
    ...more,
  });
  const run = (node: DnsNodeInput, assertions: Assertion[] = []) =>
    runner.run(
      monitorOf(
        [node, ...(assertions.length === 0 ? [] : [assertionNode('checks', assertions)])],
        assertions.length === 0 ? [] : [['lookup', 'checks']],
      ),
      runContext(),
    );
  const binary = (subject: string, operator: string, expected: unknown, path?: string) =>
    ({
      nodeId: 'lookup',
      subject,
      ...(path === undefined ? {} : { path }),
      predicate: { type: 'binary', operator, expected },
    }) as Assertion;

  it('asks over UDP, records rcode and answers, and the assertions read them', async () => {
    transports.length = 0;
    const outcome = await run(dnsNode(), [
      binary('rcode', 'EQUAL', 'NOERROR'),
      binary('text', 'CONTAINS', '192.0.2.11'),
      binary('body', 'EQUAL', '192.0.2.10', '$.answers[0].data'),
      binary('responseTime', 'LESS_THAN', 60_000),
    ]);
    expect(outcome.errors).toEqual([]);
    const [step] = outcome.steps;
    expect(step?.request).toEqual({ method: 'A', url: `dns://127.0.0.1:${port}/api.example.test` });
    expect(step?.dns).toEqual({
      rcode: 'NOERROR',
      authoritative: false,
      answers: [
        { name: 'api.example.test', type: 'A', ttl: 300, data: '192.0.2.10' },
        { name: 'api.example.test', type: 'A', ttl: 300, data: '192.0.2.11' },
      ],
    });
    expect(transports).toEqual(['UDP']);
  });

  it('writes MX and TXT answers as a zone file does', async () => {
    const mx = await run(dnsNode({ name: 'example.test', record_type: 'MX' }));
    expect(mx.steps[0]?.dns?.answers.map((a) => a.data)).toEqual(['10 mx1.example.test']);
    const txt = await run(dnsNode({ name: 'example.test', record_type: 'TXT' }));
    expect(txt.steps[0]?.dns?.answers.map((a) => a.data)).toEqual(['v=spf1 -all']);
  });

  it('asks over TCP when told', async () => {
    transports.length = 0;
    const outcome = await run(dnsNode({ transport: 'TCP' }), [binary('rcode', 'EQUAL', 'NOERROR')]);
    expect(outcome.errors).toEqual([]);
    expect(outcome.steps[0]?.dns?.answers).toHaveLength(2);
    expect(transports).toEqual(['TCP']);
  });

  it('passes the step on NXDOMAIN and leaves the verdict to an rcode assertion', async () => {
    const outcome = await run(dnsNode({ name: 'missing.example.test' }), [
      binary('rcode', 'EQUAL', 'NOERROR'),
    ]);
    expect(outcome.steps[0]).toMatchObject({ status: 'passed', dns: { rcode: 'NXDOMAIN', answers: [] } });
    expect(outcome.errorClasses).toEqual(['assertion']);
    expect(outcome.steps[1]?.assertions?.[0]).toMatchObject({ passed: false, actual: 'NXDOMAIN' });
  });

  it('times out on a resolver that never answers', async () => {
    const outcome = await run(dnsNode({ resolver_port: silentPort, timeout_ms: 200 }));
    expect(outcome.errorClasses).toEqual(['timeout']);
    expect(outcome.errors[0]).toContain('timed out after 200 ms waiting for the answer');
  });

  it('resolves a resolver given by name through the egress policy, and refuses one it denies', async () => {
    const byName = await run(dnsNode({ resolver: 'localhost' }));
    expect(byName.errors).toEqual([]);
    const strict = createMonitorRunner({ egress: createEgressPolicy() });
    try {
      for (const transport of ['UDP', 'TCP'] as const) {
        const outcome = await strict.run(monitorOf([dnsNode({ transport })]), runContext());
        expect(outcome.success, transport).toBe(false);
        expect(outcome.errors[0], transport).toMatch(/egress policy denies 127\.0\.0\.1/);
      }
    } finally {
      await strict.close();
    }
  });

  it('refuses an HTTP subject on a DNS node, naming the field', () => {
    const parsed = monitorDefinitionSchema.safeParse(
      monitorDefinition({
        nodes: [dnsNode(), { id: 'checks', type: 'ASSERTION', assertions: [binary('status', 'EQUAL', 200)] }],
        edges: [{ from: 'lookup', to: 'checks' }],
      }),
    );
    expect(parsed.error?.issues.map((issue) => [issue.path, issue.message])).toEqual([
      [
        ['nodes', 1, 'assertions', 0, 'subject'],
        'a DNS_QUERY node has no subject "status" (it has rcode, body, text, responseTime)',
      ],
    ]);
  });
});
