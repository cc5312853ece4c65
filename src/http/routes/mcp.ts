/**
 * POST /mcp: the MCP server (../mcp.ts) over Streamable HTTP, stateless — each request gets a
 * server and a transport of its own, for the credential it carries (an API v1 token or an
 * organisation API key; widget credentials are not accepted). GET and DELETE, which a session
 * would use, answer 405.
 */
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../deps.js';
import { authenticate, bearer } from '../auth.js';
import { createMcpServer } from '../mcp.js';
import { registerRateLimits } from '../rateLimit.js';
import { UnauthenticatedError } from '../../domain/errors.js';

/** A JSON-RPC error answered over HTTP, as the SDK's transport answers its own. */
function rpcError(reply: FastifyReply, status: number, message: string, code = -32000) {
  return reply.status(status).send({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/**
 * Registers /mcp in its own scope: the API's rate limits (per IP and per credential; the
 * answer limit per `answer` call) before anything else, then bearer authentication on POST.
 * Usage is counted per tool call (mcp.ts): a session's handshake and tool listing cost
 * nothing, and an exhausted quota is a tool error the assistant can read rather than an HTTP
 * 402 that would break its connection.
 */
export async function mcpRoutes(app: App, options: { version: string }): Promise<void> {
  const { deps } = app;
  await registerRateLimits(app, deps.config);

  app.post('/mcp', { config: { answersInBody: true }, schema: { hide: true }, onRequest: mcpAuth(deps) }, async (request, reply) => {
    // An empty body is parsed as none (app.ts); the SDK would read the request again for one.
    if (request.body === undefined) return rpcError(reply, 400, 'Parse error: the body is empty; send a JSON-RPC message.', -32700);
    // Batches were dropped from MCP (2025-06-18): one message per request keeps the rate limits per call.
    if (Array.isArray(request.body)) return rpcError(reply, 400, 'Send one JSON-RPC message per request; batches are not supported.');
    const server = createMcpServer(deps, request.principal, { version: options.version, log: request.log, countAnswer: request.countAnswer });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    // The SDK writes the response itself; the headers set so far (x-request-id) go with it.
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
    reply.hijack();
    try {
      await transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (error) {
      request.log.error({ err: error }, 'unhandled error');
      if (!reply.raw.headersSent) reply.raw.writeHead(500, { 'content-type': 'application/json' });
      reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
    }
  });

  // Stateless: no session to open a stream on (GET) or to end (DELETE).
  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) => rpcError(reply.header('allow', 'POST'), 405, 'Method not allowed: this server is stateless; POST each message.');
  app.get('/mcp', { schema: { hide: true } }, notAllowed);
  app.delete('/mcp', { schema: { hide: true } }, notAllowed);
}

/**
 * onRequest hook of POST /mcp: an API v1 token or an organisation API key sets
 * `request.principal` and `request.scope`; none, or any other credential, is 401 with
 * `WWW-Authenticate: Bearer`. Permissions and sources are the tools' to check.
 */
function mcpAuth(deps: App['deps']) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      const credential = bearer(request);
      if (!credential) throw new UnauthenticatedError();
      request.principal = await authenticate(deps, credential);
    } catch (error) {
      if (error instanceof UnauthenticatedError) reply.header('www-authenticate', 'Bearer');
      throw error;
    }
    request.scope = { organisationId: request.principal.organisationId };
    request.usageQuota = request.principal.usageQuota;
  };
}
