// What chart.node.test.ts sets up around the chart: API keys, the second values file (what only the running test
// knows), a client of the hub's API on loopback, and the figures the issue asks for, printed, never asserted.
import { CoreV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { formatApiKeyEntry, generateApiKey, hashApiKey } from '../../hub/src/auth/api-keys.js';
import type { Role } from '../../hub/src/contract/roles.js';
import { LOOPBACK_CIDRS } from '../harness/egress.js';
import type { KubeNodeInfo } from './start-node.js';

const ORGANIZATION = 'node-org';
export const JOB_LOCATION = 'node-jobs';
export const RUNNER_SECRET = { name: 'meerkat-runner', key: 'api-key' };

export function apiKeys() {
  const keys = { admin: generateApiKey(), operator: generateApiKey(), runner: generateApiKey() };
  const entry = (role: Role, key: string) =>
    formatApiKeyEntry({ organizationId: ORGANIZATION, role, sha256: hashApiKey(key) });
  const hashes = [entry('admin', keys.admin), entry('editor', keys.operator), entry('service', keys.runner)];
  return { ...keys, entries: hashes.join(',') };
}

export interface RuntimeValues {
  databaseUrl: string;
  redisUrl: string;
  keys: ReturnType<typeof apiKeys>;
  hubPort: number;
  operatorHealthPort: number;
  defaultMetricsPort: number;
  runnerNamespace: string;
  node: KubeNodeInfo;
}

/** The second values file: the harness's PostgreSQL and Redis, keys, loopback ports and the `job` location. */
export function writeRuntimeValues(dir: string, values: RuntimeValues): string {
  const hubUrl = `http://127.0.0.1:${values.hubPort}`;
  const file = join(dir, 'runtime-values.yaml');
  writeFileSync(
    file,
    stringify({
      database: { url: values.databaseUrl },
      redis: { url: values.redisUrl },
      auth: { apiKeys: values.keys.entries },
      operator: { apiKey: values.keys.operator, healthPort: values.operatorHealthPort },
      hub: { port: values.hubPort },
      metrics: { port: values.defaultMetricsPort },
      locations: [
        // Both locations run monitors against the test's target on loopback, which they refuse unless allowed.
        { name: 'default', executor: 'worker', egress: { allowCidrs: LOOPBACK_CIDRS.split(',') } },
        {
          name: JOB_LOCATION,
          executor: 'job',
          job: {
            namespace: values.runnerNamespace,
            hubUrl,
            apiKeySecret: RUNNER_SECRET,
            tolerations: [{ ...values.node.taint, operator: 'Equal' }],
          },
          egress: { allowCidrs: LOOPBACK_CIDRS.split(',') },
        },
      ],
    }),
  );
  return file;
}

export function hubClient(hubUrl: string, key: string) {
  return async <T>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; data?: T | undefined; error?: string | undefined }> => {
    const res = await fetch(`${hubUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await res.text();
    const answer = text ? (JSON.parse(text) as { data?: T; error?: string }) : {};
    return { status: res.status, data: answer.data, error: answer.error };
  };
}

export const isReady = (pod: V1Pod) =>
  pod.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True') ??
  false;

/** The earliest time a pod of the namespace turned Ready, from the kubelet's own condition timestamps. */
export async function firstReadyAt(kubeConfig: KubeConfig, namespace: string): Promise<number | undefined> {
  const pods = await kubeConfig.makeApiClient(CoreV1Api).listNamespacedPod({ namespace });
  const times = pods.items.flatMap((pod) =>
    (pod.status?.conditions ?? [])
      .filter((condition) => condition.type === 'Ready' && condition.status === 'True')
      .map((condition) => new Date(condition.lastTransitionTime ?? 0).getTime()),
  );
  return times.length > 0 ? Math.min(...times) : undefined;
}

/** Prints one of the figures; tests never assert times, the closing note quotes these lines. */
export function report(figure: string, value: string): void {
  console.log(`[node figures] ${figure}: ${value}`);
}
