import { connect, type Socket } from 'node:net';
import type { EgressPolicy } from './egress-policy.js';
import { egressLookup, guardConnect } from './egress-connector.js';

type SocketCallback = (error: Error | null, socketOptions?: { connection: Socket } | false) => void;

/**
 * nodemailer's `getSocket` hook: the SMTP connection is opened here, under the egress policy, and handed over
 * connected; nodemailer then speaks SMTP (and TLS, with the host name for SNI) over it. Without the hook
 * nodemailer resolves and connects on its own, where no policy can see the address.
 */
export function egressSmtpSocket(policy: EgressPolicy, timeoutMs: number) {
  const lookup = egressLookup(policy);
  return (
    options: { host?: string | undefined; port?: number | string | undefined },
    callback: SocketCallback,
  ) => {
    const host = options.host ?? 'localhost';
    const port = Number(options.port) || 587;
    const guarded = guardConnect(policy, host, port, () => connect({ host, port, lookup }));
    if ('denied' in guarded) {
      setImmediate(() => callback(guarded.denied));
      return;
    }
    const socket = guarded.result;
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
