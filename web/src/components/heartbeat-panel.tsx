import { when } from '../format.js';
import type { Monitor, Run, StepResult } from '../types.js';

/**
 * The step the hub records for a heartbeat run (docs/adr/0034-heartbeat-monitors.md): a ping's receipt, with the
 * time the job said it started and its note, or a missed period, with its deadline and the last ping before it.
 */
interface HeartbeatStep {
  receivedAt?: string;
  startedAt?: string | null;
  note?: string;
  deadline?: string;
  lastPingAt?: string | null;
  periodsMissed?: number;
}

/** The ping a heartbeat run tells of: the one it recorded, or the last one before the period it missed. */
const lastPingOf = (run: Run): string | null | undefined => {
  const step = (run.steps?.[0] ?? {}) as HeartbeatStep;
  return step.deadline !== undefined ? step.lastPingAt : step.receivedAt;
};

const graceText = (seconds: number | undefined) =>
  seconds === undefined || seconds === 0 ? 'no grace' : `${seconds} s of grace`;

/** A heartbeat monitor's run: what the job reported, or the deadline it missed; it has no steps to draw. */
export function HeartbeatPanel({ step, monitor }: { step: StepResult; monitor: Monitor | undefined }) {
  const ping = step as unknown as HeartbeatStep;
  const missed = ping.deadline !== undefined;
  return (
    <section class="heartbeat" aria-labelledby="heartbeat">
      <h2 id="heartbeat">Heartbeat</h2>
      {monitor !== undefined && (
        <p class="muted">
          Expects a ping every {monitor.frequency.every} {monitor.frequency.unit.toLowerCase()}, with{' '}
          {graceText(monitor.heartbeat?.grace_seconds)}.
        </p>
      )}
      <dl class="facts">
        <dt>State</dt>
        <dd>
          <span class={`badge ${step.status}`}>
            {missed ? 'missed' : step.status === 'passed' ? 'pinged' : 'reported a failure'}
          </span>
        </dd>
        {missed ? (
          <>
            <dt>Deadline</dt>
            <dd>{when(ping.deadline)}</dd>
            <dt>Last ping</dt>
            <dd>{ping.lastPingAt == null ? 'never' : when(ping.lastPingAt)}</dd>
            <dt>Periods missed</dt>
            <dd>{ping.periodsMissed ?? 1}</dd>
          </>
        ) : (
          <>
            <dt>Ping received</dt>
            <dd>{when(ping.receivedAt)}</dd>
            <dt>Job started</dt>
            <dd>{ping.startedAt == null ? 'not reported (no /start ping)' : when(ping.startedAt)}</dd>
          </>
        )}
      </dl>
      {ping.note !== undefined && (
        <figure class="excerpt">
          <figcaption>The ping’s note (its body, first 1000 characters)</figcaption>
          <pre tabIndex={0}>
            <code>{ping.note}</code>
          </pre>
        </figure>
      )}
    </section>
  );
}

/** A heartbeat monitor's page has no graph: what it expects, its state and its last ping, from its latest runs. */
export function HeartbeatSummary({ monitor, runs }: { monitor: Monitor; runs: Run[] }) {
  const latest = runs[0];
  const latestStep = (latest?.steps?.[0] ?? {}) as HeartbeatStep;
  const state =
    latest === undefined
      ? 'waiting for its first ping'
      : latestStep.deadline !== undefined
        ? `missed: no ping by ${when(latestStep.deadline)}`
        : latest.success === true
          ? 'up'
          : 'the job reported a failure';
  const lastPing = runs.map(lastPingOf).find((at) => at != null);
  return (
    <dl class="facts heartbeat-summary">
      <dt>Kind</dt>
      <dd>
        Heartbeat: a ping every {monitor.frequency.every} {monitor.frequency.unit.toLowerCase()}, with{' '}
        {graceText(monitor.heartbeat?.grace_seconds)}
      </dd>
      <dt>State</dt>
      <dd>{state}</dd>
      <dt>Last ping</dt>
      <dd>{lastPing == null ? 'none yet' : when(lastPing)}</dd>
    </dl>
  );
}
