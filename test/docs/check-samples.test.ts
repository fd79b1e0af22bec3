// The samples of config/samples/checks/, run as docs/monitors.md says (`meerkat test -f`, on this machine, no hub)
// against real servers on loopback, so a sample cannot rot: a field renamed in the contract, an assertion subject
// gone or a node type that stopped working fails here. The test changes only where each node connects (its
// target, see `toLoopback`); names, services, expectations and assertions are the sample's own.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { runMeerkat } from '../harness/processes.js';
import { startCheckTargets, type CheckTargets } from './check-sample-targets.js';

const samples = fileURLToPath(new URL('../../config/samples/checks/', import.meta.url));

type Node = Record<string, unknown> & { id: string; type: string };

/**
 * Points a node's target at the loopback server of its type; the fields that name a target are the only ones
 * changed. A node type this does not know fails the test, so a new sample's target is never left external.
 */
function toLoopback(node: Node, targets: CheckTargets): Node {
  switch (node.type) {
    case 'HTTP_REQUEST':
      expect(node.base).toMatch(/^https:\/\//);
      return { ...node, base: `https://127.0.0.1:${targets.https.port}` };
    case 'TCP_CONNECT':
      return { ...node, host: '127.0.0.1', port: targets.tcp.port };
    case 'DNS_QUERY':
      return { ...node, resolver: '127.0.0.1', resolver_port: targets.dns.port };
    case 'GRPC_HEALTH_CHECK':
      return { ...node, host: '127.0.0.1', port: targets.grpc.port };
    case 'ASSERTION':
    case 'WAIT':
      return node;
    default:
      throw new Error(`no loopback target for a ${node.type} node (${node.id}): add one to this test`);
  }
}

describe('the check samples, run with meerkat test against loopback servers', () => {
  let targets: CheckTargets;
  let work: string;
  const files = readdirSync(samples)
    .filter((file) => /\.ya?ml$/.test(file))
    .sort();

  beforeAll(async () => {
    targets = await startCheckTargets();
    work = mkdtempSync(join(tmpdir(), 'meerkat-check-samples-'));
    for (const file of files) {
      const sample = parse(readFileSync(join(samples, file), 'utf8')) as { nodes?: Node[] };
      const nodes = (sample.nodes ?? []).map((node) => toLoopback(node, targets));
      writeFileSync(join(work, file), stringify(sample.nodes === undefined ? sample : { ...sample, nodes }));
    }
    writeFileSync(join(work, 'ca.pem'), targets.caCertificate);
  });
  afterAll(async () => {
    await targets?.close();
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  it('has a sample per check type, the heartbeat included', () => {
    expect(files).toEqual([
      'certificate-expiry.yaml',
      'dns-record.yaml',
      'grpc-health.yaml',
      'heartbeat.yaml',
      'tcp-port.yaml',
    ]);
  });

  it('passes every sample, each having reached its server', async () => {
    // The folder holds ca.pem too: meerkat test reads only .yaml, .yml and .json files.
    const { code, stdout, stderr } = await runMeerkat(['test', '-f', work], {
      NODE_EXTRA_CA_CERTS: join(work, 'ca.pem'),
      NO_COLOR: '1',
    });
    expect(stderr).toBe('');
    expect(code, stdout).toBe(0);
    expect(stdout).toContain(`${files.length} monitor(s): ${files.length} passed, 0 failed`);
    expect(stdout).toContain(
      'platform/default/nightly-backup: heartbeat monitor, definition valid; nothing runs here',
    );
    for (const monitor of [
      'platform/default/example-certificate',
      'platform/default/example-dns',
      'shop/default/cart-grpc-health',
      'platform/default/mail-smtp-port',
    ])
      expect(stdout).toMatch(new RegExp(`^PASSED ${monitor}: 2 step\\(s\\) passed`, 'm'));
    expect(stdout).toContain('passed  home certificateExpiresInDays GREATER_THAN 14, got 90');
    expect(stdout).toContain('passed  health servingStatus EQUAL "SERVING", got "SERVING"');
    expect(targets.https.requests).toContain('HEAD /');
    expect(targets.tcp.connections).toBeGreaterThan(0);
    expect(targets.dns.questions).toContain('example.com/1');
  }, 120_000);
});
