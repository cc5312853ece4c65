import { useState } from 'preact/hooks';
import { PERMISSIONS } from '../../src/shared/permissions.js';
import { call, organisationToken } from './api.js';
import { ListTable, Page } from './page.js';
import type { ApiKey, Collection, Entry, Integration, Organisation, Paged, Usage, Widget } from './resources.js';
import { Checklist, Empty, ErrorNote, number, Show, Tile, useAction, useLoad, when } from './ui.js';
import { WidgetEditor } from './widgetEditor.js';
import { Crawlers } from './crawlers.js';

/** Collections, with a form to create one. */
export function Collections({ token }: { token: string }) {
  const list = useLoad(() => call<Paged<Collection>>(token, 'GET', '/collections?per_page=100'), [token]);
  const [name, setName] = useState('');
  const create = useAction();
  return (
    <Page id="collections" title="Collections">
      <form
        class="inline-form"
        onSubmit={async (e) => {
          e.preventDefault();
          if (await create.run(() => call(token, 'POST', '/collections', { name }))) {
            setName('');
            list.reload();
          }
        }}
      >
        <label>
          New collection <input value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} required maxLength={255} placeholder="Product docs" />
        </label>
        <button type="submit" disabled={create.busy}>Create</button>
      </form>
      <ErrorNote error={create.error} />
      <ListTable
        list={list}
        empty={
          <Empty title="No collections yet">
            A collection holds your content. Create one above, then add entries with the API, <code>lore import ./docs</code> or <code>lore crawl https://your.site/</code>.
          </Empty>
        }
        columns={<><th>Name</th><th>Created</th></>}
        row={(c) => (
          <tr key={c.id}>
            <td><a href={`#/collections/${c.id}`}>{c.name}</a></td>
            <td>{when(c.created_at)}</td>
          </tr>
        )}
      />
    </Page>
  );
}

/** A collection's entries: paged, filtered by source type, opened to read, edit or delete. */
export function Entries({ token, collection }: { token: string; collection: string }) {
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<Entry | null>(null);
  const [typed, setTyped] = useState('');
  const [search, setSearch] = useState('');
  const base = `/collections/${encodeURIComponent(collection)}`;
  const query = `page=${page}&per_page=25${search ? `&search=${encodeURIComponent(search)}` : ''}`;
  const list = useLoad(() => call<Paged<Entry>>(token, 'GET', `${base}/entries?${query}`), [token, collection, query]);
  const info = useLoad(() => call<Paged<Collection>>(token, 'GET', '/collections?per_page=100').then((r) => r.data.find((c) => c.id === collection) ?? null), [token, collection]);
  const manage = useAction();
  return (
    <Page
      id="entries"
      title={info.data?.name ?? 'Collection'}
      head={
        <div class="actions">
          <a href="#/collections">All collections</a>
          <button
            type="button"
            class="link"
            onClick={async () => {
              const name = prompt('New name of the collection', info.data?.name ?? '');
              if (name && (await manage.run(() => call(token, 'PATCH', base, { name })))) info.reload();
            }}
          >
            Rename
          </button>
          <button
            type="button"
            class="danger"
            onClick={async () => {
              if (confirm(`Delete ${info.data?.name ?? 'this collection'} and every entry in it? This cannot be undone.`) && (await manage.run(() => call(token, 'DELETE', base)))) location.hash = '#/collections';
            }}
          >
            Delete collection
          </button>
        </div>
      }
    >
      <ErrorNote error={manage.error} />
      <form
        class="inline-form"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setPage(1);
          setSearch(typed.trim());
        }}
      >
        <label>
          Find entries <input type="search" value={typed} maxLength={200} placeholder="title, source id or URL" onInput={(e) => setTyped((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit">Find</button>
      </form>
      <ListTable
        list={list}
        empty={
          search ? (
            <Empty title={`No entry's title, source id or URL contains “${search}”`}>Search their text with the Playground.</Empty>
          ) : (
            <Empty title="This collection is empty">
              Add entries with <code>POST /api/v1{base}/entries</code>, or import a folder: <code>lore import ./docs --collection {collection}</code>.
            </Empty>
          )
        }
        caption={(meta) => <p class="muted">{number(meta.total)} {meta.total === 1 ? 'entry' : 'entries'}</p>}
        columns={<><th>Title</th><th>Source</th><th>Updated</th></>}
        row={(e) => (
          <tr key={e.id}>
            <td class="clip">
              <button type="button" class="link" onClick={() => setOpen(e)}>{e.title || e.raw_text.slice(0, 60)}</button>
            </td>
            <td class="clip">{e.source_id ?? '—'}</td>
            <td>{when(e.updated_at)}</td>
          </tr>
        )}
        onPage={setPage}
      />
      {open && (
        <EntryEditor
          token={token}
          path={`${base}/entries/${open.id}`}
          entry={open}
          onClose={(changed) => {
            setOpen(null);
            if (changed) list.reload();
          }}
        />
      )}
      <Crawlers token={token} collection={collection} />
    </Page>
  );
}

function EntryEditor({ token, path, entry, onClose }: { token: string; path: string; entry: Entry; onClose: (changed: boolean) => void }) {
  const [title, setTitle] = useState(entry.title ?? '');
  const [text, setText] = useState(entry.raw_text);
  const action = useAction();
  return (
    <div class="card editor" role="dialog" aria-labelledby="editor-title">
      <h2 id="editor-title">Entry</h2>
      {entry.source_url && /^https?:\/\//i.test(entry.source_url) && (
        <p>
          <a href={entry.source_url} target="_blank" rel="noopener noreferrer">{entry.source_url}</a>
        </p>
      )}
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          if (await action.run(() => call(token, 'PATCH', path, { title, raw_text: text }))) onClose(true);
        }}
      >
        <label class="block">
          Title <input value={title} maxLength={1000} onInput={(e) => setTitle((e.target as HTMLInputElement).value)} />
        </label>
        <label class="block">
          Text <textarea rows={12} value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} required />
        </label>
        <ErrorNote error={action.error} />
        <div class="actions">
          <button type="submit" disabled={action.busy}>Save</button>
          <button type="button" onClick={() => onClose(false)}>Close</button>
          <button
            type="button"
            class="danger"
            disabled={action.busy}
            onClick={async () => {
              if (confirm('Delete this entry? It leaves search and answers at once.') && (await action.run(() => call(token, 'DELETE', path)))) onClose(true);
            }}
          >
            Delete entry
          </button>
        </div>
      </form>
    </div>
  );
}

/** A form creating an integration over some of the organisation's collections. */
function NewIntegration({ token, collections, onCreated }: { token: string; collections: Collection[]; onCreated: () => void }) {
  const [name, setName] = useState('');
  const [type, setType] = useState('search_box');
  const [chosen, setChosen] = useState<string[]>([]);
  const action = useAction();
  return (
    <form
      class="card"
      onSubmit={async (e) => {
        e.preventDefault();
        if (await action.run(() => call(token, 'POST', '/integrations', { name, type, collection_ids: chosen }))) {
          setName('');
          onCreated();
        }
      }}
    >
      <h2>New integration</h2>
      <div class="filters">
        <label>
          Name <input value={name} required maxLength={255} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          Type
          <select value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value)}>
            <option value="search_box">search box</option>
            <option value="chatbot">chatbot</option>
            <option value="custom">custom</option>
          </select>
        </label>
      </div>
      <Checklist legend="Collections" items={collectionItems(collections)} chosen={chosen} onChange={setChosen}>
        <span class="muted">Create a collection first (Collections).</span>
      </Checklist>
      <ErrorNote error={action.error} />
      <button type="submit" disabled={action.busy || chosen.length === 0}>Create integration</button>
    </form>
  );
}

const PERSONAS = ['customer-support', 'sales-assistant', 'onboarding-guide', 'technical-expert', 'custom'];

/** An integration's name, collections, whether it serves, and its type's settings; or its deletion. */
function IntegrationEditor({ token, integration, collections, onClose }: { token: string; integration: Integration; collections: Collection[]; onClose: (changed: boolean) => void }) {
  const [name, setName] = useState(integration.name);
  const [chosen, setChosen] = useState(integration.collection_ids);
  const [active, setActive] = useState(integration.is_active);
  const [settings, setSettings] = useState(integration.settings);
  const action = useAction();
  /** A text setting's value (the flags are checkboxes of their own). */
  const text = (key: string) => String(settings[key] ?? '');
  const setting = (key: string, label: string, rows = 1, nullable = true) => (
    <label class="block" key={key}>
      {label}
      {rows > 1 ? (
        <textarea rows={rows} value={text(key)} onInput={(e) => setSettings({ ...settings, [key]: (e.target as HTMLTextAreaElement).value || (nullable ? null : '') })} />
      ) : (
        <input value={text(key)} onInput={(e) => setSettings({ ...settings, [key]: (e.target as HTMLInputElement).value || (nullable ? null : '') })} />
      )}
    </label>
  );
  return (
    <form
      class="editor"
      aria-label={`Settings of ${integration.name}`}
      onSubmit={async (e) => {
        e.preventDefault();
        if (await action.run(() => call(token, 'PATCH', `/integrations/${integration.id}`, { name, collection_ids: chosen, is_active: active, settings }))) onClose(true);
      }}
    >
      <label class="block">
        Name <input value={name} required maxLength={255} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      </label>
      <Checklist legend="Collections" items={collectionItems(collections)} chosen={chosen} onChange={setChosen} />
      <label class="check">
        <input type="checkbox" checked={active} onChange={(e) => setActive((e.target as HTMLInputElement).checked)} /> Serving (an inactive integration answers nothing)
      </label>
      {integration.type === 'chatbot' && (
        <>
          <label class="block">
            Persona
            <select value={text('persona') || 'customer-support'} onChange={(e) => setSettings({ ...settings, persona: (e.target as HTMLSelectElement).value })}>
              {PERSONAS.map((p) => (
                <option key={p} value={p}>{p}</option>
              ))}
            </select>
          </label>
          {setting('instructions', 'Instructions for the answers', 3)}
          {setting('welcome_message', 'Welcome message')}
          {setting('unknown_answer_message', 'Answer when nothing relevant is found')}
        </>
      )}
      {integration.type === 'search_box' && setting('placeholder', 'Placeholder', 1, false)}
      <label class="check">
        <input
          type="checkbox"
          checked={settings.typo_tolerance !== false}
          onChange={(e) => setSettings({ ...settings, typo_tolerance: (e.target as HTMLInputElement).checked })}
        />{' '}
        Correct typos (a word found nowhere also matches words one or two letters away)
      </label>
      <ErrorNote error={action.error} />
      <div class="actions">
        <button type="submit" disabled={action.busy || chosen.length === 0}>Save</button>
        <button type="button" onClick={() => onClose(false)}>Cancel</button>
        <button
          type="button"
          class="danger"
          onClick={async () => {
            if (confirm(`Delete ${integration.name}? Its widgets stop working at once.`) && (await action.run(() => call(token, 'DELETE', `/integrations/${integration.id}`)))) onClose(true);
          }}
        >
          Delete integration
        </button>
      </div>
    </form>
  );
}

/** A form adding a widget over an integration. */
function NewWidget({ token, integration, onCreated }: { token: string; integration: Integration; onCreated: () => void }) {
  const [type, setType] = useState(integration.type === 'chatbot' ? 'chat' : 'search');
  const [websites, setWebsites] = useState('');
  const action = useAction();
  return (
    <form
      class="inline-form"
      onSubmit={async (e) => {
        e.preventDefault();
        const body = { type, name: `${integration.name} ${type}`, integration_id: integration.id, websites: websites.split(/[\s,]+/).filter(Boolean) };
        if (await action.run(() => call(token, 'POST', '/widgets', body))) onCreated();
      }}
    >
      <label>
        New widget
        <select value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value)}>
          <option value="search">search</option>
          <option value="chat">chat</option>
        </select>
      </label>
      <label>
        on <input value={websites} placeholder="docs.example.com" onInput={(e) => setWebsites((e.target as HTMLInputElement).value)} />
      </label>
      <button type="submit" disabled={action.busy}>Add widget</button>
      <ErrorNote error={action.error} />
    </form>
  );
}

/** Integrations and the widgets over them, with the snippet to embed each. */
export function Widgets({ token }: { token: string }) {
  const data = useLoad(async () => {
    const [integrations, widgets, collections] = await Promise.all([
      call<Paged<Integration>>(token, 'GET', '/integrations?per_page=100'),
      call<Paged<Widget>>(token, 'GET', '/widgets?per_page=100'),
      call<Paged<Collection>>(token, 'GET', '/collections?per_page=100'),
    ]);
    return { integrations: integrations.data, widgets: widgets.data, collections: collections.data };
  }, [token]);
  const rotate = useAction();
  const [secret, setSecret] = useState<{ widget: string; key: string } | null>(null);
  const [editing, setEditing] = useState<Widget | null>(null);
  const [editingIntegration, setEditingIntegration] = useState<string | null>(null);
  const origin = location.origin;
  return (
    <Page id="widgets" title="Integrations and widgets">
      <ErrorNote error={rotate.error} />
      {editing && (
        <WidgetEditor
          token={token}
          widget={editing}
          onClose={(saved) => {
            setEditing(null);
            if (saved) data.reload();
          }}
        />
      )}
      <Show loaded={data}>
        {(d) => (
          <>
          {d.integrations.length === 0 && (
            <Empty title="No integrations yet">
              An integration serves search, summaries and chat over your collections; a widget puts it on your site. Create one below, then add a widget to it.
            </Empty>
          )}
          {d.integrations.map((i) => (
              <div class="card" key={i.id}>
                <div class="card-head">
                  <h2>
                    {i.name} <span class="badge">{i.type.replace('_', ' ')}</span>{!i.is_active && <span class="badge">inactive</span>}
                  </h2>
                  <button type="button" class="link" onClick={() => setEditingIntegration(editingIntegration === i.id ? null : i.id)}>Settings</button>
                </div>
                {editingIntegration === i.id && (
                  <IntegrationEditor
                    token={token}
                    integration={i}
                    collections={d.collections}
                    onClose={(changed) => {
                      setEditingIntegration(null);
                      if (changed) data.reload();
                    }}
                  />
                )}
                <p class="muted">
                  {i.collection_ids.length} collection{i.collection_ids.length === 1 ? '' : 's'} · <code>{i.id}</code>
                </p>
                {d.widgets.filter((w) => w.integration_id === i.id).length === 0 && <p class="muted">No widget over this integration yet.</p>}
                {d.widgets
                  .filter((w) => w.integration_id === i.id)
                  .map((w) => (
                    <div class="widget" key={w.id}>
                      <h3>
                        {w.name} <span class="badge">{w.type}</span>
                      </h3>
                      <p class="muted">Websites: {w.websites.length ? w.websites.join(', ') : 'none yet: the widget answers no page until you add its domain'}</p>
                      <label class="block">
                        Embed snippet
                        <textarea readOnly rows={2} onFocus={(e) => (e.target as HTMLTextAreaElement).select()}>
                          {`<script src="${origin}/widget/v1/service.js" data-${w.type}="${w.key}" defer></script>`}
                        </textarea>
                      </label>
                      <div class="actions">
                        <button type="button" onClick={() => setEditing(w)}>Edit settings</button>
                        <button
                          type="button"
                          onClick={async () => {
                            if (!confirm('Issue a new secret key? The old one stops working at once.')) return;
                            await rotate.run(async () => setSecret({ widget: w.id, key: (await call<{ secret_key: string }>(token, 'POST', `/widgets/${w.id}/rotate-secret`)).secret_key }));
                          }}
                        >
                          Rotate secret key
                        </button>
                        <button
                          type="button"
                          class="danger"
                          onClick={async () => {
                            if (confirm(`Delete ${w.name}? Pages embedding it stop showing it.`) && (await rotate.run(() => call(token, 'DELETE', `/widgets/${w.id}`)))) data.reload();
                          }}
                        >
                          Delete widget
                        </button>
                      </div>
                      {secret?.widget === w.id && (
                        <p class="notice" role="status">
                          New secret key (shown once): <code>{secret.key}</code>
                        </p>
                      )}
                    </div>
                  ))}
                <NewWidget token={token} integration={i} onCreated={data.reload} />
              </div>
            ))}
          <NewIntegration token={token} collections={d.collections} onCreated={data.reload} />
          </>
        )}
      </Show>
    </Page>
  );
}

/** Organisation API keys: create (shown once), list, revoke. */
export function ApiKeys({ token }: { token: string }) {
  const list = useLoad(() => call<Paged<ApiKey>>(token, 'GET', '/api-keys?per_page=100'), [token]);
  const collections = useLoad(() => call<Paged<Collection>>(token, 'GET', '/collections?per_page=100'), [token]);
  const [name, setName] = useState('');
  const [permissions, setPermissions] = useState<string[]>(['pages.read', 'pages.write']);
  const [sources, setSources] = useState<string[]>([]);
  const [created, setCreated] = useState<string | null>(null);
  const action = useAction();
  return (
    <Page id="keys" title="API keys">
      <form
        class="card"
        onSubmit={async (e) => {
          e.preventDefault();
          const body = { name, permissions, source_ids: sources.length ? sources : null };
          const ok = await action.run(async () => setCreated((await call<{ key: string }>(token, 'POST', '/api-keys', body)).key));
          if (ok) {
            setName('');
            list.reload();
          }
        }}
      >
        <h2>New key</h2>
        <label class="block">
          Name <input value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} required maxLength={255} placeholder="CMS sync" />
        </label>
        <Checklist legend="Permissions" items={PERMISSIONS.map((p) => ({ value: p, label: p }))} chosen={permissions} onChange={setPermissions} />
        <Checklist legend="Collections it may use (none ticked: all)" items={collectionItems(collections.data?.data ?? [])} chosen={sources} onChange={setSources} />
        <ErrorNote error={action.error} />
        <button type="submit" disabled={action.busy || permissions.length === 0}>Create key</button>
        {created && (
          <p class="notice" role="status">
            The new key (shown once, only its hash is kept): <code data-testid="new-key">{created}</code>
          </p>
        )}
      </form>
      <ListTable
        list={list}
        empty={<Empty title="No API keys">A key lets a server (a CMS, a build step) keep pages up to date without your organisation's token.</Empty>}
        columns={<><th>Name</th><th>Permissions</th><th>Collections</th><th>Created</th><th /></>}
        row={(k) => (
          <tr key={k.id}>
            <td>{k.name}</td>
            <td>{k.permissions.join(', ')}</td>
            <td>{k.source_ids === null ? 'all' : k.source_ids.map((id) => collections.data?.data.find((c) => c.id === id)?.name ?? id).join(', ')}</td>
            <td>{when(k.created_at)}</td>
            <td>
              <button
                type="button"
                class="danger"
                onClick={async () => {
                  if (confirm(`Revoke ${k.name}? Servers using it are refused at once.`) && (await action.run(() => call(token, 'DELETE', `/api-keys/${encodeURIComponent(k.id)}`)))) list.reload();
                }}
              >
                Revoke
              </button>
            </td>
          </tr>
        )}
      />
    </Page>
  );
}

/** This month's requests and answers, credits and quota. */
export function UsageView({ token }: { token: string }) {
  const usage = useLoad(() => call<{ data: Usage }>(token, 'GET', '/usage').then((r) => r.data), [token]);
  return (
    <Page id="usage" title="Usage">
      <Show loaded={usage}>
        {(u) => (
          <div class="tiles">
            <Tile label={`Requests in ${u.period}`} value={u.usage_quota === null ? number(u.requests) : `${number(u.requests)} / ${number(u.usage_quota)}`} />
            <Tile label={`Answers in ${u.period}`} value={number(u.answers)} />
            <Tile label="Answer credits left" value={u.answer_credits === null ? 'unlimited' : number(u.answer_credits)} />
          </div>
        )}
      </Show>
    </Page>
  );
}

/**
 * The master key's view: every organisation, a form to create one (its token shown once), and
 * a way into an organisation's console (the demo's, say) with an API token issued for it, the
 * same one each time in this tab until it is revoked (see organisationToken).
 */
export function Organisations({ token, onOpen }: { token: string; onOpen: (organisationToken: string) => void }) {
  const [page, setPage] = useState(1);
  const list = useLoad(() => call<Paged<Organisation>>(token, 'GET', `/admin/organisations?page=${page}&per_page=25`), [token, page]);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<string | null>(null);
  const action = useAction();
  return (
    <Page id="orgs" title="Organisations">
      <form
        class="inline-form"
        onSubmit={async (e) => {
          e.preventDefault();
          if (await action.run(async () => setCreated((await call<{ token: string }>(token, 'POST', '/admin/organisations', { name })).token))) {
            setName('');
            list.reload();
          }
        }}
      >
        <label>
          New organisation <input value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} required maxLength={255} />
        </label>
        <button type="submit" disabled={action.busy}>Create</button>
      </form>
      <ErrorNote error={action.error} />
      {created && (
        <p class="notice" role="status">
          Its API token (shown once): <code>{created}</code>. Sign in with it to manage the organisation.
        </p>
      )}
      <ListTable
        list={list}
        columns={<><th>Name</th><th>Id</th><th>Answer credits</th><th>Monthly quota</th><th>Created</th><th /></>}
        row={(o) => (
          <tr key={o.id}>
            <td>{o.name}</td>
            <td>{o.id}</td>
            <td>
              <Limit label={`Answer credits of ${o.name}`} value={o.answer_credits} onSave={(v) => action.run(() => call(token, 'PATCH', `/admin/organisations/${o.id}`, { answer_credits: v })).then(list.reload)} />
            </td>
            <td>
              <Limit label={`Monthly request quota of ${o.name}`} value={o.usage_quota} onSave={(v) => action.run(() => call(token, 'PATCH', `/admin/organisations/${o.id}`, { usage_quota: v })).then(list.reload)} />
            </td>
            <td>{when(o.created_at)}</td>
            <td>
              <button
                type="button"
                class="link"
                onClick={() =>
                  action.run(async () => {
                    const issued = await organisationToken(token, o.id, () => confirm(`Issue a new API token for ${o.name} and open its console? This tab keeps it and opens the console with it again until it is revoked or the tab is closed.`));
                    if (issued) onOpen(issued);
                  })
                }
              >
                Open its console
              </button>
            </td>
          </tr>
        )}
        onPage={setPage}
      />
    </Page>
  );
}

/** A number that may be unlimited (empty), saved when it changes. */
function Limit({ label, value, onSave }: { label: string; value: number | null; onSave: (value: number | null) => void }) {
  const [text, setText] = useState(value === null ? '' : String(value));
  const save = () => {
    const next = text.trim() === '' ? null : Number(text);
    if (next !== value && (next === null || (Number.isInteger(next) && next >= 0))) onSave(next);
  };
  return (
    <input
      class="short"
      type="number"
      min="0"
      aria-label={label}
      placeholder="unlimited"
      value={text}
      onInput={(e) => setText((e.target as HTMLInputElement).value)}
      onBlur={save}
      onKeyDown={(e) => e.key === 'Enter' && save()}
    />
  );
}

/** Collections as checklist items. */
function collectionItems(collections: readonly { id: string; name: string }[]) {
  return collections.map((c) => ({ value: c.id, label: c.name }));
}
