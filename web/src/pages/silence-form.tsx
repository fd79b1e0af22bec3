import { useState } from 'preact/hooks';
import { ApiError, apiData } from '../api.js';
import type { Silence } from '../types.js';

const LABELS = ['monitor', 'project', 'environment', 'location', 'monitorId'] as const;

/** A deploy silence in one line: what to match, for how long, and why (as `meerkat silence create`). */
export function SilenceForm({ onCreated }: { onCreated: () => void }) {
  const [label, setLabel] = useState<string>('monitor');
  const [values, setValues] = useState('');
  const [duration, setDuration] = useState('2h');
  const [comment, setComment] = useState('');
  const [state, setState] = useState<{ busy: boolean; created?: string; error?: string }>({ busy: false });
  const submit = (event: Event) => {
    event.preventDefault();
    setState({ busy: true });
    const list = values
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== '');
    apiData<Silence>('/silences', {
      method: 'POST',
      body: { matchers: [{ label, values: list }], duration, comment },
    }).then(
      (silence) => {
        setState({ busy: false, created: silence.id });
        setValues('');
        setComment('');
        onCreated();
      },
      (e: unknown) => setState({ busy: false, error: e instanceof ApiError ? e.message : String(e) }),
    );
  };
  return (
    <form class="filters silence-form" aria-label="New silence" onSubmit={submit}>
      <div class="field">
        <label for="silence-label">Match</label>
        <select id="silence-label" value={label} onChange={(e) => setLabel(e.currentTarget.value)}>
          {LABELS.map((l) => (
            <option key={l} value={l}>
              {l}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="silence-values">Equal to (comma-separated)</label>
        <input id="silence-values" value={values} onInput={(e) => setValues(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="silence-duration">For</label>
        <input
          id="silence-duration"
          size={6}
          value={duration}
          onInput={(e) => setDuration(e.currentTarget.value)}
        />
      </div>
      <div class="field">
        <label for="silence-comment">Comment</label>
        <input id="silence-comment" value={comment} onInput={(e) => setComment(e.currentTarget.value)} />
      </div>
      <button type="submit" class="primary" disabled={state.busy}>
        Silence
      </button>
      <span role="status">
        {state.created !== undefined && <>Silence {state.created} created.</>}
        {state.error !== undefined && <span class="error">{state.error}</span>}
      </span>
    </form>
  );
}
