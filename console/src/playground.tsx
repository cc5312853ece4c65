import { useState } from 'preact/hooks';
import { call } from './api.js';
import { snippetHtml } from '../../widget/src/core/markdown.js';
import { Markdown } from './markdown.js';
import { Page, Table } from './page.js';
import type { Hit, Integration, Paged, Summary } from './resources.js';
import { Empty, ErrorNote, Show, useAction, useLoad } from './ui.js';

/** `key=value` lines as the search API's meta filter parameters. */
function metaParams(text: string, q: URLSearchParams): void {
  for (const line of text.split('\n')) {
    const at = line.indexOf('=');
    if (at > 0) q.append(`meta[${line.slice(0, at).trim()}]`, line.slice(at + 1).trim());
  }
}

/**
 * Search as a visitor would through an integration, with filters, a boost or a sort, and
 * see why each hit scored as it did (its lexical and vector signals); then ask the answer
 * writer and see the passages it was given. Neither counts in the organisation's analytics
 * (`analytics=false`): they are the organisation's own, not its visitors'.
 */
export function Playground({ token }: { token: string }) {
  const integrations = useLoad(() => call<Paged<Integration>>(token, 'GET', '/integrations?per_page=100'), [token]);
  const [integration, setIntegration] = useState('');
  const [query, setQuery] = useState('');
  const [threshold, setThreshold] = useState('0.4');
  const [meta, setMeta] = useState('');
  const [order, setOrder] = useState({ kind: 'none', field: '', type: 'recency', strength: 'medium', scale: '30d', direction: 'desc', sortType: 'date' });
  const [hits, setHits] = useState<Hit[] | null>(null);
  const [summary, setSummary] = useState<Summary | null>(null);
  const searching = useAction();
  const asking = useAction();

  const params = () => {
    const q = new URLSearchParams({ query, threshold, explain: 'true', per_page: '20', analytics: 'false' });
    metaParams(meta, q);
    if (order.kind === 'boost' && order.field) {
      q.set('boost[0][field]', order.field);
      q.set('boost[0][type]', order.type);
      q.set('boost[0][strength]', order.strength);
      q.set('boost[0][scale]', order.scale);
    } else if (order.kind === 'sort' && order.field) {
      q.set('sort[0][field]', order.field);
      q.set('sort[0][direction]', order.direction);
      q.set('sort[0][type]', order.sortType);
    }
    return q;
  };
  const chosen = integration || integrations.data?.data[0]?.id || '';

  return (
    <Page id="playground" title="Search playground" head={<p class="muted">Searches and answers here are not counted in the analytics.</p>}>
      <Show loaded={integrations}>
        {(list) =>
          list.data.length === 0 ? (
            <Empty title="No integration to search">Create an integration over a collection first (Widgets shows how).</Empty>
          ) : (
            <>
              <form
                class="card"
                onSubmit={async (e) => {
                  e.preventDefault();
                  setSummary(null);
                  await searching.run(async () => setHits((await call<{ data: Hit[] }>(token, 'GET', `/integrations/${chosen}/search?${params()}`)).data));
                }}
              >
                <div class="filters">
                  <label>
                    Integration
                    <select value={chosen} onChange={(e) => setIntegration((e.target as HTMLSelectElement).value)}>
                      {list.data.map((i) => (
                        <option key={i.id} value={i.id}>{i.name}</option>
                      ))}
                    </select>
                  </label>
                  <label>
                    Threshold <input type="number" min="0" max="1" step="0.05" value={threshold} onInput={(e) => setThreshold((e.target as HTMLInputElement).value)} class="short" />
                  </label>
                </div>
                <label class="block">
                  Query <input type="search" value={query} onInput={(e) => setQuery((e.target as HTMLInputElement).value)} required maxLength={1000} />
                </label>
                <label class="block">
                  Filters (one <code>key=value</code> a line, on meta or searchable_meta)
                  <textarea rows={2} value={meta} onInput={(e) => setMeta((e.target as HTMLTextAreaElement).value)} />
                </label>
                <div class="filters">
                  <label>
                    Order
                    <select value={order.kind} onChange={(e) => setOrder({ ...order, kind: (e.target as HTMLSelectElement).value })}>
                      <option value="none">Relevance</option>
                      <option value="boost">Relevance with a boost</option>
                      <option value="sort">Sort by a field</option>
                    </select>
                  </label>
                  {order.kind !== 'none' && (
                    <label>
                      Field <input value={order.field} onInput={(e) => setOrder({ ...order, field: (e.target as HTMLInputElement).value })} class="short" />
                    </label>
                  )}
                  {order.kind === 'boost' && (
                    <>
                      <label>
                        Boost
                        <select value={order.type} onChange={(e) => setOrder({ ...order, type: (e.target as HTMLSelectElement).value })}>
                          <option value="recency">recency</option>
                          <option value="prefer_low">prefer low</option>
                          <option value="prefer_high">prefer high</option>
                        </select>
                      </label>
                      <label>
                        Scale <input value={order.scale} onInput={(e) => setOrder({ ...order, scale: (e.target as HTMLInputElement).value })} class="short" />
                      </label>
                      <label>
                        Strength
                        <select value={order.strength} onChange={(e) => setOrder({ ...order, strength: (e.target as HTMLSelectElement).value })}>
                          <option value="low">low</option>
                          <option value="medium">medium</option>
                          <option value="high">high</option>
                        </select>
                      </label>
                    </>
                  )}
                  {order.kind === 'sort' && (
                    <>
                      <label>
                        Direction
                        <select value={order.direction} onChange={(e) => setOrder({ ...order, direction: (e.target as HTMLSelectElement).value })}>
                          <option value="desc">descending</option>
                          <option value="asc">ascending</option>
                        </select>
                      </label>
                      <label>
                        Type
                        <select value={order.sortType} onChange={(e) => setOrder({ ...order, sortType: (e.target as HTMLSelectElement).value })}>
                          <option value="date">date</option>
                          <option value="number">number</option>
                          <option value="text">text</option>
                        </select>
                      </label>
                    </>
                  )}
                </div>
                <div class="actions">
                  <button type="submit" disabled={searching.busy}>Search</button>
                  <button
                    type="button"
                    disabled={asking.busy || query.trim() === ''}
                    onClick={() =>
                      asking.run(async () => setSummary(await call<Summary>(token, 'GET', `/integrations/${chosen}/summarise?${new URLSearchParams({ query, threshold, stream: 'false', analytics: 'false' })}`)))
                    }
                  >
                    Ask for an answer
                  </button>
                </div>
                <ErrorNote error={searching.error ?? asking.error} />
              </form>
              {summary && <Answer summary={summary} />}
              {hits && <Hits hits={hits} />}
            </>
          )
        }
      </Show>
    </Page>
  );
}

function Answer({ summary }: { summary: Summary }) {
  return (
    <div class="card" data-testid="answer">
      <h2>Answer</h2>
      {summary.has_relevant_results ? <Markdown text={summary.summary} sources={summary.references} /> : <p class="muted">Nothing relevant reached the threshold: no answer is written.</p>}
      <h3>Passages it was given ({summary.data.length})</h3>
      <ol class="passages">
        {summary.data.map((p) => (
          <li key={p.id}>
            <strong>{p.title ?? 'Untitled'}</strong>
            <p class="muted clip-lines">{p.raw_text.slice(0, 400)}{p.raw_text.length > 400 ? '…' : ''}</p>
          </li>
        ))}
      </ol>
    </div>
  );
}

/** Hits with their scores: the similarity split into its weighted lexical and vector parts, and a heading's that names the query. */
function Hits({ hits }: { hits: Hit[] }) {
  if (hits.length === 0) return <Empty title="No hit reached the threshold">Lower the threshold to see what scored below it.</Empty>;
  return (
    <div class="card">
      <Table
        testid="hits"
        columns={<><th>Hit</th><th>Similarity (lexical + vector)</th><th class="num">BM25</th><th class="num">Cosine</th><th class="num">Final</th></>}
        rows={hits}
        row={(h) => {
          const b = h.score_breakdown;
          const lexical = b.lexical_weight * b.lexical;
          const vector = (1 - b.lexical_weight) * b.vector;
          // What the heading added, as far as the similarity's cap at 1 let it.
          const heading = b.heading ? Math.max(0, b.similarity - lexical - vector) : 0;
          return (
            <tr key={h.id}>
              <td class="clip">
                <strong>{h.title ?? 'Untitled'}</strong>
                <p class="muted snippet" dangerouslySetInnerHTML={{ __html: snippetHtml(h.snippet) }} />
              </td>
              <td>
                <span class="split" role="img" aria-label={`similarity ${b.similarity.toFixed(3)}: lexical ${lexical.toFixed(3)}, vector ${vector.toFixed(3)}${heading > 0 ? `, heading ${heading.toFixed(3)}` : ''}`}>
                  <span class="split-lexical" style={{ width: `${lexical * 100}%` }} />
                  <span class="split-vector" style={{ width: `${vector * 100}%` }} />
                  {heading > 0 && <span class="split-heading" style={{ width: `${heading * 100}%` }} />}
                </span>
                {b.similarity.toFixed(3)} = {lexical.toFixed(3)} + {vector.toFixed(3)}
                {heading > 0 && <> + {heading.toFixed(3)} <span class="muted">heading</span></>}
              </td>
              <td class="num">{b.bm25.toFixed(2)}</td>
              <td class="num">{b.cosine.toFixed(3)}</td>
              <td class="num">{b.final_score.toFixed(3)}</td>
            </tr>
          );
        }}
      />
    </div>
  );
}
