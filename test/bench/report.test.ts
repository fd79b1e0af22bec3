import { describe, expect, it } from 'vitest';
import type { WindowResult, Workload } from '../../bench/compare/bench-system.js';
import { reportNotes, reportTable } from '../../bench/compare/report.js';

const workload: Workload = {
  monitors: 100,
  everySeconds: 20,
  warmupSeconds: 10,
  windowSeconds: 60,
  workers: 1,
  targetUrl: 'http://127.0.0.1:1',
  production: false,
  nodeOptions: '',
};

function result(label: string, done: number, cpuSeconds: Record<string, number>): WindowResult {
  return {
    label,
    figures: { expected: 300, done, failed: 0, latenessP99Ms: 25, note: 'how it was read' },
    cpuSeconds,
    memory: { rssBytes: 300 * 2 ** 20, pssBytes: 200 * 2 ** 20 },
    componentMemory: Object.fromEntries(
      Object.keys(cpuSeconds).map((name) => [name, { rssBytes: 150 * 2 ** 20, pssBytes: 100 * 2 ** 20 }]),
    ),
    targetRequests: done,
    counters: {},
    loadStart: [1, 1, 1],
    loadEnd: [2, 2, 2],
  };
}

const cells = (line: string) => line.split('|').map((cell) => cell.trim());

describe('the comparison table', () => {
  const blackbox = result('Prometheus + blackbox_exporter (Debian)', 300, {
    blackbox_exporter: 0.15,
    Prometheus: 0.15,
  });
  const split = result('Meerkat split', 300, { worker: 1.2, PostgreSQL: 0.6 });

  it('gives CPU per check with its parts, and as a ratio to blackbox_exporter', () => {
    const [, , splitRow, blackboxRow] = reportTable([split, blackbox], workload);
    expect(cells(splitRow as string)).toEqual(
      expect.arrayContaining(['300 / 300', '**6.00** (worker 4.00, PostgreSQL 2.00)', '6.00×', '0.03']),
    );
    expect(cells(blackboxRow as string)).toEqual(
      expect.arrayContaining(['**1.00** (blackbox_exporter 0.50, Prometheus 0.50)', '1.00×']),
    );
  });

  it('says no checks were done instead of dividing by zero', () => {
    const idle = result('`meerkat dev`', 0, { dev: 1 });
    const [, , row] = reportTable([idle, blackbox], workload);
    expect(cells(row as string)).toEqual(expect.arrayContaining(['0 / 300', 'no checks done', 'n/a']));
  });

  it('has no ratio without a blackbox_exporter row', () => {
    const [, , row] = reportTable([split], workload);
    expect(cells(row as string)).toContain('n/a');
  });

  it("notes Meerkat's missing and duplicated slots, the work per check and each process's memory", () => {
    const counted: WindowResult = {
      ...split,
      figures: { ...split.figures, missing: 2, duplicated: 1, unfinished: 0 },
      counters: { 'PostgreSQL transactions': 2400 },
    };
    expect(reportNotes([counted])).toEqual([
      '- Meerkat split: how it was read; missing slots 2, duplicated 1, unfinished 0; ' +
        'per check over the window: PostgreSQL transactions 8.0; ' +
        'largest RSS (PSS) of each process: worker 150 MiB (100 MiB), PostgreSQL 150 MiB (100 MiB)',
    ]);
  });
});
