// Where the web console shows a run and a monitor (served by the hub under /ui/, docs/console.md). Notification
// links, the Monitor resource's status and the console's own links all point here, so the pages can move in one
// place. No zod here: the console's bundle imports it.

export const consoleRunPath = (runId: string) => `/ui/runs/${encodeURIComponent(runId)}`;

export const consoleMonitorPath = (monitorId: string) => `/ui/monitors/${encodeURIComponent(monitorId)}`;
