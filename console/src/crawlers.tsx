import { useEffect, useState } from 'preact/hooks';
import { call } from './api.js';
import type { Crawler, Paged } from './resources.js';
import { ErrorNote, number, useAction, useLoad, when } from './ui.js';

/** The website crawlers that keep a collection in step with a site: status, progress, last report; add, run, delete. */
export function Crawlers({ token, collection }: { token: string; collection: string }) {
  const base = `/collections/${encodeURIComponent(collection)}/crawlers`;
  const list = useLoad(() => call<Paged<Crawler>>(token, 'GET', `${base}?per_page=100`), [token, collection]);
  const [url, setUrl] = useState('');
  const [maxPages, setMaxPages] = useState('1000');
  const [schedule, setSchedule] = useState('24');
  const [sections, setSections] = useState(false);
  const action = useAction();
  const busy = (list.data?.data ?? []).some((c) => c.status !== 'idle');
  // While a crawl runs, its progress is read again every few seconds.
  useEffect(() => {
    if (!busy) return;
    const timer = setInterval(list.reload, 3000);
    return () => clearInterval(timer);
  }, [busy, list.reload]);

  return (
    <div class="card" aria-labelledby="crawlers-title">
      <h2 id="crawlers-title">Website crawlers</h2>
      <p class="muted">A crawler reads a website into this collection, one entry a page (or a section), and keeps it current on a schedule.</p>
      {(list.data?.data ?? []).map((c) => (
        <div class="widget" key={c.id} data-testid="crawler">
          <h3>
            <a href={c.start_url} target="_blank" rel="noopener noreferrer">{c.start_url}</a> <span class="badge">{c.status}</span>
          </h3>
          {c.progress && c.last_seen_at && (
            <p data-testid="progress">
              {c.status === 'running' ? 'Running' : c.status === 'interrupted' ? `Interrupted (last seen ${when(c.last_seen_at)}; it goes on from here shortly)` : 'Waiting for its turn to go on'}:{' '}
              {number(c.progress.fetched)} of {number(c.progress.found)} pages fetched, {number(c.progress.written)} written, {number(c.progress.failed)} failed
            </p>
          )}
          {c.last_run ? (
            <p data-testid="last-run">
              Last run {when(c.last_run.finished_at)}: {c.last_run.outcome === 'failed' ? `failed (${c.last_run.error ?? 'no reason given'})` : `${number(c.last_run.report.fetched)} page${c.last_run.report.fetched === 1 ? '' : 's'} fetched — ${number(c.last_run.report.created)} new, ${number(c.last_run.report.updated)} changed, ${number(c.last_run.report.unchanged)} unchanged, ${number(c.last_run.report.deleted)} deleted, ${number(c.last_run.report.skipped_total)} skipped, ${number(c.last_run.report.failed_total)} failed`}
            </p>
          ) : (
            <p class="muted">No run has finished yet.</p>
          )}
          {c.last_run && c.last_run.report.failed.length > 0 && (
            <details>
              <summary>Failed pages</summary>
              <ul>
                {c.last_run.report.failed.map((f) => (
                  <li key={f.url}><code>{f.url}</code>: {f.reason}</li>
                ))}
              </ul>
            </details>
          )}
          <p class="muted">
            {c.schedule_hours ? `Every ${c.schedule_hours} h` : 'Runs only when asked'}{c.next_run_at ? `; next run ${when(c.next_run_at)}` : ''} · at most {number(c.max_pages)} pages{c.sections ? ' · one entry a section' : ''}
          </p>
          <div class="actions">
            <button type="button" disabled={c.status !== 'idle'} onClick={() => action.run(() => call(token, 'POST', `${base}/${c.id}/run`)).then(list.reload)}>Run now</button>
            <button
              type="button"
              class="danger"
              onClick={async () => {
                if (confirm('Delete this crawler? The pages it brought in stay in the collection.') && (await action.run(() => call(token, 'DELETE', `${base}/${c.id}`)))) list.reload();
              }}
            >
              Delete
            </button>
          </div>
        </div>
      ))}
      <form
        class="inline-form"
        onSubmit={async (e) => {
          e.preventDefault();
          const body = { start_url: url, max_pages: Number(maxPages), schedule_hours: schedule === '' ? null : Number(schedule), sections };
          if (await action.run(() => call(token, 'POST', base, body))) {
            setUrl('');
            list.reload();
          }
        }}
      >
        <label>
          Start URL <input type="url" value={url} required placeholder="https://docs.example.com/" onInput={(e) => setUrl((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          Max pages <input type="number" class="short" min="1" max="100000" value={maxPages} onInput={(e) => setMaxPages((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          Every (hours) <input type="number" class="short" min="1" max="8760" value={schedule} placeholder="never" onInput={(e) => setSchedule((e.target as HTMLInputElement).value)} />
        </label>
        <label class="check">
          <input type="checkbox" checked={sections} onChange={(e) => setSections((e.target as HTMLInputElement).checked)} /> One entry per section
        </label>
        <button type="submit" disabled={action.busy}>Add crawler</button>
      </form>
      <ErrorNote error={action.error ?? list.error} />
    </div>
  );
}
