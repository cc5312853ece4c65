/**
 * The shape of the server's log lines (LORE_LOG_FORMAT): pino's JSON lines, one object a line,
 * for a log collector; or, on a terminal, short readable lines such as
 *
 *   [13:02:07.123] INFO: request completed 200 in 4.1 ms  reqId=5b0e…
 *
 * Both are written from the same pino records, so what the serializers leave out or redact
 * (logRedaction.ts) stays out of either.
 */
import { prettyFactory } from 'pino-pretty';
import type { LogFormat } from '../config.js';

/** Where log lines go: process.stdout, or a test's stand-in. */
export interface LogOutput {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

/** Whether `format` gives readable lines on `out`: `pretty` always, `auto` on a terminal only. */
export function readableLogs(format: LogFormat, out: LogOutput): boolean {
  return format === 'pretty' || (format === 'auto' && out.isTTY === true);
}

/**
 * The pino destination for `format` on `out`: undefined for JSON (pino's own stdout
 * destination); for readable lines, a stream that formats each JSON line and writes it to
 * `out` at once (no worker thread: no line is lost when the process exits). Colours on a
 * terminal unless NO_COLOR is set or TERM is dumb.
 */
export function logStream(format: LogFormat, out: LogOutput = process.stdout, env: NodeJS.ProcessEnv = process.env): { write(line: string): void } | undefined {
  if (!readableLogs(format, out)) return undefined;
  const pretty = prettyFactory({
    colorize: out.isTTY === true && env.NO_COLOR === undefined && env.TERM !== 'dumb',
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,reqId,req,res,responseTime',
    singleLine: true,
    messageFormat: (log, messageKey) => readableMessage(log, messageKey),
  });
  return { write: (line) => void out.write(pretty(line)) };
}

/** A record's message with its request's key fields: method and URL, status and time, id. */
function readableMessage(log: Record<string, unknown>, messageKey: string): string {
  const parts = [String(log[messageKey] ?? '')];
  const req = log.req as { method?: unknown; url?: unknown } | undefined;
  if (req && typeof req === 'object') parts.push(`${String(req.method)} ${String(req.url)}`);
  const res = log.res as { statusCode?: unknown } | undefined;
  if (res && typeof res === 'object') parts.push(String(res.statusCode));
  if (typeof log.responseTime === 'number') parts.push(`in ${log.responseTime.toFixed(1)} ms`);
  const line = parts.filter((part) => part !== '').join(' ');
  return log.reqId === undefined ? line : `${line}  reqId=${String(log.reqId)}`;
}
