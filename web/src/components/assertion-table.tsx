import { shown } from '../format.js';
import type { AssertionOutcome } from '../types.js';

const subjectOf = (a: AssertionOutcome) =>
  a.headerName !== undefined
    ? `header ${a.headerName}`
    : a.path !== undefined
      ? `${a.subject} ${a.path}`
      : a.subject;

/** Every assertion of the run with what it expected and what the response held. */
export function AssertionTable({ assertions }: { assertions: AssertionOutcome[] }) {
  return (
    <table class="assertions">
      <caption>Assertions ({assertions.filter((a) => !a.passed).length} failed)</caption>
      <thead>
        <tr>
          <th scope="col">Result</th>
          <th scope="col">Request</th>
          <th scope="col">Subject</th>
          <th scope="col">Operator</th>
          <th scope="col">Expected</th>
          <th scope="col">Actual</th>
        </tr>
      </thead>
      <tbody>
        {assertions.map((a, i) => (
          <tr key={i} class={a.passed ? 'passed' : 'failed'} title={a.message}>
            <td>
              <span class={`badge ${a.passed ? 'passed' : 'failed'}`}>{a.passed ? 'passed' : 'failed'}</span>
            </td>
            <td>{a.nodeId}</td>
            <td>{subjectOf(a)}</td>
            <td>{a.operator}</td>
            <td>
              <code>
                {a.expected === undefined && a.operator.startsWith('IS_') ? '—' : shown(a.expected)}
              </code>
            </td>
            <td>
              <code>{shown(a.actual)}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
