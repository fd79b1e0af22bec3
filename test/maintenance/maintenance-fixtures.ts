// A hub whose clock the test sets, a webhook integration, and runs finished through the worker's path, for the
// silence and maintenance window tests.
import { ruleEvaluationHook } from '../../hub/src/notifications/rule-evaluation-hook.js';
import { startTestHub, type Caller, type TestHub } from '../harness/hub.js';
import {
  createWebhookIntegration,
  eventsOf,
  finishRun,
  recordingDeliveryQueue,
  rulesOf,
} from '../notifications/notification-fixtures.js';

/** An answer of the hub: its status and parsed body (`data` on success, `code` and `details` on error). */
export interface Answer<T> {
  status: number;
  body: { data: T; total?: number; error?: string; code?: string; details?: FieldIssue[] };
}
interface FieldIssue {
  path: string;
  message: string;
}

export interface MaintenanceBed {
  hub: TestHub;
  /** The hub's clock: what "now" is for creating and listing silences and windows. */
  setNow(at: Date): void;
  deliveries: ReturnType<typeof recordingDeliveryQueue>;
  /** A failed (or passed) run of `monitorId` in eu-west, judged at `at`, through the worker's hooks. */
  finish(monitorId: string, success: boolean, at: Date, location?: string): Promise<string>;
  ruleIdOf(monitorId: string): Promise<string>;
  /** The rule's events, oldest first. */
  eventsOfRule(ruleId: string): ReturnType<typeof eventsOf>;
  /** Delivery jobs enqueued for the rule. */
  jobsOf(ruleId: string): number;
  post<T>(path: string, body: unknown, as?: Caller): Promise<Answer<T>>;
  put<T>(path: string, body: unknown, as?: Caller): Promise<Answer<T>>;
  get<T>(path: string, as?: Caller): Promise<Answer<T>>;
  del<T>(path: string, as?: Caller): Promise<Answer<T>>;
  close(): Promise<void>;
}

export async function startMaintenanceBed(): Promise<MaintenanceBed> {
  let now = new Date('2026-03-01T00:00:00Z');
  const hub = await startTestHub({ redisUrl: null, clock: { now: () => now } });
  await createWebhookIntegration(hub, 'hooks', 'http://127.0.0.1:9/unused');
  const deliveries = recordingDeliveryQueue();
  const hooks = [ruleEvaluationHook(deliveries)];
  const call = async <T>(method: string, path: string, body: unknown, as: Caller = 'acmeEditor') => {
    const response = await hub.request(method, path, { as, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    return { status: response.status, body: (text === '' ? {} : JSON.parse(text)) as Answer<T>['body'] };
  };
  return {
    hub,
    deliveries,
    setNow: (at) => {
      now = at;
    },
    finish: (monitorId, success, at, location = 'eu-west') =>
      finishRun(hub.db, hooks, { monitorId, success, at, location }),
    ruleIdOf: async (monitorId) => ((await rulesOf(hub, monitorId))[0] as { id: string }).id,
    eventsOfRule: async (ruleId) => (await eventsOf(hub, ruleId)).reverse(),
    jobsOf: (ruleId) => deliveries.jobs.filter((job) => job.ruleId === ruleId).length,
    post: (path, body, as) => call('POST', path, body, as),
    put: (path, body, as) => call('PUT', path, body, as),
    get: (path, as) => call('GET', path, undefined, as),
    del: (path, as) => call('DELETE', path, undefined, as),
    close: () => hub.close(),
  };
}

/** Every `minutes` from `from`, `count` instants. */
export function every(minutes: number, from: string, count: number): Date[] {
  return Array.from({ length: count }, (_, i) => new Date(new Date(from).getTime() + i * minutes * 60_000));
}
