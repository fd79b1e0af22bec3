import type { Monitor, MonitorDefinition } from '../contract/monitor-definition.js';
import type { Run, RunResultReport } from '../contract/run.js';
import type { FieldIssue } from '../http/errors.js';

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

/** What a client reads of `GET /metrics/monitors/{id}` (the full shape: hub/src/metrics/metrics.schema.ts). */
export interface MonitorMetricsFigures {
  status: string;
  runs: { total: number; successful: number; failed: number; successRate: number };
  latency: { p95DurationMs: number };
  lastRun: { id: string; status: string; success: boolean; startedAt: string; durationMs: number } | null;
}

// A 429 comes from the hub's rate limit before any route ran, so sending the same request again is safe.
const MAX_RATE_LIMIT_WAIT_SECONDS = 60;

/** fetch, waiting out the hub's 429 answers as their Retry-After says, for at most a minute in all. */
async function fetchPastRateLimit(url: URL, init: RequestInit): Promise<Response> {
  for (let waited = 0; ;) {
    const response = await fetch(url, init);
    const retryAfter = Math.max(1, Number(response.headers.get('retry-after') ?? Number.NaN));
    if (response.status !== 429 || !(retryAfter >= 1) || waited + retryAfter > MAX_RATE_LIMIT_WAIT_SECONDS)
      return response;
    await response.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
    waited += retryAfter;
  }
}

/** The hub's REST API as the client commands use it. */
export function createHubClient(baseUrl: string, apiKey: string) {
  async function call<T>(method: string, path: string, body?: unknown): Promise<T | undefined> {
    const response = await fetchPastRateLimit(new URL(path, baseUrl), {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? null : JSON.stringify(body),
    });
    if (response.status === 404 && method === 'GET') return undefined;
    if (response.status === 204) return undefined;
    const answer = (await response.json().catch(() => ({}))) as {
      error?: unknown;
      message?: string;
      details?: unknown;
    };
    if (!response.ok) {
      const message =
        typeof answer.error === 'string' && response.status !== 401
          ? answer.error
          : (answer.message ?? `HTTP ${response.status}`);
      throw new HubRequestError(
        response.status,
        message,
        Array.isArray(answer.details) ? (answer.details as FieldIssue[]) : [],
      );
    }
    return answer as T;
  }

  return {
    async getMonitor(id: string): Promise<Monitor | undefined> {
      return (await call<{ data: Monitor }>('GET', `/monitor/${encodeURIComponent(id)}`))?.data;
    },
    async findMonitor(project: string, environment: string, name: string): Promise<Monitor | undefined> {
      const query = new URLSearchParams({ project, environment, name });
      return (await call<{ data: Monitor }>('GET', `/monitor/by-name?${query.toString()}`))?.data;
    },
    async listMonitors(filter: {
      project?: string | undefined;
      environment?: string | undefined;
    }): Promise<Monitor[]> {
      const all: Monitor[] = [];
      for (let page = 0; ; page += 1) {
        const query = new URLSearchParams({ page: String(page), limit: '100' });
        if (filter.project !== undefined) query.set('project', filter.project);
        if (filter.environment !== undefined) query.set('environment', filter.environment);
        const answer = await call<{ data: Monitor[]; total: number }>('GET', `/monitor/?${query.toString()}`);
        all.push(...(answer?.data ?? []));
        if (answer === undefined || all.length >= answer.total || answer.data.length === 0) return all;
      }
    },
    async putMonitor(id: string, definition: MonitorDefinition): Promise<Monitor> {
      return (
        (await call<{ data: Monitor }>('PUT', `/monitor/${encodeURIComponent(id)}`, definition)) as {
          data: Monitor;
        }
      ).data;
    },
    async createMonitor(definition: MonitorDefinition): Promise<Monitor> {
      return ((await call<{ data: Monitor }>('POST', '/monitor/', definition)) as { data: Monitor }).data;
    },
    async deleteMonitor(id: string): Promise<void> {
      await call('DELETE', `/monitor/${encodeURIComponent(id)}`);
    },
    /** The monitor's health and run figures (`GET /metrics/monitors/{id}`, docs/metrics.md); undefined on 404. */
    async getMonitorMetrics(id: string): Promise<MonitorMetricsFigures | undefined> {
      return (
        await call<{ data: MonitorMetricsFigures }>('GET', `/metrics/monitors/${encodeURIComponent(id)}`)
      )?.data;
    },
    async getRun(id: string): Promise<Run | undefined> {
      return (await call<{ data: Run }>('GET', `/runs/${encodeURIComponent(id)}`))?.data;
    },
    async startRun(id: string): Promise<Run> {
      return ((await call<{ data: Run }>('POST', `/runs/${encodeURIComponent(id)}/start`)) as { data: Run })
        .data;
    },
    async reportRunResult(id: string, result: RunResultReport): Promise<Run> {
      return (
        (await call<{ data: Run }>('PUT', `/runs/${encodeURIComponent(id)}/result`, result)) as { data: Run }
      ).data;
    },
    /** A secret's value, or undefined when it does not exist; the value travels in the body, never the URL. */
    async resolveSecret(request: {
      organizationId: string;
      environment: string;
      name: string;
      version?: string;
    }) {
      const response = await fetchPastRateLimit(new URL('/secrets/resolve', baseUrl), {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(request),
      });
      if (response.status === 404) return undefined;
      const answer = (await response.json()) as { data?: { value: string }; error?: string };
      if (!response.ok || answer.data === undefined) {
        throw new HubRequestError(response.status, answer.error ?? `HTTP ${response.status}`);
      }
      return answer.data.value;
    },
  };
}
export type HubClient = ReturnType<typeof createHubClient>;
