import { describe, expect, it } from 'vitest';
import { finalizeOutcome } from '../../hub/src/runner/outcome-finalization.js';
import type { StepResult } from '../../hub/src/runner/run-outcome.js';

const SECRET = 'CANARY-Zq7xW9pLk2Vt';

/** Every piece of `value` at least 4 characters long. */
const piecesOf = (value: string) => Array.from({ length: value.length - 3 }, (_, i) => value.slice(i, i + 4));

const failedStep = (error: string): StepResult => ({
  nodeId: 'call',
  type: 'HTTP_REQUEST',
  status: 'failed',
  startedAt: new Date(0).toISOString(),
  durationMs: 1,
  error,
  errorClass: 'runner',
});

function finalize(errors: string[], secretValues: string[]) {
  return finalizeOutcome({
    steps: errors.map(failedStep),
    runError: undefined,
    secretValues,
    startedAt: new Date(0),
    completedAt: new Date(1),
    durationMs: 1,
  });
}

const messageOf = (action: () => unknown) => {
  try {
    action();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a throw');
};

describe('error messages of libraries that quote a piece of a secret', () => {
  it('hides the cut excerpts JSON.parse quotes, at the start or in the middle of its input', () => {
    const messages = [
      messageOf(() => JSON.parse(SECRET)),
      messageOf(() => JSON.parse(`{"token": ${SECRET}, "more": "text to make V8 cut on both sides"}`)),
      `something …${SECRET.slice(5, 15)}… was cut`,
    ];
    expect(messages[0]).toContain(SECRET.slice(0, 6));
    const outcome = finalize(messages, [SECRET]);
    const everything = JSON.stringify(outcome);
    for (const piece of piecesOf(SECRET)) expect(everything).not.toContain(piece);
    expect(outcome.steps[0]?.error).toContain('[secret]');
  });

  it('hides the host of a secret URL, which DNS and TLS errors name on their own', () => {
    const secretUrl = 'https://internal-billing-7f3e.example/v1/';
    const outcome = finalize(
      [
        'GET https://internal-billing-7f3e.example/v1/health: getaddrinfo ENOTFOUND internal-billing-7f3e.example',
        "Hostname/IP does not match certificate's altnames: Host: internal-billing-7f3e.example. is not in the cert's altnames",
      ],
      [secretUrl],
    );
    expect(JSON.stringify(outcome)).not.toContain('internal-billing-7f3e');
    expect(outcome.errors[0]).toBe('call: GET [secret]health: getaddrinfo ENOTFOUND [secret]');
  });

  it('leaves messages alone that hold no piece of a secret next to a cut', () => {
    const message = 'the response body is over the limit... not read further; CANA is fine alone';
    expect(finalize([message], [SECRET]).steps[0]?.error).toBe(message);
  });
});

describe('response excerpts', () => {
  const answered = (excerpt: string): StepResult => ({
    nodeId: 'call',
    type: 'HTTP_REQUEST',
    status: 'passed',
    startedAt: new Date(0).toISOString(),
    durationMs: 1,
    response: { status: 200, bytes: 4096, excerpt },
  });
  const finalizeExcerpt = (excerpt: string) =>
    finalizeOutcome({
      steps: [answered(excerpt)],
      runError: undefined,
      secretValues: [SECRET],
      startedAt: new Date(0),
      completedAt: new Date(1),
      durationMs: 1,
    }).steps[0]?.response?.excerpt;

  it('hides a secret the body echoes, whole or encoded', () => {
    const excerpt = finalizeExcerpt(
      JSON.stringify({
        token: SECRET,
        basic: Buffer.from(SECRET).toString('base64'),
        url: encodeURIComponent(SECRET),
      }),
    );
    for (const piece of piecesOf(SECRET)) expect(excerpt).not.toContain(piece);
    expect(excerpt).toContain('[secret]');
  });

  it('hides the half of a secret the 1 KiB cut leaves before its mark', () => {
    // As http-request-step.ts cuts a body: its first 1,024 characters and `…`.
    const body = `${'x'.repeat(1024 - 9)}${SECRET}${'y'.repeat(100)}`;
    const excerpt = finalizeExcerpt(`${body.slice(0, 1024)}…`);
    expect(excerpt).toBe(`${'x'.repeat(1024 - 9)}[secret]…`);
  });
});
