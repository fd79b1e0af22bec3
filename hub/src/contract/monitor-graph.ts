import type { z } from 'zod';
import { SUBJECTS_OF_NODE_TYPE, type Assertion } from './assertion.js';

interface GraphShape {
  nodes: Array<{ id: string; type: string; assertions?: Assertion[] }>;
  edges: Array<{ from: string; to: string }>;
}

/**
 * The checks one node or edge cannot make alone: unique ids, edges between existing nodes, no cycle, and
 * assertions that name a node which runs before them, on a subject that node's type has. Each issue names the
 * exact field.
 */
export function checkMonitorGraph(monitor: GraphShape, ctx: z.RefinementCtx): void {
  const firstIndex = new Map<string, number>();
  monitor.nodes.forEach((node, index) => {
    const seen = firstIndex.get(node.id);
    if (seen === undefined) firstIndex.set(node.id, index);
    else
      ctx.addIssue({
        code: 'custom',
        path: ['nodes', index, 'id'],
        message: `duplicate node id "${node.id}" (also nodes[${seen}])`,
      });
  });

  const successors = new Map<string, string[]>();
  const seenEdges = new Set<string>();
  let edgesValid = true;
  monitor.edges.forEach((edge, index) => {
    for (const end of ['from', 'to'] as const) {
      if (!firstIndex.has(edge[end])) {
        ctx.addIssue({ code: 'custom', path: ['edges', index, end], message: `unknown node "${edge[end]}"` });
        edgesValid = false;
      }
    }
    const key = `${edge.from}\u0000${edge.to}`;
    if (seenEdges.has(key)) {
      ctx.addIssue({
        code: 'custom',
        path: ['edges', index],
        message: `duplicate edge ${edge.from} -> ${edge.to}`,
      });
    }
    seenEdges.add(key);
    successors.set(edge.from, [...(successors.get(edge.from) ?? []), edge.to]);
  });
  if (!edgesValid) return;

  const cycle = findCycle(
    monitor.nodes.map((n) => n.id),
    successors,
  );
  if (cycle !== undefined) {
    const closing = monitor.edges.findIndex(
      (e) => e.from === cycle[cycle.length - 2] && e.to === cycle[cycle.length - 1],
    );
    ctx.addIssue({
      code: 'custom',
      path: ['edges', closing],
      message: `edges form a cycle: ${cycle.join(' -> ')}`,
    });
    return;
  }

  const predecessors = new Map<string, string[]>();
  for (const edge of monitor.edges)
    predecessors.set(edge.to, [...(predecessors.get(edge.to) ?? []), edge.from]);
  const typeOf = new Map(monitor.nodes.map((n) => [n.id, n.type]));
  monitor.nodes.forEach((node, nodeIndex) => {
    if (node.type !== 'ASSERTION') return;
    const ancestors = ancestorsOf(node.id, predecessors);
    (node.assertions ?? []).forEach((assertion, assertionIndex) => {
      const target = assertion.nodeId;
      const type = typeOf.get(target);
      const subjects = type === undefined ? undefined : SUBJECTS_OF_NODE_TYPE[type];
      const path = ['nodes', nodeIndex, 'assertions', assertionIndex];
      let problem: string | undefined;
      if (subjects === undefined)
        problem =
          `"${target}" is not an HTTP_REQUEST node of this monitor, nor another node whose result ` +
          `assertions check (${Object.keys(SUBJECTS_OF_NODE_TYPE).join(', ')})`;
      else if (!ancestors.has(target))
        problem = `"${target}" must run before this assertion: add an edge path from it to "${node.id}"`;
      if (problem !== undefined) {
        ctx.addIssue({ code: 'custom', path: [...path, 'nodeId'], message: problem });
      } else if (subjects !== undefined && !subjects.includes(assertion.subject)) {
        ctx.addIssue({
          code: 'custom',
          path: [...path, 'subject'],
          message: `a ${type} node has no subject "${assertion.subject}" (it has ${subjects.join(', ')})`,
        });
      }
    });
  });
}

/** Depth-first search; returns the node ids of one cycle, first id repeated at the end. */
function findCycle(ids: string[], successors: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    state.set(id, 'open');
    stack.push(id);
    for (const next of successors.get(id) ?? []) {
      if (state.get(next) === 'open') return [...stack.slice(stack.indexOf(next)), next];
      if (state.get(next) === undefined) {
        const found = visit(next);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const id of ids) {
    if (state.get(id) === undefined) {
      const found = visit(id);
      if (found) return found;
    }
  }
  return undefined;
}

function ancestorsOf(id: string, predecessors: Map<string, string[]>): Set<string> {
  const seen = new Set<string>();
  const queue = [...(predecessors.get(id) ?? [])];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    if (seen.has(next)) continue;
    seen.add(next);
    queue.push(...(predecessors.get(next) ?? []));
  }
  return seen;
}
