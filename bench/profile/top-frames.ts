// Where a V8 CPU profile's time went: `npx tsx bench/profile/top-frames.ts FILE.cpuprofile [N]` prints the N
// functions with the most self time (idle, garbage collection and program among them), then self time summed by
// package, or by file of Meerkat's own code. A profile comes from cpu-profile-on-signal.js.
import { readCpuProfile } from './cpu-profile-file.js';

const [file, topText = '30'] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: top-frames.ts FILE.cpuprofile [N]');
const profile = readCpuProfile(file);
const frameOf = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const totalUs = [...selfUs.values()].reduce((sum, us) => sum + us, 0);

/** The package a script belongs to, or its path under the repository for Meerkat's own code. */
function placeOf(url: string): string {
  if (url === '') return '(native)';
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (match !== null) return match[1] ?? url;
  if (url.startsWith('node:')) return url;
  return url.replace(/^file:\/\//, '').replace(/^.*?\/(dist|hub|operator)\//, '$1/');
}

const byFunction = new Map<string, number>();
const byPlace = new Map<string, number>();
for (const [id, us] of selfUs) {
  const frame = frameOf.get(id);
  if (frame === undefined) continue;
  const place = placeOf(frame.url);
  const name = `${frame.functionName || '(anonymous)'} ${place}:${frame.lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  byPlace.set(place, (byPlace.get(place) ?? 0) + us);
}
const share = (us: number) => `${((100 * us) / totalUs).toFixed(1).padStart(5)}%`;
const top = (map: Map<string, number>, n: number) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n);

process.stdout.write(`${file}: ${(totalUs / 1e6).toFixed(1)} s sampled\n\nself time by function:\n`);
for (const [name, us] of top(byFunction, Number(topText))) process.stdout.write(`${share(us)}  ${name}\n`);
process.stdout.write('\nself time by package or file:\n');
for (const [place, us] of top(byPlace, 25)) process.stdout.write(`${share(us)}  ${place}\n`);
