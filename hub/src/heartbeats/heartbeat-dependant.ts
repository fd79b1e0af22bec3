import { frequencyToSeconds } from '../contract/monitor-definition.js';
import type { MonitorDependant } from '../monitors/monitor-dependants.js';
import { deleteHeartbeat, upsertHeartbeat } from './heartbeat.repository.js';

/**
 * Keeps a heartbeat monitor's ping state following its definition, in the monitor's transaction
 * (docs/adr/0006-monitor-dependants.md): made or updated with it, dropped when it stops being a heartbeat (and
 * with it by the foreign key when it is deleted). Its token survives a change of period or grace.
 */
export const heartbeatDependant: MonitorDependant = {
  name: 'heartbeats',
  async sync(tx, change) {
    const { organizationId, monitor } = change;
    if (change.kind === 'delete' || monitor.heartbeat === undefined) {
      // A monitor created by this change has no ping state to drop (it goes with the monitor by the foreign key).
      if (change.kind === 'delete' || change.previous !== undefined)
        await deleteHeartbeat(tx, organizationId, monitor.id);
      return;
    }
    await upsertHeartbeat(tx, {
      organizationId,
      monitorId: monitor.id,
      environment: monitor.environment,
      periodSeconds: Math.round(frequencyToSeconds(monitor.frequency)),
      graceSeconds: monitor.heartbeat.grace_seconds ?? 0,
    });
  },
};
