/**
 * `lore export` / `lore import`, run as the CLI a user runs: an instance with every kind of
 * data is built over HTTP on PGlite, exported, imported into PostgreSQL and back into PGlite.
 * Every row comes back byte for byte, the copy serves the same credentials, search results
 * and conversations, and goes on writing (identities continue). A damaged file, a non-empty
 * target or a data folder in use are refused with nothing written.
 */
import assert from 'node:assert/strict';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import { openPglite } from '../src/storage/pglite.js';
import { exportInstance, importInstance, NOT_COPIED, TABLES, TransferError } from '../src/storage/transfer.js';
import { migrate } from '../src/storage/migrate.js';
import { backends, freshPostgresDatabase, MASTER_KEY, startServer } from './helpers.js';
import { indexProblems } from './indexProblems.js';
import { call, runLoreCli, startLoreProcess, type Lore } from './processes.js';

/** Runs the CLI (`lore …`) to completion: its exit code and what it wrote to stderr. */
const lore = (args: string[], env: Record<string, string>) => runLoreCli(args, { ...process.env, LORE_LOG_LEVEL: 'warn', LORE_MASTER_KEY: '', ...env });

/** An export's rows and sections: everything after the header (which names the time and source). */
const body = (file: string) => gunzipSync(readFileSync(file)).toString('utf8').split('\n').slice(1).join('\n');
const header = (file: string) => JSON.parse(gunzipSync(readFileSync(file)).toString('utf8').split('\n', 1)[0]!);

/** Servers still running when a test fails are killed by `after`. */
const running = new Set<Lore>();
async function start(env: Record<string, string>): Promise<Lore> {
  const server = await startLoreProcess(env);
  running.add(server);
  return server;
}
async function stop(server: Lore): Promise<void> {
  server.process.kill('SIGTERM');
  assert.equal(await server.exited, 0);
  running.delete(server);
}

const ENTRIES = [
  { source_type: 'doc', source_id: 'refunds', title: 'Refunds', source_url: 'https://docs.example.com/refunds', meta: { team: 'billing' }, raw_text: '# Refunds\n\nRefunds are paid within five working days to the original card. Partial refunds are allowed for annual plans.' },
  { source_type: 'doc', source_id: 'invoices', title: 'Invoices', raw_text: 'Invoices are emailed on the first day of each month. You can download every past invoice as a PDF from Settings, Billing.' },
  { source_type: 'doc', source_id: 'sso', title: 'Single sign-on', raw_text: 'Single sign-on works with SAML 2.0 and OpenID Connect. Ask an administrator to turn it on for the whole organisation.' },
  { source_type: 'doc', source_id: 'rechnungen', title: 'Rechnungen', raw_text: 'Rechnungen werden am ersten Tag jedes Monats per E-Mail verschickt und können als PDF heruntergeladen werden.' },
];
const QUERIES = ['how are refunds paid', 'download an invoice', 'SAML login', 'Rechnung herunterladen'];

describe('lore export / lore import', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  after(async () => {
    for (const server of running) server.process.kill('SIGKILL');
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  const tempDir = (name: string) => {
    const dir = mkdtempSync(path.join(tmpdir(), `lore-transfer-${name}-`));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  };

  it(`copies an instance ${backends().includes('postgres') ? 'from PGlite to PostgreSQL and back' : 'between PGlite folders'}, row for row, and the copy serves the same`, async () => {
    const work = tempDir('files');
    const source = tempDir('source');
    let server = await start({ LORE_DATA_DIR: source, DATABASE_URL: '' });

    // An instance with a row in every table: credentials (one revoked), a limited API key,
    // entries in two languages, integrations, widgets, searches, events, a conversation, usage.
    const org = (await call(server, 'POST', '/api/v1/admin/organisations', MASTER_KEY, { name: 'Acme' })).body;
    const token = org.token as string;
    const revoked = (await call(server, 'POST', `/api/v1/admin/organisations/${org.data.id}/tokens`, MASTER_KEY)).body;
    assert.equal((await call(server, 'DELETE', `/api/v1/admin/tokens/${revoked.token_id}`, MASTER_KEY)).status, 204);
    assert.equal((await call(server, 'PATCH', `/api/v1/admin/organisations/${org.data.id}`, MASTER_KEY, { answer_credits: 50, usage_quota: 10_000 })).status, 200);
    await call(server, 'POST', '/api/v1/admin/organisations', MASTER_KEY, { name: 'Other' });
    const collection = (await call(server, 'POST', '/api/v1/collections', token, { name: 'Docs' })).body.data.id as string;
    assert.equal((await call(server, 'POST', `/api/v1/collections/${collection}/entries/batch`, token, { entries: ENTRIES })).status, 200);
    const key = (await call(server, 'POST', '/api/v1/api-keys', token, { name: 'CMS', permissions: ['pages.read'], source_ids: [collection] })).body.key as string;
    const searchBox = (await call(server, 'POST', '/api/v1/integrations', token, { type: 'search_box', name: 'Box', collection_ids: [collection] })).body.data.id as string;
    const chatbot = (await call(server, 'POST', '/api/v1/integrations', token, { type: 'chatbot', name: 'Bot', collection_ids: [collection] })).body.data.id as string;
    const widget = (await call(server, 'POST', '/api/v1/widgets', token, { type: 'chat', name: 'Chat', integration_id: chatbot, websites: ['docs.example.com'] })).body;
    const widgetPath = `/api/v1/${(widget.data.key as string).replace('/', '/widgets/')}`;
    const search = (s: Lore) => Promise.all(QUERIES.map(async (q) => (await call(s, 'GET', `/api/v1/integrations/${searchBox}/search?query=${encodeURIComponent(q)}`, token)).body.data.map((hit: any) => [hit.id, hit.score])));
    const before = await search(server);
    assert.equal((await call(server, 'POST', `/api/v1/integrations/${searchBox}/events`, token, { event_type: 'click', meta: { rank: 1 } })).status, 200);
    const chat = await call(server, 'POST', `/api/v1/integrations/${chatbot}/chat`, token, { message: 'How are refunds paid?', stream: false });
    assert.equal(chat.status, 200);
    assert.equal((await call(server, 'POST', `${widgetPath}/events`, widget.secret_key, { name: 'open' })).status, 200);
    const inUse = await lore(['export', path.join(work, 'while-serving.lore.gz')], { LORE_DATA_DIR: source, DATABASE_URL: '' });
    assert.equal(inUse.code, 1, 'a folder a server is using is not exported');
    assert.match(inUse.stderr, /lore: another Lore process \(pid \d+/);
    await stop(server); // flushes the usage counters

    // PGlite → file.
    const first = path.join(work, 'first.lore.gz');
    const exported = await lore(['export', first], { LORE_DATA_DIR: source, DATABASE_URL: '' });
    assert.equal(exported.code, 0, exported.stderr);
    const counts = header(first).tables as Record<string, number>;
    for (const table of ['organisations', 'api_tokens', 'collections', 'entries', 'chunks', 'chunk_vectors', 'chunk_terms', 'collection_terms', 'collection_stats', 'collection_languages', 'integrations', 'integration_collections', 'search_log', 'integration_events', 'usage_counters', 'api_keys', 'widgets', 'widget_events', 'conversations', 'conversation_messages']) {
      assert.ok(counts[table]! > 0, `${table} has rows to copy`);
    }

    // File → the other backend (PostgreSQL when the suite has one) → file again: the same rows.
    let target: Record<string, string>;
    if (backends().includes('postgres')) {
      const database = await freshPostgresDatabase();
      cleanups.push(database.drop);
      target = { DATABASE_URL: database.url, LORE_DATA_DIR: tempDir('target-config') };
    } else {
      target = { LORE_DATA_DIR: tempDir('target'), DATABASE_URL: '' };
    }
    const imported = await lore(['import', first], target);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /Imported \d[\d,]* rows/);
    const second = path.join(work, 'second.lore.gz');
    assert.equal((await lore(['export', second], target)).code, 0);
    assert.equal(body(second), body(first), 'every row as it was');

    // The copy serves: the same credentials, results and scores, conversation and usage.
    server = await start(target);
    assert.deepEqual(await search(server), before, 'same hits and scores');
    assert.equal((await call(server, 'GET', '/api/v1/me', key)).status, 200, 'API key');
    assert.equal((await call(server, 'GET', '/api/v1/collections', revoked.token)).status, 401, 'revoked token stays revoked');
    const usage = (await call(server, 'GET', '/api/v1/usage', token)).body.data;
    assert.equal(usage.usage_quota, 10_000);
    assert.ok(usage.answer_credits < 50, 'the answer spent a credit before the export');
    assert.ok(usage.answers >= 1 && usage.requests > 10, 'this month\'s usage came along');
    const followUp = await call(server, 'POST', `/api/v1/integrations/${chatbot}/chat`, token, { message: 'And partial refunds?', conversation_id: chat.body.conversation_id, stream: false });
    assert.equal(followUp.status, 200, 'the conversation goes on');
    assert.equal(followUp.body.conversation_id, chat.body.conversation_id);
    assert.equal((await call(server, 'GET', '/api/v1/widgets', token)).body.data[0].id, widget.data.id);
    // Identities continue after the imported rows: new organisations, entries and chunks write.
    const third = await call(server, 'POST', '/api/v1/admin/organisations', MASTER_KEY, { name: 'After the move' });
    assert.equal(third.status, 201);
    assert.equal(third.body.data.id, org.data.id + 2);
    const added = await call(server, 'POST', `/api/v1/collections/${collection}/entries`, token, { title: 'Exports', raw_text: 'Exports copy every organisation with its entries and vectors.' });
    assert.equal(added.status, 201);
    assert.equal((await call(server, 'GET', `/api/v1/integrations/${searchBox}/search?query=exports+vectors`, token)).body.data[0].id, added.body.data.id);
    await stop(server);

    // And back into an embedded folder: the same rows again.
    const back = { LORE_DATA_DIR: tempDir('back'), DATABASE_URL: '' };
    assert.equal((await lore(['import', second], back)).code, 0);
    const third_ = path.join(work, 'third.lore.gz');
    assert.equal((await lore(['export', third_], back)).code, 0);
    assert.equal(body(third_), body(first));
    const db = await openPglite(back.LORE_DATA_DIR);
    try {
      assert.deepEqual(await indexProblems(db), []);
    } finally {
      await db.close();
    }
  });

  it('refuses a damaged export and a target that holds an instance, and writes nothing', async () => {
    const work = tempDir('damaged');
    const source = await startServer('pglite');
    const { token } = await source.createOrg('Small');
    const collection = (await source.call('POST', '/api/v1/collections', { token, body: { name: 'Docs' } })).body.data.id;
    assert.equal((await source.call('POST', `/api/v1/collections/${collection}/entries/batch`, { token, body: { entries: ENTRIES } })).status, 200);
    const file = path.join(work, 'small.lore.gz');
    await exportInstance(source.container.db, createWriteStream(file));
    await source.close();

    const lines = gunzipSync(readFileSync(file)).toString('utf8').trimEnd().split('\n');
    const entriesAt = lines.findIndex((line) => line.startsWith('{"table":"entries"'));
    const damaged: Record<string, Buffer> = {
      'cut gzip': readFileSync(file).subarray(0, Math.floor(readFileSync(file).length / 2)),
      'cut inside a section': gzipSync(lines.slice(0, Math.floor(lines.length / 2)).join('\n')),
      'no trailer': gzipSync(lines.slice(0, -1).join('\n')),
      'a row too many': gzipSync([...lines.slice(0, 3), lines[2]!, ...lines.slice(3)].join('\n')),
      'a row of the wrong shape': gzipSync(lines.map((line, i) => (i === 2 ? '{"id": "not a number"}' : line)).join('\n')),
      'a row the database refuses (no raw_text)': gzipSync(lines.map((line, i) => (i === entriesAt + 1 ? JSON.stringify({ ...JSON.parse(line), raw_text: null }) : line)).join('\n')),
      'lines after the end': gzipSync([...lines, lines[1]!].join('\n')),
      'not gzip': Buffer.from(lines.join('\n')),
      'not an export': gzipSync('{"hello": "world"}\n'),
    };
    // In one database: each refusal must leave it as empty as it was.
    const db = await openPglite(undefined);
    try {
      await migrate(db);
      for (const [name, bytes] of Object.entries(damaged)) {
        await assert.rejects(importInstance(db, Readable.from([bytes])), Error, name);
        for (const { name: table } of TABLES) {
          const [row] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
          assert.equal(row!.n, 0, `${name}: nothing imported into ${table}`);
        }
      }
      await importInstance(db, Readable.from([readFileSync(file)]));
      const [row] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM entries');
      assert.equal(row!.n, ENTRIES.length, 'the undamaged file imports into the same database');
    } finally {
      await db.close();
    }
    // The CLI says so and exits 1.
    const damagedFile = path.join(work, 'cut.lore.gz');
    writeFileSync(damagedFile, damaged['cut inside a section']!);
    const refusedCut = await lore(['import', damagedFile], { LORE_DATA_DIR: tempDir('refused'), DATABASE_URL: '' });
    assert.equal(refusedCut.code, 1);
    assert.match(refusedCut.stderr, /^lore: the export ends inside the \w+ section: the file is incomplete\. Nothing was imported\.\n$/);

    // A target that holds an instance is left alone, unless --replace.
    const held = { LORE_DATA_DIR: tempDir('held'), DATABASE_URL: '' };
    const heldDb = await openPglite(held.LORE_DATA_DIR);
    await migrate(heldDb);
    await heldDb.query("INSERT INTO organisations (public_id, name) VALUES ('org_already', 'Already here')");
    await heldDb.close();
    const refused = await lore(['import', file], held);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /already holds an instance.*--replace/);
    assert.equal((await lore(['import', file, '--replace'], held)).code, 0);
    const copy = path.join(work, 'replaced.lore.gz');
    assert.equal((await lore(['export', copy], held)).code, 0);
    assert.equal(body(copy), body(file), 'replaced by the export, nothing of the old instance left');
  });

  it('refuses to export a database with a table it does not know how to copy', async () => {
    const db = await openPglite(undefined);
    try {
      await migrate(db);
      assert.deepEqual(
        (await db.query<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`)).map((r) => r.name),
        [...TABLES.map((t) => t.name), ...NOT_COPIED].sort(),
        'every table of the schema is copied',
      );
      await db.query('CREATE TABLE new_feature (id int)');
      await assert.rejects(exportInstance(db, new PassThrough()), (error: unknown) => error instanceof TransferError && /new_feature/.test(error.message));
    } finally {
      await db.close();
    }
  });
});
