// Kubernetes Events on Monitor resources (core/v1, the API the operator's ClusterRole allows), so
// `kubectl describe mkm` and `kubectl get events` show sync failures and health changes next to the resource.
import { randomBytes } from 'node:crypto';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { MonitorResource } from './monitor-resource-status.js';

export interface MonitorEvent {
  type: 'Normal' | 'Warning';
  /** CamelCase, e.g. `HubRejectedSpec`, `HealthChanged`. */
  reason: string;
  message: string;
}

export interface MonitorEvents {
  record(resource: MonitorResource, event: MonitorEvent): Promise<void>;
}

const EVENT_SOURCE = 'meerkat-operator';

export function kubeMonitorEvents(kubeConfig: KubeConfig, log: Logger): MonitorEvents {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  return {
    async record(resource, event) {
      const now = new Date();
      const { namespace, name, uid, resourceVersion } = resource.metadata;
      try {
        await core.createNamespacedEvent({
          namespace,
          body: {
            metadata: { name: `${name}.${randomBytes(8).toString('hex')}`, namespace },
            involvedObject: {
              apiVersion: resource.apiVersion,
              kind: resource.kind,
              namespace,
              name,
              uid,
              ...(resourceVersion ? { resourceVersion } : {}),
            },
            type: event.type,
            reason: event.reason,
            message: event.message.slice(0, 1024),
            source: { component: EVENT_SOURCE },
            reportingComponent: EVENT_SOURCE,
            reportingInstance: EVENT_SOURCE,
            firstTimestamp: now,
            lastTimestamp: now,
            count: 1,
          },
        });
      } catch (error) {
        // An Event is a courtesy to whoever looks; failing to write one must not fail the reconcile.
        log.warn(
          { err: error, monitor: { namespace, name }, reason: event.reason },
          'could not record event',
        );
      }
    },
  };
}
