// MEERKAT_ENDPOINTS: the release's own processes are refused to every connection made on a user's behalf, before
// any allow rule, by name, by address and by port on this host's own addresses.
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../hub/src/config/settings.js';
import { egressPoliciesOf } from '../../hub/src/egress/egress-policies.js';
import type { EgressVerdict } from '../../hub/src/egress/egress-policy.js';
import { egressIssueOfUrl } from '../../hub/src/egress/egress-validation.js';

const denial = (verdict: EgressVerdict) =>
  verdict.allowed ? 'allowed' : `egress policy denies ${verdict.subject} (rule: ${verdict.rule})`;

const ENDPOINTS =
  'meerkat-hub.team.svc,meerkat-metrics.team.svc:9464,10.0.0.7:3000,[fd00::7]:9464,fd00::8,localhost:8081';

function policiesWith(env: Record<string, string>, kind: 'worker' | 'dev' = 'worker') {
  return egressPoliciesOf(
    loadSettings({ REDIS_URL: 'redis://r', SECRETS_KEY: 'ab'.repeat(32), ...env }, kind),
  );
}

describe('MEERKAT_ENDPOINTS', () => {
  // Allow everything an operator could: the release's endpoints must stay refused anyway.
  const policies = policiesWith({
    MEERKAT_ENDPOINTS: ENDPOINTS,
    EGRESS_ALLOW_CIDRS: '0.0.0.0/0,::/0',
    EGRESS_ALLOW_HOSTS: '*.svc',
  });
  const judge = (target: { host?: string; address?: string }, port: number) =>
    denial(policies.global.evaluate({ ...target, port }));

  it('refuses a name entry on every port, and every name under it', () => {
    expect(judge({ host: 'meerkat-hub.team.svc' }, 3000)).toBe(
      'egress policy denies meerkat-hub.team.svc port 3000 (rule: MEERKAT_ENDPOINTS meerkat-hub.team.svc)',
    );
    expect(judge({ host: 'MEERKAT-HUB.team.svc' }, 443)).toMatch(/MEERKAT_ENDPOINTS meerkat-hub\.team\.svc/);
    expect(judge({ host: 'x.meerkat-hub.team.svc', address: '10.1.1.1' }, 80)).toMatch(/MEERKAT_ENDPOINTS/);
    expect(judge({ host: 'other-hub.team.svc' }, 3000)).toBe('allowed');
  });

  it('refuses a name or address with a port on that port only', () => {
    expect(judge({ host: 'meerkat-metrics.team.svc' }, 9464)).toMatch(
      /MEERKAT_ENDPOINTS meerkat-metrics\.team\.svc:9464/,
    );
    expect(judge({ host: 'meerkat-metrics.team.svc' }, 80)).toBe('allowed');
    expect(judge({ address: '10.0.0.7' }, 3000)).toBe(
      'egress policy denies 10.0.0.7 port 3000 (rule: MEERKAT_ENDPOINTS 10.0.0.7:3000)',
    );
    expect(judge({ address: '10.0.0.7' }, 3001)).toBe('allowed');
    expect(judge({ address: 'fd00:0::7' }, 9464)).toMatch(/MEERKAT_ENDPOINTS \[fd00::7\]:9464/);
    expect(judge({ address: 'fd00::8' }, 1)).toMatch(/MEERKAT_ENDPOINTS fd00::8/);
  });

  it("refuses every entry's port on this host's own addresses, where processes sharing the host listen", () => {
    expect(judge({ address: '127.0.0.1' }, 9464)).toBe(
      "egress policy denies 127.0.0.1 port 9464 (rule: the hub's own port 9464)",
    );
    expect(judge({ address: '127.0.0.5' }, 8081)).toMatch(/MEERKAT_ENDPOINTS localhost:8081/);
    expect(judge({ address: '::1' }, 3000)).toMatch(/own port 3000/);
    expect(judge({ address: '127.0.0.1' }, 8082)).toBe('allowed');
  });

  it('reports a literal address, a listed name and localhost when a monitor is saved', () => {
    const dev = policiesWith({ MEERKAT_ENDPOINTS: '127.0.0.1:9470,meerkat-hub' }, 'dev').global;
    const issue = (url: string) => egressIssueOfUrl(dev, url, 'nodes[0].base')?.message ?? 'allowed';
    expect(issue('http://127.0.0.1:9470/metrics')).toMatch(/MEERKAT_ENDPOINTS 127\.0\.0\.1:9470/);
    expect(issue('http://localhost:9470')).toBe(
      'egress policy denies 127.0.0.1 port 9470 (rule: MEERKAT_ENDPOINTS 127.0.0.1:9470)',
    );
    expect(issue('http://LOCALHOST.:3000')).toMatch(/the hub's own port 3000/);
    expect(issue('http://meerkat-hub:80/')).toMatch(/MEERKAT_ENDPOINTS meerkat-hub/);
    expect(issue('http://localhost:8080')).toBe('allowed');
    const worker = policiesWith({}).global;
    expect(egressIssueOfUrl(worker, 'http://localhost:8080', 'url')?.message).toMatch(
      /default deny loopback/,
    );
  });

  it("is handed to a job location's runner Jobs with the EGRESS_* lists", () => {
    expect(policiesWith({ MEERKAT_ENDPOINTS: ENDPOINTS }).environmentFor('default')).toEqual([
      { name: 'MEERKAT_ENDPOINTS', value: ENDPOINTS.toLowerCase() },
    ]);
  });

  it('stops the process on an entry that is not HOST or HOST:PORT, naming it', () => {
    for (const entry of ['meerkat-hub:0', 'fd00::7:9464x', '[not-an-address]:80', 'a b'])
      expect(() => loadSettings({ MEERKAT_ENDPOINTS: `meerkat-hub,${entry}` }, 'admin')).toThrow(
        /invalid setting MEERKAT_ENDPOINTS: \[1\]: must be HOST or HOST:PORT/,
      );
  });
});
