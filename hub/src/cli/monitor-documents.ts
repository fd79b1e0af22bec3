import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import {
  monitorDefinitionSchema,
  monitorIdSchema,
  type MonitorDefinition,
} from '../contract/monitor-definition.js';
import { describeIssue } from '../contract/issue-path.js';
import { isMonitorResource, monitorResourceToDefinition } from '../contract/monitor-resource.js';
import { toFieldIssues } from '../http/validation.js';

/** Where a document came from: `file:N` with N counted from 1, as the error lines print it. */
export interface DocumentSource {
  file: string;
  index: number;
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
  return `${source.file}:${source.index}`;
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
    const reason =
      (cause as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : String(cause);
    super(`cannot read ${path}: ${reason}`, { cause });
    this.name = new.target.name;
  }
}

/** The files named, with each directory replaced by its YAML and JSON files in name order. */
async function expandPaths(paths: string[]): Promise<string[]> {
  const files: string[] = [];
  for (const path of paths) {
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

/** Reads every document of every file and validates all of them; nothing is sent anywhere. */
export async function readMonitorDocuments(
  paths: string[],
): Promise<{ documents: MonitorDocument[]; problems: DocumentProblem[] }> {
  const documents: MonitorDocument[] = [];
  const problems: DocumentProblem[] = [];
  for (const file of await expandPaths(paths)) {
    const parsedFile = parseAllDocuments(await readFile(file, 'utf8'));
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
      const outcome = parseDocument(source, raw);
      if (Array.isArray(outcome)) problems.push(...outcome);
      else documents.push(outcome);
    });
  }
  problems.push(...findDuplicateIdentities(documents));
  return { documents, problems };
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
