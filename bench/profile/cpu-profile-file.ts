// A V8 CPU profile as cpu-profile-on-signal.js writes it, read and checked once for the scripts that fold it
// (top-frames.ts, cpu-areas.ts). A file over MAX_BYTES is refused rather than read whole.
import { readFileSync, statSync } from 'node:fs';
import { z } from 'zod';

const MAX_BYTES = 512 * 1024 * 1024;

const cpuProfileSchema = z.object({
  nodes: z.array(
    z.object({
      id: z.number(),
      callFrame: z.object({ functionName: z.string(), url: z.string(), lineNumber: z.number() }),
      children: z.array(z.number()).optional(),
    }),
  ),
  samples: z.array(z.number()),
  timeDeltas: z.array(z.number()),
});

export type CpuProfile = z.infer<typeof cpuProfileSchema>;

export function readCpuProfile(file: string): CpuProfile {
  const bytes = statSync(file).size;
  if (bytes > MAX_BYTES) throw new Error(`${file}: ${bytes} bytes, over the ${MAX_BYTES} this reads`);
  return cpuProfileSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
}
