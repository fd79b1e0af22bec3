import type { Monitor } from '../types.js';

const NODE_W = 150;
const NODE_H = 44;
const GAP_X = 60;
const GAP_Y = 24;

/** Columns by longest path from a root, so every edge points right; the definition has no cycles. */
function layout(monitor: Pick<Monitor, 'nodes' | 'edges'>) {
  const depth = new Map(monitor.nodes.map((n) => [n.id, 0]));
  for (let round = 0; round < monitor.nodes.length; round += 1)
    for (const edge of monitor.edges)
      depth.set(edge.to, Math.max(depth.get(edge.to) ?? 0, (depth.get(edge.from) ?? 0) + 1));
  const rows = new Map<number, number>();
  const at = new Map<string, { x: number; y: number }>();
  for (const node of monitor.nodes) {
    const column = depth.get(node.id) ?? 0;
    const row = rows.get(column) ?? 0;
    rows.set(column, row + 1);
    at.set(node.id, { x: 8 + column * (NODE_W + GAP_X), y: 8 + row * (NODE_H + GAP_Y) });
  }
  const width = 16 + (Math.max(0, ...depth.values()) + 1) * (NODE_W + GAP_X) - GAP_X;
  const height = 16 + Math.max(1, ...rows.values()) * (NODE_H + GAP_Y) - GAP_Y;
  return { at, width, height };
}

/** The monitor's graph; `status` colours the nodes, and a failed node is marked in words as well as in red. */
export function MonitorGraph({
  monitor,
  status = {},
}: {
  monitor: Pick<Monitor, 'nodes' | 'edges'>;
  status?: Record<string, 'passed' | 'failed' | 'skipped'>;
}) {
  const { at, width, height } = layout(monitor);
  const failed = monitor.nodes.filter((n) => status[n.id] === 'failed').map((n) => n.id);
  return (
    <figure class="graph">
      <svg
        viewBox={`0 0 ${width} ${height}`}
        width={width}
        height={height}
        role="img"
        aria-label={`Graph of ${monitor.nodes.length} steps${failed.length > 0 ? `; failed: ${failed.join(', ')}` : ''}`}
      >
        <defs>
          <marker
            id="arrow"
            viewBox="0 0 10 10"
            refX="10"
            refY="5"
            markerWidth="6"
            markerHeight="6"
            orient="auto"
          >
            <path d="M0,0 L10,5 L0,10 z" fill="#555" />
          </marker>
        </defs>
        {monitor.edges.map((edge) => {
          const from = at.get(edge.from);
          const to = at.get(edge.to);
          if (from === undefined || to === undefined) return null;
          return (
            <line
              key={`${edge.from}-${edge.to}`}
              x1={from.x + NODE_W}
              y1={from.y + NODE_H / 2}
              x2={to.x}
              y2={to.y + NODE_H / 2}
              stroke="#555"
              marker-end="url(#arrow)"
            />
          );
        })}
        {monitor.nodes.map((node) => {
          const p = at.get(node.id);
          if (p === undefined) return null;
          const state = status[node.id];
          return (
            <g key={node.id} class={`node ${state ?? ''}`} data-node={node.id}>
              <rect x={p.x} y={p.y} width={NODE_W} height={NODE_H} rx="6" />
              <text x={p.x + 8} y={p.y + 18}>
                {node.id.length > 18 ? `${node.id.slice(0, 17)}…` : node.id}
              </text>
              <text x={p.x + 8} y={p.y + 35} class="kind">
                {state === 'failed' ? `${node.type} · FAILED` : node.type}
              </text>
            </g>
          );
        })}
      </svg>
    </figure>
  );
}
