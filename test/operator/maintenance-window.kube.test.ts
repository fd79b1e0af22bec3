// The MaintenanceWindow resource on a real kube-apiserver with a real hub: the operator puts it in the hub under
// `<namespace>-<name>`, kept to the namespace's projects, writes whether it is in force into the status, puts back a
// copy changed in the hub, says why a spec is refused, and deletes the hub window before the resource goes.
import { CustomObjectsApi } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { createHubClient } from '../../hub/src/client/hub-client.js';
import type { MaintenanceWindow } from '../../hub/src/maintenance/maintenance.schema.js';
import { WINDOW_PLURAL, type WindowResource } from '../../operator/src/maintenance-window/window-resource.js';
import { MONITOR_GROUP, MONITOR_VERSION } from '../../operator/src/monitor-resource-status.js';
import { parseProjectPolicy } from '../../operator/src/project-tenancy.js';
import { adminKubeConfig, eventually, mergePatch } from '../kube/test-cluster.js';
import { installMonitorCrd } from './monitor-crd-install.js';
import { setUpOperatorTests } from './operator-fixture.js';

const setup = setUpOperatorTests('maintenance-windows');
const weekly = {
  matchers: [{ label: 'monitor', values: ['checkout'] }],
  schedule: { type: 'cron', cron: '0 23 * * 6', timezone: 'Europe/Berlin', durationMinutes: 180 },
};

function windowsIn(namespace: string) {
  const api = adminKubeConfig().makeApiClient(CustomObjectsApi);
  const target = { group: MONITOR_GROUP, version: MONITOR_VERSION, plural: WINDOW_PLURAL, namespace };
  return {
    create: (name: string, spec: object) =>
      api.createNamespacedCustomObject({
        ...target,
        body: { apiVersion: 'meerkat.dev/v1alpha1', kind: 'MaintenanceWindow', metadata: { name }, spec },
      }),
    get: async (name: string) => (await api.getNamespacedCustomObject({ ...target, name })) as WindowResource,
    patchSpec: (name: string, spec: object) =>
      api.patchNamespacedCustomObject({ ...target, name, body: { spec } }, mergePatch),
    delete: (name: string) => api.deleteNamespacedCustomObject({ ...target, name }),
    gone: (name: string) =>
      api.getNamespacedCustomObject({ ...target, name }).then(
        () => false,
        (error: { code?: number }) => error.code === 404,
      ),
  };
}

const synced = (resource: WindowResource) => resource.status?.conditions?.find((c) => c.type === 'Synced');

describe('MaintenanceWindow resources', () => {
  let windows: ReturnType<typeof windowsIn>;
  let namespace: string;
  const hubWindow = async (name: string) => {
    const answer = await setup.hub.request('GET', `/maintenance-windows/${name}`);
    return answer.status === 404 ? undefined : ((await answer.json()) as { data: MaintenanceWindow }).data;
  };

  beforeAll(async () => {
    await installMonitorCrd(new URL('../../crds/maintenancewindows.meerkat.dev.yaml', import.meta.url));
    namespace = setup.namespace.name;
    windows = windowsIn(namespace);
    setup.startTestOperator({
      windows: createHubClient(setup.hub.url, setup.hub.keys.acmeEditor),
      refreshMs: 500,
      projects: parseProjectPolicy(`${namespace}=${namespace},shop`),
    });
  });

  it('puts a weekly window in the hub under namespace-name, scoped to the namespace’s project, and says when it next starts', async () => {
    await windows.create('saturday-patching', weekly);
    const hubName = `${namespace}-saturday-patching`;
    const resource = await eventually('the window synced', async () => {
      const current = await windows.get('saturday-patching');
      return synced(current)?.status === 'True' ? current : undefined;
    });
    const stored = await hubWindow(hubName);
    expect(stored).toMatchObject({
      matchers: [
        { label: 'project', operator: '=', values: [namespace] },
        { label: 'monitor', operator: '=', values: ['checkout'] },
      ],
      schedule: weekly.schedule,
      excludeFromFigures: true,
    });
    expect(resource.metadata.finalizers).toContain('meerkat.dev/cleanup');
    // In force or not as the hub says: the window is Saturday 22:00 to Sunday 01:00 UTC, so a run of this test
    // then finds it in force (a fixed `false` failed every week in those hours).
    expect(resource.status).toMatchObject({
      observedGeneration: 1,
      windowName: hubName,
      active: stored?.current !== null && stored?.current !== undefined,
      nextStart: new Date(stored?.next?.start ?? '').toISOString().replace(/\.\d+Z$/, 'Z'),
    });
    // kstatus (ADR 0039): Ready at the generation the hub holds, so `kubectl wait --for=condition=Ready` works.
    expect(resource.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'True',
      observedGeneration: 1,
    });
    expect(resource.status?.updatedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('puts a window that recurs by an RRULE in the hub as it is written, and says when it next starts', async () => {
    // The last Saturday of each month, which cron cannot say (ADR 0045).
    const lastSaturday = {
      matchers: [{ label: 'monitor', values: ['checkout'] }],
      schedule: {
        type: 'rrule',
        rrule: 'FREQ=MONTHLY;BYDAY=SA;BYSETPOS=-1;BYHOUR=22;BYMINUTE=0',
        startsAt: '2026-01-01T00:00:00Z',
        timezone: 'Europe/Berlin',
        durationMinutes: 240,
      },
    };
    await windows.create('last-saturday', lastSaturday);
    const resource = await eventually('the rule window synced', async () => {
      const current = await windows.get('last-saturday');
      return synced(current)?.status === 'True' ? current : undefined;
    });
    const stored = await hubWindow(`${namespace}-last-saturday`);
    expect(stored?.schedule).toEqual(lastSaturday.schedule);
    const next = new Date(stored?.next?.start ?? '');
    // A Saturday at 22:00 in Berlin, with no Saturday after it in the same month.
    const berlin = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Berlin',
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).formatToParts(next);
    const part = (type: string) => berlin.find((p) => p.type === type)?.value;
    expect([part('weekday'), part('hour'), part('minute')]).toEqual(['Sat', '22', '00']);
    expect(new Date(next.getTime() + 7 * 86_400_000).getUTCMonth()).not.toBe(next.getUTCMonth());
    expect(resource.status?.nextStart).toBe(next.toISOString().replace(/\.\d+Z$/, 'Z'));

    await windows.create('minutely', {
      ...lastSaturday,
      schedule: { ...lastSaturday.schedule, rrule: 'FREQ=MINUTELY' },
    });
    const refused = await eventually('the rule refused', async () => {
      const current = await windows.get('minutely');
      return synced(current)?.status === 'False' ? synced(current) : undefined;
    });
    expect(refused?.message).toMatch(/^the hub answered 400: .*schedule\.rrule/);
    await windows.delete('minutely');
  });

  it('shows a window in force as active until its end, and follows a spec change', async () => {
    const startsAt = new Date(Date.now() - 60_000).toISOString();
    const endsAt = new Date(Date.now() + 3_600_000).toISOString();
    await windows.create('db-upgrade', {
      matchers: [{ label: 'project', values: ['shop'] }],
      schedule: { type: 'once', startsAt, endsAt },
    });
    const active = await eventually('the window active', async () => {
      const current = await windows.get('db-upgrade');
      return current.status?.active === true ? current : undefined;
    });
    expect(active.status?.currentEnd).toBe(endsAt.replace(/\.\d+Z$/, 'Z'));
    expect((await hubWindow(`${namespace}-db-upgrade`))?.matchers).toEqual([
      { label: 'project', operator: '=', values: ['shop'] },
    ]);

    await windows.patchSpec('db-upgrade', { excludeFromFigures: false });
    await eventually('the change in the hub', async () => {
      const current = await windows.get('db-upgrade');
      return current.status?.observedGeneration === 2 && synced(current)?.status === 'True';
    });
    expect((await hubWindow(`${namespace}-db-upgrade`))?.excludeFromFigures).toBe(false);
  });

  it('puts back a window changed in the hub behind its back', async () => {
    const hubName = `${namespace}-saturday-patching`;
    const changed = await setup.hub.request('PUT', `/maintenance-windows/${hubName}`, {
      as: 'acmeEditor',
      body: { ...weekly, name: hubName, matchers: [{ label: 'project', values: ['everything'] }] },
    });
    expect(changed.status).toBe(200);
    await eventually('the hub copy restored', async () => {
      const stored = await hubWindow(hubName);
      return stored?.matchers.some((m) => m.label === 'monitor') === true;
    });
  });

  it('says why a spec is refused: invalid, another team’s project, or refused by the hub', async () => {
    await windows.create('bad-zone', { ...weekly, schedule: { ...weekly.schedule, timezone: 'Mars/Base' } });
    await windows.create('other-team', { ...weekly, matchers: [{ label: 'project', values: ['payments'] }] });
    await windows.create('bad-cron', { ...weekly, schedule: { ...weekly.schedule, cron: '99 99 * * *' } });
    const refusal = (name: string) =>
      eventually(`${name} refused`, async () => {
        const condition = synced(await windows.get(name));
        return condition?.status === 'False' ? condition : undefined;
      });
    expect(await refusal('bad-zone')).toMatchObject({
      reason: 'InvalidSpec',
      message: 'spec.schedule.timezone: an IANA time zone such as Europe/Berlin',
    });
    const otherTeam = await refusal('other-team');
    expect(otherTeam.reason).toBe('ProjectNotAllowed');
    expect(otherTeam.message).toContain(`namespace ${namespace} may not write project "payments"`);
    const badCron = await refusal('bad-cron');
    expect(badCron.reason).toBe('HubRefused');
    expect(badCron.message).toMatch(/^the hub answered 400: .*schedule\.cron/);
    for (const name of ['bad-zone', 'other-team', 'bad-cron']) {
      expect(await hubWindow(`${namespace}-${name}`)).toBeUndefined();
      // Refused at its generation: Ready=False and Stalled=True (kstatus Failed), observedGeneration moved on.
      const { status } = await windows.get(name);
      expect(status?.observedGeneration).toBe(1);
      expect(status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False' });
      expect(status?.conditions?.find((c) => c.type === 'Stalled')).toMatchObject({ status: 'True' });
      // Nothing reached the hub, so nothing holds the resource back.
      expect((await windows.get(name)).metadata.finalizers ?? []).toEqual([]);
    }
  });

  it('deletes the hub window before the resource goes', async () => {
    await windows.delete('saturday-patching');
    await eventually('the resource gone', () => windows.gone('saturday-patching'));
    expect(await hubWindow(`${namespace}-saturday-patching`)).toBeUndefined();
    expect(await hubWindow(`${namespace}-db-upgrade`)).toBeDefined();
  });
});
