/** `lore serve` (the default command): the server, configured by environment variables (src/main.ts). */
import type { Command } from './command.js';

export const serveCommand: Command = {
  name: 'serve',
  forms: [{ synopsis: '', summary: 'start the server (the default command)' }],
  about: 'Serves the API, the widget scripts, the console and the demo page, configured by environment\nvariables: PORT (default 3000), HOST (default 127.0.0.1), LORE_DATA_DIR, DATABASE_URL,\nLORE_MASTER_KEY, … (see the README).',
  flags: {},
  args: [0, 0],
  run: async () => (await import('../main.js')).serve(),
};
