// One GET /version of the API server before the operator starts: a server it cannot verify (the kubeconfig's
// certificate-authority is not the one that signed it), an `http://` server, or one that does not answer for
// STARTUP_WAIT_SECONDS ends the process with one line naming the cause and the setting (issue 34). Otherwise
// every later call failed the same way, retried forever behind log lines with stacks. Any HTTP answer will do:
// what the operator may do there is the ClusterRole's business.
import { setTimeout as sleep } from 'node:timers/promises';
import { VersionApi, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { InvalidSettingError } from '../../hub/src/config/invalid-setting-error.js';
import { createBackoff } from '../../hub/src/system/backoff.js';

// Node's codes for a TLS peer it does not trust or that does not match; no retry makes these pass.
const VERIFICATION_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'EPROTO',
]);

export interface ApiServerCheckOptions {
  /** The setting the cluster came from, named in the line (`KUBECONFIG`, or the pod's service account). */
  setting: string;
  waitSeconds: number;
  log: Logger;
}

export async function checkApiServer(kubeConfig: KubeConfig, options: ApiServerCheckOptions): Promise<void> {
  const cluster = kubeConfig.getCurrentCluster();
  const where = `the API server ${cluster?.server ?? '(none)'}${cluster ? ` of cluster "${cluster.name}"` : ''}`;
  const deadline = Date.now() + options.waitSeconds * 1000;
  const backoff = createBackoff({ initialMs: 500, maxMs: 5_000 });
  for (;;) {
    try {
      await kubeConfig.makeApiClient(VersionApi).getCode();
      return;
    } catch (error) {
      if (isHttpAnswer(error)) return;
      const { code, reason } = describe(error);
      if (code !== undefined && VERIFICATION_CODES.has(code))
        throw new InvalidSettingError(
          options.setting,
          `cannot verify ${where}: ${reason} (${code}); its certificate-authority must be the CA that signed the ` +
            'server’s certificate',
        );
      if (code === undefined)
        throw new InvalidSettingError(options.setting, `cannot use ${where}: ${reason}`);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new InvalidSettingError(
          options.setting,
          `cannot reach ${where}: ${reason} (gave up after ${options.waitSeconds} s, STARTUP_WAIT_SECONDS)`,
        );
      options.log.warn({ reason, leftSeconds: Math.ceil(left / 1000) }, 'waiting for the API server');
      await sleep(Math.min(backoff.next(), left));
    }
  }
}

/** client-node's ApiException: the server answered, with a status the operator does not need to like. */
function isHttpAnswer(error: unknown): boolean {
  return (
    typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'number'
  );
}

/** node-fetch's "request to … failed, reason: …", cut to the reason, and the system error code when there is one. */
function describe(error: unknown): { code?: string; reason: string } {
  const message = error instanceof Error ? error.message : String(error);
  const reason = message.replace(/^request to \S+ failed, reason: /, '');
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? { code, reason } : { reason };
}
