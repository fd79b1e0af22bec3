import { rootCertificates } from 'node:tls';
import { Agent, type Dispatcher } from 'undici';
import type { MonitorDefinition, MonitorNode } from '../contract/monitor-definition.js';
import { guardedConnector } from '../egress/egress-connector.js';
import { createEgressPolicy } from '../egress/egress-policy.js';
import type { SecretReader } from '../secrets/secret-store.js';
import { createAssertionPool } from './assertion-pool.js';
import { executeAssertions } from './assertion-step.js';
import { planBodyChecks } from './body-checks.js';
import { executeHttpRequest } from './http-request-step.js';
import { finalizeOutcome } from './outcome-finalization.js';
import { buildTimedConnector, observeUndiciRequests } from './request-timings.js';
import { executeGraph } from './run-graph.js';
import {
  DEFAULT_ASSERTION_BUDGET_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_RUN_TIMEOUT_MS,
  type ErrorClass,
  type MonitorRunnerOptions,
  type RunOutcome,
  type StepResult,
} from './run-outcome.js';
import type { StepContext } from './step-context.js';
import { describeError, errorClassOfRunEnd, RunCancelledError, RunTimeoutError } from './step-errors.js';
import { executeDnsQuery } from './dns-query-step.js';
import { executeGrpcHealthCheck } from './grpc-health-step.js';
import { executeTcpConnect } from './tcp-connect-step.js';
import { executeWait } from './wait-step.js';

export type {
  AssertionOutcome,
  ErrorClass,
  MonitorRunnerOptions,
  RunOutcome,
  StepResult,
  StepTimings,
} from './run-outcome.js';

export interface RunContext {
  secrets: SecretReader;
  organizationId: string;
  /** Aborting it stops the run: the steps in flight fail and the rest are skipped. */
  signal?: AbortSignal;
}

export interface MonitorRunner {
  /** Executes one run of the monitor's graph. Never rejects: every problem is in the outcome. */
  run(monitor: MonitorDefinition, context: RunContext): Promise<RunOutcome>;
  /** Closes the runner's own connection pool (never a dispatcher passed in) and its assertion threads. */
  close(): Promise<void>;
}

function executeStep(node: MonitorNode, context: StepContext): Promise<StepResult> {
  switch (node.type) {
    case 'HTTP_REQUEST':
      return executeHttpRequest(node, context);
    case 'TCP_CONNECT':
      return executeTcpConnect(node, context);
    case 'DNS_QUERY':
      return executeDnsQuery(node, context);
    case 'GRPC_HEALTH_CHECK':
      return executeGrpcHealthCheck(node, context);
    case 'WAIT':
      return executeWait(node, context);
    case 'ASSERTION':
      return executeAssertions(node, context);
  }
}

function skippedStep(node: MonitorNode, reason: string): StepResult {
  return {
    nodeId: node.id,
    type: node.type,
    status: 'skipped',
    startedAt: null,
    durationMs: null,
    error: reason,
  };
}

/** The run-level error when the run's signal ended it: a timeout, or the caller's cancel. */
function runLevelError(
  signal: AbortSignal,
  steps: StepResult[],
): { message: string; errorClass: ErrorClass } | undefined {
  if (!signal.aborted) return undefined;
  const skipped = steps.filter((step) => step.status === 'skipped').length;
  return {
    message: `${describeError(signal.reason)}; ${skipped} step(s) not run`,
    errorClass: errorClassOfRunEnd(signal.reason),
  };
}

/**
 * One runner per process (or per worker): its keep-alive Agent is shared by every run, as DESIGN.md's
 * measurements ask (undici `request` on a pooled dispatcher, never `fetch`).
 */
export function createMonitorRunner(options: MonitorRunnerOptions = {}): MonitorRunner {
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const runTimeoutMs = options.runTimeoutMs ?? DEFAULT_RUN_TIMEOUT_MS;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const clock = options.clock ?? { now: () => new Date() };
  const assertionBudgetMs = options.assertionBudgetMs ?? DEFAULT_ASSERTION_BUDGET_MS;
  // Threads start on the first JSONPath assertion, so a runner whose monitors have none never has one.
  const assertionPool = createAssertionPool();
  // undici's connect timeout is set past any request's own, so the request timeout is the one that speaks.
  const egress = options.egress ?? createEgressPolicy();
  const buildAgent = (verify: boolean) =>
    new Agent({
      connect: guardedConnector(egress, buildTimedConnector, {
        timeout: runTimeoutMs + 1_000,
        ...(options.extraCaCertificates === undefined
          ? {}
          : { ca: [...rootCertificates, ...options.extraCaCertificates] }),
        ...(verify ? {} : { rejectUnauthorized: false }),
      }),
    });
  let ownAgent: Agent | undefined;
  const dispatcher: Dispatcher = options.dispatcher ?? (ownAgent = buildAgent(true));
  // A pool of its own, made on the first `verify_tls: false` node: a connection that skipped verification is
  // never reused by a node that asks for it.
  let unverifiedAgent: Agent | undefined;
  const unverifiedDispatcher = () => options.dispatcher ?? (unverifiedAgent ??= buildAgent(false));
  const releaseObserver = ownAgent === undefined ? () => undefined : observeUndiciRequests();

  async function run(monitor: MonitorDefinition, context: RunContext): Promise<RunOutcome> {
    const startedAt = clock.now();
    const started = performance.now();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new RunTimeoutError(runTimeoutMs)), runTimeoutMs);
    const callerSignal = context.signal;
    const onCallerAbort = () => controller.abort(new RunCancelledError(callerSignal?.reason));
    if (callerSignal?.aborted) onCallerAbort();
    else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });

    const stepContext: StepContext = {
      runSignal: controller.signal,
      secrets: {
        store: context.secrets,
        organizationId: context.organizationId,
        environment: monitor.environment,
      },
      secretValues: new Set(),
      responses: new Map(),
      dispatcher,
      unverifiedDispatcher,
      connections: {
        egress,
        extraCaCertificates: options.extraCaCertificates,
      },
      requestTimeoutMs,
      maxBodyBytes,
      bodyChecks: planBodyChecks(monitor.nodes, {
        pool: assertionPool,
        budgetMs: assertionBudgetMs,
        runSignal: controller.signal,
      }),
      now: () => clock.now(),
    };
    let results: Map<string, StepResult>;
    try {
      results = await executeGraph(monitor.nodes, monitor.edges, controller.signal, {
        execute: (node) => executeStep(node, stepContext),
        skip: skippedStep,
      });
    } finally {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
    }
    const steps = monitor.nodes.map((node) => results.get(node.id) ?? skippedStep(node, 'not run'));
    return finalizeOutcome({
      steps,
      runError: runLevelError(controller.signal, steps),
      secretValues: stepContext.secretValues,
      startedAt,
      completedAt: clock.now(),
      // Whole milliseconds: runs are stored and charted in ms; steps keep tenths for loopback-fast targets.
      durationMs: Math.round(performance.now() - started),
    });
  }

  return {
    run,
    async close() {
      releaseObserver();
      await Promise.all([ownAgent?.close(), unverifiedAgent?.close(), assertionPool.close()]);
    },
  };
}
