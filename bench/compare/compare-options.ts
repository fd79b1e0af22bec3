// The command line of `npm run bench:compare`, parsed once into a frozen object: a mistyped number or system
// fails at once, naming the option, instead of after minutes of measuring something else.
import { parseArgs } from 'node:util';
import { z } from 'zod';

export const systemNames = ['split', 'dev', 'blackbox'] as const;
export type SystemName = (typeof systemNames)[number];

const seconds = (min: number) => z.coerce.number().int().min(min).max(3600);

/** The processes of Meerkat split that `--env` can set a variable of; `worker` is every worker. */
type SplitProcessName = 'hub' | 'scheduler' | 'worker';

// `--env <process>:<NAME>=<value>`, repeatable: one process's variable, as the chart sets NODE_OPTIONS per process.
const processEnvSchema = z
  .array(
    z
      .string()
      .regex(/^(hub|scheduler|worker):[A-Z_][A-Z0-9_]*=/, 'must be <hub|scheduler|worker>:<NAME>=<value>'),
  )
  .transform((entries) => {
    const env: Record<SplitProcessName, Record<string, string>> = { hub: {}, scheduler: {}, worker: {} };
    for (const entry of entries) {
      const colon = entry.indexOf(':');
      const equals = entry.indexOf('=');
      env[entry.slice(0, colon) as SplitProcessName][entry.slice(colon + 1, equals)] = entry.slice(
        equals + 1,
      );
    }
    return env;
  });

const compareOptionsSchema = z
  .object({
    monitors: z.coerce.number().int().min(1).max(100_000),
    // Meerkat's shortest interval; Prometheus takes whole seconds.
    every: seconds(10),
    warmup: seconds(0),
    window: seconds(1),
    // Worker processes of Meerkat split, for how throughput grows with a second worker.
    workers: z.coerce.number().int().min(1).max(8),
    // Meerkat split without a scheduler process: its first worker keeps the schedules (`worker --with-scheduler`).
    'scheduler-in-worker': z.boolean(),
    // Meerkat split's hub is its first worker (`hub --locations default`): with --workers 1 no worker process, and with
    // --scheduler-in-worker the hub keeps the schedules too.
    'worker-in-hub': z.boolean(),
    // NODE_OPTIONS of Meerkat's processes, to compare V8 flags on the same work: `--node-options=--max-semi-space-size=2`
    // (with `=`: a value that starts with a dash).
    'node-options': z.string().max(1000),
    // Variables of one process of split on top of --node-options' (`--env=worker:HEAP_BUDGET_MIB=160`).
    env: processEnvSchema,
    // MALLOC_ARENA_MAX of Meerkat's processes, to compare what glibc's per-thread arenas keep; unset: glibc's default.
    'malloc-arena-max': z.coerce.number().int().min(1).max(64).optional(),
    // MALLOC_TRIM_THRESHOLD_ of Meerkat's processes: free memory at the top of a glibc heap above it goes back to the
    // system at once; unset: glibc's default (128 KiB, raised as large blocks are freed).
    'malloc-trim-threshold': z.coerce
      .number()
      .int()
      .min(0)
      .max(1 << 30)
      .optional(),
    systems: z
      .string()
      .transform((list) => list.split(',').filter(Boolean))
      .pipe(z.array(z.enum(systemNames)).min(1)),
    // As users run it: PostgreSQL durable (fsync on), the compiled build, NODE_ENV=production.
    production: z.boolean(),
  })
  .refine((options) => options.window >= options.every, {
    message: 'must be at least --every, so that every monitor is due in the window',
    path: ['window'],
  });

export type CompareOptions = Readonly<z.infer<typeof compareOptionsSchema>>;

export function parseCompareOptions(args: readonly string[]): CompareOptions {
  const { values } = parseArgs({
    args: [...args],
    options: {
      monitors: { type: 'string', default: '2000' },
      every: { type: 'string', default: '20' },
      warmup: { type: 'string', default: '60' },
      window: { type: 'string', default: '180' },
      workers: { type: 'string', default: '1' },
      'scheduler-in-worker': { type: 'boolean', default: false },
      'worker-in-hub': { type: 'boolean', default: false },
      'node-options': { type: 'string', default: '' },
      env: { type: 'string', multiple: true, default: [] },
      'malloc-arena-max': { type: 'string' },
      'malloc-trim-threshold': { type: 'string' },
      systems: { type: 'string', default: systemNames.join(',') },
      production: { type: 'boolean', default: false },
    },
  });
  const parsed = compareOptionsSchema.safeParse(values);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `--${String(issue.path[0])}: ${issue.message}`);
    throw new Error(issues.join('; '));
  }
  return Object.freeze(parsed.data);
}
