/**
 * Load generator for bench/search.ts, run as a child process (a separate event loop, as a
 * real client would be): `clients` concurrent
 * keep-alive HTTP clients, each sending GET requests for the given paths in turn until
 * `seconds` pass. Posts back every latency (ms) and the count of non-200 answers.
 */
import http from 'node:http';

interface Job { url: string; token: string; paths: string[]; clients: number; seconds: number }
const { url, token, paths, clients, seconds } = await new Promise<Job>((resolve) => process.once('message', (job) => resolve(job as Job)));
const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
const target = new URL(url);

function get(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      { host: target.hostname, port: target.port, path, agent, headers: { authorization: `Bearer ${token}`, accept: 'application/json' } },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
  });
}

const latencies: number[] = [];
let failures = 0;
let next = 0;
const deadline = performance.now() + seconds * 1000;
await Promise.all(
  Array.from({ length: clients }, async () => {
    while (performance.now() < deadline) {
      const path = paths[next++ % paths.length]!;
      const started = performance.now();
      const status = await get(path).catch(() => 0);
      latencies.push(performance.now() - started);
      if (status !== 200) failures++;
    }
  }),
);
agent.destroy();
process.send!({ latencies, failures }, () => process.exit(0));
