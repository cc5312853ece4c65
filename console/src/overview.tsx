import type { ComponentChildren } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import { call, download } from './api.js';
import { TimeChart } from './chart.js';
import { Page, Table } from './page.js';
import type { Clicks, Feedback, Integration, Paged, Point, QueryStat, Unanswered } from './resources.js';
import { Empty, ErrorNote, number, percent, Show, Tile, useAction, useLoad, when } from './ui.js';

/** The window and integration every analytics call of the page shares, as a query string. */
function windowQuery(days: number, integration: string): string {
  const to = new Date();
  const from = new Date(Date.UTC(to.getUTCFullYear(), to.getUTCMonth(), to.getUTCDate()) - (days - 1) * 86_400_000);
  const q = new URLSearchParams({ from: from.toISOString().slice(0, 10) });
  if (integration) q.set('integration_id', integration);
  return q.toString();
}

/** Analytics: what visitors searched, clicked, asked and thought of the answers. */
export function Overview({ token }: { token: string }) {
  const [days, setDays] = useState(30);
  const [integration, setIntegration] = useState('');
  const integrations = useLoad(() => call<Paged<Integration>>(token, 'GET', '/integrations?per_page=100'), [token]);
  const q = windowQuery(days, integration);
  const data = useLoad(async () => {
    const get = <T,>(path: string) => call<{ data: T }>(token, 'GET', `/analytics/${path}`).then((r) => r.data);
    const [activity, clicks, feedback, top, none, weak, unanswered] = await Promise.all([
      get<Point[]>(`activity?${q}`),
      get<Clicks>(`clicks?${q}`),
      get<Feedback>(`feedback?${q}`),
      get<QueryStat[]>(`queries?${q}&kind=top&limit=10`),
      get<QueryStat[]>(`queries?${q}&kind=no_results&limit=10`),
      get<QueryStat[]>(`queries?${q}&kind=low_similarity&limit=10`),
      get<Unanswered[]>(`unanswered?${q}&limit=10`),
    ]);
    return { activity, clicks, feedback, top, none, weak, unanswered };
  }, [token, q]);
  const exporting = useAction();
  const csv = (path: string) => () => exporting.run(() => download(token, `/analytics/${path}${path.includes('?') ? '&' : '?'}${q}&format=csv&limit=1000`));

  return (
    <Page
      id="overview"
      title="Analytics"
      head={
        <div class="filters">
          <label>
            Integration
            <select value={integration} onChange={(e) => setIntegration((e.target as HTMLSelectElement).value)}>
              <option value="">All integrations</option>
              {(integrations.data?.data ?? []).map((i) => (
                <option value={i.id} key={i.id}>{i.name}</option>
              ))}
            </select>
          </label>
          <label>
            Period
            <select value={String(days)} onChange={(e) => setDays(Number((e.target as HTMLSelectElement).value))}>
              <option value="7">Last 7 days</option>
              <option value="30">Last 30 days</option>
              <option value="90">Last 90 days</option>
            </select>
          </label>
        </div>
      }
    >
      <ErrorNote error={exporting.error} />
      <Show loaded={data}>
        {(d) => <Report d={d} csv={csv} />}
      </Show>
    </Page>
  );
}

function Report({ d, csv }: { d: { activity: Point[]; clicks: Clicks; feedback: Feedback; top: QueryStat[]; none: QueryStat[]; weak: QueryStat[]; unanswered: Unanswered[] }; csv: (path: string) => () => void }) {
  const noResults = d.activity.reduce((n, p) => n + p.no_results, 0);
  const answers = d.activity.reduce((n, p) => n + p.chat_answers, 0);
  const summaries = d.activity.reduce((n, p) => n + p.summaries, 0);
  const times = useMemo(() => d.activity.map((p) => p.period), [d.activity]);
  const series = useMemo(
    () => [
      { label: 'Searches', values: d.activity.map((p) => p.searches), color: '--chart-1' },
      { label: 'Clicks', values: d.activity.map((p) => p.clicks), color: '--chart-2' },
      { label: 'Chat answers', values: d.activity.map((p) => p.chat_answers), color: '--chart-3' },
      { label: 'Summaries', values: d.activity.map((p) => p.summaries), color: '--chart-4' },
    ],
    [d.activity],
  );
  const maxRank = Math.max(1, ...d.clicks.positions.map((p) => p.clicks));
  if (d.clicks.searches === 0 && answers === 0 && summaries === 0 && d.feedback.thumbs_up + d.feedback.thumbs_down === 0) {
    return (
      <Empty title="No visitor activity in this period yet">
        Searches, clicks, chat answers and feedback appear here as visitors use your widgets or the API. Put a widget on your site (Widgets), or try a
        search with the API, then come back.
      </Empty>
    );
  }
  return (
    <>
      <div class="tiles" data-testid="tiles">
        <Tile label="Searches" value={number(d.clicks.searches)} testid="searches" />
        <Tile label="Without results" value={d.clicks.searches ? percent(noResults / d.clicks.searches) : '—'} testid="no-results" />
        <Tile label="Click-through rate" value={percent(d.clicks.click_through_rate)} testid="ctr" />
        <Tile label="Chat answers" value={number(answers)} testid="answers" />
        <Tile label="Summaries" value={number(summaries)} testid="summaries" />
        <Tile label="Helpful / not helpful" value={`${number(d.feedback.thumbs_up)} / ${number(d.feedback.thumbs_down)}`} testid="feedback" />
      </div>
      <ReportCard title="Activity" csv={csv('activity')}>
        <TimeChart times={times} series={series} label={`Searches, clicks, chat answers and summaries per day: ${number(d.clicks.searches)} searches, ${number(d.clicks.clicks)} clicks, ${number(answers)} chat answers, ${number(summaries)} summaries`} />
      </ReportCard>
      <div class="grid">
        <Queries title="Top queries" rows={d.top} csv={csv('queries?kind=top')} empty="No searches in this period." />
        <Queries title="Queries without results" rows={d.none} csv={csv('queries?kind=no_results')} empty="Every search found something. Content gaps show up here." />
        <Queries title="Queries with weak results" rows={d.weak} csv={csv('queries?kind=low_similarity')} empty="No search had only weak matches." />
        <ReportCard title="Clicked positions" csv={csv('clicks')}>
          {d.clicks.positions.length === 0 ? (
            <p class="muted">No result was clicked in this period.</p>
          ) : (
            <ul class="bars" aria-label="Clicks by result position">
              {d.clicks.positions.map((p) => (
                <li key={String(p.rank)}>
                  <span class="bar-label">{p.rank === null ? 'unknown' : `#${p.rank}`}</span>
                  <span class="bar" style={{ width: `${(p.clicks / maxRank) * 100}%` }} />
                  <span class="bar-value">{number(p.clicks)}</span>
                </li>
              ))}
            </ul>
          )}
        </ReportCard>
      </div>
      <ReportCard title="Feedback on answers" csv={csv('feedback')}>
        {d.feedback.answers.length === 0 ? (
          <p class="muted">No thumbs up or down yet. The chat widget asks visitors after each answer.</p>
        ) : (
          <Table
            columns={<><th>Question</th><th>Answer</th><th class="num">Helpful</th><th class="num">Not helpful</th></>}
            rows={d.feedback.answers}
            row={(a) => (
              <tr key={a.answer_id}>
                <td>{a.conversation_id ? <a href={`#/conversations/${a.conversation_id}`}>{a.question ?? '—'}</a> : (a.question ?? '—')}</td>
                <td class="clip">{a.answer ?? <span class="muted">a summary (not stored)</span>}</td>
                <td class="num">{a.thumbs_up}</td>
                <td class="num">{a.thumbs_down}</td>
              </tr>
            )}
          />
        )}
      </ReportCard>
      <ReportCard title="Questions with nothing relevant to answer from" csv={csv('unanswered')}>
        {d.unanswered.length === 0 ? (
          <p class="muted">Every chat answer and summary found something relevant to cite.</p>
        ) : (
          <Table
            columns={<><th>Question</th><th>Asked in</th><th>When</th></>}
            rows={d.unanswered}
            row={(a) => (
              <tr key={a.answer_id}>
                <td>{a.conversation_id ? <a href={`#/conversations/${a.conversation_id}`}>{a.question ?? '—'}</a> : (a.question ?? '—')}</td>
                <td>{a.kind === 'chat' ? 'chat' : 'search summary'}</td>
                <td>{when(a.created_at)}</td>
              </tr>
            )}
          />
        )}
      </ReportCard>
    </>
  );
}

/** A report's card: its title with a link exporting it as CSV, then the report. */
function ReportCard({ title, csv, children }: { title: string; csv: () => void; children: ComponentChildren }) {
  return (
    <div class="card">
      <div class="card-head">
        <h2>{title}</h2>
        <button type="button" class="link" onClick={csv}>Export CSV</button>
      </div>
      {children}
    </div>
  );
}

function Queries({ title, rows, csv, empty }: { title: string; rows: QueryStat[]; csv: () => void; empty: string }) {
  return (
    <ReportCard title={title} csv={csv}>
      {rows.length === 0 ? (
        <p class="muted">{empty}</p>
      ) : (
        <Table
          columns={<><th>Query</th><th class="num">Searches</th><th class="num" title="the best hit's similarity, averaged over the searches">Top score</th></>}
          rows={rows}
          row={(r) => (
            <tr key={r.query}>
              <td class="clip">{r.query}</td>
              <td class="num">{number(r.searches)}</td>
              <td class="num">{r.avg_top_score === null ? '—' : r.avg_top_score.toFixed(2)}</td>
            </tr>
          )}
        />
      )}
    </ReportCard>
  );
}
