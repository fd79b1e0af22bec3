// The command line of `npm run bench:fair-share`, parsed once into a frozen object: a mistyped number fails at
// once, naming the option, instead of after minutes of creating 20,000 monitors.
import { parseArgs } from 'node:util';
import { z } from 'zod';

const seconds = (min: number) => z.coerce.number().int().min(min).max(3600);

const fairShareOptionsSchema = z
  .object({
    // Organization A: the tenant that saturates the worker.
    aMonitors: z.coerce.number().int().min(0).max(100_000),
    // Organization B: the small tenant whose share is measured.
    bMonitors: z.coerce.number().int().min(1).max(1_000),
    // Meerkat's shortest interval is 10 s.
    every: seconds(10),
    warmup: seconds(0),
    window: seconds(1),
    // How long the window's last slots may take to be run or reported once it closes.
    settle: seconds(0),
    // WORKER_CONCURRENCY of the one worker; its default when not given.
    workerConcurrency: z.coerce.number().int().min(1).max(10_000).optional(),
    // NODE_OPTIONS of every Meerkat process: `--cpu-prof --cpu-prof-dir=DIR` to see where the worker's time goes.
    nodeOptions: z.string().max(1000).optional(),
    // The control: B alone, for its lateness on a worker nobody else loads.
    control: z.boolean(),
  })
  .refine((options) => options.window >= options.every, {
    message: 'must be at least --every, so that every monitor is due in the window',
    path: ['window'],
  });

export type FairShareOptions = Readonly<z.infer<typeof fairShareOptionsSchema>>;

export function parseFairShareOptions(args: readonly string[]): FairShareOptions {
  const { values } = parseArgs({
    args: [...args],
    options: {
      'a-monitors': { type: 'string', default: '20000' },
      'b-monitors': { type: 'string', default: '20' },
      every: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '60' },
      window: { type: 'string', default: '120' },
      settle: { type: 'string', default: '90' },
      'worker-concurrency': { type: 'string' },
      'node-options': { type: 'string' },
      control: { type: 'boolean', default: false },
    },
  });
  const parsed = fairShareOptionsSchema.safeParse({
    aMonitors: values.control ? 0 : values['a-monitors'],
    bMonitors: values['b-monitors'],
    every: values.every,
    warmup: values.warmup,
    window: values.window,
    settle: values.settle,
    workerConcurrency: values['worker-concurrency'],
    nodeOptions: values['node-options'],
    control: values.control,
  });
  if (!parsed.success) {
    const flag = (name: string) => `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    const issues = parsed.error.issues.map((issue) => `${flag(String(issue.path[0]))}: ${issue.message}`);
    throw new Error(issues.join('; '));
  }
  return Object.freeze(parsed.data);
}
