import type { ComponentChildren } from 'preact';
import type { Monitor, StepResult } from '../types.js';

type Node = Monitor['nodes'][number];

/** A header value as the console may show it: a secret reference never, only that one is there. */
const headerText = (value: unknown) => (typeof value === 'string' ? value : '[secret]');

/** The request an HTTP step sent (as the runner reported it) and the headers its node defines. */
export function RequestPanel({
  step,
  node,
  children,
}: {
  step: StepResult;
  node: Node | undefined;
  /** Shown after the response: the TLS facts of an HTTPS request. */
  children?: ComponentChildren;
}) {
  const headers = node?.type === 'HTTP_REQUEST' ? Object.entries(node.headers ?? {}) : [];
  return (
    <section class="request" aria-labelledby={`request-${step.nodeId}`}>
      <h3 id={`request-${step.nodeId}`}>
        {step.nodeId}:{' '}
        <code>
          {step.request?.method ?? (node?.type === 'HTTP_REQUEST' ? node.method : '')}{' '}
          {step.request?.url ?? '(not sent)'}
        </code>
      </h3>
      {headers.length > 0 && (
        <table class="headers">
          <caption>Request headers (from the monitor’s definition)</caption>
          <tbody>
            {headers.map(([name, value]) => (
              <tr key={name}>
                <th scope="row">{name}</th>
                <td>
                  <code>{headerText(value)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p>
        Response:{' '}
        {step.response === undefined ? (
          'none'
        ) : (
          <>
            status <strong>{step.response.status}</strong>, {step.response.bytes} bytes
          </>
        )}
        {step.redirects !== undefined &&
          ` after ${step.redirects.length} redirect${step.redirects.length === 1 ? '' : 's'}`}
      </p>
      {step.response?.excerpt !== undefined && (
        <figure class="excerpt">
          <figcaption>Response body (first 1 KiB, secrets redacted)</figcaption>
          {/* It may scroll, so the keyboard can reach it. */}
          <pre tabIndex={0}>
            <code>{step.response.excerpt}</code>
          </pre>
        </figure>
      )}
      {children}
      {step.error !== undefined && (
        <p class="error">
          <strong>{step.errorClass ?? 'error'}:</strong> {step.error}
        </p>
      )}
    </section>
  );
}
