import type { Command } from 'commander';
import { MATCHER_LABELS, type Matcher, type MatcherLabel } from '../contract/maintenance-definition.js';
import { CommandFailure, ExitCode } from './exit-codes.js';

/** The flags that each add one `=` matcher, as amtool's `alertname=...` shortcuts do; repeat a flag for more values. */
export interface MatcherFlags {
  monitor: string[];
  project: string[];
  environment: string[];
  location: string[];
}

const collect = (value: string, previous: string[]) => [...previous, value];
const FLAG_LABELS = ['monitor', 'project', 'environment', 'location'] as const;

export function matcherOptions(command: Command): Command {
  return command
    .option('--monitor <name>', 'only this monitor (repeatable: any of them)', collect, [])
    .option('--project <project>', 'only this project (repeatable)', collect, [])
    .option('--environment <environment>', 'only this environment (repeatable)', collect, [])
    .option('--location <location>', 'only this location (repeatable)', collect, []);
}

const matcherLabels: ReadonlySet<string> = new Set(MATCHER_LABELS);
const isLabel = (label: string): label is MatcherLabel => matcherLabels.has(label);

/** `label=a,b` or `label!=a,b`: amtool's matcher syntax, with a comma list of exact values instead of a regex. */
function parseMatcher(text: string): Matcher {
  const match = /^([A-Za-z]+)(!=|=)(.+)$/.exec(text);
  if (match === null)
    throw new CommandFailure(ExitCode.usage, `matcher "${text}" is not label=value or label!=value`);
  const [, label = '', operator, values = ''] = match;
  if (!isLabel(label))
    throw new CommandFailure(
      ExitCode.usage,
      `matcher "${text}": the label must be one of ${MATCHER_LABELS.join(', ')}`,
    );
  return {
    label,
    operator: operator === '!=' ? '!=' : '=',
    values: values.split(',').filter((v) => v !== ''),
  };
}

/** The matchers of the positional arguments and the shortcut flags; at least one is required. */
export function matchersOf(args: string[], flags: MatcherFlags): Matcher[] {
  const matchers = args.map(parseMatcher);
  for (const label of FLAG_LABELS)
    if (flags[label].length > 0) matchers.push({ label, operator: '=', values: flags[label] });
  if (matchers.length === 0)
    throw new CommandFailure(
      ExitCode.usage,
      'say what to match: --monitor NAME, --project, --environment, --location or label=value arguments',
    );
  return matchers;
}

/** `monitor=checkout,cart location!=eu-west`, as the tables print matchers. */
export const describeMatchers = (matchers: Matcher[]) =>
  matchers.map((m) => `${m.label}${m.operator}${m.values.join(',')}`).join(' ');
