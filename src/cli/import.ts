/**
 * `lore import DIR --collection ID` (a folder's files into a collection of a running server; the
 * work is in folderImport.ts) and `lore import FILE` (an export loaded into the database itself;
 * the work is in transfer.ts).
 */
import { statSync } from 'node:fs';
import { httpUrl, list, print, required, serverUrl, SOURCE_FLAGS, sourceToken, UsageError, usage, type Command, type Values } from './command.js';

export const importCommand: Command = {
  name: 'import',
  forms: [
    { synopsis: 'DIR --collection ID', summary: "send a folder's Markdown, MDX, HTML, PDF and text files to a collection of a running server" },
    { synopsis: 'FILE [--replace]', summary: 'load an export (lore export; - for standard input) into an empty database' },
  ],
  about: 'A folder: unchanged files are not sent again. An export: no server may be using the database.',
  flags: {
    ...SOURCE_FLAGS,
    'base-url': { type: 'string', value: 'URL', help: "where the folder is published: the entries' source_url" },
    prune: { type: 'boolean', help: 'delete the entries of files that are gone' },
    sections: { type: 'boolean', help: 'one entry per section of a Markdown file (## sections; a long one split at ###)' },
    ignore: { type: 'string', value: 'PATTERN', multiple: true, help: 'leave out what matches (gitignore syntax; repeatable)' },
    replace: { type: 'boolean', help: 'FILE: replace what the database holds' },
  },
  args: [1, 1, 'a DIR (with --collection ID) or an export FILE'],
  async run(values, [target]) {
    if (values.collection === undefined) return importExport(values, target!, this);
    if (values.replace) throw new UsageError('--replace is for loading an export FILE, not for importing a folder with --collection', usage(this));
    const baseUrl = httpUrl(values, 'base-url', this);
    const server = serverUrl(values, this);
    const token = sourceToken(values, this);
    const collection = required(values, 'collection', this);
    const { importFolder, formatImportReport } = await import('./folderImport.js');
    const report = await importFolder({ dir: target!, collection, server, token, baseUrl, prune: values.prune === true, sections: values.sections === true, ignore: list(values, 'ignore') });
    print(values, report, formatImportReport(target!, collection, report, values.sections === true));
  },
};

/** `lore import FILE` (an export), refusing the flags of the folder import it lacks --collection for. */
async function importExport(values: Values, file: string, command: Command): Promise<void> {
  if (statSync(file, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`${file} is a folder: to import its files into a collection, pass --collection ID`, usage(command));
  const folderOnly = Object.keys(command.flags).find((name) => name !== 'replace' && values[name] !== undefined && values[name] !== false);
  if (folderOnly) throw new UsageError(`--${folderOnly} is for importing a folder: pass --collection ID too`, usage(command));
  const { importCommand } = await import('./transfer.js');
  return importCommand(file, { replace: values.replace === true });
}
