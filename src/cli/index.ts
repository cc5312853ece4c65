/**
 * The `lore` command (the bin, through src/cli.ts): the table of commands, each in its own file
 * with its own flags and usage (command.ts says what they share). Reads the command's words,
 * parses its flags and arguments, and runs it. Errors go to stderr as `lore: <sentence>`
 * (a usage mistake exit 2, any other failure exit 1), results to stdout; a stack only with
 * LORE_DEBUG=1. A command's work is imported when it runs, so help and the admin commands
 * load neither the database nor the models.
 */
import { readFileSync } from 'node:fs';
import { exit, lookUp, overview, parse, UsageError, type Command } from './command.js';
import { crawlCommand } from './crawl.js';
import { exportCommand } from './export.js';
import { helpCommand } from './help.js';
import { importCommand } from './import.js';
import { mcpCommand } from './mcp.js';
import { orgCommands } from './org.js';
import { reindexCommand } from './reindex.js';
import { serveCommand } from './serve.js';
import { tokenCommands } from './token.js';

/** Every command, in the order the overview lists them. */
const COMMANDS: readonly Command[] = [serveCommand, ...orgCommands, ...tokenCommands, exportCommand, importCommand, reindexCommand, crawlCommand, mcpCommand, helpCommand(() => COMMANDS)];

async function main(argv: string[]): Promise<void> {
  const [first] = argv;
  if (first === '--version' || first === '-v') {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    return void process.stdout.write(`lore ${version}\n`);
  }
  if (first === '--help' || first === '-h') return void process.stdout.write(`${overview(COMMANDS)}\n`);
  // The command's words: the leading arguments that are not flags (`-` alone is a file: stdin/stdout).
  const isFlag = (arg: string) => /^-./.test(arg);
  const leading = argv.slice(0, 2);
  const words = leading.slice(0, leading.some(isFlag) ? leading.findIndex(isFlag) : undefined);
  const end = argv.indexOf('--');
  if (argv.slice(0, end === -1 ? undefined : end).some((a) => a === '--help' || a === '-h')) return void process.stdout.write(`${lookUp(COMMANDS, words, true).usage}\n`);
  const found = lookUp(COMMANDS, words);
  const command = found.command!;
  const { values, positionals } = parse(COMMANDS, command, [...found.rest, ...argv.slice(words.length)]);
  const [min, max, missing] = command.args;
  if (positionals.length > max) throw new UsageError(`unexpected argument "${positionals[max]}" for lore ${command.name}`, found.usage);
  if (positionals.length < min) throw new UsageError(`${command.name} needs ${missing}`, found.usage);
  // An error outside the command's promise (a stream's 'error' event) is said the same way; a server keeps Node's own report.
  if (command.name !== 'serve') for (const event of ['uncaughtException', 'unhandledRejection'] as const) process.on(event, exit);
  await command.run(values, positionals);
}

main(process.argv.slice(2)).catch(exit);
