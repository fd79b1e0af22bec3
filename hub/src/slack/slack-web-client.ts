import type { WebClient, WebClientOptions } from '@slack/web-api';

/**
 * Slack's Web API client, its package loaded on the first call: a process that never talks to Slack (a scheduler,
 * a worker without chat integrations) does not hold it (docs/benchmarks.md "Memory").
 */
export async function createSlackWebClient(
  token: string | undefined,
  options: WebClientOptions,
): Promise<WebClient> {
  const { WebClient } = await import('@slack/web-api');
  return new WebClient(token, options);
}
