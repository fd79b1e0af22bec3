import type { Edge, MonitorNode } from '../contract/monitor-definition.js';
import type { StepResult } from './run-outcome.js';
import { describeError } from './step-errors.js';

export interface GraphSteps {
  execute(node: MonitorNode): Promise<StepResult>;
  skip(node: MonitorNode, reason: string): StepResult;
}

/**
 * Runs a validated (acyclic) monitor graph: a node starts as soon as all its predecessors finished, so
 * independent branches run concurrently. A node whose predecessor failed or was skipped is skipped, and so is
 * every node not started before the run's signal aborts. Resolves once every node has a result.
 */
export function executeGraph(
  nodes: readonly MonitorNode[],
  edges: readonly Edge[],
  runSignal: AbortSignal,
  steps: GraphSteps,
): Promise<Map<string, StepResult>> {
  const predecessors = new Map(nodes.map((node): [string, string[]] => [node.id, []]));
  const successors = new Map(nodes.map((node): [string, MonitorNode[]] => [node.id, []]));
  const byId = new Map(nodes.map((node) => [node.id, node]));
  for (const edge of edges) {
    predecessors.get(edge.to)?.push(edge.from);
    const target = byId.get(edge.to);
    if (target !== undefined) successors.get(edge.from)?.push(target);
  }
  const unfinishedPredecessors = new Map(
    nodes.map((node) => [node.id, predecessors.get(node.id)?.length ?? 0]),
  );
  const results = new Map<string, StepResult>();

  return new Promise((resolve) => {
    const finish = (node: MonitorNode, result: StepResult) => {
      results.set(node.id, result);
      for (const next of successors.get(node.id) ?? []) {
        const left = (unfinishedPredecessors.get(next.id) ?? 0) - 1;
        unfinishedPredecessors.set(next.id, left);
        if (left === 0) start(next);
      }
      if (results.size === nodes.length) resolve(results);
    };
    const start = (node: MonitorNode) => {
      const blocker = predecessors.get(node.id)?.find((id) => results.get(id)?.status !== 'passed');
      if (blocker !== undefined) {
        const verdict = results.get(blocker)?.status === 'failed' ? 'failed' : 'was skipped';
        finish(node, steps.skip(node, `not run: ${blocker} ${verdict}`));
      } else if (runSignal.aborted) {
        finish(node, steps.skip(node, `not run: ${describeError(runSignal.reason)}`));
      } else {
        steps.execute(node).then(
          (result) => finish(node, result),
          // Steps report their own failures; this only catches a defect, so the run still ends.
          (error: unknown) =>
            finish(node, {
              nodeId: node.id,
              type: node.type,
              status: 'failed',
              startedAt: null,
              durationMs: null,
              error: describeError(error),
              errorClass: 'runner',
            }),
        );
      }
    };
    for (const node of nodes) if (unfinishedPredecessors.get(node.id) === 0) start(node);
  });
}
