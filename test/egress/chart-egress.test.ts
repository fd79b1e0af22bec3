// The chart's `egress` values reach every process as EGRESS_* settings, and a location's `egress` reaches
// LOCATIONS; the hub would refuse to start on a rendering its settings schema rejects.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadSettings } from '../../hub/src/config/settings.js';
import { egressPoliciesOf } from '../../hub/src/egress/egress-policies.js';
import { chartDir, renderChart, type KubeObject } from '../chart/render-chart.js';

describe('the chart with an egress policy', () => {
  const dir = mkdtempSync(join(tmpdir(), 'meerkat-chart-egress-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const valuesFile = join(dir, 'values.yaml');
  writeFileSync(
    valuesFile,
    stringify({
      egress: { denyCidrs: ['10.0.0.0/8', 'fc00::/7'], allowHosts: ['status.internal.example'] },
      locations: [
        { name: 'default', executor: 'worker' },
        { name: 'dmz', executor: 'worker', egress: { denyCidrs: ['172.16.0.0/12'] } },
      ],
    }),
  );
  const chart = renderChart([join(chartDir, 'ci', 'default-values.yaml'), valuesFile]);
  const data = (chart.find('ConfigMap', 'meerkat-settings') as KubeObject & { data: Record<string, string> })
    .data;

  it('renders each non-empty list as its EGRESS_* setting, and nothing for the empty ones', () => {
    expect(data).toMatchObject({
      EGRESS_DENY_CIDRS: '10.0.0.0/8,fc00::/7',
      EGRESS_ALLOW_HOSTS: 'status.internal.example',
    });
    expect(data).not.toHaveProperty('EGRESS_ALLOW_CIDRS');
    expect(data).not.toHaveProperty('EGRESS_DENY_HOSTS');
  });

  it("passes a location's override into LOCATIONS, where the settings take it", () => {
    const settings = loadSettings(
      { ...data, REDIS_URL: 'redis://r', SECRETS_KEY: 'ab'.repeat(32) },
      'worker',
    );
    const policies = egressPoliciesOf(settings);
    const judge = (location: string, address: string) =>
      policies.forLocation(location).evaluate({ address, port: 443 }).allowed;
    expect([judge('default', '10.1.1.1'), judge('default', '172.16.0.1')]).toEqual([false, true]);
    expect([judge('dmz', '10.1.1.1'), judge('dmz', '172.16.0.1')]).toEqual([true, false]);
  });

  it("refuses the release's Services by every name and every process's port, from MEERKAT_ENDPOINTS", () => {
    const settings = loadSettings(
      { ...data, EGRESS_ALLOW_CIDRS: '0.0.0.0/0', REDIS_URL: 'redis://r', SECRETS_KEY: 'ab'.repeat(32) },
      'worker',
    );
    const policy = egressPoliciesOf(settings).global;
    const refused = (target: { host?: string; address?: string }, port: number) =>
      !policy.evaluate({ ...target, port }).allowed;
    for (const host of [
      'meerkat-hub',
      'meerkat-hub.meerkat',
      'meerkat-hub.meerkat.svc',
      'meerkat-hub.meerkat.svc.cluster.local',
      'meerkat-metrics.meerkat.svc.cluster.local',
    ])
      expect(refused({ host }, 9464), host).toBe(true);
    for (const port of [3000, 9464, 8081])
      expect(refused({ address: '127.0.0.1' }, port), `${port}`).toBe(true);
    expect(refused({ address: '127.0.0.1' }, 8080)).toBe(false);
    expect(refused({ host: 'api.example.com' }, 443)).toBe(false);
  });
});
