/**
 * The `operationId` of every operation, keyed by `METHOD path` as the document spells them. Client generators
 * turn these into method names (`client.listMonitors()`), so they are part of the contract: never rename one.
 * An operation without an entry fails `npm run gen` and the OpenAPI test, so a new route cannot ship without one.
 */
const operationIds: Readonly<Record<string, string>> = {
  'GET /': 'getVersion',
  'GET /healthz': 'getLiveness',
  'GET /readyz': 'getReadiness',
  'GET /monitor/': 'listMonitors',
  'POST /monitor/': 'createMonitor',
  'POST /monitor/bulk': 'putMonitorsInBulk',
  'GET /monitor/by-name': 'getMonitorByName',
  'GET /monitor/{id}': 'getMonitor',
  'PUT /monitor/{id}': 'putMonitor',
  'DELETE /monitor/{id}': 'deleteMonitor',
  'POST /runs/trigger/{monitorId}': 'triggerRun',
  'GET /runs/': 'listRuns',
  'GET /runs/{id}': 'getRun',
  'POST /runs/{id}/start': 'startRun',
  'PUT /runs/{id}/result': 'reportRunResult',
  'GET /metrics/monitors/{monitorId}': 'getMonitorMetrics',
  'GET /metrics/monitors': 'listMonitorMetrics',
  'GET /metrics/summary': 'getMetricsSummary',
  'GET /principal': 'getPrincipal',
  'GET /metrics/monitors/{monitorId}/uptime-days': 'listMonitorUptimeDays',
  'GET /metrics/hourly-runs': 'listHourlyRuns',
  'GET /status-pages/{project}': 'getStatusPage',
  'PUT /status-pages/{project}': 'putStatusPage',
  'GET /status-pages/public/{slug}': 'getPublicStatusPage',
  'GET /connections': 'listConnections',
  'POST /connections': 'createConnection',
  'GET /connections/{id}': 'getConnection',
  'DELETE /connections/{id}': 'deleteConnection',
  'GET /integrations': 'listIntegrations',
  'POST /integrations': 'createIntegration',
  'GET /integrations/{id}': 'getIntegration',
  'PATCH /integrations/{id}': 'updateIntegration',
  'DELETE /integrations/{id}': 'deleteIntegration',
  'POST /integrations/oauth/initiate': 'initiateSlackInstall',
  'GET /integrations/oauth/start/{transactionId}': 'startSlackInstall',
  'GET /integrations/oauth/callback/chat': 'finishSlackInstall',
  'GET /integrations/oauth/status/{transactionId}': 'getSlackInstallStatus',
  'POST /integrations/hooks/': 'receiveSlackEvent',
  'GET /notifications/rules': 'listNotificationRules',
  'GET /notifications/events': 'listNotificationEvents',
  'PATCH /notifications/events/{id}': 'updateNotificationEvent',
  'GET /silences': 'listSilences',
  'POST /silences': 'createSilence',
  'GET /silences/{id}': 'getSilence',
  'DELETE /silences/{id}': 'expireSilence',
  'GET /maintenance-windows': 'listMaintenanceWindows',
  'GET /maintenance-windows/{name}': 'getMaintenanceWindow',
  'PUT /maintenance-windows/{name}': 'putMaintenanceWindow',
  'DELETE /maintenance-windows/{name}': 'deleteMaintenanceWindow',
  'GET /secrets/{name}': 'getSecret',
  'PUT /secrets/{name}': 'putSecret',
  'DELETE /secrets/{name}': 'deleteSecret',
  'POST /secrets/resolve': 'resolveSecret',
  'GET /admin/quotas': 'listQuotaOverrides',
  'GET /admin/organizations/{organizationId}/quotas': 'getOrganizationQuotas',
  'PUT /admin/organizations/{organizationId}/quotas': 'putOrganizationQuotas',
  'DELETE /admin/organizations/{organizationId}/quotas': 'deleteOrganizationQuotas',
  'POST /monitor/{id}/heartbeat-token': 'mintHeartbeatToken',
  'GET /ping/{token}': 'pingHeartbeat',
  'POST /ping/{token}': 'postHeartbeatPing',
  'GET /ping/{token}/start': 'pingHeartbeatStart',
  'POST /ping/{token}/start': 'postHeartbeatStart',
  'GET /ping/{token}/fail': 'pingHeartbeatFail',
  'POST /ping/{token}/fail': 'postHeartbeatFail',
};

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Gives every operation of `paths` its operationId; throws naming the operations that have none. */
export function assignOperationIds(paths: Record<string, object | undefined>): void {
  const missing: string[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const operation = (item as Record<string, { operationId?: string } | undefined> | undefined)?.[method];
      if (operation === undefined) continue;
      const key = `${method.toUpperCase()} ${path}`;
      const id = operationIds[key];
      if (id === undefined) missing.push(key);
      else operation.operationId = id;
    }
  }
  if (missing.length > 0)
    throw new Error(`no operationId for ${missing.join(', ')}: add it to hub/src/openapi/operation-ids.ts`);
}
