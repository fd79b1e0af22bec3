import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchV1Api, CoreV1Api, type V1Job, type V1PolicyRule } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadSettings } from '../../hub/src/config/settings.js';
import { runnerJobName } from '../../hub/src/jobs/runner-job.js';
import { startJobLocations } from '../../hub/src/server/start-job-locations.js';
import type { RunQueue } from '../../hub/src/runs/run-queue.js';
import { testRedisUrl } from '../harness/database.js';
import { LOOPBACK_CIDRS } from '../harness/egress.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { runMeerkat } from '../harness/processes.js';
import {
  adminKubeConfig,
  createTestNamespace,
  eventually,
  finishJobPod,
  kubeConfigForServiceAccount,
  type TestNamespace,
} from '../kube/test-cluster.js';
import {
  monitorAgainst,
  silentLog,
  startTarget,
  testComponents,
  testRunQueue,
  type Target,
} from '../runs/run-fixtures.js';

const jobRules = (
  parse(readFileSync(new URL('../../config/rbac/worker-runner-jobs-role.yaml', import.meta.url), 'utf8')) as {
    rules: V1PolicyRule[];
  }
).rules;

describe('runner Jobs of a `job` location, on a real kube-apiserver', () => {
  let namespace: TestNamespace;
  let hub: TestHub;
  let target: Target;
  let queue: RunQueue;
  let batch: BatchV1Api;
  let core: CoreV1Api;
  let jobs: { close(): Promise<void> };
  let workDir: string;

  beforeAll(async () => {
    namespace = await createTestNamespace('jobs');
    // The account of the workers of `job` locations, as the chart binds it: the Job Role and nothing else.
    const workerKubeConfig = await kubeConfigForServiceAccount(
      namespace.name,
      'meerkat-job-worker',
      jobRules,
    );
    // The runner Pods' own ServiceAccount, as the chart creates it (no rules: a runner talks only to the hub).
    await adminKubeConfig()
      .makeApiClient(CoreV1Api)
      .createNamespacedServiceAccount({
        namespace: namespace.name,
        body: { metadata: { name: 'meerkat-runner' } },
      });
    batch = workerKubeConfig.makeApiClient(BatchV1Api);
    core = workerKubeConfig.makeApiClient(CoreV1Api);
    workDir = mkdtempSync(join(tmpdir(), 'meerkat-jobs-'));
    const kubeconfig = join(workDir, 'job-worker.kubeconfig');
    writeFileSync(kubeconfig, workerKubeConfig.exportConfig());

    target = await startTarget();
    queue = testRunQueue();
    hub = await startTestHub({ runQueue: queue });
    const location = {
      name: 'eu-west',
      executor: 'job',
      job: {
        namespace: namespace.name,
        image: 'registry.example.com/meerkat:test',
        hubUrl: hub.url,
        apiKeySecret: { name: 'meerkat-runner', key: 'api-key' },
        serviceAccountName: 'meerkat-runner',
        nodeSelector: { 'topology.kubernetes.io/region': 'eu-west-1' },
        tolerations: [{ key: 'synthetic', operator: 'Exists', effect: 'NoSchedule' }],
        resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '256Mi' } },
        kubeconfig,
        ttlSecondsAfterFinished: 300,
      },
      // The target listens on loopback, which a runner refuses unless its location allows it.
      egress: { allowCidrs: LOOPBACK_CIDRS.split(',') },
    };
    const settings = loadSettings(
      {
        LOCATIONS: JSON.stringify([{ name: 'default', executor: 'worker' }, location]),
        REDIS_URL: testRedisUrl(),
        SECRETS_KEY: 'ab'.repeat(32),
      },
      'worker',
    );
    // The dispatching role of `meerkat worker --locations eu-west` (server/assemble.ts).
    jobs = startJobLocations({
      settings,
      log: silentLog,
      components: testComponents(hub.db, queue, hub.secrets),
      locations: ['eu-west'],
      hooks: [],
    });
    await hub.request('PUT', '/monitor/in-cluster', {
      body: monitorAgainst(target, { name: 'in-cluster', locations: ['eu-west'] }),
    });
  });
  afterAll(async () => {
    await jobs.close();
    await queue.close();
    await hub.close();
    await target.close();
    await namespace.delete();
    rmSync(workDir, { recursive: true, force: true });
  });

  const trigger = async () => {
    const res = await hub.request('POST', '/runs/trigger/in-cluster', {
      body: { environment: 'production' },
    });
    return ((await res.json()) as { data: { id: string } }).data.id;
  };
  const jobOf = (runId: string) =>
    eventually(`the Job of ${runId}`, () =>
      batch.readNamespacedJob({ namespace: namespace.name, name: runnerJobName(runId) }),
    );
  const runRow = (id: string) =>
    hub.db
      .selectFrom('runs')
      .select(['status', 'errors', 'steps', 'success'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const envOf = (job: V1Job) =>
    Object.fromEntries((job.spec?.template.spec?.containers[0]?.env ?? []).map((e) => [e.name, e.value]));

  it('creates a Job from the template, and the run completes when its runner reports', async () => {
    const runId = await trigger();
    const job = await jobOf(runId);
    const pod = job.spec?.template.spec;
    expect(job.metadata?.labels).toMatchObject({
      'meerkat.dev/run': runId,
      'meerkat.dev/monitor': 'in-cluster',
      'meerkat.dev/location': 'eu-west',
    });
    expect(job.spec).toMatchObject({
      backoffLimit: 0,
      ttlSecondsAfterFinished: 300,
      activeDeadlineSeconds: 180,
    });
    expect(pod).toMatchObject({
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      serviceAccountName: 'meerkat-runner',
      nodeSelector: { 'topology.kubernetes.io/region': 'eu-west-1' },
      tolerations: [{ key: 'synthetic', operator: 'Exists', effect: 'NoSchedule' }],
    });
    expect(pod?.containers[0]).toMatchObject({
      image: 'registry.example.com/meerkat:test',
      args: ['runner', '--run', runId],
      resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '256Mi' } },
    });
    expect(
      pod?.containers[0]?.env?.find((e) => e.name === 'MEERKAT_API_KEY')?.valueFrom?.secretKeyRef,
    ).toEqual({ name: 'meerkat-runner', key: 'api-key' });
    expect(envOf(job).EGRESS_ALLOW_CIDRS).toBe(LOOPBACK_CIDRS);

    // Play the kubelet: run the container's command here with the Job's environment, then end the Pod.
    const env = envOf(job);
    const runner = await runMeerkat(['runner', '--run', runId], {
      MEERKAT_URL: env.MEERKAT_URL ?? '',
      MEERKAT_ORGANIZATION_ID: env.MEERKAT_ORGANIZATION_ID ?? '',
      MEERKAT_API_KEY: hub.keys.acmeService,
      EGRESS_ALLOW_CIDRS: env.EGRESS_ALLOW_CIDRS ?? '',
    });
    expect(runner.code, runner.stderr).toBe(0);
    await finishJobPod(namespace.name, job.metadata?.name ?? '', 'Succeeded');
    const run = await runRow(runId);
    expect(run).toMatchObject({ status: 'completed', success: true });
    expect(run.steps).toHaveLength(2);
    await eventually(
      'the Job to complete',
      async () =>
        (await batch.readNamespacedJob({ namespace: namespace.name, name: job.metadata?.name ?? '' })).status
          ?.succeeded === 1,
    );
    expect((await runRow(runId)).status).toBe('completed');
  });

  it('fails the run with a clear error when the Pod fails before reporting', async () => {
    const runId = await trigger();
    const job = await jobOf(runId);
    await finishJobPod(namespace.name, job.metadata?.name ?? '', 'Failed');
    const run = await eventually('the run to fail', async () => {
      const row = await runRow(runId);
      return row.status === 'failed' ? row : undefined;
    });
    expect(run.errors[0]).toMatch(
      new RegExp(`^runner Job ${job.metadata?.name} failed before reporting \\(BackoffLimitExceeded`),
    );
  });

  it('fails the run when its Job is deleted', async () => {
    const runId = await trigger();
    const job = await jobOf(runId);
    await batch.deleteNamespacedJob({
      namespace: namespace.name,
      name: job.metadata?.name ?? '',
      propagationPolicy: 'Background',
    });
    const run = await eventually('the run to fail', async () => {
      const row = await runRow(runId);
      return row.status === 'failed' ? row : undefined;
    });
    expect(run.errors).toEqual([
      `runner Job ${job.metadata?.name} was deleted before the run reported a result`,
    ]);
  });

  it('makes no second Job when the run is dispatched again (a worker restarted meanwhile), and the run still finishes', async () => {
    const runId = await trigger();
    const job = await jobOf(runId);
    await queue.enqueue({
      organizationId: 'acme',
      monitorId: 'in-cluster',
      location: 'eu-west',
      runId: `${runId}`,
    });
    const restarted = startJobLocations({
      settings: loadSettings(
        {
          LOCATIONS: JSON.stringify([{ name: 'default', executor: 'worker' }]),
          REDIS_URL: testRedisUrl(),
          SECRETS_KEY: 'ab'.repeat(32),
        },
        'worker',
      ),
      log: silentLog,
      components: testComponents(hub.db, queue, hub.secrets),
      locations: ['eu-west'],
      hooks: [],
    });
    await restarted.close();
    const list = await batch.listNamespacedJob({
      namespace: namespace.name,
      labelSelector: `meerkat.dev/run=${runId}`,
    });
    expect(list.items).toHaveLength(1);
    const env = envOf(job);
    const runner = await runMeerkat(['runner', '--run', runId], {
      MEERKAT_URL: env.MEERKAT_URL ?? '',
      MEERKAT_ORGANIZATION_ID: 'acme',
      MEERKAT_API_KEY: hub.keys.acmeService,
      EGRESS_ALLOW_CIDRS: env.EGRESS_ALLOW_CIDRS ?? '',
    });
    expect(runner.code, runner.stderr).toBe(0);
    expect((await runRow(runId)).status).toBe('completed');
    const again = await hub.request('PUT', `/runs/${runId}/result`, {
      as: 'acmeService',
      body: { success: false, errors: ['late'], steps: [], durationMs: 1 },
    });
    expect(again.status).toBe(409);
  });

  it('grants the workers of job locations only the Job rules: they cannot create Pods or read Secrets', async () => {
    const refusals = await Promise.all([
      core
        .createNamespacedPod({
          namespace: namespace.name,
          body: { metadata: { name: 'sneaky' }, spec: { containers: [{ name: 'c', image: 'x' }] } },
        })
        .then(
          () => 200,
          (e: { code?: number }) => e.code,
        ),
      core.listNamespacedSecret({ namespace: namespace.name }).then(
        () => 200,
        (e: { code?: number }) => e.code,
      ),
    ]);
    expect(refusals).toEqual([403, 403]);
  });
});
