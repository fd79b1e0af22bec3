import type { startJobLocations } from './start-job-locations.js';

type JobLocations = ReturnType<typeof startJobLocations>;

/**
 * startJobLocations, its module loaded only when the process serves a `job` location: that module's graph holds
 * @kubernetes/client-node (about 830 modules, seconds of every start on a busy machine), which `meerkat dev` on a
 * laptop, the hub and the workers of `worker` locations never use (docs/benchmarks.md, the front door).
 */
export async function startJobLocationsIfAny(
  options: Parameters<typeof startJobLocations>[0],
): Promise<JobLocations> {
  const served = options.settings.LOCATIONS.filter(
    (location) => location.executor === 'job' && options.locations.includes(location.name),
  );
  if (served.length === 0) return { close: () => Promise.resolve() };
  const { startJobLocations: start } = await import('./start-job-locations.js');
  return start(options);
}
