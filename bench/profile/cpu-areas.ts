// Where a worker's CPU went, by area of a check's life: `npm run bench:cpu-areas -- FILE.cpuprofile [--checks N]`
// folds a V8 CPU profile (bench/profile/cpu-profile-on-signal.js) into areas (undici request, egress policy,
// assertions, run writer, pg protocol, BullMQ/Redis, scheduling, metrics, logging, GC, ...) and, given the checks
// done while it was taken, the microseconds of each per check. A sample goes to the area of the innermost frame
// of its stack that names one (walking from the leaf to the root): a JSON.stringify called by the run writer is
// the run writer's, a socket read under pg's parser is pg's. What no frame names is "node internals (other)".
// The profile is read whole, once (cpu-profile-file.ts).
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { readCpuProfile, type CpuProfile } from './cpu-profile-file.js';

/** Areas by the frame that names them, tried in order: the first rule a frame matches is its area. */
const rules: ReadonlyArray<readonly [area: string, matches: (name: string, url: string) => boolean]> = [
  ['idle', (name) => name === '(idle)'],
  ['GC', (name) => name === '(garbage collector)'],
  ['V8/native outside JS (program)', (name) => name === '(program)'],
  ['egress policy and DNS', (_, url) => /\/src\/egress\//.test(url)],
  ['assertions', (_, url) => /\/src\/(runner\/(assertion|body-check)|jsonpath\/)/.test(url)],
  ['undici request', (_, url) => /node_modules\/undici\//.test(url)],
  ['check steps (runner)', (_, url) => /\/src\/runner\//.test(url)],
  ['pg protocol', (_, url) => /node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-[a-z]+)\//.test(url)],
  ['kysely (query building)', (_, url) => /node_modules\/kysely\//.test(url)],
  ['run writer and hooks', (_, url) => /\/src\/(runs|worker|metrics\/rollup|notifications|db)\//.test(url)],
  [
    'BullMQ and ioredis',
    (_, url) => /node_modules\/(bullmq|ioredis|redis-parser|@ioredis|msgpackr)\//.test(url),
  ],
  ['scheduling', (_, url) => /\/src\/scheduling\//.test(url)],
  ['metrics', (_, url) => /node_modules\/prom-client\/|\/src\/metrics\//.test(url)],
  ['logging', (_, url) => /node_modules\/(pino|pino-std-serializers|sonic-boom|thread-stream)\//.test(url)],
  ['Meerkat (other)', (_, url) => /\/(dist\/)?(hub|operator)\/src\//.test(url)],
  ['other packages', (_, url) => /node_modules\//.test(url)],
];
const OTHER = 'node internals (other)';

interface AreaFold {
  totalUs: number;
  byArea: Map<string, number>;
}

/** Self time summed by area; see the header for how a sample finds its area. */
function foldAreas(profile: CpuProfile): AreaFold {
  const parentOf = new Map<number, number>();
  const frameOf = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const areaOfNode = new Map<number, string>();
  const areaOf = (id: number): string => {
    const known = areaOfNode.get(id);
    if (known !== undefined) return known;
    const frame = frameOf.get(id);
    const own = frame && rules.find(([, matches]) => matches(frame.functionName, frame.url))?.[0];
    const parent = parentOf.get(id);
    const area = own ?? (parent === undefined ? OTHER : areaOf(parent));
    areaOfNode.set(id, area);
    return area;
  };
  const byArea = new Map<string, number>();
  let totalUs = 0;
  profile.samples.forEach((id, i) => {
    const us = Math.max(0, profile.timeDeltas[i] ?? 0);
    totalUs += us;
    const area = areaOf(id);
    byArea.set(area, (byArea.get(area) ?? 0) + us);
  });
  return { totalUs, byArea };
}

function main(args: string[]): void {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { checks: { type: 'string' } },
  });
  const [file] = positionals;
  if (file === undefined || positionals.length > 1)
    throw new Error('usage: cpu-areas.ts FILE.cpuprofile [--checks N]');
  const checks =
    values.checks === undefined ? undefined : z.coerce.number().int().min(1).parse(values.checks);
  const { totalUs, byArea } = foldAreas(readCpuProfile(file));
  const busyUs = totalUs - (byArea.get('idle') ?? 0);
  const say = (line: string) => process.stdout.write(`${line}\n`);
  say(`${file}: ${(totalUs / 1e6).toFixed(3)} s sampled, ${(busyUs / 1e6).toFixed(3)} s busy`);
  say('');
  say(`| area | share of busy | CPU s${checks === undefined ? '' : ' | µs per check'} |`);
  say(`| --- | ---: | ---:${checks === undefined ? '' : ' | ---:'} |`);
  const rows = [...byArea].filter(([area]) => area !== 'idle').sort((a, b) => b[1] - a[1]);
  for (const [area, us] of [...rows, ['busy, all areas', busyUs] as const]) {
    const share = busyUs === 0 ? 0 : (100 * us) / busyUs;
    const perCheck = checks === undefined ? '' : ` | ${(us / checks).toFixed(1)}`;
    say(`| ${area} | ${share.toFixed(1)}% | ${(us / 1e6).toFixed(3)}${perCheck} |`);
  }
}

main(process.argv.slice(2));
