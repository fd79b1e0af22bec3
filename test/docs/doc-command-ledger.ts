// What happens to each command block of the docs (doc-command-blocks.ts), named by its file and first line: run by
// an existing test (so it is not run twice), run by doc-commands.test.ts (`here`, or `dev` against a fresh
// `meerkat dev`), or skipped with the reason.
// doc-commands.test.ts fails on a block missing here and on an entry whose block is gone, so a new or edited
// block must be accounted for.

export type LedgerEntry = { file: string; first: string } & (
  { runBy: string } | { here: true } | { dev: true } | { skip: string }
);

const NEEDS_CLUSTER =
  'needs a real cluster with a kubelet, Helm and a registry (the node tier installs the chart its own way)';
const EXAMPLE_VALUES =
  'placeholders (run_..., mk_..., oat_...) a reader replaces; the API calls are tested by the route tests';

export const ledger: LedgerEntry[] = [
  ...[
    "meerkat get monitors -o jsonpath='{.items[*].metadata.name}'",
    'meerkat edit monitor login-flow',
    'source <(meerkat completion bash)',
  ].map((first) => ({ file: 'docs/cli.md', first, runBy: 'test/cli/listing-docs.test.ts' })),
  { file: 'docs/cli.md', first: 'meerkat get runs -w', runBy: 'test/cli/labels-watch.test.ts' },
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
  { file: 'README.md', first: 'npm test', skip: 'the whole suite: it would run itself; .ci/run runs it' },
  {
    file: 'docs/api-conventions.md',
    first: 'curl -X POST -H "Authorization: Bearer $MEERKAT_KEY" -H \'content-type: application/json\' \\',
    dev: true,
  },
  { file: 'docs/auth.md', first: '$ meerkat keygen --org acme --role editor', here: true },
  {
    file: 'docs/benchmarks.md',
    first: "node -e 0                                # Node's own start: the floor",
    skip: 'timings on a quiet machine; tests never assert wall-clock times',
  },
  {
    file: 'docs/cli.md',
    first:
      "meerkat apply -f config/samples/monitors --dry-run                 # the hub's verdict and diff; changes nothing",
    skip: 'a synopsis of flags, tested per command in test/cli',
  },
  {
    file: 'docs/cli.md',
    first: 'meerkat get monitors [--project P] [--environment E]',
    skip: 'a synopsis with [optional] flags, not a command line; tested in test/cli',
  },
  { file: 'docs/cli.md', first: 'meerkat describe run run_...', skip: EXAMPLE_VALUES },
  {
    file: 'docs/cli.md',
    first:
      'meerkat delete monitor login-flow github-status     # by name or id; --project/--environment narrow a name',
    skip: 'a synopsis of forms, tested in test/cli/delete-diff-logs.test.ts',
  },
  {
    file: 'docs/cli.md',
    first: 'meerkat trigger login-flow github-status',
    skip: 'a synopsis of forms, tested in test/cli',
  },
  {
    file: 'docs/cli.md',
    first: 'meerkat test -f monitors/ --secrets secrets.yaml',
    skip: 'names a reader’s monitors/ and secrets.yaml; tested in test/cli/test-reporters.test.ts',
  },
  {
    file: 'docs/cli.md',
    first: 'meerkat silence create --monitor checkout --for 2h -m "deploying 4.2"    # prints the new id',
    skip: 'a synopsis of forms; the same commands run in order in docs/notifications.md (test/docs/notifications-commands.test.ts)',
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
    skip: 'settings shown as shell assignments, not a command',
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
    skip: NEEDS_CLUSTER,
  },
  {
    file: 'docs/install.md',
    first: 'kubectl create namespace shop',
    skip: `${NEEDS_CLUSTER}; its Monitor documents are applied by test/operator/operator-docs.kube.test.ts`,
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
    skip: 'Google Cloud workload identity: needs a GCP project',
  },
  {
    file: 'docs/install.md',
    first:
      'kubectl delete monitors.meerkat.dev --all -A --wait   # the operator deletes each hub monitor, then the resource',
    skip: 'run adapted by test/operator/operator-docs.kube.test.ts: -n its namespace, not -A, on the shared cluster',
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
    skip: 'kind needs Docker, which the test machines do not run',
  },
  {
    file: 'docs/monitors.md',
    first: 'export MEERKAT_URL=http://127.0.0.1:3000 MEERKAT_API_KEY=mk_...',
    skip: EXAMPLE_VALUES,
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
    skip: 'needs the reader’s cluster with the multi-branch sample; the annotations are tested in test/operator/operator-status.kube.test.ts',
  },
  {
    file: 'docs/operator.md',
    first: "OPERATOR_NAMESPACE_PROJECTS='shop=shop,payments;billing=billing;platform=*'",
    skip: 'a setting shown as a shell assignment, not a command',
  },
  {
    file: 'docs/operator.md',
    first: 'kubectl get mkm -A          # HEALTH, SUCCESS, P95, LAST RUN, SYNCED, AGE',
    skip: 'the columns are tested in test/operator/operator-status.kube.test.ts; as written it needs the reader’s cluster',
  },
  {
    file: 'docs/operator.md',
    first: 'kubectl wait --for=condition=Ready mkm/checkout-backends -n shop --timeout=60s',
    skip: 'the same kubectl wait runs on a Monitor of its own namespace in test/operator/operator-readiness.kube.test.ts',
  },
  {
    file: 'docs/runner.md',
    first: 'meerkat test -f monitors/login-flow.yaml --secrets secrets.yaml',
    skip: 'names a reader’s secrets.yaml; tested in test/cli/test-reporters.test.ts',
  },
  {
    file: 'docs/secrets.md',
    first: 'curl -X PUT -H "Authorization: Bearer $KEY" -H \'content-type: application/json\' \\',
    dev: true,
  },
  {
    file: 'docs/secrets.md',
    first: 'gcloud iam roles create meerkatSecrets --project="$GCP_PROJECT" --title="Meerkat hub secrets" \\',
    skip: 'Google Cloud IAM: needs a GCP project',
  },
  {
    file: 'docs/slack.md',
    first:
      'curl -X POST -H "Authorization: Bearer $MEERKAT_ADMIN_KEY" -H \'content-type: application/json\' \\',
    skip: 'Slack OAuth: needs a Slack app; the flow is tested against a stand-in in test/slack',
  },
  {
    file: 'docs/slack.md',
    first:
      'curl -H "Authorization: Bearer $MEERKAT_ADMIN_KEY" "$PUBLIC_URL/integrations/oauth/status/oat_..."',
    skip: EXAMPLE_VALUES,
  },
  {
    file: 'docs/testing.md',
    first: 'npx vitest run test/config                 # unit',
    skip: 'runs parts of the suite: it would run tests from a test',
  },
  {
    file: 'charts/meerkat/templates/NOTES.txt',
    first:
      'kubectl -n {{ .Release.Namespace }} port-forward svc/{{ include "meerkat.fullname" . }}-hub {{ .Values.hub.port }}:{{ .Values.hub.port }}',
    skip: 'port-forward needs a running Pod; the chart tests check the Service it names',
  },
  {
    file: 'charts/meerkat/templates/NOTES.txt',
    first: 'kubectl -n {{ .Release.Namespace }} run meerkat-keygen --rm -it --restart=Never \\',
    skip: 'kubectl run needs a kubelet; the chart tests check the image it names',
  },
  {
    file: 'charts/meerkat/templates/NOTES.txt',
    first: 'kubectl create namespace shop',
    runBy: 'test/docs/chart-notes.kube.test.ts',
  },
];
