// Values of `locations` the chart tests share.

/** A `job` location in this cluster, as YAML lines under `locations:`. */
export const JOB_LOCATION = [
  '  - name: jobs',
  '    executor: job',
  '    job: { namespace: meerkat-runners, apiKeySecret: { name: meerkat-runner, key: api-key } }',
];

/**
 * `locations:` with a `job` location first, then `eu` (one worker replica) and `us`: the first `worker` location is
 * not the first location.
 */
export const JOB_THEN_TWO_WORKER_LOCATIONS = [
  'locations:',
  ...JOB_LOCATION,
  '  - name: eu',
  '    executor: worker',
  '    worker: { replicas: 1 }',
  '  - name: us',
  '    executor: worker',
];
