/**
 * The operator's view: Prometheus metrics of one Lore process (prom-client), served at
 * `GET /metrics` (master key or LORE_METRICS_TOKEN). Each process has its own registry, so a
 * scrape of several processes behind a load balancer needs one target per process.
 *
 * - `lore_http_requests_total{method,route,status}` and
 *   `lore_http_request_duration_seconds{method,route}`: every request, by route template
 *   (`/api/v1/integrations/:integration/search`), so the label set stays bounded. Refusals
 *   show by status: 429 rate-limited, 402 out of answer credits or usage quota.
 * - `lore_answer_first_delta_seconds{route}` and `lore_answer_duration_seconds{route}`:
 *   streamed summaries and chats, to the first text and to the end.
 * - `lore_embed_duration_seconds{kind}` and `lore_embedder_in_flight_texts`: the embedding
 *   model, for queries (one text) and batches (ingestion), and the texts waiting on it.
 * - `lore_db_pool_connections{state}`: PostgreSQL connections in use, idle, and requests
 *   waiting for one (absent on PGlite, which has one connection).
 * - the process defaults of prom-client (CPU, memory, event-loop lag, GC), prefixed `lore_`.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Embedder } from './domain/ingestion/port.js';
import type { Db } from './storage/db.js';

export interface Metrics {
  readonly registry: Registry;
  request(method: string, route: string, status: number, seconds: number): void;
  answer(route: string, firstDeltaSeconds: number | null, totalSeconds: number): void;
  /** `embedder`, counting the texts in flight and timing every call. */
  instrument(embedder: Embedder): Embedder;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createMetrics(options: { db?: Pick<Db, 'poolStats'> } = {}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'lore_' });
  const requests = new Counter({ name: 'lore_http_requests_total', help: 'HTTP requests by route template and status.', labelNames: ['method', 'route', 'status'], registers: [registry] });
  const durations = new Histogram({
    name: 'lore_http_request_duration_seconds',
    help: 'HTTP request duration by route template (streamed answers: until the headers are sent).',
    labelNames: ['method', 'route'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const firstDelta = new Histogram({ name: 'lore_answer_first_delta_seconds', help: 'Streamed answers: time to the first text.', labelNames: ['route'], buckets: LATENCY_BUCKETS, registers: [registry] });
  const answerTotal = new Histogram({ name: 'lore_answer_duration_seconds', help: 'Streamed answers: time to the end of the stream.', labelNames: ['route'], buckets: LATENCY_BUCKETS, registers: [registry] });
  const embeds = new Histogram({ name: 'lore_embed_duration_seconds', help: 'Embedding calls: a query (one text) or a batch.', labelNames: ['kind'], buckets: LATENCY_BUCKETS, registers: [registry] });
  let inFlight = 0;
  new Gauge({
    name: 'lore_embedder_in_flight_texts',
    help: 'Texts given to the embedding model and not yet embedded.',
    registers: [registry],
    collect() {
      this.set(inFlight);
    },
  });
  const poolStats = options.db?.poolStats?.bind(options.db);
  if (poolStats) {
    new Gauge({
      name: 'lore_db_pool_connections',
      help: 'PostgreSQL pool: connections in use, idle, and requests waiting for one.',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const stats = poolStats();
        this.set({ state: 'in_use' }, stats.total - stats.idle);
        this.set({ state: 'idle' }, stats.idle);
        this.set({ state: 'waiting' }, stats.waiting);
      },
    });
  }

  return {
    registry,
    request(method, route, status, seconds) {
      requests.inc({ method, route, status: String(status) });
      durations.observe({ method, route }, seconds);
    },
    answer(route, firstDeltaSeconds, totalSeconds) {
      if (firstDeltaSeconds !== null) firstDelta.observe({ route }, firstDeltaSeconds);
      answerTotal.observe({ route }, totalSeconds);
    },
    instrument(embedder) {
      return {
        model: embedder.model,
        dimensions: embedder.dimensions,
        async embed(texts, signal) {
          inFlight += texts.length;
          const end = embeds.startTimer({ kind: texts.length === 1 ? 'query' : 'batch' });
          try {
            return await embedder.embed(texts, signal);
          } finally {
            inFlight -= texts.length;
            end();
          }
        },
      };
    },
  };
}
