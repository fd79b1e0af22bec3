import type { HomeView, KnownBlock } from '@slack/web-api';
import type { MetricsSummary } from '../metrics/metrics.schema.js';

/** The App Home tab: the organization's monitor health over the last 24 hours, from the metrics rollups. */
export function appHomeView(summary: MetricsSummary, environment: string, publicUrl?: string): HomeView {
  const { monitors, runs } = summary;
  const blocks: KnownBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: `Meerkat: ${environment}` } },
    {
      type: 'section',
      fields: [
        `*Monitors*\n${monitors.total}`,
        `*Passing*\n${monitors.passing}`,
        `*Failing*\n${monitors.failing}`,
        `*No recent runs*\n${monitors.noRecentRuns}`,
        `*Runs (24h)*\n${runs.total}`,
        `*Success rate*\n${runs.total === 0 ? 'n/a' : `${runs.successRate}%`}`,
      ].map((text) => ({ type: 'mrkdwn', text })),
    },
  ];
  if (summary.failingMonitors.length > 0) {
    const lines = summary.failingMonitors
      .slice(0, 10)
      .map((f) => `• *${f.monitorName}*: ${f.consecutiveFailures} consecutive failures`);
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `*Failing now*\n${lines.join('\n')}` } });
  } else {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: 'No monitor is failing.' } });
  }
  if (publicUrl !== undefined) {
    blocks.push({
      type: 'actions',
      elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open Meerkat' }, url: publicUrl }],
    });
  }
  return { type: 'home', blocks };
}
