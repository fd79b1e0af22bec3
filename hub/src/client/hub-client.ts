import type { z } from 'zod';
import type { Monitor, MonitorDefinition } from '../contract/monitor-definition.js';
import type { Run, RunResultReport } from '../contract/run.js';
import type { HeartbeatToken } from '../contract/heartbeat.js';
import type { FieldIssue } from '../http/errors.js';
import type { Integration } from '../integrations/integration.schema.js';
import type { MonitorMetrics } from '../metrics/metrics.schema.js';
import type { NotificationEvent } from '../notifications/notification.schema.js';
import type { MaintenanceWindowDefinition, SilenceCreate } from '../contract/maintenance-definition.js';
import type { MaintenanceWindow, Silence } from '../maintenance/maintenance.schema.js';
import type { QuotaOverrides } from '../quotas/organization-quotas.js';
import type { OrganizationQuotaState, QuotaOverridesRow } from '../quotas/quota.schema.js';
import type { monitorHealthRowSchema } from './hub-answers.js';
import { answers, HubAnswerError, readAnswer, readErrorAnswer } from './hub-answers.js';
import { createRequestPacer, type RequestPacer } from './request-pacer.js';
import { sendWithRetries, type RetryWhen } from './transport-retry.js';

export type { MaintenanceWindow, Silence };
export { HubAnswerError } from './hub-answers.js';
export { HubTransportError } from './transport-retry.js';

/** A non-2xx answer from the hub, with its error body. */
export class HubRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: FieldIssue[] = [],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** `GET /metrics/monitors/{id}` (hub/src/metrics/metrics.schema.ts). */
export type MonitorMetricsFigures = MonitorMetrics;

/** What the client reads of a row of `GET /metrics/monitors`. */
export type MonitorHealthRow = z.output<typeof monitorHealthRowSchema>;

// A 429 comes from the hub's rate limit before any route ran, so sending the same request again is safe.
const MAX_RATE_LIMIT_WAIT_SECONDS = 60;

/**
 * The POSTs that do what a PUT does (each item written by its id, no If-Match) or only read: sent again after a
 * lost connection. Every other POST creates, triggers or mints, and the API has no idempotency key to make a second
 * one harmless (docs/operations.md, "The hub client and dropped connections").
 */
const REPEATABLE_POSTS = new Set(['/monitor/bulk', '/secrets/resolve']);

/** Whether a request the hub may have received can be sent again (transport-retry.ts). */
function retryWhen(method: string, url: URL): RetryWhen {
  return method !== 'POST' || REPEATABLE_POSTS.has(url.pathname) ? 'repeatable' : 'unsent-only';
}

/**
 * fetch at the pace the hub's RateLimit headers allow, and waiting out the hub's 429 answers as their Retry-After
 * says (another client of the same key, or a hub that sends no policy), for at most a minute in all. A request
 * whose connection failed is sent again as retryWhen allows (transport-retry.ts).
 */
async function fetchPastRateLimit(pacer: RequestPacer, url: URL, init: RequestInit): Promise<Response> {
  const method = init.method ?? 'GET';
  const when = retryWhen(method, url);
  for (let waited = 0; ;) {
    await pacer.beforeRequest();
    const response = await sendWithRetries({ method, url, when, signal: init.signal ?? undefined }, () =>
      fetch(url, init),
    );
    pacer.afterResponse(response.headers);
    const retryAfter = Math.max(1, Number(response.headers.get('retry-after') ?? Number.NaN));
    if (response.status !== 429 || !(retryAfter >= 1) || waited + retryAfter > MAX_RATE_LIMIT_WAIT_SECONDS)
      return response;
    await response.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
    waited += retryAfter;
  }
}

export interface HubClientOptions {
  /**
   * Each call (waits out 429 answers included) fails with a TimeoutError after this long; none when absent. A hub
   * that accepts connections and never answers must not stall a long-running caller such as the operator.
   */
  timeoutMs?: number;
}

/**
 * `dryRun`: `?dryRun=true` on a monitor write (hub/src/monitors/monitor.schema.ts `monitorWriteQuery`). `ifMatch`:
 * the ETag read with the monitor; the hub refuses the write with 412 once the monitor changed (ADR 0046).
 */
export interface WriteOptions {
  dryRun?: boolean;
  ifMatch?: string | undefined;
}
const ifMatchHeader = (write: WriteOptions): Record<string, string> =>
  write.ifMatch === undefined ? {} : { 'if-match': write.ifMatch };
const dryRunQuery = (write: WriteOptions) => (write.dryRun === true ? '?dryRun=true' : '');

/** The filters of `GET /runs/`. */
export interface RunListFilter {
  monitorId?: string | undefined;
  status?: string | undefined;
  executionGroupId?: string | undefined;
  project?: string | undefined;
  environment?: string | undefined;
  limit: number;
}

/** The hub's REST API as the client commands use it. */
export function createHubClient(baseUrl: string, apiKey: string, options: HubClientOptions = {}) {
  // One per client: the operator's concurrent reconciles share its key's budget.
  const pacer = createRequestPacer();
  const timeout = () =>
    options.timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(options.timeoutMs) };
  /**
   * The answer of `method path` read by the contract's `schema`: undefined for a 204 or a GET's 404, a
   * HubRequestError for any other non-2xx, a HubAnswerError for a 2xx the schema refuses.
   */
  async function exchange<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ answer: z.output<S> | undefined; headers: Headers }> {
    const response = await fetchPastRateLimit(pacer, new URL(path, baseUrl), {
      ...timeout(),
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? null : JSON.stringify(body),
    });
    // The body is read to its end either way, or the connection stays busy and the next request opens another.
    if ((response.status === 404 && method === 'GET') || response.status === 204) {
      await response.body?.cancel();
      return { answer: undefined, headers: response.headers };
    }
    const text = await response.text();
    if (!response.ok) {
      const answer = readErrorAnswer(text);
      const message =
        answer.error !== undefined && response.status !== 401
          ? answer.error
          : (answer.message ?? `HTTP ${response.status}`);
      throw new HubRequestError(response.status, message, answer.details ?? []);
    }
    return { answer: readAnswer(method, path, schema, text), headers: response.headers };
  }

  async function call<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<z.output<S> | undefined> {
    return (await exchange(method, path, schema, body, headers)).answer;
  }

  /** As `call`, for a call whose success always has a body (a write's answer). */
  async function answered<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<z.output<S>> {
    const answer = await call(method, path, schema, body, headers);
    if (answer === undefined) throw new HubAnswerError(method, path, [{ path: '', message: 'no body' }]);
    return answer;
  }

  /** Every row of a list the hub pages by `limit` and `offset`: a request per 100 rows, until `total` are read. */
  async function everyPage<T>(
    path: string,
    schema: z.ZodType<{ data: T[]; total: number }>,
    filter: Record<string, string> = {},
  ): Promise<T[]> {
    const all: T[] = [];
    for (let offset = 0; ; offset += 100) {
      const query = new URLSearchParams({ ...filter, limit: '100', offset: String(offset) });
      const answer = await call('GET', `${path}?${query.toString()}`, schema);
      all.push(...(answer?.data ?? []));
      if (answer === undefined || all.length >= answer.total || answer.data.length === 0) return all;
    }
  }

  return {
    async getMonitor(id: string): Promise<Monitor | undefined> {
      return (await call('GET', `/monitor/${encodeURIComponent(id)}`, answers.monitor))?.data;
    },
    /** The monitor and the ETag of this version of it, for a later `putMonitor` with `ifMatch`. */
    async getMonitorVersion(id: string): Promise<{ monitor: Monitor; etag: string | undefined } | undefined> {
      const { answer, headers } = await exchange(
        'GET',
        `/monitor/${encodeURIComponent(id)}`,
        answers.monitor,
      );
      return answer === undefined
        ? undefined
        : { monitor: answer.data, etag: headers.get('etag') ?? undefined };
    },
    async findMonitor(project: string, environment: string, name: string): Promise<Monitor | undefined> {
      const query = new URLSearchParams({ project, environment, name });
      return (await call('GET', `/monitor/by-name?${query.toString()}`, answers.monitor))?.data;
    },
    async listMonitors(filter: {
      project?: string | undefined;
      environment?: string | undefined;
      labelSelector?: string | undefined;
    }): Promise<Monitor[]> {
      const all: Monitor[] = [];
      for (let page = 0; ; page += 1) {
        const query = new URLSearchParams({ page: String(page), limit: '100' });
        if (filter.project !== undefined) query.set('project', filter.project);
        if (filter.environment !== undefined) query.set('environment', filter.environment);
        if (filter.labelSelector !== undefined) query.set('labelSelector', filter.labelSelector);
        const answer = await call('GET', `/monitor/?${query.toString()}`, answers.monitorPage);
        all.push(...(answer?.data ?? []));
        if (answer === undefined || all.length >= answer.total || answer.data.length === 0) return all;
      }
    },
    /** `dryRun`: the hub checks everything and answers as the write would, changing nothing. */
    async putMonitor(id: string, definition: MonitorDefinition, write: WriteOptions = {}): Promise<Monitor> {
      const path = `/monitor/${encodeURIComponent(id)}${dryRunQuery(write)}`;
      return (await answered('PUT', path, answers.monitor, definition, ifMatchHeader(write))).data;
    },
    /**
     * Up to 100 PUTs in one request (`POST /monitor/bulk`), one request of the rate limit: each item's result in
     * order, its monitor when written, else the refusal its own PUT would have answered (HubRequestError).
     */
    async putMonitors(
      items: Array<{ id: string; definition: MonitorDefinition }>,
    ): Promise<Array<Monitor | HubRequestError>> {
      const { data } = await answered('POST', '/monitor/bulk', answers.bulkMonitorResults, {
        monitors: items,
      });
      return data.map((result) =>
        result.data !== undefined && result.status < 300
          ? result.data
          : new HubRequestError(
              result.status,
              result.error?.error ?? `HTTP ${result.status}`,
              result.error?.details ?? [],
            ),
      );
    },
    async createMonitor(
      definition: MonitorDefinition,
      write: Pick<WriteOptions, 'dryRun'> = {},
    ): Promise<Monitor> {
      const path = `/monitor/${dryRunQuery(write)}`;
      return (await answered('POST', path, answers.monitor, definition)).data;
    },
    async deleteMonitor(id: string): Promise<void> {
      await call('DELETE', `/monitor/${encodeURIComponent(id)}`, answers.nothing);
    },
    /** The monitor's health and run figures (`GET /metrics/monitors/{id}`, docs/metrics.md); undefined on 404. */
    async getMonitorMetrics(id: string): Promise<MonitorMetricsFigures | undefined> {
      return (await call('GET', `/metrics/monitors/${encodeURIComponent(id)}`, answers.monitorMetrics))?.data;
    },
    /** Every monitor's health row over 24 hours (`GET /metrics/monitors`): a request per 100 monitors. */
    async listMonitorHealth(): Promise<MonitorHealthRow[]> {
      return everyPage('/metrics/monitors', answers.monitorHealthPage, { period: '24h' });
    },
    /** Starts a manual run in every location of the monitor (`POST /runs/trigger/{id}`); the first run. */
    async triggerRun(monitorId: string, request: { environment: string }): Promise<Run> {
      const path = `/runs/trigger/${encodeURIComponent(monitorId)}`;
      return (await answered('POST', path, answers.run, request)).data;
    },
    /** The newest runs first, at most `limit` (1 to 100), matching every filter given. */
    async listRuns(filter: RunListFilter): Promise<Run[]> {
      const query = new URLSearchParams({ limit: String(filter.limit) });
      for (const key of ['monitorId', 'executionGroupId', 'status', 'project', 'environment'] as const) {
        const value = filter[key];
        if (value !== undefined) query.set(key, value);
      }
      return (await call('GET', `/runs/?${query.toString()}`, answers.runs))?.data ?? [];
    },
    /** The newest notification events first, at most `limit` (1 to 100). */
    async listNotificationEvents(limit: number): Promise<NotificationEvent[]> {
      const query = new URLSearchParams({ limit: String(limit) });
      const path = `/notifications/events?${query.toString()}`;
      return (await call('GET', path, answers.notificationEvents))?.data ?? [];
    },
    async listIntegrations(): Promise<Integration[]> {
      return everyPage('/integrations', answers.integrationPage);
    },
    /** A new ping token of a heartbeat monitor (the old one stops working), with the whole URL a job pings. */
    async mintHeartbeatToken(id: string): Promise<HeartbeatToken & { pingUrl: string }> {
      const path = `/monitor/${encodeURIComponent(id)}/heartbeat-token`;
      const { data } = await answered('POST', path, answers.heartbeatToken);
      return { ...data, pingUrl: new URL(data.pingPath, baseUrl).toString() };
    },
    /** The hub's version (`GET /`); undefined when the hub does not say. */
    async getServerVersion(): Promise<string | undefined> {
      return (await call('GET', '/', answers.serviceStatus))?.version;
    },
    async getRun(id: string): Promise<Run | undefined> {
      return (await call('GET', `/runs/${encodeURIComponent(id)}`, answers.run))?.data;
    },
    async startRun(id: string): Promise<Run> {
      return (await answered('POST', `/runs/${encodeURIComponent(id)}/start`, answers.run)).data;
    },
    async reportRunResult(id: string, result: RunResultReport): Promise<Run> {
      return (await answered('PUT', `/runs/${encodeURIComponent(id)}/result`, answers.run, result)).data;
    },
    /** Every silence, newest first, in one state when given (expired ones are kept for audit). */
    async listSilences(state?: Silence['state']): Promise<Silence[]> {
      return everyPage('/silences', answers.silencePage, state === undefined ? {} : { state });
    },
    async getSilence(id: string): Promise<Silence | undefined> {
      return (await call('GET', `/silences/${encodeURIComponent(id)}`, answers.silence))?.data;
    },
    async createSilence(request: SilenceCreate): Promise<Silence> {
      return (await answered('POST', '/silences', answers.silence, request)).data;
    },
    /** Ends the silence now; the hub keeps it, expired. */
    async expireSilence(id: string): Promise<Silence> {
      const path = `/silences/${encodeURIComponent(id)}`;
      return (await answered('DELETE', path, answers.silence)).data;
    },
    async listMaintenanceWindows(): Promise<MaintenanceWindow[]> {
      return (await call('GET', '/maintenance-windows', answers.maintenanceWindows))?.data ?? [];
    },
    async getMaintenanceWindow(name: string): Promise<MaintenanceWindow | undefined> {
      const path = `/maintenance-windows/${encodeURIComponent(name)}`;
      return (await call('GET', path, answers.maintenanceWindow))?.data;
    },
    /** Creates or replaces the window of `definition.name`. */
    async putMaintenanceWindow(definition: MaintenanceWindowDefinition): Promise<MaintenanceWindow> {
      const path = `/maintenance-windows/${encodeURIComponent(definition.name)}`;
      return (await answered('PUT', path, answers.maintenanceWindow, definition)).data;
    },
    async deleteMaintenanceWindow(name: string): Promise<void> {
      await call('DELETE', `/maintenance-windows/${encodeURIComponent(name)}`, answers.nothing);
    },
    /** The organizations whose quotas a platform admin overrode (the admin API). */
    async listQuotaOverrides(): Promise<QuotaOverridesRow[]> {
      return everyPage('/admin/quotas', answers.quotaOverridesPage);
    },
    async getQuotas(organizationId: string): Promise<OrganizationQuotaState> {
      return (await this.getQuotasVersion(organizationId)).state;
    },
    /** The quotas and the ETag of the overrides answered, for a later `putQuotas` with `ifMatch`. */
    async getQuotasVersion(
      organizationId: string,
    ): Promise<{ state: OrganizationQuotaState; etag: string | undefined }> {
      const path = `/admin/organizations/${encodeURIComponent(organizationId)}/quotas`;
      const { answer, headers } = await exchange('GET', path, answers.quotaState);
      if (answer === undefined) throw new HubAnswerError('GET', path, [{ path: '', message: 'no body' }]);
      return { state: answer.data, etag: headers.get('etag') ?? undefined };
    },
    /**
     * Replaces the organization's overrides: each quota given replaces its default, absent ones keep it. With
     * `ifMatch`, only while the overrides still have that ETag (else a HubRequestError of status 412).
     */
    async putQuotas(
      organizationId: string,
      overrides: QuotaOverrides,
      write: Pick<WriteOptions, 'ifMatch'> = {},
    ): Promise<OrganizationQuotaState> {
      const path = `/admin/organizations/${encodeURIComponent(organizationId)}/quotas`;
      return (await answered('PUT', path, answers.quotaState, overrides, ifMatchHeader(write))).data;
    },
    async resetQuotas(organizationId: string): Promise<void> {
      const path = `/admin/organizations/${encodeURIComponent(organizationId)}/quotas`;
      await call('DELETE', path, answers.nothing);
    },
    /** A secret's value, or undefined when it does not exist; the value travels in the body, never the URL. */
    async resolveSecret(request: {
      organizationId: string;
      environment: string;
      name: string;
      version?: string;
    }) {
      const response = await fetchPastRateLimit(pacer, new URL('/secrets/resolve', baseUrl), {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(request),
      });
      if (response.status === 404) return undefined;
      const text = await response.text();
      if (!response.ok) {
        throw new HubRequestError(response.status, readErrorAnswer(text).error ?? `HTTP ${response.status}`);
      }
      return readAnswer('POST', '/secrets/resolve', answers.resolvedSecret, text).data.value;
    },
  };
}
export type HubClient = ReturnType<typeof createHubClient>;
