// Long-running child processes of the test cluster (etcd, kube-apiserver, kube-controller-manager): each logs to
// a file kept for error messages, is polled until ready, and dies with the test run, also an interrupted one.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const STOP_TIMEOUT_MS = 15_000;

// vitest turns SIGINT/SIGTERM into process.exit, where only synchronous work runs: kill outright, then remove.
const liveDaemons = new Set<ChildProcess>();
const dirsToRemove = new Set<string>();
process.on('exit', () => {
  for (const child of liveDaemons) child.kill('SIGKILL');
  for (const dir of dirsToRemove) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
});

/** Removes dir when the process exits, unless forgetDir() ran first. */
export function removeDirOnExit(dir: string): void {
  dirsToRemove.add(dir);
}

export function forgetDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  dirsToRemove.delete(dir);
}

export interface DaemonSpec {
  name: string;
  command: string;
  args: string[];
  /** Working directory; the log goes to <dir>/<name>.log. */
  dir: string;
  env?: NodeJS.ProcessEnv;
  startTimeoutMs: number;
  isReady(): Promise<boolean>;
}

export interface Daemon {
  /** SIGTERM, then SIGKILL after 15 s. */
  stop(): Promise<void>;
  logTail(): string;
}

/** Starts a daemon and resolves once isReady() holds; rejects with the log's tail if it exits or times out. */
export async function startDaemon(spec: DaemonSpec): Promise<Daemon> {
  const logPath = join(spec.dir, `${spec.name}.log`);
  const logFd = fs.openSync(logPath, 'a');
  const child = spawn(spec.command, spec.args, {
    cwd: spec.dir,
    env: spec.env ?? process.env,
    stdio: ['ignore', logFd, logFd],
  });
  fs.closeSync(logFd);
  liveDaemons.add(child);
  // A spawn error (e.g. not executable) emits 'error' and never 'exit'; both count as the end.
  let endReason: string | undefined;
  const ended = new Promise<void>((resolve) => {
    const end = (reason: string) => {
      endReason ??= reason;
      liveDaemons.delete(child);
      resolve();
    };
    child.once('error', (error) => end(error.message));
    child.once('exit', (code, signal) => end(`exit ${code ?? signal}`));
  });
  // Unref'd, so a pending timeout does not keep vitest alive after the child has gone.
  const waitForEnd = () => Promise.race([ended, sleep(STOP_TIMEOUT_MS, undefined, { ref: false })]);
  const logTail = () => fs.readFileSync(logPath, 'utf8').trimEnd().split('\n').slice(-25).join('\n');
  const daemon: Daemon = {
    logTail,
    async stop() {
      if (endReason !== undefined) return;
      child.kill('SIGTERM');
      await waitForEnd();
      if (endReason === undefined) {
        child.kill('SIGKILL');
        await waitForEnd();
      }
    },
  };

  const deadline = Date.now() + spec.startTimeoutMs;
  while (!(await spec.isReady())) {
    if (endReason !== undefined || Date.now() > deadline) {
      const reason = endReason ?? `not ready within ${spec.startTimeoutMs} ms`;
      await daemon.stop();
      throw new Error(`${spec.name} failed to start (${reason}); last log lines:\n${logTail()}`);
    }
    await sleep(200);
  }
  return daemon;
}

export interface HttpsProbe {
  /** PEM of the CA to trust; without it the server's certificate is not checked (self-signed health ports). */
  ca?: string;
  bearerToken?: string;
}

/** GETs url and resolves whether it answered 200; any error or a 2 s silence counts as not ready. */
export function answersOk(url: string, probe: HttpsProbe = {}): Promise<boolean> {
  const request = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        ca: probe.ca,
        rejectUnauthorized: probe.ca !== undefined,
        headers: probe.bearerToken ? { authorization: `Bearer ${probe.bearerToken}` } : {},
        timeout: 2000,
      },
      (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      },
    );
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}
