import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { stringify as stringifyYaml } from 'yaml';
import { diffJson } from '../contract/definition-diff.js';
import { definitionOf } from '../contract/stored-monitor.js';
import { HubRequestError } from '../client/hub-client.js';
import { CommandFailure, describeHubError, ExitCode, exitCodeOfHubError } from './exit-codes.js';
import { connectToHub, hubOptions, type HubOptions } from './hub-connection.js';
import { describeProblem, readMonitorDocuments } from './monitor-documents.js';
import { findMonitor, type MonitorScope } from './monitor-lookup.js';
import { monitorManifest } from './monitor-manifest.js';

// kubectl edit for one monitor: $EDITOR on what `get -o yaml` prints, then one PUT of the result. Nothing is
// written unless the whole document is valid, the hub accepts it, and nobody changed the monitor meanwhile (the PUT
// carries If-Match with the ETag read, docs/adr/0046-monitor-etags.md).

const HEADER = [
  '# Edit the monitor below; lines beginning with "#" are ignored. Saving an unchanged file, or emptying it,',
  "# cancels the edit. metadata and status are the hub's; the definition is spec (labels: metadata.labels).",
  '',
].join('\n');

/** `$EDITOR` (with its arguments, run by the shell as kubectl runs KUBE_EDITOR), else vi. */
function runEditor(path: string): void {
  const editor = process.env.EDITOR?.trim() || 'vi';
  const result = spawnSync('/bin/sh', ['-c', `${editor} "$1"`, 'editor', path], { stdio: 'inherit' });
  if (result.error !== undefined || result.status !== 0)
    throw new CommandFailure(
      ExitCode.usage,
      `the editor "${editor}" failed (${result.error?.message ?? `exit ${result.status}`}); nothing was changed`,
    );
}

const withoutComments = (text: string) =>
  text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .trim();

export function registerEditCommand(program: Command): void {
  const command = program
    .command('edit')
    .description('edit a monitor in $EDITOR and apply the result (kubectl edit)')
    .argument('<type>', 'monitor')
    .argument('<name>', 'the monitor, by name or id')
    .option('--project <project>', 'when the name is used in several projects')
    .option('--environment <environment>', 'when the name is used in several environments');
  hubOptions(command).action(async (type: string, name: string, options: HubOptions & MonitorScope) => {
    if (!['monitor', 'monitors', 'mon'].includes(type))
      throw new CommandFailure(ExitCode.usage, `edit takes monitors, not "${type}"`);
    const hub = connectToHub(options);
    const found = await findMonitor(hub, name, options);
    // The ETag of the version shown in the editor: the PUT names it, so a change made meanwhile is not overwritten.
    const read = await hub.getMonitorVersion(found.id);
    if (read === undefined) throw new CommandFailure(ExitCode.failed, `monitor ${found.id} not found`);
    const { monitor: before, etag } = read;
    const original = HEADER + stringifyYaml(monitorManifest(before));
    const path = join(mkdtempSync(join(tmpdir(), 'meerkat-edit-')), `${before.name}.yaml`);
    writeFileSync(path, original, { mode: 0o600 });
    runEditor(path);
    const edited = readFileSync(path, 'utf8');
    const cancel = () => {
      rmSync(dirname(path), { recursive: true, force: true });
      process.stdout.write('edit cancelled, no changes made\n');
    };
    if (withoutComments(edited) === '' || withoutComments(edited) === withoutComments(original))
      return cancel();
    const { documents, problems } = await readMonitorDocuments([path]);
    if (problems.length > 0 || documents.length !== 1) {
      for (const problem of problems) process.stderr.write(`${describeProblem(problem)}\n`);
      if (problems.length === 0)
        process.stderr.write('meerkat: the edited file must hold exactly one monitor\n');
      throw new CommandFailure(ExitCode.usage, `nothing was changed; your edit is kept in ${path}`);
    }
    const definition = documents[0]!.definition;
    if (diffJson(definitionOf(before), definition).length === 0) return cancel();
    const changedMeanwhile = new CommandFailure(
      ExitCode.failed,
      `monitor ${before.name} changed on the hub while you edited it; nothing was changed, your edit is kept in ${path}`,
    );
    // kubectl's resourceVersion check. A hub before ADR 0046 answers no strong ETag: compare updatedAt instead.
    const strongEtag = etag?.startsWith('"') === true ? etag : undefined;
    if (strongEtag === undefined && (await hub.getMonitor(before.id))?.updatedAt !== before.updatedAt)
      throw changedMeanwhile;
    const after = await hub
      .putMonitor(before.id, definition, { ifMatch: strongEtag })
      .catch((error: unknown) => {
        if (!(error instanceof HubRequestError)) throw error;
        if (error.status === 412) throw changedMeanwhile;
        for (const line of describeHubError(error)) process.stderr.write(`meerkat: ${line}\n`);
        throw new CommandFailure(
          exitCodeOfHubError(error),
          `nothing was changed; your edit is kept in ${path}`,
        );
      });
    rmSync(dirname(path), { recursive: true, force: true });
    process.stdout.write(`monitor ${after.project}/${after.environment}/${after.name} edited\n`);
  });
}
