// One-way folders (issue 20, docs/architecture.md#folders): a hub/src folder imports only the folders of the layers
// below its own, never one of its own layer or above, so no loop of folders can form. Features never import server/
// (the composition root) or cli/; the operator imports only the contract, the hub client and the small kernels named
// below. `npm run check` also runs scripts/folder-cycles.ts, which resolves every import and finds any loop at all.
// A new folder goes in a layer here; an import a rule refuses usually means the code belongs one layer down.

/** Lowest first. */
export const layers = [
  ['log', 'crypto', 'jsonpath', 'kube', 'openapi'], // kernels that import no hub folder
  ['contract'], // the API's schemas
  ['db', 'system'], // tables (typed by the contract), migrations; clock, periodic work, version, health routes
  ['http'], // the HTTP kernel: errors, validation, paging, listen
  ['auth', 'egress'],
  ['secrets', 'monitors', 'connections'],
  ['runner', 'runs', 'integrations', 'maintenance'],
  ['config'], // settings are read by the composition root and handed down, never read by features
  ['metrics'],
  ['scheduling', 'slack', 'console', 'heartbeats'],
  ['notifications', 'worker'],
  ['client'], // the hub's HTTP client: the CLI, runner Jobs and the operator talk to the hub through it
  ['jobs'],
  ['server'], // the composition root: every service built, the start-* functions, signal handling
  ['cli'],
];

/** What operator/src may import from hub/src: the contract, the client and these kernels. */
export const operatorMayImport = [
  'contract',
  'client',
  'log',
  'system',
  'http',
  'kube',
  'config/invalid-setting-error',
];

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The query builder: only repositories (`*.repository.ts`) and db/ import it (docs/development.md, ADR 0042). */
const kyselyOutsideRepositories = {
  name: 'kysely',
  message: 'only repositories (*.repository.ts) and hub/src/db import kysely: put the query in a repository.',
};

function folderRules() {
  return layers.flatMap((layer, index) =>
    layer.flatMap((folder) => {
      const above = layers
        .slice(index)
        .flat()
        .filter((other) => other !== folder);
      const oneWay = {
        // ../server/app.js from hub/src/runs/, ../../server/x.js from hub/src/metrics/prometheus/.
        regex: `^(\\.\\./)+(${above.map(escape).join('|')})/`,
        message: `hub/src/${folder} is below that folder: folders import one way (eslint.boundaries.js).`,
      };
      const rule = (paths) => ({ 'no-restricted-imports': ['error', { paths, patterns: [oneWay] }] });
      if (folder === 'db') return [{ files: [`hub/src/${folder}/**/*.ts`], rules: rule([]) }];
      return [
        {
          files: [`hub/src/${folder}/**/*.ts`],
          ignores: ['**/*.repository.ts'],
          rules: rule([kyselyOutsideRepositories]),
        },
        { files: [`hub/src/${folder}/**/*.repository.ts`], rules: rule([]) },
      ];
    }),
  );
}

const operatorRule = {
  files: ['operator/src/**/*.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: `hub/src/(?!(${operatorMayImport.map(escape).join('|')})[/.])`,
            message: `the operator imports only ${operatorMayImport.join(', ')} from hub/src (eslint.boundaries.js).`,
          },
        ],
      },
    ],
  },
};

export const boundaries = [...folderRules(), operatorRule];
