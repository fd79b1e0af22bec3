import { connect, type Socket } from 'node:net';
import type { EgressPolicy } from './egress-policy.js';
import { egressLookup, guardConnect } from './egress-connector.js';

/**
 * A TCP connection to `host:port` under the policy, started now: the name or literal is judged first (a refusal
 * throws the EgressDeniedError), then every address the name resolves to, just before the socket connects to it
 * (a refusal is the socket's error). The runner's TCP, DNS and gRPC steps connect through it.
 */
export function connectUnderEgress(policy: EgressPolicy, host: string, port: number): Socket {
  const lookup = egressLookup(policy);
  const guarded = guardConnect(policy, host, port, () => connect({ host, port, lookup }));
  if ('denied' in guarded) throw guarded.denied;
  return guarded.result;
}

type SocketCallback = (error: Error | null, socketOptions?: { connection: Socket } | false) => void;

/**
 * nodemailer's `getSocket` hook: the SMTP connection is opened here, under the egress policy, and handed over
 * connected; nodemailer then speaks SMTP (and TLS, with the host name for SNI) over it. Without the hook
 * nodemailer resolves and connects on its own, where no policy can see the address.
 */
export function egressSmtpSocket(policy: EgressPolicy, timeoutMs: number) {
  return (
    options: { host?: string | undefined; port?: number | string | undefined },
    callback: SocketCallback,
  ) => {
    const host = options.host ?? 'localhost';
    const port = Number(options.port) || 587;
    let socket: Socket;
    try {
      socket = connectUnderEgress(policy, host, port);
    } catch (denied) {
      setImmediate(() => callback(denied as Error));
      return;
    }
    let settled = false;
    const settle = (error: Error | null) => {
      if (settled) return;
      settled = true;
      socket.setTimeout(0);
      if (error === null) callback(null, { connection: socket });
      else callback(error);
    };
    socket.setTimeout(timeoutMs, () =>
      socket.destroy(new Error(`connecting to ${host}:${port} timed out after ${timeoutMs} ms`)),
    );
    socket.once('connect', () => settle(null));
    // Stays attached: an error between the handover and nodemailer's own listener must not crash the process.
    socket.on('error', (error) => settle(error));
  };
}
