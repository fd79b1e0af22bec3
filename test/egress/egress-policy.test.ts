// The policy judged directly: nothing here opens a connection, so the metadata and link-local defaults can be
// checked on their real addresses.
import type { LookupAddress, LookupAllOptions } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../hub/src/config/settings.js';
import { egressLookup, guardConnect } from '../../hub/src/egress/egress-connector.js';
import { createEgressPolicies, egressPoliciesOf } from '../../hub/src/egress/egress-policies.js';
import { createEgressPolicy, type EgressVerdict } from '../../hub/src/egress/egress-policy.js';

const denial = (verdict: EgressVerdict) =>
  verdict.allowed ? 'allowed' : `egress policy denies ${verdict.subject} (rule: ${verdict.rule})`;

describe('the default egress policy of a production process', () => {
  const policy = createEgressPolicy();
  const judge = (address: string, port = 80) => denial(policy.evaluate({ address, port }));

  it.each([
    ['169.254.169.254', 'default deny link-local 169.254.0.0/16'],
    ['169.254.0.1', 'default deny link-local 169.254.0.0/16'],
    ['fe80::1', 'default deny link-local fe80::/10'],
    ['fd00:ec2::254', 'default deny metadata fd00:ec2::254/128'],
    ['127.0.0.1', 'default deny loopback 127.0.0.0/8'],
    ['::1', 'default deny loopback ::1/128'],
    ['0.0.0.0', 'default deny this host 0.0.0.0/8'],
  ])('refuses %s, naming the rule "%s"', (address, rule) => {
    expect(judge(address)).toBe(`egress policy denies ${address} (rule: ${rule})`);
  });

  it('judges an IPv4-mapped or NAT64 IPv6 address as the IPv4 address it carries', () => {
    expect(judge('::ffff:169.254.169.254')).toMatch(/rule: default deny link-local 169\.254\.0\.0\/16/);
    expect(judge('::ffff:a9fe:a9fe')).toMatch(/link-local/);
    expect(judge('64:ff9b::a9fe:a9fe')).toMatch(/link-local/);
    expect(judge('::ffff:127.0.0.1')).toMatch(/loopback/);
  });

  it('refuses the metadata host name before any lookup, whatever its case or trailing dot', () => {
    for (const host of ['metadata.google.internal', 'Metadata.Google.Internal.'])
      expect(denial(policy.evaluate({ host, port: 80 }))).toBe(
        'egress policy denies metadata.google.internal (rule: default deny metadata host metadata.google.internal)',
      );
  });

  it('allows private ranges and public addresses: internal APIs are what most monitors watch', () => {
    for (const address of ['10.1.2.3', '172.16.0.1', '192.168.1.1', 'fd12::1', '93.184.216.34'])
      expect(judge(address)).toBe('allowed');
    expect(denial(policy.evaluate({ host: 'api.internal.example', port: 443 }))).toBe('allowed');
  });
});

describe('configured rules', () => {
  it('deny lists add to the defaults; allow lists are exceptions to every deny, the defaults included', () => {
    const policy = createEgressPolicy({
      lists: {
        denyCidrs: ['10.0.0.0/8'],
        allowCidrs: ['10.1.2.3', '127.0.0.2/32'],
        denyHosts: ['*.corp.example'],
        allowHosts: ['status.corp.example'],
      },
    });
    const judge = (target: { host?: string; address?: string }) =>
      denial(policy.evaluate({ ...target, port: 80 }));
    expect(judge({ address: '10.9.9.9' })).toBe(
      'egress policy denies 10.9.9.9 (rule: EGRESS_DENY_CIDRS 10.0.0.0/8)',
    );
    expect(judge({ address: '10.1.2.3' })).toBe('allowed');
    expect(judge({ address: '127.0.0.2' })).toBe('allowed');
    expect(judge({ address: '127.0.0.3' })).toMatch(/default deny loopback/);
    expect(judge({ host: 'db.corp.example' })).toBe(
      'egress policy denies db.corp.example (rule: EGRESS_DENY_HOSTS *.corp.example)',
    );
    expect(judge({ host: 'corp.example' })).toBe('allowed');
    // An allowed name may resolve into a denied range: the operator named it.
    expect(judge({ host: 'status.corp.example', address: '10.9.9.9' })).toBe('allowed');
  });

  it("refuses the hub's own ports on this host's addresses, even where loopback is allowed", () => {
    const policy = createEgressPolicy({
      allowLoopback: true,
      lists: { allowCidrs: ['0.0.0.0/0'] },
      ownPorts: [3000, 9464],
      ownAddresses: ['10.0.0.5'],
    });
    const judge = (address: string, port: number) => denial(policy.evaluate({ address, port }));
    expect(judge('127.0.0.1', 9464)).toBe(
      "egress policy denies 127.0.0.1 port 9464 (rule: the hub's own port 9464)",
    );
    expect(judge('10.0.0.5', 3000)).toMatch(/the hub's own port 3000/);
    expect(judge('0.0.0.0', 3000)).toMatch(/the hub's own port 3000/);
    expect(judge('127.0.0.1', 8080)).toBe('allowed');
    expect(judge('10.0.0.6', 3000)).toBe('allowed');
  });

  it('a name whose answer mixes allowed and denied addresses is refused as a whole', async () => {
    const policy = createEgressPolicy({ lists: { allowCidrs: ['127.0.0.2/32'] } });
    const mixed = (
      _host: string,
      _options: LookupAllOptions,
      callback: (e: null, a: LookupAddress[]) => void,
    ) =>
      callback(null, [
        { address: '127.0.0.2', family: 4 },
        { address: '169.254.169.254', family: 4 },
      ]);
    const lookup = egressLookup(policy, mixed);
    const outcome = await new Promise<unknown>((resolve) => {
      guardConnect(policy, 'rebound.example', 443, () =>
        lookup('rebound.example', { all: true }, (error) => resolve(error)),
      );
    });
    expect(outcome).toMatchObject({
      code: 'EGRESS_DENIED',
      message: 'egress policy denies 169.254.169.254 (rule: default deny link-local 169.254.0.0/16)',
    });
  });
});

describe('the EGRESS_* settings and per-location overrides', () => {
  it('meerkat dev allows loopback; every other process refuses it', () => {
    const at = (kind: 'dev' | 'worker') =>
      egressPoliciesOf(loadSettings({ REDIS_URL: 'redis://r', SECRETS_KEY: 'ab'.repeat(32) }, kind));
    expect(denial(at('dev').global.evaluate({ address: '127.0.0.1', port: 8080 }))).toBe('allowed');
    expect(denial(at('worker').global.evaluate({ address: '127.0.0.1', port: 8080 }))).toMatch(/loopback/);
    expect(denial(at('dev').global.evaluate({ address: '127.0.0.1', port: 3000 }))).toMatch(/own port 3000/);
  });

  it('a location override replaces the lists it names and inherits the rest', () => {
    const settings = loadSettings(
      {
        EGRESS_DENY_CIDRS: '192.168.0.0/16',
        EGRESS_DENY_HOSTS: 'intranet.example',
        LOCATIONS: JSON.stringify([
          { name: 'default', executor: 'worker' },
          { name: 'dmz', executor: 'worker', egress: { denyCidrs: ['10.0.0.0/8', '172.16.0.0/12'] } },
        ]),
      },
      'admin',
    );
    const policies = egressPoliciesOf(settings);
    const judge = (location: string, target: { host?: string; address?: string }) =>
      denial(policies.forLocation(location).evaluate({ ...target, port: 443 }));
    expect(judge('default', { address: '10.0.0.1' })).toBe('allowed');
    expect(judge('dmz', { address: '10.0.0.1' })).toBe(
      'egress policy denies 10.0.0.1 (rule: LOCATIONS dmz egress.denyCidrs 10.0.0.0/8)',
    );
    expect(judge('dmz', { address: '192.168.1.1' })).toBe('allowed');
    expect(judge('dmz', { host: 'intranet.example' })).toMatch(/EGRESS_DENY_HOSTS intranet\.example/);
    expect(policies.environmentFor('dmz')).toEqual([
      { name: 'EGRESS_DENY_CIDRS', value: '10.0.0.0/8,172.16.0.0/12' },
      { name: 'EGRESS_DENY_HOSTS', value: 'intranet.example' },
    ]);
    expect(policies.forLocation('unknown')).toBe(policies.global);
  });

  it('an entry that is not a CIDR or a host name stops the process, naming the setting and the entry', () => {
    expect(() => loadSettings({ EGRESS_DENY_CIDRS: '10.0.0.0/8, 10.0.0.0/40' }, 'admin')).toThrow(
      'invalid setting EGRESS_DENY_CIDRS: [1]: must be an IP address or a CIDR range such as 10.0.0.0/8 or fd00::/8',
    );
    expect(() => loadSettings({ EGRESS_ALLOW_HOSTS: '10.0.0.1' }, 'admin')).toThrow(
      'invalid setting EGRESS_ALLOW_HOSTS: [0]: is an IP address: put addresses in the CIDR lists',
    );
    expect(createEgressPolicies({ lists: {} }).environmentFor('default')).toEqual([]);
  });
});
