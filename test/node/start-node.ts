// Starts a real node beside the test control plane (docs/adr/0019-real-node-in-tests.md): containerd with the
// cached images, a kubelet registered as `meerkat-node` at 127.0.0.1, and kube-scheduler, each by the script under
// scripts/node/ that the smoke run and a person at a shell use too. Stops and cleans it all (scripts/node/stop-node.sh),
// also when vitest is interrupted. The kubelet, containerd and runc use a few fixed paths (/var/log/pods,
// /var/lib/kubelet/device-plugins, /run/containerd), so one node per machine: a lock directory says whose it is.
import { execFile, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeClusterInfo } from '../kube/start-cluster.js';
import { KUBE_VERSION, meerkatCacheRoot } from '../kube/binaries.js';

const NODE_BUILD_COMMAND = 'npm run provision';
const NODE_NAME = 'meerkat-node';
/** The node's taint: only pods that tolerate it run here, so the `*.kube.test.ts` files' pods stay unscheduled. */
export const NODE_TAINT = { key: 'meerkat.dev/node-tests', value: 'true', effect: 'NoSchedule' } as const;
const MEERKAT_IMAGE = 'localhost/meerkat:dev';

export interface KubeNodeInfo {
  nodeName: string;
  image: string;
  taint: typeof NODE_TAINT;
  /** Where the images and the node's binaries are cached (the image size is read from there). */
  imagesDir: string;
}

export interface RunningKubeNode {
  info: KubeNodeInfo;
  stop(): Promise<void>;
}

const scriptsDir = fileURLToPath(new URL('../../scripts/node/', import.meta.url));
const LOCK_DIR = join(tmpdir(), 'meerkat-node.lock');
const LOCK_WAIT_MS = 15 * 60_000;
const IMAGE_ARCHIVES = [`pause-${KUBE_VERSION}.oci.tar`, 'meerkat.oci.tar'];

/** What the node needs and the build provides; throws one line naming the build command when any is missing. */
function checkPrerequisites(): void {
  const root = meerkatCacheRoot();
  const needed = [
    join(root, `kubernetes-${KUBE_VERSION}-node`, 'VERSION'),
    ...IMAGE_ARCHIVES.map((name) => join(root, 'images', name)),
  ];
  const missing = needed.filter((path) => !fs.existsSync(path));
  const problems = [
    ...(process.getuid?.() === 0 ? [] : ['root (containerd, runc and the kubelet need it)']),
    ...(missing.length > 0 ? [`${missing.join(', ')} (run \`${NODE_BUILD_COMMAND}\`)`] : []),
  ];
  if (problems.length > 0) {
    const error = new Error(`The node tests need: ${problems.join('; ')}`);
    error.stack = error.message;
    throw error;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Takes the machine's node lock (a directory holding our pid), taking over a lock whose holder is gone. */
async function takeLock(): Promise<void> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      fs.mkdirSync(LOCK_DIR);
      fs.writeFileSync(join(LOCK_DIR, 'pid'), String(process.pid));
      return;
    } catch {
      const holder = Number(fs.readFileSync(join(LOCK_DIR, 'pid'), { encoding: 'utf8', flag: 'a+' }));
      if (!holder || !isAlive(holder)) fs.rmSync(LOCK_DIR, { recursive: true, force: true });
      else if (Date.now() > deadline)
        throw new Error(`another node run (pid ${holder}) held ${LOCK_DIR} too long`);
      else await sleep(2000);
    }
  }
}

function runScript(script: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('bash', [join(scriptsDir, script), ...args], { maxBuffer: 1 << 22 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${script} failed (${error.message.split('\n')[0]}):\n${stdout}${stderr}`));
      else resolve(stdout);
    });
  });
}

/** Starts containerd, the kubelet and the scheduler against `cluster`; on failure stops what started. */
export async function startKubeNode(cluster: KubeClusterInfo): Promise<RunningKubeNode> {
  checkPrerequisites();
  await takeLock();
  const dir = fs.mkdtempSync(join(tmpdir(), 'meerkat-node-'));
  // vitest turns SIGINT/SIGTERM into process.exit, where only synchronous work runs.
  const stopNow = () => {
    spawnSync('bash', [join(scriptsDir, 'stop-node.sh'), dir], { stdio: 'ignore' });
    fs.rmSync(LOCK_DIR, { recursive: true, force: true });
  };
  process.once('exit', stopNow);
  const stop = async () => {
    process.removeListener('exit', stopNow);
    await runScript('stop-node.sh', [dir]).finally(() =>
      fs.rmSync(LOCK_DIR, { recursive: true, force: true }),
    );
  };
  const started = Date.now();
  try {
    // Only what pods run: the base image is an input of the Meerkat image's build, not of the node.
    await runScript('start-containerd.sh', [
      dir,
      ...IMAGE_ARCHIVES.map((name) => join(meerkatCacheRoot(), 'images', name)),
    ]);
    await runScript('start-kubelet.sh', [dir, cluster.kubeconfigPath]);
    await runScript('start-scheduler.sh', [dir, cluster.kubeconfigPath]);
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  console.error(`[node] ${NODE_NAME} Ready with the scheduler ${Date.now() - started} ms after start`);
  return {
    info: {
      nodeName: NODE_NAME,
      image: MEERKAT_IMAGE,
      taint: NODE_TAINT,
      imagesDir: join(meerkatCacheRoot(), 'images'),
    },
    stop,
  };
}
