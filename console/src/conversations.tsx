import { useState } from 'preact/hooks';
import { call } from './api.js';
import { Markdown } from './markdown.js';
import { ListTable, Page } from './page.js';
import type { Conversation, Paged, Transcript } from './resources.js';
import { Empty, Show, useLoad, when } from './ui.js';

/** Chat conversations of the last 90 days, newest first. */
export function Conversations({ token }: { token: string }) {
  const [page, setPage] = useState(1);
  const from = new Date(Date.now() - 89 * 86_400_000).toISOString().slice(0, 10);
  const list = useLoad(() => call<Paged<Conversation>>(token, 'GET', `/analytics/conversations?from=${from}&page=${page}&per_page=25`), [token, page]);
  return (
    <Page id="conversations" title="Conversations">
      <ListTable
        list={list}
        empty={<Empty title="No conversations in the last 90 days">Conversations appear here when visitors use a chat widget or your code calls the chat API.</Empty>}
        columns={<><th>First question</th><th class="wide">Visitor</th><th class="num">Messages</th><th>Started</th></>}
        row={(c) => (
          <tr key={c.id}>
            <td class="clip"><a href={`#/conversations/${c.id}`}>{c.title}</a></td>
            <td class="wide">{c.visitor_id ?? <span class="muted">anonymous</span>}</td>
            <td class="num">{c.message_count}</td>
            <td>{when(c.created_at)}</td>
          </tr>
        )}
        onPage={setPage}
      />
    </Page>
  );
}

/** One conversation as the visitor saw it (answers in rendered markdown), with the sources each answer cited and its feedback. */
export function ConversationView({ token, id }: { token: string; id: string }) {
  const transcript = useLoad(() => call<{ data: Transcript }>(token, 'GET', `/analytics/conversations/${encodeURIComponent(id)}`).then((r) => r.data), [token, id]);
  return (
    <Page id="transcript" title="Conversation" head={<a href="#/conversations">All conversations</a>}>
      <Show loaded={transcript}>
        {(t) => (
          <div class="card transcript">
            <p class="muted">
              Started {when(t.created_at)} · {t.visitor_id ? `visitor ${t.visitor_id}` : 'anonymous visitor'}
            </p>
            <ol>
              {t.messages.map((m) => (
                <li key={m.id} class={`message ${m.role}`} data-role={m.role}>
                  <span class="who">{m.role === 'user' ? 'Visitor' : 'Lore'}</span>
                  {m.role === 'user' ? <p class="content">{m.content}</p> : <Markdown text={m.content} sources={m.citations} />}
                  {m.citations.length > 0 && (
                    <ul class="sources" aria-label="Sources cited">
                      {m.citations.map((c, i) => (
                        <li key={i}>
                          <span class="cite">{c.ref ?? i + 1}</span> {c.url && /^https?:\/\//i.test(c.url) ? <a href={c.url} target="_blank" rel="noopener noreferrer">{c.title ?? c.url}</a> : c.title}
                        </li>
                      ))}
                    </ul>
                  )}
                  {m.role === 'assistant' && m.citations.length === 0 && <p class="muted">Nothing relevant was found for this answer.</p>}
                  {m.thumbs_up + m.thumbs_down > 0 && (
                    <p class="feedback">
                      Helpful: {m.thumbs_up} · Not helpful: {m.thumbs_down}
                    </p>
                  )}
                </li>
              ))}
            </ol>
          </div>
        )}
      </Show>
    </Page>
  );
}
