import type { Scope } from '../model.js';
import type { UsageDelta, UsageRepository, UsageTotal } from './port.js';

/** A reserved answer: give it back with `refund` when nothing was answered. */
export interface Reservation {
  /** The month the answer was counted in. */
  readonly period: string;
  /** Whether a credit was taken (false when the organisation's credits are unlimited). */
  readonly credit: boolean;
}

/** GET /api/v1/usage. `requests` and `answers` include counts not yet written to the database. */
export interface UsageReport {
  answer_credits: number | null;
  usage_quota: number | null;
  period: string;
  requests: number;
  answers: number;
}

export interface UsageService {
  /**
   * Counts one API request of the organisation in the current month (UTC) and resolves
   * whether it is within `usage_quota` (always true without a quota). Counting is in
   * memory: no database write on the request's path; the first request of an organisation
   * (or of one idle for a minute) reads its quota and stored count once. `quota`, when
   * given, is the quota just read with the request's credential, and replaces the one known
   * (an admin's change applies to the next request on every process; other processes'
   * counts arrive with each flush).
   */
  countRequest(scope: Scope, quota?: number | null): Promise<boolean>;
  /**
   * Reserves one answer: takes an answer credit atomically (concurrent callers never take
   * more than there are; nothing is taken when credits are unlimited) and counts the
   * answer. Resolves null, taking nothing, when credits are exhausted or the month's
   * requests — including the caller's own, already counted by `countRequest` — exceed
   * `usage_quota`.
   */
  reserveCredit(scope: Scope): Promise<Reservation | null>;
  /**
   * Drops what this process knows of the organisation's quota and stored counts (an admin
   * changed them): its next request reads them again. Counts not yet written are kept.
   */
  forget(organisationId: number): void;
  /** Gives a reservation back (credit and answer count). Idempotent per reservation. */
  refund(scope: Scope, reservation: Reservation): Promise<void>;
  /** The organisation's credits, quota and this month's counts. */
  report(scope: Scope): Promise<UsageReport>;
  /** Writes the counts held in memory now (also done every `flushIntervalMs`). Never rejects. */
  flush(): Promise<void>;
  /** Stops the periodic flush and writes what is left. */
  close(): Promise<void>;
}

/** What a process knows of an organisation's month: quota and the stored request count. */
interface Month {
  period: string;
  quota: number | null;
  stored: number;
  /** Last request or answer of the organisation. */
  seenAt: number;
}

// Organisations idle this long are forgotten, and read again on their next request.
const IDLE_MS = 60_000;

/** 'YYYY-MM' of a time, in UTC. */
export function periodOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

/**
 * Usage counting and answer credits. Counts live in memory and are added to the database
 * every `flushIntervalMs` by one batched statement, so requests never wait on a write; the
 * quota check adds what this process has not written yet to the stored totals, which each
 * flush re-reads for the organisations in use (so other processes' counts and an admin's
 * quota change apply within one interval). Credits are taken in the database, atomically,
 * because they are what an answer costs.
 */
export function createUsageService(deps: {
  usage: UsageRepository;
  flushIntervalMs?: number;
  now?: () => number;
  /** Told when a flush fails (once until one succeeds again); the counts are kept and retried. */
  log?: (error: unknown) => void;
}): UsageService {
  const { usage } = deps;
  const now = deps.now ?? Date.now;
  const months = new Map<number, Month>();
  const loading = new Map<string, Promise<Month>>();
  // Counts not yet written, and the batch being written: both are still "not stored".
  let pending = new Map<string, UsageDelta>();
  let writing = new Map<string, UsageDelta>();
  const refunded = new WeakSet<Reservation>();
  let failing = false;

  // Database work on the counters runs one at a time, so a read never overlaps a write
  // whose counts are neither in memory nor yet visible as stored.
  let tail: Promise<unknown> = Promise.resolve();
  function serial<T>(work: () => Promise<T>): Promise<T> {
    const run = tail.then(work);
    tail = run.catch(() => undefined);
    return run;
  }

  const key = (organisationId: number, period: string) => `${organisationId}:${period}`;
  function bump(organisationId: number, period: string, requests: number, answers: number) {
    const delta = pending.get(key(organisationId, period));
    if (delta) {
      delta.requests += requests;
      delta.answers += answers;
    } else {
      pending.set(key(organisationId, period), { organisationId, period, requests, answers });
    }
  }
  function unwritten(organisationId: number, period: string) {
    const a = pending.get(key(organisationId, period));
    const b = writing.get(key(organisationId, period));
    return { requests: (a?.requests ?? 0) + (b?.requests ?? 0), answers: (a?.answers ?? 0) + (b?.answers ?? 0) };
  }

  /** The organisation's month, read from the database only when not known yet. */
  async function month(scope: Scope, period: string): Promise<Month> {
    const id = scope.organisationId;
    const known = months.get(id);
    if (known?.period === period) {
      known.seenAt = now();
      return known;
    }
    let load = loading.get(key(id, period));
    if (!load) {
      load = serial(async () => {
        const row = await usage.month(scope, period);
        const fresh = { period, quota: row.usageQuota, stored: row.requests, seenAt: now() };
        months.set(id, fresh);
        return fresh;
      }).finally(() => loading.delete(key(id, period)));
      loading.set(key(id, period), load);
    }
    return load;
  }

  const apply = (totals: readonly UsageTotal[]) => {
    for (const total of totals) {
      const known = months.get(total.organisationId);
      if (known?.period === total.period) Object.assign(known, { stored: total.requests, quota: total.usageQuota });
    }
  };

  /** Writes the pending counts, then re-reads the totals of the other organisations in use. */
  async function write(): Promise<void> {
    for (const [id, known] of months) if (now() - known.seenAt > IDLE_MS) months.delete(id);
    writing = pending;
    pending = new Map();
    try {
      const written = await usage.add([...writing.values()]);
      // Synchronously with clearing `writing`, so no check sees the batch twice or not at all.
      apply(written);
      writing = new Map();
      const period = periodOf(now());
      const fresh = new Set(written.map((total) => total.organisationId));
      const others = [...months].filter(([id, known]) => known.period === period && !fresh.has(id)).map(([id]) => id);
      apply(await usage.totals(period, others));
      failing = false;
    } catch (error) {
      for (const delta of writing.values()) bump(delta.organisationId, delta.period, delta.requests, delta.answers);
      if (!failing) deps.log?.(error);
      failing = true;
    } finally {
      writing = new Map();
    }
  }

  const flush = () => serial(write);
  const timer = setInterval(() => void flush(), deps.flushIntervalMs ?? 1_000);
  timer.unref();

  return {
    async countRequest(scope, quota) {
      const period = periodOf(now());
      const known = await month(scope, period);
      if (quota !== undefined) known.quota = quota;
      bump(scope.organisationId, period, 1, 0);
      return known.quota === null || known.stored + unwritten(scope.organisationId, period).requests <= known.quota;
    },

    async reserveCredit(scope) {
      const period = periodOf(now());
      const known = await month(scope, period);
      const requests = known.stored + unwritten(scope.organisationId, period).requests;
      // The quota comes fresh from the statement that takes the credit: an admin's change
      // applies to the next answer on every process (other processes' counts within a flush).
      const { credit, usageQuota } = await usage.takeCredit(scope, requests);
      known.quota = usageQuota;
      if (credit === 'exhausted' || (usageQuota !== null && requests > usageQuota)) return null;
      bump(scope.organisationId, period, 0, 1);
      return Object.freeze({ period, credit: credit === 'taken' });
    },

    forget(organisationId) {
      months.delete(organisationId);
    },

    async refund(scope, reservation) {
      if (refunded.has(reservation)) return;
      refunded.add(reservation);
      bump(scope.organisationId, reservation.period, 0, -1);
      if (reservation.credit) await usage.returnCredit(scope);
    },

    report: (scope) =>
      serial(async () => {
        const period = periodOf(now());
        const stored = await usage.month(scope, period);
        const local = unwritten(scope.organisationId, period);
        return {
          answer_credits: stored.answerCredits,
          usage_quota: stored.usageQuota,
          period,
          requests: stored.requests + local.requests,
          answers: stored.answers + local.answers,
        };
      }),

    flush,

    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
