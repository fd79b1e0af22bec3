import { escapeHtml } from '../http/html-escape.js';

/** The page the browser lands on after Slack sends it back; it says what happened and nothing secret. */
export function installResultPage(outcome: { ok: boolean; message: string }): string {
  const title = outcome.ok ? 'Slack connected' : 'Slack was not connected';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title} · Meerkat</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 36rem; margin: 4rem auto">
<h1>${title}</h1>
<p>${escapeHtml(outcome.message)}</p>
<p>You can close this window.</p>
</body></html>
`;
}
