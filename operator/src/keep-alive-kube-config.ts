// The operator's API calls over kept-alive connections (issue 39, ADR 0063). @kubernetes/client-node 1.4 builds a
// new https.Agent for every request (KubeConfig.applySecurityAuthentication), so each call opened a TLS connection:
// a sync of 5,000 Monitors made about 15,000 handshakes, paid in CPU by the operator and the API server alike.
// Every generated client authenticates through its KubeConfig, so a KubeConfig whose authentication hands the request
// one kept-alive agent per set of TLS options (CA, client certificate, server name) gives every client made from it
// pooled connections. Headers (a service account's token, re-read as it rotates) are still set on each request.
import { Agent } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

type RequestContext = Parameters<KubeConfig['applySecurityAuthentication']>[0];

/** The TLS options an agent carries that decide which server it may talk to, and as whom. */
const TLS_KEYS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'servername', 'rejectUnauthorized'] as const;

/** A KubeConfig reading the same clusters and users as `kubeConfig`, whose clients keep their connections alive. */
export function keepAliveKubeConfig(kubeConfig: KubeConfig): KubeConfig {
  const agents = new Map<string, Agent>();
  const shared = Object.create(kubeConfig) as KubeConfig;
  shared.applySecurityAuthentication = async (context: RequestContext) => {
    await kubeConfig.applySecurityAuthentication.call(shared, context);
    const fresh = context.getAgent();
    if (!(fresh instanceof Agent)) return;
    const options = fresh.options as Record<(typeof TLS_KEYS)[number], unknown>;
    const key = TLS_KEYS.map((name) => {
      const value = options[name];
      return Buffer.isBuffer(value) ? value.toString('base64') : JSON.stringify(value);
    }).join('\n');
    let agent = agents.get(key);
    if (!agent) {
      agent = new Agent({ ...fresh.options, keepAlive: true });
      agents.set(key, agent);
    }
    context.setAgent(agent);
  };
  return shared;
}
