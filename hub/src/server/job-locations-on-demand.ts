import type { startJobLocations } from './start-job-locations.js';

type JobLocations = ReturnType<typeof startJobLocations>;

/**
 * startJobLocations, its module loaded only when LOCATIONS names a `job` location: that module's graph holds
 * @kubernetes/client-node (about 830 modules, seconds of every start on a busy machine), which `meerkat dev` on a
 * laptop and a hub of in-process workers never use (docs/benchmarks.md, the front door).
 */
export async function startJobLocationsIfAny(
  options: Parameters<typeof startJobLocations>[0],
): Promise<JobLocations> {
  if (!options.settings.LOCATIONS.some((location) => location.executor === 'job'))
    return { close: () => Promise.resolve() };
  const { startJobLocations: start } = await import('./start-job-locations.js');
  return start(options);
}
