/** Asking a docs question set of a chatbot integration, by chat and by summarise, as bench:answers judges it. */
import { retrievalQuery } from '../src/domain/answers/service.js';
import type { startLore } from './harness.js';
import type { Rule } from './proseRules.js';

type Lore = Awaited<ReturnType<typeof startLore>>;

/** What a judged answer carries that asking fills in: its broken prose rules, and where search ranked a gold section. */
export interface Judged {
  failed: Rule[];
  retrieved?: number;
}

/**
 * Asks every question by chat (its citations read as stored) and by summarise, judging each
 * answer; records where search ranked a gold section among the 6 passages a chat is given.
 */
export async function askByChatAndSummarise<Q extends { question: string; sources: string[] }, A extends Judged>(
  lore: Pick<Lore, 'call' | 'container'>,
  integration: string,
  questions: readonly Q[],
  judge: (q: Q, text: string, urls: string[]) => A,
): Promise<Record<'chat' | 'summarise', A[]>> {
  const { call, container } = lore;
  const byRoute: Record<'chat' | 'summarise', A[]> = { chat: [], summarise: [] };
  for (const q of questions) {
    const reply = await call('POST', `/api/v1/integrations/${integration}/chat`, { message: q.question, stream: false });
    const [stored] = await container.db.query<{ citations: { url: string }[] }>(
      "SELECT citations FROM conversation_messages WHERE conversation_id = $1 AND role = 'assistant'",
      [reply.conversation_id],
    );
    const judged = judge(q, reply.message, (stored?.citations ?? []).map((c) => c.url));
    const hits = await call('GET', `/api/v1/integrations/${integration}/search?${new URLSearchParams({ query: retrievalQuery(q.question), threshold: '0.4', per_page: '6' })}`);
    const rank = (hits.data as { source_id: string }[]).findIndex((h) => q.sources.includes(h.source_id));
    judged.retrieved = rank < 0 ? undefined : rank + 1;
    byRoute.chat.push(judged);
    const summary = await call('GET', `/api/v1/integrations/${integration}/summarise?${new URLSearchParams({ query: q.question, stream: 'false' })}`);
    const summarised = judge(q, summary.summary, summary.references.map((r: { url: string }) => r.url));
    // "Nothing relevant" is the service's honest no-answer, not a failure to write prose.
    if (!summary.has_relevant_results) summarised.failed = summarised.failed.filter((r) => r !== 'empty');
    byRoute.summarise.push(summarised);
  }
  return byRoute;
}
