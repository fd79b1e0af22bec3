import { errorCode } from '../log/error-facts.js';
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import {
  monitorDefinitionSchema,
  monitorIdSchema,
  type MonitorDefinition,
} from '../contract/monitor-definition.js';
import { describeIssue } from '../contract/issue-path.js';
import { isMonitorResource, monitorResourceToDefinition } from '../contract/monitor-resource.js';
import { toFieldIssues } from '../http/validation.js';
import { isMaintenanceWindowResource } from '../contract/maintenance-window-resource.js';
import { yaml } from './yaml-on-demand.js';
import { LIST_KIND } from './monitor-manifest.js';
import { parseWindowDocument, type WindowDocument } from './window-documents.js';

/**
 * Where a document came from: `file:N` with N counted from 1, as the error lines print it, and `items[K]` for the
 * K-th item of a `List` document.
 */
export interface DocumentSource {
  file: string;
  index: number;
  item?: number;
}

export interface MonitorDocument {
  source: DocumentSource;
  /** The id the document asks for (API form only); otherwise the monitor is found by its identity. */
  id: string | undefined;
  definition: MonitorDefinition;
}

export interface DocumentProblem {
  source: DocumentSource;
  path: string;
  message: string;
}

export function describeSource(source: DocumentSource): string {
  const item = source.item === undefined ? '' : ` items[${source.item}]`;
  return `${source.file}:${source.index}${item}`;
}

/** A problem as the commands print it: `file:N: path: message`. */
export function describeProblem(problem: DocumentProblem): string {
  return `${describeSource(problem.source)}: ${describeIssue(problem)}`;
}

/** How a monitor is known across files and the hub: `project/environment/name`. */
export function identityKey(monitor: Pick<MonitorDefinition, 'project' | 'environment' | 'name'>): string {
  return `${monitor.project}/${monitor.environment}/${monitor.name}`;
}

const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/** A path that cannot be read: reported as one line, not a stack trace. */
export class UnreadablePathError extends Error {
  constructor(path: string, cause: unknown) {
    const reason = errorCode(cause) === 'ENOENT' ? 'no such file or directory' : String(cause);
    super(`cannot read ${path}: ${reason}`, { cause });
    this.name = new.target.name;
  }
}

/** `-f -`: the documents come from standard input, as with kubectl. */
const STDIN_PATH = '-';
const STDIN_NAME = '<stdin>';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The files named, with each directory replaced by its YAML and JSON files in name order. */
async function expandPaths(paths: string[]): Promise<string[]> {
  const files: string[] = [];
  for (const path of paths) {
    if (path === STDIN_PATH) {
      files.push(STDIN_NAME);
      continue;
    }
    const info = await stat(path).catch((error: unknown) => {
      throw new UnreadablePathError(path, error);
    });
    if (info.isDirectory()) {
      const entries = (await readdir(path)).filter((name) => MANIFEST_EXTENSIONS.has(extname(name))).sort();
      files.push(...entries.map((name) => join(path, name)));
    } else {
      files.push(path);
    }
  }
  return files;
}

function parseDocument(source: DocumentSource, raw: unknown): MonitorDocument | DocumentProblem[] {
  const resource = isMonitorResource(raw);
  const { id, ...candidate } = (resource ? monitorResourceToDefinition(raw) : (raw ?? {})) as Record<
    string,
    unknown
  >;
  const prefix = resource ? 'spec.' : '';
  const problems: DocumentProblem[] = [];
  const parsedId = id === undefined ? undefined : monitorIdSchema.safeParse(id);
  if (parsedId !== undefined && !parsedId.success) {
    problems.push({ source, path: 'id', message: parsedId.error.issues[0]?.message ?? 'invalid id' });
  }
  const parsed = monitorDefinitionSchema.safeParse(candidate);
  if (!parsed.success) {
    problems.push(
      ...toFieldIssues(parsed.error).map((issue) => ({
        source,
        path: prefix + issue.path,
        message: issue.message,
      })),
    );
  }
  if (problems.length > 0 || !parsed.success) return problems;
  return { source, id: parsedId?.data, definition: parsed.data };
}

/**
 * Reads every document of every file and validates all of them; nothing is sent anywhere. `MaintenanceWindow`
 * resources come back as `windows`, which only `apply` acts on.
 */
export async function readMonitorDocuments(
  paths: string[],
): Promise<{ documents: MonitorDocument[]; problems: DocumentProblem[]; windows: WindowDocument[] }> {
  const documents: MonitorDocument[] = [];
  const windows: WindowDocument[] = [];
  const problems: DocumentProblem[] = [];
  for (const file of await expandPaths(paths)) {
    const text = file === STDIN_NAME ? await readStdin() : await readFile(file, 'utf8');
    const parsedFile = yaml().parseAllDocuments(text);
    const list = Array.isArray(parsedFile) ? parsedFile : [parsedFile];
    list.forEach((document, position) => {
      const source = { file, index: position + 1 };
      if (document.errors.length > 0) {
        problems.push({
          source,
          path: '',
          message: document.errors[0]?.message.split('\n')[0] ?? 'unreadable YAML',
        });
        return;
      }
      const raw: unknown = document.toJS();
      if (raw === null || raw === undefined) return;
      const items = listItems(raw);
      if (items === 'invalid')
        return void problems.push({ source, path: 'items', message: 'must be a list' });
      const entries =
        items === undefined
          ? [{ source, raw }]
          : items.map((r, item) => ({ source: { ...source, item }, raw: r }));
      for (const entry of entries) {
        const outcome = isMaintenanceWindowResource(entry.raw)
          ? parseWindowDocument(entry.source, entry.raw)
          : parseDocument(entry.source, entry.raw);
        if (Array.isArray(outcome)) problems.push(...outcome);
        else if ('window' in outcome) windows.push(outcome);
        else documents.push(outcome);
      }
    });
  }
  problems.push(...findDuplicateIdentities(documents));
  return { documents, problems, windows };
}

/** The items of kubectl's `List` document (what `get monitors -o yaml` prints), else undefined. */
function listItems(raw: unknown): unknown[] | 'invalid' | undefined {
  if (typeof raw !== 'object' || raw === null || (raw as { kind?: unknown }).kind !== LIST_KIND)
    return undefined;
  const { items } = raw as { items?: unknown };
  return Array.isArray(items) ? items : 'invalid';
}

function findDuplicateIdentities(documents: MonitorDocument[]): DocumentProblem[] {
  const seen = new Map<string, DocumentSource>();
  const problems: DocumentProblem[] = [];
  for (const { source, definition } of documents) {
    const key = identityKey(definition);
    const first = seen.get(key);
    if (first === undefined) seen.set(key, source);
    else
      problems.push({
        source,
        path: 'name',
        message: `monitor ${key} is also defined at ${describeSource(first)}`,
      });
  }
  return problems;
}
