/**
 * Lore as an MCP server for AI assistants (Claude, Cursor, VS Code …): the tools `search`,
 * `answer` and `get_entry` over the collections a credential may read, built for one request
 * and one principal (routes/mcp.ts serves them over Streamable HTTP, statelessly). A tool's
 * refusal — a permission the credential lacks, an id it may not read, exhausted credits — is a
 * tool result with `isError`, which the model reads; only protocol mistakes are JSON-RPC errors.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { FastifyBaseLogger } from 'fastify';
import type { AppDeps } from './deps.js';
import type { Principal } from '../domain/access/principal.js';
import { DomainError, ForbiddenError, NotFoundError, PaymentRequiredError } from '../domain/errors.js';
import type { MetaFilter } from '../domain/search/port.js';
import type { Passage } from '../domain/search/service.js';
import { entryUrl } from '../domain/answers/offers.js';
import type { Scope } from '../domain/model.js';
import type { Permission } from '../shared/permissions.js';

/** The search API's default threshold: hits less similar than this are left out. */
const THRESHOLD = 0.4;
/** Characters of an entry's text `get_entry` returns at most. */
const MAX_ENTRY_TEXT = 50_000;

const Collections = z
  .array(z.string().max(64))
  .min(1)
  .max(50)
  .optional()
  .describe('Collection ids to limit the call to (default: every collection this credential may read).');

const Meta = z
  .record(z.string().min(1).max(100), z.union([z.string().max(500), z.array(z.string().max(500)).min(1).max(50)]))
  .refine((meta) => Object.keys(meta).length <= 20, 'At most 20 metadata keys.')
  .optional()
  .describe('Metadata filters: key → value (the entry must have it), or key → values (any of them). Keys are those of the entries\' meta or searchable_meta, such as "version" or "product".');

const SearchHitOut = z.object({
  id: z.string(),
  collection_id: z.string(),
  title: z.string().nullable(),
  url: z.string().nullable(),
  snippet: z.string(),
  similarity: z.number(),
});

const Reference = z.object({ ref: z.number().int(), title: z.string(), url: z.string() });

export type McpDeps = Pick<AppDeps, 'search' | 'answers' | 'entries' | 'pages' | 'usage'>;

/**
 * An MCP server whose tools act as `principal` (tenant-scoped: every call is limited to the
 * collections the principal may read). Each tool call is counted against the organisation's
 * monthly usage quota, as an /api/v1 request is; `answer` also takes an answer credit.
 */
export function createMcpServer(
  deps: McpDeps,
  principal: Principal,
  options: {
    version: string;
    log: FastifyBaseLogger;
    /** Counts an answer against the credential's answer rate limit: the seconds to wait when over it, else 0 (none: no limit). */
    countAnswer?: () => Promise<number>;
  },
): McpServer {
  const { search, answers, entries, pages, usage } = deps;
  const scope: Scope = { organisationId: principal.organisationId };
  const server = new McpServer(
    { name: 'lore', version: options.version },
    {
      capabilities: { tools: {} },
      instructions:
        'Lore searches this organisation\'s documentation. Use `search` to find pages (titles, URLs, snippets, ids), ' +
        '`get_entry` to read one in full, and `answer` for a written answer with numbered references. Cite the URLs you use.',
    },
  );

  /** The collections the call may read: all the principal's, or those of `requested` (each of them the principal's). */
  async function collectionsFor(requested: readonly string[] | undefined): Promise<string[]> {
    const allowed = new Set((await pages.sources(principal)).map((s) => s.id));
    if (requested === undefined) return [...allowed];
    const wanted = [...new Set(requested.map((id) => id.toLowerCase()))];
    // Another organisation's collection and an unknown one read the same: nothing is revealed.
    if (wanted.some((id) => !allowed.has(id))) throw new NotFoundError('Collection');
    return wanted;
  }

  /**
   * A tool's body, counted against the usage quota and with its refusals as tool errors.
   * A tool that `answers` is treated as the answer routes are: over the quota it is left to
   * its credit reservation to refuse (so the message says credits or quota), and it counts
   * against the credential's answer rate limit.
   */
  function tool<A>(name: string, permissions: readonly Permission[], run: (args: A, signal: AbortSignal) => Promise<CallToolResult>, kind: { answers?: boolean } = {}) {
    return async (args: A, extra: { signal: AbortSignal }): Promise<CallToolResult> => {
      try {
        const withinQuota = await usage.countRequest(scope, principal.usageQuota);
        if (!permissions.some((p) => principal.permissions.includes(p))) {
          throw new ForbiddenError(`This credential lacks the ${permissions.join(' or ')} permission.`);
        }
        if (!withinQuota && !kind.answers) throw new PaymentRequiredError('The monthly usage quota of this organisation is exhausted.');
        const wait = kind.answers ? await options.countAnswer?.() : 0;
        if (wait) return failure(`Too many answers for this credential. Retry after ${wait} second${wait === 1 ? '' : 's'}.`);
        return await run(args, extra.signal);
      } catch (error) {
        if (error instanceof PaymentRequiredError) return failure(`${error.message} Retrying will not help until the organisation's limits are raised.`);
        if (error instanceof DomainError) return failure(error.message);
        options.log.error({ err: error, tool: name }, 'unhandled error');
        return failure('Lore failed to run this tool. Try again later.');
      }
    };
  }

  /** The hits of `query` over `collectionIds`, best first. */
  async function find(collectionIds: readonly string[], query: string, meta: MetaFilter[], limit: number) {
    if (collectionIds.length === 0) return { hits: [] as Passage[], total: 0 };
    const { ranked, terms } = await search.rank(scope, collectionIds, { query, threshold: THRESHOLD, meta, boosts: [], sorts: [] });
    return { hits: await search.passages(scope, ranked.slice(0, limit), terms), total: ranked.length };
  }

  server.registerTool(
    'search',
    {
      title: 'Search the documentation',
      description:
        'Hybrid (keyword and semantic) search over this organisation\'s documentation. Returns the best matching entries, ' +
        'each with its title, URL, a short snippet around the matching words (in **bold**) and its id. Use it to find where ' +
        'something is documented or to gather sources; then call get_entry with an id to read an entry in full, or answer ' +
        'for a written summary. Write the query as keywords or a short question.',
      inputSchema: {
        query: z.string().trim().min(1).max(1000).describe('What to look for: keywords or a short question.'),
        meta: Meta,
        per_page: z.number().int().min(1).max(20).default(5).describe('How many results to return (1–20).'),
        collections: Collections,
      },
      outputSchema: { total: z.number().int().describe('Entries found above the relevance threshold (at most 100 are ranked).'), hits: z.array(SearchHitOut) },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    tool('search', ['search'], async ({ query, meta, per_page, collections }: { query: string; meta?: Record<string, string | string[]>; per_page: number; collections?: string[] }) => {
      const { hits, total } = await find(await collectionsFor(collections), query, metaFilters(meta), per_page);
      const structured = { total, hits: hits.map(presentHit) };
      if (hits.length === 0) return { content: [{ type: 'text', text: `Nothing in the documentation matches "${query}".` }], structuredContent: structured };
      const lines = structured.hits.map((h, i) => `${i + 1}. ${h.title ?? 'Untitled'}${h.url ? ` — ${h.url}` : ''}\n   ${h.snippet}\n   id: ${h.id}`);
      const head = `${total} result${total === 1 ? '' : 's'} for "${query}"${total > hits.length ? `, the best ${hits.length}` : ''}:`;
      return { content: [{ type: 'text', text: [head, ...lines].join('\n\n') }], structuredContent: structured };
    }),
  );

  server.registerTool(
    'answer',
    {
      title: 'Answer from the documentation',
      description:
        'Writes a short answer to a question from this organisation\'s documentation, with numbered references ([1], [2] …) ' +
        'to the pages it used, listed after the answer with their URLs. Use it for how-to and "what is" questions when a ' +
        'sourced summary is wanted; when the documentation does not cover the question it says so and lists the closest ' +
        'results. Each answered question uses one of the organisation\'s answer credits.',
      inputSchema: {
        question: z.string().trim().min(1).max(1000).describe('The question, as a user would ask it.'),
        collections: Collections,
      },
      outputSchema: { covered: z.boolean().describe('false when the documentation does not cover the question'), answer: z.string(), references: z.array(Reference) },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    tool('answer', ['summarize'], async ({ question, collections }: { question: string; collections?: string[] }, signal) => {
      const collectionIds = await collectionsFor(collections);
      const stream = await answers.summariseCollections(scope, collectionIds, { query: question, threshold: THRESHOLD }, signal);
      if (!stream.relevant) {
        // The passages close to the question that are not evidence for an answer, as chat offers them.
        const answer = 'The documentation does not cover this question.';
        const closest = (stream.closest ?? []).map(presentHit).map((h, i) => `${i + 1}. ${h.title ?? 'Untitled'}${h.url ? ` — ${h.url}` : ''} (id: ${h.id})`);
        const text = closest.length ? `${answer}\n\nClosest results:\n${closest.join('\n')}` : answer;
        return { content: [{ type: 'text', text }], structuredContent: { covered: false, answer, references: [] } };
      }
      let answer = '';
      const references: z.infer<typeof Reference>[] = [];
      for await (const event of stream.events) {
        if (event.type === 'text_delta') answer += event.delta;
        if (event.type === 'citation') references.push({ ref: event.citation.ref, title: event.citation.title, url: event.citation.url });
      }
      answer = answer.trim();
      const listed = references.map((r) => `[${r.ref}] ${r.title}${r.url ? ` — ${r.url}` : ''}`);
      const text = listed.length ? `${answer}\n\nReferences:\n${listed.join('\n')}` : answer;
      return { content: [{ type: 'text', text }], structuredContent: { covered: true, answer, references } };
    }, { answers: true }),
  );

  server.registerTool(
    'get_entry',
    {
      title: 'Read a documentation entry',
      description:
        `Returns one entry of the documentation in full: its title, URL, metadata and text (the first ${MAX_ENTRY_TEXT.toLocaleString('en')} ` +
        'characters; it says when the text is cut). Use it with an id from search or answer when a snippet is not enough.',
      inputSchema: { id: z.string().trim().min(1).max(64).describe('The entry id, as search returns it.') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    tool('get_entry', ['search', 'pages.read'], async ({ id }: { id: string }) => {
      const entry = await entries.find(scope, await collectionsFor(undefined), id.toLowerCase());
      const text = entry.raw_text.length > MAX_ENTRY_TEXT ? entry.raw_text.slice(0, MAX_ENTRY_TEXT) : entry.raw_text;
      const cut = text.length < entry.raw_text.length ? `\n\n[Cut at ${MAX_ENTRY_TEXT.toLocaleString('en')} of ${entry.raw_text.length.toLocaleString('en')} characters.]` : '';
      const head = [
        `# ${entry.title ?? 'Untitled'}`,
        ...(entry.source_url ? [`URL: ${entry.source_url}`] : []),
        `id: ${entry.id} (collection ${entry.collection_id})`,
        ...(Object.keys(entry.meta).length ? [`meta: ${JSON.stringify(entry.meta)}`] : []),
      ];
      return { content: [{ type: 'text', text: `${head.join('\n')}\n\n${text}${cut}` }] };
    }),
  );

  return server;
}

/** A hit as the search tool shows it: plain text, no HTML. */
function presentHit(passage: Passage): z.infer<typeof SearchHitOut> {
  const { hit, headings } = passage;
  return {
    id: hit.id,
    collection_id: hit.collection_id,
    title: hit.title,
    url: entryUrl(hit, headings) || null,
    snippet: plainSnippet(hit.snippet),
    similarity: hit.score_breakdown.similarity,
  };
}

/**
 * A search snippet as plain text, matches in **bold**: snippet.ts wraps matches in `<mark>` and
 * escapes everything else as numeric character references (`&#60;`), undone in one pass.
 */
function plainSnippet(html: string): string {
  return html.replace(/<\/?mark>/g, '**').replace(/&#(\d+);/g, (_m, code: string) => String.fromCodePoint(Number(code)));
}

/** The tool's `meta` argument as the search's filters: a value must match, values are alternatives. */
function metaFilters(meta: Record<string, string | string[]> | undefined): MetaFilter[] {
  return Object.entries(meta ?? {}).map(([key, value]) => (typeof value === 'string' ? { key, op: 'eq', values: [value] } : { key, op: 'or', values: value }));
}

function failure(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
