/** `lore reindex`: the chunks of another embedding model embedded again, in the database itself (the work is in reembed.ts). */
import { JSON_FLAG, type Command } from './command.js';

export const reindexCommand: Command = {
  name: 'reindex',
  forms: [{ synopsis: '', summary: 'embed again, with the configured model, the chunks another model embedded' }],
  about: 'Works on the database itself, like export (on PostgreSQL it may run beside running servers).',
  flags: { all: { type: 'boolean', help: 'embed every chunk again' }, json: JSON_FLAG },
  args: [0, 0],
  run: async (values) => (await import('./reembed.js')).reindexCommand({ all: values.all === true, json: values.json === true }),
};
