/**
 * `lore mcp`: Lore's MCP tools over stdio, for desktop assistants that start a command rather
 * than call a URL. A proxy: it connects to a running Lore's /mcp with the token, then lists and
 * calls that server's tools for the assistant. stdout carries only the protocol; the one line
 * about what it serves, and any failure, go to stderr.
 */
import { readFileSync } from 'node:fs';
import { serverUrl, sourceToken, type Command } from './command.js';
import { unreachableMessage } from './loreApi.js';

export const mcpCommand: Command = {
  name: 'mcp',
  forms: [{ synopsis: '', summary: "serve a running server's MCP tools over stdio (for desktop AI assistants)" }],
  about:
    'The assistant starts `lore mcp --url URL --token TOKEN` and speaks MCP on its stdin and stdout;\n' +
    'search, answer and get_entry are called on the server, as the token (an organisation API\n' +
    'token or API key) may. An unreachable server or a refused token ends it at once (exit 1).',
  flags: {
    url: { type: 'string', value: 'URL', help: "the server's address (default $LORE_URL, else http://127.0.0.1:$PORT or :3000)" },
    token: { type: 'string', value: 'TOKEN', help: 'an organisation API token or API key (default $LORE_TOKEN)' },
  },
  args: [0, 0],
  async run(values) {
    const base = serverUrl(values, this);
    const token = sourceToken(values, this);
    const [{ Client }, { StreamableHTTPClientTransport, StreamableHTTPError }, { Server }, { StdioServerTransport }, { CallToolRequestSchema, ListToolsRequestSchema }] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
      import('@modelcontextprotocol/sdk/server/index.js'),
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

    const upstream = new Client({ name: 'lore-mcp-stdio', version });
    const endpoint = new URL(`${base}/mcp`);
    try {
      await upstream.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    } catch (error) {
      if (error instanceof StreamableHTTPError && error.code === 401) throw new Error('the token was refused (401): pass --token or set LORE_TOKEN to an organisation API token or API key');
      if (error instanceof StreamableHTTPError && error.code === 429) throw new Error(`Lore at ${base} asks this token to slow down (429): try again in a minute`);
      // fetch fails with a TypeError when nothing answers; anything else answered, but not as Lore's /mcp does.
      if (error instanceof TypeError) throw new Error(unreachableMessage(base, error));
      const detail = error instanceof StreamableHTTPError && error.code !== undefined && error.code > 0 ? `HTTP ${error.code}` : (error as Error).message;
      throw new Error(`${endpoint} did not answer as Lore's MCP server does (${detail}): is --url (or LORE_URL, PORT) Lore's address?`);
    }

    const server = new Server(
      { name: 'lore', version },
      { capabilities: { tools: {} }, instructions: upstream.getInstructions() },
    );
    // Forwarded as they come: the upstream's tools, descriptions and schemas are the server's own.
    server.setRequestHandler(ListToolsRequestSchema, (request, extra) => upstream.listTools(request.params, { signal: extra.signal }));
    server.setRequestHandler(CallToolRequestSchema, (request, extra) => upstream.callTool(request.params, undefined, { signal: extra.signal }));
    const stdio = new StdioServerTransport();
    // The assistant closing stdin ends the session, and this process with it.
    process.stdin.once('end', () => void server.close().finally(() => upstream.close()));
    await server.connect(stdio);
    process.stderr.write(`lore mcp: serving the tools of ${endpoint} on stdio\n`);
  },
};
