import { Option } from 'commander';
import { stringify as stringifyYaml } from 'yaml';
import { listManifest } from './monitor-manifest.js';

/** kubectl's `-o`: a table, the table with more columns, the objects as JSON or YAML, or `kind/id` per line. */
export const outputFormats = ['table', 'wide', 'json', 'yaml', 'name'] as const;
export type OutputFormat = (typeof outputFormats)[number];

export const outputOption = () =>
  new Option('-o, --output <format>', 'output format').choices(outputFormats).default('table');

/** Columns padded to their widest cell, three spaces apart, as kubectl prints them. */
export function formatTable(headers: string[], rows: string[][]): string {
  const all = [headers, ...rows];
  const widths = headers.map((_, i) => Math.max(...all.map((row) => row[i]?.length ?? 0)));
  return (
    all
      .map((row) =>
        row
          .map((cell, i) => cell.padEnd(widths[i] ?? 0))
          .join('   ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

export interface Column<T> {
  title: string;
  cell: (item: T) => string;
  /** Shown by `-o wide` only. */
  wide?: boolean;
}

export interface PrintOptions<T> {
  format: OutputFormat;
  kind: string;
  columns: Column<T>[];
  single: boolean;
  plural: string;
  /** What JSON and YAML print of an item that `apply` takes back (a resource); a list is then a `List`. */
  manifest?: (item: T) => unknown;
  /** What `-o name` prints after `kind/`: the id unless the resource is known by its name. */
  nameOf?: (item: T) => string;
}

/**
 * Prints `items` in `format`. A single object (`get monitor NAME`) prints as an object in JSON and YAML, a list as
 * a list (kubectl's `List` for resources); `name` prints `kind/id`; an empty table says so on stderr, as kubectl
 * does, so stdout stays parseable.
 */
export function printItems<T extends { id: string }>(items: T[], options: PrintOptions<T>): void {
  const { format, kind, columns, single, manifest } = options;
  const objects = manifest === undefined ? items : items.map(manifest);
  const value = single ? objects[0] : manifest === undefined ? objects : listManifest(objects);
  if (format === 'json') return void process.stdout.write(JSON.stringify(value, null, 2) + '\n');
  if (format === 'yaml') return void process.stdout.write(stringifyYaml(value));
  if (format === 'name')
    return void process.stdout.write(
      items.map((item) => `${kind}/${options.nameOf?.(item) ?? item.id}\n`).join(''),
    );
  if (items.length === 0) return void process.stderr.write(`No ${options.plural} found.\n`);
  const shown = columns.filter((column) => format === 'wide' || column.wide !== true);
  process.stdout.write(
    formatTable(
      shown.map((c) => c.title),
      items.map((item) => shown.map((c) => c.cell(item))),
    ),
  );
}
