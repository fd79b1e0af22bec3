// Reads samples out of Prometheus text exposition, the way a scraper sees them.

export interface Sample {
  labels: Record<string, string>;
  value: number;
}

/** The samples of one series name (a histogram's `_count` is a name of its own), with their labels. */
export function samplesOf(scrape: string, name: string): Sample[] {
  return [...scrape.matchAll(/^(\w+)(?:\{(.*)\})? (\S+)$/gm)]
    .filter(([, sampleName]) => sampleName === name)
    .map(([, , labels, value]) => ({
      labels: Object.fromEntries(
        [...(labels ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, key, text]) => [key!, text!]),
      ),
      value: Number(value),
    }));
}
