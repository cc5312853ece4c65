/** `lore export FILE`: the whole instance into a file, from the database itself (the work is in transfer.ts). */
import type { Command } from './command.js';

export const exportCommand: Command = {
  name: 'export',
  forms: [{ synopsis: 'FILE', summary: "copy the whole instance into FILE (gzip'd JSON lines; - for standard output)" }],
  about: 'Works on the database itself: DATABASE_URL, else the embedded one in LORE_DATA_DIR (default\n./.lore), which no server may be using at the time.',
  flags: {},
  args: [1, 1, 'a FILE (- for standard output)'],
  run: async (_values, [file]) => (await import('./transfer.js')).exportCommand(file!),
};
