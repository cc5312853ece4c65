/** `lore org create` and `lore org list`: organisations, through a running server's admin API. */
import { ADMIN_FLAGS, admin, print, required, type Command } from './command.js';

export const orgCommands: Command[] = [
  {
    name: 'org create',
    forms: [{ synopsis: '--name NAME', summary: 'create an organisation and its first API token' }],
    flags: { name: { type: 'string', value: 'NAME', help: "the organisation's name (required)" }, ...ADMIN_FLAGS },
    args: [0, 0],
    async run(values) {
      const name = required(values, 'name', this);
      const result = (await admin(this, 'POST', '/organisations', { name }, values)) as { data: { id: number; name: string }; token: string };
      print(values, result, `Created organisation ${result.data.id} (${result.data.name}).\nAPI token (shown once): ${result.token}`);
    },
  },
  {
    name: 'org list',
    forms: [{ synopsis: '', summary: 'list organisations (id and name)' }],
    flags: ADMIN_FLAGS,
    args: [0, 0],
    async run(values) {
      const result = (await admin(this, 'GET', '/organisations?per_page=100', undefined, values)) as { data: { id: number; name: string }[] };
      print(values, result, result.data.map((o) => `${o.id}\t${o.name}`).join('\n'));
    },
  },
];
