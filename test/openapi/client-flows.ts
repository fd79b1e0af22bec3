// The programs a reader writes against the two generated clients: the README's flow (create a monitor, trigger
// it, read the run). They are text here, copied beside the generated code in a temp folder, because they import
// files that exist only there; generated-clients.test.ts compiles them with `tsc --strict` and runs them.

/** Copied as flow-monitor.ts. */
export const flowMonitorSource = `// The monitor both generated clients create in the README's flow, written without \`environment\` (the hub
// defaults it): the type each generator produced must take it as it stands. Copied beside the generated code.
export function flowMonitor(target: string, name: string) {
  return {
    project: 'clients',
    name,
    version: '1.0' as const,
    frequency: { every: 1, unit: 'HOUR' as const },
    nodes: [
      {
        id: 'get',
        type: 'HTTP_REQUEST' as const,
        method: 'GET' as const,
        base: target,
        path: '/healthz',
        response_format: 'JSON' as const,
      },
      {
        id: 'ok',
        type: 'ASSERTION' as const,
        assertions: [
          {
            nodeId: 'get',
            subject: 'status' as const,
            predicate: { type: 'binary' as const, operator: 'EQUAL' as const, expected: 200 },
          },
        ],
      },
    ],
    edges: [{ from: 'get', to: 'ok' }],
  };
}

/** Waits for a run to finish, reading it with \`read\`; prints the finished run as JSON. */
export async function untilFinished(read: () => Promise<{ status: string }>): Promise<void> {
  for (let tries = 0; tries < 120; tries += 1) {
    const run = await read();
    if (run.status === 'completed' || run.status === 'failed') {
      console.log(JSON.stringify(run));
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('the run did not finish within 30 s');
}
`;

/** Copied as openapi-fetch-flow.ts, beside openapi-typescript's api.d.ts. */
export const openapiFetchFlowSource = `// The README's flow (create a monitor, trigger it, read the run) with openapi-typescript's types and openapi-fetch,
// as a reader would write it. Copied beside the generated \`api.d.ts\`, compiled with \`tsc --strict\`, run by node.
import createClient from 'openapi-fetch';
import type { paths } from './api.js';
import { flowMonitor, untilFinished } from './flow-monitor.js';

const [baseUrl = '', key = '', target = '', name = ''] = process.argv.slice(2);
const client = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${key}\` } });

const created = await client.POST('/monitor/', { body: flowMonitor(target, name) });
if (!created.data) throw new Error(\`create: \${JSON.stringify(created.error)}\`);
const monitorId = created.data.data.id;

const triggered = await client.POST('/runs/trigger/{monitorId}', {
  params: { path: { monitorId } },
  body: { environment: 'default' },
});
if (!triggered.data) throw new Error(\`trigger: \${JSON.stringify(triggered.error)}\`);
const runId = triggered.data.data.id;

await untilFinished(async () => {
  const read = await client.GET('/runs/{id}', { params: { path: { id: runId } } });
  if (!read.data) throw new Error(\`read: \${JSON.stringify(read.error)}\`);
  return read.data.data;
});
`;

/** Copied as hey-api-flow.ts, beside @hey-api/openapi-ts's hey/ folder. */
export const heyApiFlowSource = `// The README's flow (create a monitor, trigger it, read the run) with the SDK @hey-api/openapi-ts generates with
// its default plugins. Copied beside the generated \`hey/\` folder, compiled with \`tsc --strict\`, run by node.
import { client } from './hey/client.gen.js';
import { createMonitor, getRun, triggerRun } from './hey/index.js';
import { flowMonitor, untilFinished } from './flow-monitor.js';

const [baseUrl = '', key = '', target = '', name = ''] = process.argv.slice(2);
client.setConfig({ baseUrl, auth: () => key });

const created = await createMonitor({ body: flowMonitor(target, name), throwOnError: true });
const monitorId = created.data.data.id;

const triggered = await triggerRun({
  path: { monitorId },
  body: { environment: 'default' },
  throwOnError: true,
});
const runId = triggered.data.data.id;

await untilFinished(async () => (await getRun({ path: { id: runId }, throwOnError: true })).data.data);
`;
