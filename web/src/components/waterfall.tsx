import { ms } from '../format.js';
import type { StepResult } from '../types.js';

const PHASES = [
  { key: 'dns', label: 'DNS' },
  { key: 'connect', label: 'Connect' },
  { key: 'tls', label: 'TLS' },
  { key: 'wait', label: 'First byte' },
  { key: 'transfer', label: 'Transfer' },
] as const;
type Phase = (typeof PHASES)[number]['key'];

/** A step's phases in order. "First byte" is the wait after the connection was ready, so the phases add up. */
function phasesOf(step: StepResult): Array<{ key: Phase; ms: number }> {
  const t = step.timings;
  if (t === undefined) return [];
  const setup = (t.dnsMs ?? 0) + (t.connectMs ?? 0) + (t.tlsMs ?? 0);
  const firstByte = t.firstByteMs ?? t.totalMs;
  const phases: Array<{ key: Phase; ms: number | undefined }> = [
    { key: 'dns', ms: t.dnsMs },
    { key: 'connect', ms: t.connectMs },
    { key: 'tls', ms: t.tlsMs },
    { key: 'wait', ms: Math.max(0, firstByte - setup) },
    { key: 'transfer', ms: t.firstByteMs === undefined ? undefined : Math.max(0, t.totalMs - t.firstByteMs) },
  ];
  return phases.filter((p): p is { key: Phase; ms: number } => p.ms !== undefined);
}

/** Each step on one time axis, from the run's first step; HTTP steps split into their phases. */
export function Waterfall({ steps }: { steps: StepResult[] }) {
  const ran = steps.filter((s) => s.startedAt !== null);
  const start = Math.min(...ran.map((s) => Date.parse(s.startedAt as string)));
  const end = Math.max(...ran.map((s) => Date.parse(s.startedAt as string) + (s.durationMs ?? 0)));
  const span = Math.max(1, end - start);
  const pct = (value: number) => `${((value / span) * 100).toFixed(3)}%`;
  return (
    <figure class="waterfall">
      <figcaption>
        Steps on one time axis ({ms(span)} in all).{' '}
        {PHASES.map((p) => (
          <span key={p.key} class={`legend phase-${p.key}`}>
            {p.label}
          </span>
        ))}
      </figcaption>
      <table>
        <thead>
          <tr>
            <th scope="col">Step</th>
            <th scope="col">Result</th>
            <th scope="col">Timeline</th>
            <th scope="col">Phases</th>
          </tr>
        </thead>
        <tbody>
          {steps.map((step) => {
            const phases = phasesOf(step);
            const offset = step.startedAt === null ? 0 : Date.parse(step.startedAt) - start;
            const described = phases.map((p) => `${PHASES.find((x) => x.key === p.key)?.label} ${ms(p.ms)}`);
            return (
              <tr key={step.nodeId} class={`step-${step.status}`} data-node={step.nodeId}>
                <th scope="row">
                  {step.nodeId} <span class="muted">{step.type}</span>
                </th>
                <td>
                  <span class={`badge ${step.status}`}>{step.status}</span>
                  {step.errorClass !== undefined && <span class="muted"> {step.errorClass}</span>}
                </td>
                <td class="lane">
                  <div class="track" style={{ marginLeft: pct(offset), width: pct(step.durationMs ?? 0) }}>
                    {phases.length === 0 ? (
                      <span class="bar phase-step" style={{ width: '100%' }} />
                    ) : (
                      phases.map((p) => (
                        <span
                          key={p.key}
                          class={`bar phase-${p.key}`}
                          style={{ width: `${(p.ms / Math.max(1, step.durationMs ?? p.ms)) * 100}%` }}
                        />
                      ))
                    )}
                  </div>
                </td>
                <td>{described.length === 0 ? ms(step.durationMs) : described.join(', ')}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </figure>
  );
}
