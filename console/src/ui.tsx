import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from './api.js';

/** What a page loads: the value, the error in plain words, and a way to load again. */
export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload: () => void;
}

export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: string | null; loading: boolean }>({ data: undefined, error: null, loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, error: null, loading: false }),
      (error: unknown) => live && setState({ data: undefined, error: messageOf(error), loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { ...state, reload };
}

export function messageOf(error: unknown): string {
  return error instanceof ApiError ? error.message : 'Something went wrong in the console. Reload the page.';
}

/** An action's pending state and its error in plain words. */
export function useAction(): { busy: boolean; error: string | null; run: (action: () => Promise<unknown>) => Promise<boolean> } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
      return true;
    } catch (e) {
      setError(messageOf(e));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run };
}

export function ErrorNote({ error }: { error: string | null }) {
  return error ? <p class="error" role="alert">{error}</p> : null;
}

/** A fieldset of checkboxes choosing some of `items` (by value); `children` shows when there are none. */
export function Checklist({
  legend,
  items,
  chosen,
  onChange,
  children,
}: {
  legend: string;
  items: readonly { value: string; label: string }[];
  chosen: readonly string[];
  onChange: (chosen: string[]) => void;
  children?: ComponentChildren;
}) {
  return (
    <fieldset>
      <legend>{legend}</legend>
      {items.length === 0 && children}
      {items.map(({ value, label }) => (
        <label key={value} class="check">
          <input
            type="checkbox"
            checked={chosen.includes(value)}
            onChange={(e) => onChange((e.target as HTMLInputElement).checked ? [...chosen, value] : chosen.filter((x) => x !== value))}
          />
          {label}
        </label>
      ))}
    </fieldset>
  );
}

/** A loaded value's states: skeleton, error, or the content. */
export function Show<T>({ loaded, children }: { loaded: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (loaded.error) return <ErrorNote error={loaded.error} />;
  if (loaded.data === undefined) return <p class="muted" aria-busy="true">Loading…</p>;
  return <>{children(loaded.data)}</>;
}

/** What a new user sees where there is nothing yet: what it is, and what to do. */
export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <strong>{title}</strong>
      {children && <p>{children}</p>}
    </div>
  );
}

/** A figure with its label, in a row of `.tiles`; `testid` names it for tests (`tile-${testid}`). */
export function Tile({ label, value, testid }: { label: string; value: string; testid?: string }) {
  return (
    <div class="tile" data-testid={testid && `tile-${testid}`}>
      <span class="tile-label">{label}</span>
      <span class="tile-value">{value}</span>
    </div>
  );
}

export function Pager({ page, last, onPage }: { page: number; last: number; onPage: (page: number) => void }) {
  if (last <= 1) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>Previous</button>
      <span>
        Page {page} of {last}
      </span>
      <button type="button" disabled={page >= last} onClick={() => onPage(page + 1)}>Next</button>
    </nav>
  );
}

export const number = (n: number) => n.toLocaleString('en');
export const percent = (n: number | null) => (n === null ? '—' : `${(n * 100).toFixed(1)} %`);
export const when = (iso: string) => new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
