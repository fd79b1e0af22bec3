// The issue's table, one row per measured system, with CPU per check as a ratio to blackbox_exporter's, and the
// notes on how each figure was read.
import type { WindowResult, Workload } from './bench-system.js';
import { formatLoad } from './bench-system.js';

const number = (value: number) => value.toLocaleString('en-US');
const mib = (bytes: number) => `${number(Math.round(bytes / 2 ** 20))} MiB`;
const totalCpuSeconds = (result: WindowResult) =>
  Object.values(result.cpuSeconds).reduce((sum, seconds) => sum + seconds, 0);

/** CPU milliseconds per check done; undefined when no check was done. */
function cpuMsPerCheck(result: WindowResult): number | undefined {
  const { done } = result.figures;
  return done === 0 ? undefined : (totalCpuSeconds(result) * 1000) / done;
}

function cpuCell(result: WindowResult): string {
  const total = cpuMsPerCheck(result);
  if (total === undefined) return 'no checks done';
  const parts = Object.entries(result.cpuSeconds).map(
    ([name, seconds]) => `${name} ${((seconds * 1000) / result.figures.done).toFixed(2)}`,
  );
  return `**${total.toFixed(2)}**${parts.length > 1 ? ` (${parts.join(', ')})` : ''}`;
}

function ratioCell(result: WindowResult, blackbox: WindowResult | undefined): string {
  const [own, theirs] = [cpuMsPerCheck(result), blackbox && cpuMsPerCheck(blackbox)];
  return own === undefined || theirs === undefined ? 'n/a' : `${(own / theirs).toFixed(2)}×`;
}

function lateness(result: WindowResult): string {
  const p99 = result.figures.latenessP99Ms;
  return p99 === undefined || Number.isNaN(p99) ? 'not measured' : `${(p99 / 1000).toFixed(3)} s`;
}

export function reportTable(results: readonly WindowResult[], workload: Workload): string[] {
  const blackbox = results.find((result) => result.label.startsWith('Prometheus'));
  const lines = [
    '| system | N | checks done / expected | failed | target requests | CPU ms per check | ÷ blackbox | cores | RSS (sum) | PSS (sum) | lateness p99 | load avg start → end |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const result of results) {
    const { done, expected, failed } = result.figures;
    lines.push(
      `| ${result.label} | ${number(workload.monitors)} | ${number(done)} / ${number(expected)} | ` +
        `${number(failed)} | ${number(result.targetRequests)} | ${cpuCell(result)} | ` +
        `${ratioCell(result, blackbox)} | ${(totalCpuSeconds(result) / workload.windowSeconds).toFixed(2)} | ` +
        `${mib(result.memory.rssBytes)} | ${mib(result.memory.pssBytes)} | ${lateness(result)} | ` +
        `${formatLoad(result.loadStart)} → ${formatLoad(result.loadEnd)} |`,
    );
  }
  return lines;
}

/** What the table does not hold: how each figure was read, missing and duplicated slots, work per check. */
export function reportNotes(results: readonly WindowResult[]): string[] {
  return results.map((result) => {
    const { figures } = result;
    const slots =
      figures.duplicated === undefined
        ? ''
        : `; missing slots ${figures.missing}, duplicated ${figures.duplicated}, unfinished ${figures.unfinished}`;
    const perCheck = Object.entries(result.counters).map(
      ([name, delta]) => `${name} ${figures.done === 0 ? 'n/a' : (delta / figures.done).toFixed(1)}`,
    );
    const memory = Object.entries(result.componentMemory).map(
      ([name, { rssBytes, pssBytes }]) => `${name} ${mib(rssBytes)} (${mib(pssBytes)})`,
    );
    return (
      `- ${result.label}: ${figures.note}${slots}` +
      (perCheck.length === 0 ? '' : `; per check over the window: ${perCheck.join(', ')}`) +
      `; largest RSS (PSS) of each process: ${memory.join(', ')}`
    );
  });
}
