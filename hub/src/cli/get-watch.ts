import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import { printItems, type OutputFormat, type PrintOptions } from './output-format.js';

// kubectl's `get -w` for monitors and runs: the listing, then each row that appears or changes, until interrupted.
// The hub has no change stream, so this polls the same list requests (docs/adr/0037-kubectl-listing-flags.md).

/** The quickest poll: a run's status moves pending -> running -> completed within seconds. */
const MIN_INTERVAL_MS = 2000;
/** A poll waits this many times as long as the last read took, so a large list costs the hub at most a fifth. */
const INTERVAL_PER_READ = 4;

interface WatchedListing<T> {
  /** The whole list, as `get` without `-w` reads it. */
  read(): Promise<T[]>;
  /** What identifies an item across reads (its id). */
  keyOf(item: T): string;
  /** Prints items; `first` is the initial listing (a table's header only then). */
  print(items: T[], first: boolean): void;
}

/** Runs until the process is interrupted (Ctrl-C, SIGTERM); a failed read ends it as any `get` failure does. */
async function watchListing<T>(listing: WatchedListing<T>): Promise<never> {
  const seen = new Map<string, string>();
  const remember = (items: T[]) => {
    return items.filter((item) => {
      const key = listing.keyOf(item);
      const state = JSON.stringify(item);
      if (seen.get(key) === state) return false;
      seen.set(key, state);
      return true;
    });
  };
  let started = Date.now();
  const initial = remember(await listing.read());
  listing.print(initial, true);
  // An empty first listing printed no table: the first rows that come then print with the header.
  let headerShown = initial.length > 0;
  for (;;) {
    await sleep(Math.max(MIN_INTERVAL_MS, INTERVAL_PER_READ * (Date.now() - started)));
    started = Date.now();
    const changed = remember(await listing.read());
    if (changed.length === 0) continue;
    listing.print(changed, !headerShown);
    headerShown = true;
  }
}

const printsRows = (format: OutputFormat) =>
  format === 'table' || format === 'wide' || format.startsWith('custom-columns=');

/**
 * `-w`: the listing, then what appears or changes. Rows print under the first header; JSON, YAML, jsonpath and
 * names print each changed object on its own, as `kubectl get -w` does.
 */
export function watchAndPrint<T extends { id: string }>(
  read: () => Promise<T[]>,
  printing: () => Omit<PrintOptions<T>, 'single'>,
): Promise<never> {
  return watchListing({
    read,
    keyOf: (item) => item.id,
    print: (items, first) => {
      // Made at each print, so AGE and LAST RUN are as of now.
      const print = printing();
      if (printsRows(print.format))
        return printItems(items, { ...print, single: false, headers: first && print.headers !== false });
      for (const item of items) {
        if (print.format === 'yaml') process.stdout.write('---\n');
        printItems([item], { ...print, single: true });
        if (print.format.startsWith('jsonpath=')) process.stdout.write('\n');
      }
    },
  });
}

export const watchOption = (command: Command) =>
  command.option('-w, --watch', 'after the listing, print what appears or changes until interrupted');
