/** `lore token create` and `lore token revoke`: organisation API tokens, through a running server's admin API. */
import { ADMIN_FLAGS, admin, print, required, UsageError, usage, type Command } from './command.js';

export const tokenCommands: Command[] = [
  {
    name: 'token create',
    forms: [{ synopsis: '--org ID', summary: 'issue another API token for an organisation' }],
    flags: { org: { type: 'string', value: 'ID', help: "the organisation's id (required)" }, ...ADMIN_FLAGS },
    args: [0, 0],
    async run(values) {
      const org = required(values, 'org', this);
      if (!/^\d+$/.test(org)) throw new UsageError(`--org must be an organisation's id (a number), not "${org}"`, usage(this));
      const result = (await admin(this, 'POST', `/organisations/${org}/tokens`, {}, values)) as { token: string };
      print(values, result, `API token (shown once): ${result.token}`);
    },
  },
  {
    name: 'token revoke',
    forms: [{ synopsis: '--id TOKEN_ID', summary: 'revoke an API token' }],
    flags: { id: { type: 'string', value: 'TOKEN_ID', help: 'the token id (the part after lore_, or token_id as created)' }, ...ADMIN_FLAGS },
    args: [0, 0],
    async run(values) {
      const id = required(values, 'id', this);
      await admin(this, 'DELETE', `/tokens/${encodeURIComponent(id)}`, undefined, values);
      print(values, { revoked: id }, `Revoked ${id}.`);
    },
  },
];
