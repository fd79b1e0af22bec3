import { useLayoutEffect, useState } from 'preact/hooks';

export type Loaded<T> =
  { state: 'loading' } | { state: 'failed'; error: Error } | { state: 'ready'; data: T };

/**
 * Runs `load` when `keys` change; an answer that arrives after the keys moved on is dropped. A layout effect, so the
 * requests go out as soon as the page is in the document: a plain effect waits for the browser's next frame, or
 * 35 ms in a tab that draws none.
 */
export function useLoad<T>(load: () => Promise<T>, keys: unknown[]): [Loaded<T>, () => void] {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const [round, setRound] = useState(0);
  useLayoutEffect(() => {
    let current = true;
    setLoaded({ state: 'loading' });
    load().then(
      (data) => current && setLoaded({ state: 'ready', data }),
      (error: unknown) =>
        current &&
        setLoaded({ state: 'failed', error: error instanceof Error ? error : new Error(String(error)) }),
    );
    return () => {
      current = false;
    };
  }, [...keys, round]);
  return [loaded, () => setRound((r) => r + 1)];
}
