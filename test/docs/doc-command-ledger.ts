// What happens to each command block of the docs (doc-command-blocks.ts), named by its file and first line: run by
// an existing test (so it is not run twice), run by doc-commands.test.ts (`here`, or `dev` against a fresh
// `meerkat dev`; `settings`: assignments bash runs and the process's own parser accepts), or skipped with the outside thing it needs, and (`coveredBy`) the test that runs the same commands
// against what the test machines have. doc-commands.test.ts prints every skipped block with its reason.
// doc-commands.test.ts fails on a block missing here and on an entry whose block is gone, so a new or edited
// block must be accounted for.

export type LedgerEntry = { file: string; first: string } & (
  | { runBy: string }
  | { here: true }
  | { dev: true }
  | { settings: 'hub' | 'operator' }
  | { skip: string; coveredBy?: string }
);

const NEEDS_CLUSTER =
  'needs the reader’s cluster: a kubelet to run Pods, Helm, their PostgreSQL and Redis (the node tier installs the chart its own way)';
const EXAMPLE_VALUES = 'placeholders (run_..., mk_..., oat_...) a reader replaces with ids of their own hub';
const READERS_FILES =
  'names the reader’s own monitors/ folder and secrets.yaml, which the repository has not';

export const ledger: LedgerEntry[] = [
  ...[
    "meerkat get monitors -o jsonpath='{.items[*].metadata.name}'",
    'meerkat edit monitor login-flow',
    'source <(meerkat completion bash)',
  ].map((first) => ({ file: 'docs/cli.md', first, runBy: 'test/cli/listing-docs.test.ts' })),
  { file: 'docs/cli.md', first: 'meerkat get runs -w', runBy: 'test/cli/labels-watch.test.ts' },
  {
    file: 'docs/cli.md',
    first:
      'meerkat admin quotas get acme                                # QUOTA, DEFAULT, OVERRIDE, IN FORCE, USAGE',
    runBy: 'test/cli/admin-quotas.test.ts',
  },
  {
    file: 'docs/monitors.md',
    first: 'meerkat get monitors -l team=shop',
    runBy: 'test/cli/listing-docs.test.ts',
  },
  {
    file: 'README.md',
    first: 'npm ci && LOCATIONS=default,eu-west npm start',
    runBy: 'test/docs/readme-quick-start.test.ts',
  },
  {
    file: 'README.md',
    first:
      'export MEERKAT_API_KEY=$(node -p \'require("./.meerkat/dev-credentials.json").apiKey\')   # the key printed above',
    runBy: 'test/docs/readme-quick-start.test.ts',
  },
  {
    file: 'README.md',
    first:
      'curl -fsS -X POST -H "Authorization: Bearer $MEERKAT_API_KEY" -H \'content-type: application/json\' \\',
    runBy: 'test/docs/readme-quick-start.test.ts',
  },
  { file: 'README.md', first: 'npm test', skip: 'the whole suite, this test included; CI (.ci/run) runs it' },
  {
    file: 'docs/api-conventions.md',
    first: 'curl -X POST -H "Authorization: Bearer $MEERKAT_KEY" -H \'content-type: application/json\' \\',
    dev: true,
  },
  { file: 'docs/auth.md', first: '$ meerkat keygen --org acme --role editor', here: true },
  {
    file: 'docs/cli.md',
    first:
      "meerkat apply -f config/samples/monitors --dry-run                 # the hub's verdict and diff; changes nothing",
    skip: 'line 2 exits 1 by design when anything would change, line 4 names the reader’s monitors/ folder',
    coveredBy: 'test/cli/apply.test.ts',
  },
  {
    file: 'docs/cli.md',
    first: 'meerkat get monitors [--project P] [--environment E]',
    skip: 'a synopsis: [--project P] and run_... stand for the reader’s values',
    coveredBy: 'test/cli/get-filters.test.ts',
  },
  {
    file: 'docs/cli.md',
    first: 'meerkat describe run run_...',
    skip: EXAMPLE_VALUES,
    coveredBy: 'test/cli/get-describe.test.ts',
  },
  {
    file: 'docs/cli.md',
    first:
      'meerkat delete monitor login-flow github-status     # by name or id; --project/--environment narrow a name',
    skip: 'deletes the reader’s monitors by name, file and project: the forms run in order on a hub of their own',
    coveredBy: 'test/cli/delete-diff-logs.test.ts',
  },
  {
    file: 'docs/cli.md',
    first: 'meerkat trigger login-flow github-status',
    skip: 'triggers checks of api.github.com and githubstatus.com: the test machines send nothing off loopback',
    coveredBy: 'test/cli/get-describe.test.ts',
  },
  {
    file: 'docs/cli.md',
    first: 'meerkat test -f monitors/ --secrets secrets.yaml',
    skip: READERS_FILES,
    coveredBy: 'test/runner/meerkat-test-command.test.ts',
  },
  {
    file: 'docs/cli.md',
    first: 'meerkat silence create --monitor checkout --for 2h -m "deploying 4.2"    # prints the new id',
    skip: 'a synopsis ([--state pending|active|expired], sil_...); the same commands run in order in docs/notifications.md',
    coveredBy: 'test/cli/silence-maintenance.test.ts',
  },
  {
    file: 'docs/console.md',
    first:
      'curl -X PUT "$HUB/status-pages/shop" -H "Authorization: Bearer $KEY" -H \'content-type: application/json\' \\',
    dev: true,
  },
  {
    file: 'docs/egress.md',
    first: 'EGRESS_DENY_CIDRS=10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7',
    settings: 'hub',
  },
  {
    file: 'docs/install.md',
    first:
      'openssl rand -hex 32                                  # SECRETS_KEY: keep it safe, it decrypts stored credentials',
    here: true,
  },
  { file: 'docs/install.md', first: 'kubectl create namespace meerkat', skip: NEEDS_CLUSTER },
  {
    file: 'docs/install.md',
    first: 'helm install meerkat charts/meerkat -n meerkat -f values-acme.yaml',
    skip: NEEDS_CLUSTER,
  },
  {
    file: 'docs/install.md',
    first: 'kubectl -n meerkat port-forward svc/meerkat-hub 3000:3000 &',
    skip: 'port-forward needs a running hub Pod in the reader’s cluster; the API call is the README quick start’s',
    coveredBy: 'test/docs/readme-quick-start.test.ts',
  },
  {
    file: 'docs/install.md',
    first: 'kubectl create namespace shop',
    skip: `${NEEDS_CLUSTER}; the test applies its Monitor documents to a namespace of its own`,
    coveredBy: 'test/operator/operator-docs.kube.test.ts',
  },
  {
    file: 'docs/install.md',
    first:
      "kubectl -n meerkat-runners create secret generic meerkat-runner --from-literal=api-key='<service key>'",
    skip: NEEDS_CLUSTER,
  },
  {
    file: 'docs/install.md',
    first: 'for ksa in meerkat-hub meerkat-worker; do',
    skip: 'Google Cloud: needs a GCP project with workload identity and the meerkat service account',
  },
  {
    file: 'docs/install.md',
    first:
      'kubectl delete monitors.meerkat.dev --all -A --wait   # the operator deletes each hub monitor as its Monitor goes',
    skip: '-A deletes every Monitor of the reader’s cluster; run with -n its namespace on the shared test cluster',
    coveredBy: 'test/operator/operator-docs.kube.test.ts',
  },
  {
    file: 'docs/install.md',
    first:
      "for ns in $(kubectl get mkm -A -o jsonpath='{.items[*].metadata.namespace}' | tr ' ' '\\n' | sort -u); do",
    skip: NEEDS_CLUSTER,
  },
  {
    file: 'docs/install.md',
    first: 'kind create cluster --name meerkat',
    skip: 'needs Docker for kind and skaffold, which the test machines do not run',
  },
  {
    file: 'docs/monitors.md',
    first: 'export MEERKAT_URL=http://127.0.0.1:3000 MEERKAT_API_KEY=mk_...',
    skip: 'mk_... is the reader’s key and monitors/ their folder',
    coveredBy: 'test/cli/apply.test.ts',
  },
  {
    file: 'docs/notifications.md',
    first: 'ID=$(meerkat silence create --monitor checkout --for 2h -m "deploying 4.2")',
    runBy: 'test/docs/notifications-commands.test.ts',
  },
  {
    file: 'docs/notifications.md',
    first: 'curl -sf -X POST "$MEERKAT_URL/silences" -H "Authorization: Bearer $MEERKAT_API_KEY" \\',
    runBy: 'test/docs/notifications-commands.test.ts',
  },
  {
    file: 'docs/notifications.md',
    first: 'meerkat maintenance create saturday-patching --project shop --environment production \\',
    runBy: 'test/docs/notifications-commands.test.ts',
  },
  {
    file: 'docs/notifications.md',
    first: "meerkat apply -f - <<'YAML'",
    runBy: 'test/docs/notifications-commands.test.ts',
  },
  {
    file: 'docs/notifications.md',
    first: 'meerkat maintenance create month-end-upgrade --project shop --environment production \\',
    runBy: 'test/docs/notifications-commands.test.ts',
  },
  {
    file: 'docs/operator.md',
    first: "meerkat keygen --org acme --role editor   # add the printed entry to the hub's AUTH_API_KEYS",
    here: true,
  },
  {
    file: 'docs/operator.md',
    first: 'kubectl annotate mkm checkout-backends -n shop meerkat.dev/run-now="$(date +%s)" --overwrite',
    skip: 'needs the reader’s cluster with the multi-branch sample applied in namespace shop',
    coveredBy: 'test/operator/operator-status.kube.test.ts',
  },
  {
    file: 'docs/operator.md',
    first: "OPERATOR_NAMESPACE_PROJECTS='shop=shop,payments;billing=billing;platform=*'",
    settings: 'operator',
  },
  {
    file: 'docs/operator.md',
    first: 'kubectl get mkm -A          # HEALTH, SUCCESS, LAST RUN, SYNCED, AGE',
    skip: '-A lists every Monitor of the reader’s cluster; NAME is one of theirs',
    coveredBy: 'test/operator/operator-status.kube.test.ts',
  },
  {
    file: 'docs/operator.md',
    first: 'kubectl wait --for=condition=Ready mkm/checkout-backends -n shop --timeout=60s',
    skip: 'needs the reader’s cluster with checkout-backends applied in namespace shop',
    coveredBy: 'test/operator/operator-readiness.kube.test.ts',
  },
  {
    file: 'docs/runner.md',
    first: 'meerkat test -f monitors/login-flow.yaml --secrets secrets.yaml',
    skip: READERS_FILES,
    coveredBy: 'test/runner/meerkat-test-command.test.ts',
  },
  {
    file: 'docs/secrets.md',
    first: 'curl -X PUT -H "Authorization: Bearer $KEY" -H \'content-type: application/json\' \\',
    dev: true,
  },
  {
    file: 'docs/secrets.md',
    first: 'gcloud iam roles create meerkatSecrets --project="$GCP_PROJECT" --title="Meerkat hub secrets" \\',
    skip: 'Google Cloud IAM: needs a GCP project and the gcloud CLI',
  },
  {
    file: 'docs/slack.md',
    first:
      'curl -X POST -H "Authorization: Bearer $MEERKAT_ADMIN_KEY" -H \'content-type: application/json\' \\',
    skip: 'Slack OAuth: needs a Slack app and a reader who approves it in a browser',
    coveredBy: 'test/slack/install-flow.test.ts',
  },
  {
    file: 'docs/slack.md',
    first:
      'curl -H "Authorization: Bearer $MEERKAT_ADMIN_KEY" "$PUBLIC_URL/integrations/oauth/status/oat_..."',
    skip: EXAMPLE_VALUES,
    coveredBy: 'test/slack/install-flow.test.ts',
  },
  {
    file: 'docs/testing.md',
    first: 'npx vitest run test/config                 # unit',
    skip: 'runs parts of the suite, which would run tests from inside a test',
  },
  {
    file: 'docs/testing.md',
    first: 'NEMESIS_SEED=3 NEMESIS_FAULTS=3 npx vitest run test/faults/randomized-dev-faults.test.ts',
    skip: 'runs the randomized fault test, minutes a seed, which would run tests from inside a test',
    coveredBy: 'test/faults/randomized-dev-faults.test.ts',
  },
  {
    file: 'charts/meerkat/templates/NOTES.txt',
    first:
      'kubectl -n {{ .Release.Namespace }} port-forward svc/{{ include "meerkat.fullname" . }}-hub {{ .Values.hub.port }}:{{ .Values.hub.port }}',
    skip: 'port-forward needs a running hub Pod in the reader’s cluster; the rendered NOTES name the Service and port',
    coveredBy: 'test/chart/chart.test.ts',
  },
  {
    file: 'charts/meerkat/templates/NOTES.txt',
    first: 'kubectl -n {{ .Release.Namespace }} run meerkat-keygen --rm -it --restart=Never \\',
    skip: 'kubectl run needs a kubelet in the reader’s cluster; the rendered NOTES name the image and command',
    coveredBy: 'test/chart/chart.test.ts',
  },
  {
    file: 'charts/meerkat/templates/NOTES.txt',
    first: 'kubectl create namespace shop',
    runBy: 'test/docs/chart-notes.kube.test.ts',
  },
];
