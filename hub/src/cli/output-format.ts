import { Option, type Command } from 'commander';
import { customCell, parseCustomColumns, parseSortBy, sortByPath } from './custom-columns.js';
import { CommandFailure, ExitCode } from './exit-codes.js';
import { parseTemplate, renderTemplate, TemplateError } from './jsonpath-template.js';
import { listManifest } from './monitor-manifest.js';
import { yaml } from './yaml-on-demand.js';

/**
 * kubectl's `-o`: a table, the table with more columns, the objects as JSON or YAML, `kind/id` per line, or
 * kubectl's templates on the objects JSON and YAML print (`jsonpath=TEMPLATE`, `custom-columns=HEADER:PATH,...`).
 */
export const outputFormats = ['table', 'wide', 'json', 'yaml', 'name'] as const;
export type OutputFormat = (typeof outputFormats)[number] | `jsonpath=${string}` | `custom-columns=${string}`;

const JSONPATH = 'jsonpath=';
const CUSTOM_COLUMNS = 'custom-columns=';

/** A template's mistake as the one line every usage error is (exit 2), before anything is asked of the hub. */
function checked<T>(what: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof TemplateError) throw new CommandFailure(ExitCode.usage, `${what}: ${error.message}`);
    throw error;
  }
}

const namedFormats: ReadonlySet<string> = new Set(outputFormats);
const isNamedFormat = (value: string): value is (typeof outputFormats)[number] => namedFormats.has(value);

function parseOutputFormat(value: string): OutputFormat {
  if (isNamedFormat(value)) return value;
  if (value.startsWith(JSONPATH)) {
    const template = value.slice(JSONPATH.length);
    checked('-o jsonpath', () => parseTemplate(template));
    return `${JSONPATH}${template}`;
  }
  if (value.startsWith(CUSTOM_COLUMNS)) {
    const spec = value.slice(CUSTOM_COLUMNS.length);
    checked('-o custom-columns', () => parseCustomColumns(spec));
    return `${CUSTOM_COLUMNS}${spec}`;
  }
  throw new CommandFailure(
    ExitCode.usage,
    `-o ${value}: the output format is one of ${outputFormats.join(', ')}, jsonpath=TEMPLATE, custom-columns=SPEC`,
  );
}

export const outputOption = () =>
  new Option(
    '-o, --output <format>',
    `output format: ${outputFormats.join(', ')}, jsonpath=TEMPLATE or custom-columns=HEADER:PATH,...`,
  )
    .default('table')
    .argParser(parseOutputFormat);

/** What every listing prints with: `-o`, kubectl's `--sort-by` and `--no-headers`. */
export interface ListingOptions {
  output: OutputFormat;
  sortBy?: string | undefined;
  headers?: boolean | undefined;
}

/** `-o`, `--sort-by` and `--no-headers` on a listing command. */
export function listingOptions(command: Command): Command {
  return command
    .addOption(outputOption())
    .addOption(
      new Option(
        '--sort-by <path>',
        'sort by this JSONPath of the printed objects (e.g. .metadata.name)',
      ).argParser((path: string) => {
        checked('--sort-by', () => parseSortBy(path));
        return path;
      }),
    )
    .option('--no-headers', 'print tables without their header line');
}

/** The printing part of a listing's options, to hand to printItems. */
export const listingOf = ({ output, sortBy, headers }: ListingOptions) => ({
  format: output,
  sortBy,
  headers,
});

/** Columns padded to their widest cell, three spaces apart, as kubectl prints them; `headers` false drops them. */
export function formatTable(headers: string[], rows: string[][], withHeaders = true): string {
  const all = withHeaders ? [headers, ...rows] : rows;
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
  /** kubectl's `--sort-by`: a JSONPath of what JSON and YAML print of each item. */
  sortBy?: string | undefined;
  /** False for `--no-headers`. */
  headers?: boolean | undefined;
}

/**
 * Prints `items` in `format`, sorted by `sortBy` when given. A single object (`get monitor NAME`) prints as an
 * object in JSON, YAML and jsonpath, a list as a list (kubectl's `List` for resources); `name` prints `kind/id`; an
 * empty table says so on stderr, as kubectl does, so stdout stays parseable.
 */
export function printItems<T extends { id: string }>(unsorted: T[], options: PrintOptions<T>): void {
  const { format, kind, columns, single, manifest } = options;
  const documentOf = (item: T): unknown => (manifest === undefined ? item : manifest(item));
  const items =
    options.sortBy === undefined ? unsorted : sortByPath(unsorted, documentOf, parseSortBy(options.sortBy));
  const objects = items.map(documentOf);
  const value = single ? objects[0] : manifest === undefined ? objects : listManifest(objects);
  const withHeaders = options.headers !== false;
  if (format === 'json') return void process.stdout.write(JSON.stringify(value, null, 2) + '\n');
  if (format === 'yaml') return void process.stdout.write(yaml().stringify(value));
  if (format === 'name')
    return void process.stdout.write(
      items.map((item) => `${kind}/${options.nameOf?.(item) ?? item.id}\n`).join(''),
    );
  if (format.startsWith(JSONPATH)) {
    const template = parseTemplate(format.slice(JSONPATH.length));
    return void process.stdout.write(checked('-o jsonpath', () => renderTemplate(template, value)));
  }
  if (items.length === 0) return void process.stderr.write(`No ${options.plural} found.\n`);
  if (format.startsWith(CUSTOM_COLUMNS)) {
    const custom = parseCustomColumns(format.slice(CUSTOM_COLUMNS.length));
    const rows = objects.map((document) => custom.map((column) => customCell(column, document)));
    return void process.stdout.write(
      formatTable(
        custom.map((c) => c.header),
        rows,
        withHeaders,
      ),
    );
  }
  const shown = columns.filter((column) => format === 'wide' || column.wide !== true);
  process.stdout.write(
    formatTable(
      shown.map((c) => c.title),
      items.map((item) => shown.map((c) => c.cell(item))),
      withHeaders,
    ),
  );
}
