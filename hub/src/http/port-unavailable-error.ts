/**
 * A server of this process could not listen (issue 34): the process exits with this one line, naming the address
 * and the setting to change, instead of Node's `listen EADDRINUSE` stack.
 */
export class PortUnavailableError extends Error {
  readonly code = 'port_unavailable';

  constructor(
    readonly address: string,
    readonly port: number,
    /** The setting the port comes from (PORT, METRICS_PORT, HEALTH_PORT), when the caller said. */
    readonly setting: string | undefined,
    cause: NodeJS.ErrnoException,
  ) {
    const where = `${address.includes(':') ? `[${address}]` : address}:${port}`;
    const fix = setting === undefined ? '' : `; set ${setting} to a free port`;
    const reasons: Record<string, string> = {
      EADDRINUSE: `${where} is already in use (another meerkat or program listens there)${fix}`,
      EACCES: `no permission to listen on ${where} (ports below 1024 need privileges)${fix}`,
      EADDRNOTAVAIL: `${address} is not an address of this machine; set HOST to one of its addresses`,
    };
    super(`cannot listen: ${reasons[cause.code ?? ''] ?? `${where}: ${cause.message}`}`, { cause });
    this.name = new.target.name;
  }
}

/** Whether a `listen` failure is one a person fixes with a setting (then PortUnavailableError says which). */
export function isListenFailure(error: unknown): error is NodeJS.ErrnoException {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL';
}
