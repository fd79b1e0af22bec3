import { setImmediate as yieldToLoop } from 'node:timers/promises';

/** The labels of a monitor's run series in one location and environment. */
export type RunLabels = Record<'organization' | 'monitor' | 'location' | 'environment', string>;

/** Label sets rendered between two yields to the event loop: about a millisecond of work. */
const SETS_PER_TURN = 500;

/** A label value as the text format writes it (backslash, double quote and newline escaped). */
const escapeLabelValue = (value: string) =>
  value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

/** A sample value as prom-client writes it. */
const valueText = (value: number) =>
  Number.isNaN(value) ? 'Nan' : value === Number.POSITIVE_INFINITY ? '+Inf' : String(value);

/** One label set's counts: runs by outcome, failures by error class, and its duration histogram. */
interface RunSeries {
  labels: RunLabels;
  /** `organization="…",monitor="…",location="…",environment="…",process="…"`, escaped once. */
  text: string;
  successes: number;
  failures: number;
  byErrorClass: number[];
  /** Observations per bucket, not cumulative: the last entry counts those above every bound. */
  buckets: number[];
  sum: number;
  count: number;
  /** When a run (or the catalog read that made it) last touched the set: a set touched since a read stays. */
  touchedAt: number;
}

/**
 * The per-monitor run series of `meerkat_runs_total`, `meerkat_run_failures_total` and
 * `meerkat_run_duration_seconds` (26 samples a monitor), kept and written out by Meerkat rather than prom-client
 * (docs/adr/0060-run-series-exposition.md): prom-client builds an object per sample at every scrape, and at 20,000
 * monitors a worker spent seconds of its event loop on one scrape, long enough for its checks and ticks to come
 * late. Here each label set's text is escaped once, a scrape writes the samples from plain numbers, and it yields
 * to the event loop every SETS_PER_TURN label sets, so a large scrape takes turns with the checks instead of
 * stopping them. The text is what prom-client wrote (names, HELP, TYPE, cumulative buckets, `+Inf`).
 */
export function createRunSeriesExposition(options: {
  prefix: string;
  errorClasses: readonly string[];
  buckets: readonly number[];
  /** Labels every sample carries (the registry's default labels: `process`). */
  defaultLabels: Readonly<Record<string, string>>;
}) {
  const { prefix, errorClasses, buckets } = options;
  const series = new Map<string, RunSeries>();
  const defaultText = Object.entries(options.defaultLabels)
    .map(([name, value]) => `,${name}="${escapeLabelValue(value)}"`)
    .join('');
  const bucketTexts = [...buckets.map(valueText), '+Inf'];
  const classTexts = errorClasses.map(escapeLabelValue);
  const keyOf = (labels: RunLabels) =>
    JSON.stringify([labels.organization, labels.monitor, labels.location, labels.environment]);

  const ensure = (labels: RunLabels, touchedAt: number): RunSeries => {
    const key = keyOf(labels);
    const known = series.get(key);
    if (known !== undefined) {
      known.touchedAt = Math.max(known.touchedAt, touchedAt);
      return known;
    }
    const text =
      `organization="${escapeLabelValue(labels.organization)}",monitor="${escapeLabelValue(labels.monitor)}",` +
      `location="${escapeLabelValue(labels.location)}",environment="${escapeLabelValue(labels.environment)}"` +
      defaultText;
    const made: RunSeries = {
      labels: { ...labels },
      text,
      successes: 0,
      failures: 0,
      byErrorClass: errorClasses.map(() => 0),
      buckets: bucketTexts.map(() => 0),
      sum: 0,
      count: 0,
      touchedAt,
    };
    series.set(key, made);
    return made;
  };

  /**
   * The samples of one metric for every label set, HELP and TYPE first: a chunk of text per turn of the event
   * loop, each about a hundred kilobytes, so no single join copies the whole scrape while the checks wait.
   */
  async function section(
    name: string,
    help: string,
    type: 'counter' | 'histogram',
    all: readonly RunSeries[],
    write: (one: RunSeries, lines: string[]) => void,
  ): Promise<string[]> {
    const chunks = [`# HELP ${name} ${help}\n# TYPE ${name} ${type}\n`];
    for (let from = 0; from < all.length; from += SETS_PER_TURN) {
      if (from > 0) await yieldToLoop();
      const lines: string[] = [];
      for (const one of all.slice(from, from + SETS_PER_TURN)) write(one, lines);
      chunks.push(`${lines.join('\n')}\n`);
    }
    return chunks;
  }

  return {
    /** Whether `labels` has series. */
    has: (labels: RunLabels) => series.has(keyOf(labels)),
    /** Makes the series of `labels`, all at 0, when it has none; marks them touched at `touchedAt`. */
    ensure: (labels: RunLabels, touchedAt: number): void => void ensure(labels, touchedAt),
    remove: (labels: RunLabels): void => void series.delete(keyOf(labels)),
    /** Every label set with series and when it was last touched, in the order they were made. */
    entries: (): Array<{ labels: RunLabels; touchedAt: number }> =>
      [...series.values()].map(({ labels, touchedAt }) => ({ labels, touchedAt })),

    /** Counts a run finished at `touchedAt`: its outcome, its error class when it failed, its duration if any. */
    record(
      labels: RunLabels,
      touchedAt: number,
      run: { success: boolean; errorClass?: string; seconds?: number },
    ): void {
      const one = ensure(labels, touchedAt);
      if (run.success) one.successes += 1;
      else {
        one.failures += 1;
        const index = run.errorClass === undefined ? -1 : errorClasses.indexOf(run.errorClass);
        if (index >= 0) one.byErrorClass[index] = (one.byErrorClass[index] ?? 0) + 1;
      }
      const { seconds } = run;
      if (seconds === undefined) return;
      const bucket = buckets.findIndex((bound) => seconds <= bound);
      const index = bucket < 0 ? buckets.length : bucket;
      one.buckets[index] = (one.buckets[index] ?? 0) + 1;
      one.sum += seconds;
      one.count += 1;
    },

    /**
     * The three metrics in the text format, each a section of its own as prom-client separates them, in chunks
     * that the metrics server writes one by one: joining them would copy the whole scrape in one turn.
     */
    async render(): Promise<string[]> {
      const all = [...series.values()];
      const runs = await section(
        `${prefix}runs_total`,
        'Runs finished by this process, by outcome (success or failure).',
        'counter',
        all,
        (one, lines) => {
          lines.push(`${prefix}runs_total{${one.text},outcome="success"} ${one.successes}`);
          lines.push(`${prefix}runs_total{${one.text},outcome="failure"} ${one.failures}`);
        },
      );
      const failures = await section(
        `${prefix}run_failures_total`,
        'Failed runs finished by this process, by error class.',
        'counter',
        all,
        (one, lines) =>
          classTexts.forEach((errorClass, i) =>
            lines.push(
              `${prefix}run_failures_total{${one.text},error_class="${errorClass}"} ${one.byErrorClass[i] ?? 0}`,
            ),
          ),
      );
      const name = `${prefix}run_duration_seconds`;
      const durations = await section(
        name,
        'Duration of the runs finished by this process.',
        'histogram',
        all,
        (one, lines) => {
          let cumulative = 0;
          bucketTexts.forEach((bound, i) => {
            cumulative += one.buckets[i] ?? 0;
            lines.push(`${name}_bucket{le="${bound}",${one.text}} ${cumulative}`);
          });
          lines.push(`${name}_sum{${one.text}} ${valueText(one.sum)}`);
          lines.push(`${name}_count{${one.text}} ${one.count}`);
        },
      );
      return [...runs, '\n', ...failures, '\n', ...durations];
    },
  };
}

export type RunSeriesExposition = ReturnType<typeof createRunSeriesExposition>;
