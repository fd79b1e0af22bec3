import type { ComponentChildren } from 'preact';
import type { StepResult } from '../types.js';
import { TlsFactsPanel } from './tls-facts.js';

/** A TCP, DNS or gRPC step's heading (what it reached, as the runner reported it), its TLS and its error. */
function CheckFrame({ step, now, children }: { step: StepResult; now: number; children: ComponentChildren }) {
  const heading = `check-${step.nodeId}`;
  return (
    <section
      class={`check check-${step.type.toLowerCase()}`}
      data-node={step.nodeId}
      aria-labelledby={heading}
    >
      <h3 id={heading}>
        {step.nodeId}:{' '}
        <code>
          {step.request?.method ?? step.type} {step.request?.url ?? '(not sent)'}
        </code>
      </h3>
      {children}
      {step.tls !== undefined && <TlsFactsPanel tls={step.tls} now={now} labelledBy={heading} />}
      {step.error !== undefined && (
        <p class="error">
          <strong>{step.errorClass ?? 'error'}:</strong> {step.error}
        </p>
      )}
    </section>
  );
}

/** What a TCP_CONNECT read while looking for its `expect` (secrets redacted by the runner). */
function TcpAnswer({ step }: { step: StepResult }) {
  if (step.received === undefined) return <p>Connected; nothing was read.</p>;
  return (
    <>
      <p>Received {step.received.bytes} bytes</p>
      {step.received.excerpt !== undefined && (
        <figure class="excerpt">
          <figcaption>Bytes received (first 1 KiB, secrets redacted)</figcaption>
          <pre tabIndex={0}>
            <code>{step.received.excerpt}</code>
          </pre>
        </figure>
      )}
    </>
  );
}

/** A DNS_QUERY's rcode and answer records, in zone-file form. */
function DnsAnswer({ step }: { step: StepResult }) {
  const dns = step.dns;
  if (dns === undefined) return <p>No answer.</p>;
  return (
    <>
      <p>
        Answer: <strong class="rcode">{dns.rcode}</strong>, {dns.answers.length} record
        {dns.answers.length === 1 ? '' : 's'}
        {dns.authoritative ? ', authoritative' : ''}
      </p>
      {dns.answers.length > 0 && (
        <table class="dns-answers">
          <caption>Answer records</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">TTL</th>
              <th scope="col">Data</th>
            </tr>
          </thead>
          <tbody>
            {dns.answers.map((a, i) => (
              <tr key={i}>
                <td>{a.name}</td>
                <td>{a.type}</td>
                <td>{a.ttl} s</td>
                <td>
                  <code>{a.data}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** A GRPC_HEALTH_CHECK's serving status and gRPC status code. */
function GrpcAnswer({ step }: { step: StepResult }) {
  if (step.grpc === undefined) return <p>No answer.</p>;
  return (
    <p>
      Serving status: <strong class={`serving ${step.grpc.servingStatus}`}>{step.grpc.servingStatus}</strong>{' '}
      (gRPC status {step.grpc.code})
    </p>
  );
}

/** The panel of a TCP_CONNECT, DNS_QUERY or GRPC_HEALTH_CHECK step; undefined for other types. */
export function CheckPanel({ step, now }: { step: StepResult; now: number }) {
  const answer =
    step.type === 'TCP_CONNECT' ? (
      <TcpAnswer step={step} />
    ) : step.type === 'DNS_QUERY' ? (
      <DnsAnswer step={step} />
    ) : step.type === 'GRPC_HEALTH_CHECK' ? (
      <GrpcAnswer step={step} />
    ) : undefined;
  if (answer === undefined) return null;
  return (
    <CheckFrame step={step} now={now}>
      {answer}
    </CheckFrame>
  );
}
