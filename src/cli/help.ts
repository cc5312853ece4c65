/** `lore help [COMMAND]`: the overview of the commands, or a command's usage and flags. */
import { lookUp, overview, type Command } from './command.js';

/** The help command over `commands` (read when it runs: the table it belongs to). */
export function helpCommand(commands: () => readonly Command[]): Command {
  return {
    name: 'help',
    forms: [{ synopsis: '[COMMAND]', summary: "show the commands, or a command's usage and flags" }],
    flags: {},
    args: [0, 2],
    run: async (_values, words) => void process.stdout.write(`${words.length === 0 ? overview(commands()) : lookUp(commands(), words, true).usage}\n`),
  };
}
