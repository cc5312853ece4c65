// The dependency rule (docs/ARCHITECTURE.md): http → domain ← storage, providers. The domain
// imports neither HTTP, storage, providers, the crawler, the importers nor the CLI, and is made
// of capability folders, each with its port.ts; the console imports only types from the
// server's code, and values only from src/shared (values and types the server, console and
// widget share, which import nothing else), so no domain module ends up in the browser bundle;
// HTTP routes share src/http/presenters, not each other. Read from the sources' import
// declarations with TypeScript's parser.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

const ROOT = path.resolve(import.meta.dirname, '..');

interface Import { from: string; to: string; typeOnly: boolean }

function files(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)));
}

/** The project files `file` imports (relative specifiers, `.js` read as the `.ts`/`.tsx` source), and whether only types. */
function importsOf(file: string): Import[] {
  const source = ts.createSourceFile(file, readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, false);
  const found: Import[] = [];
  for (const statement of source.statements) {
    const isImport = ts.isImportDeclaration(statement);
    if (!isImport && !ts.isExportDeclaration(statement)) continue;
    const specifier = statement.moduleSpecifier;
    if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue;
    const resolved = path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), specifier.text)).replace(/\.js$/, '');
    const to = [`${resolved}.ts`, `${resolved}.tsx`, `${resolved}/index.ts`].find((f) => ts.sys.fileExists(path.join(ROOT, f))) ?? resolved;
    let typeOnly: boolean;
    if (isImport) {
      const clause = statement.importClause;
      const named = clause?.namedBindings;
      typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly || (!clause.name && named !== undefined && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly)));
    } else {
      typeOnly = statement.isTypeOnly;
    }
    found.push({ from: file, to, typeOnly });
  }
  return found;
}

const show = (list: readonly Import[]) => list.map((i) => `${i.from} → ${i.to}`).join('\n');

describe('the dependency rule', () => {
  const domain = files('src/domain').flatMap(importsOf);
  const console_ = files('console/src').flatMap(importsOf);

  it('keeps the domain free of HTTP, storage, providers, the crawler, importers and CLI', () => {
    const outward = domain.filter((i) => /^src\/(http|storage|providers|crawler|importers|cli)\//.test(i.to));
    assert.deepEqual(outward, [], `the domain imports outer layers:\n${show(outward)}`);
  });

  it('lets the console import only types from the server, values only from src/shared', () => {
    const values = console_.filter((i) => i.to.startsWith('src/') && !i.to.startsWith('src/shared/') && !i.typeOnly);
    assert.deepEqual(values, [], `the console imports server values:\n${show(values)}`);
  });

  it('lets routes share presenters, not each other, nor the app that registers them', () => {
    const routes = files('src/http/routes').flatMap(importsOf);
    const across = routes.filter((i) => i.to.startsWith('src/http/routes/'));
    assert.deepEqual(across, [], `routes import routes:\n${show(across)}`);
    const back = [...routes, ...files('src/http').filter((f) => !f.startsWith('src/http/routes/')).flatMap(importsOf)].filter((i) => i.to === 'src/http/app.ts');
    assert.deepEqual(back, [], `the app's type and deps are in src/http/deps.ts; these import app.ts itself:\n${show(back)}`);
  });

  it('keeps src/shared self-contained', () => {
    const outside = files('src/shared').flatMap(importsOf).filter((i) => !i.to.startsWith('src/shared/'));
    assert.deepEqual(outside, [], `src/shared imports:\n${show(outside)}`);
  });

  it('keeps the domain in capability folders, each declaring its ports, with only shared values at its top', () => {
    const entries = readdirSync(path.join(ROOT, 'src/domain'), { withFileTypes: true });
    const top = entries.filter((e) => e.isFile() && !/\.test\.ts$/.test(e.name)).map((e) => e.name).sort();
    assert.deepEqual(top, ['errors.ts', 'ids.ts', 'model.ts', 'pagination.ts', 'urls.ts'], 'a file at the domain\'s top is shared by every capability; anything else belongs in one');
    const capabilities = entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
    assert.deepEqual(capabilities, ['access', 'analytics', 'answers', 'crawl', 'ingestion', 'search', 'widgets']);
    const portless = capabilities.filter((c) => !ts.sys.fileExists(path.join(ROOT, 'src/domain', c, 'port.ts')));
    assert.deepEqual(portless, [], 'each capability declares what its storage and providers implement in port.ts');
  });

  it('keeps the capabilities in one direction: none reaches back, directly or through another, to one that uses it', () => {
    const capability = (file: string) => /^src\/domain\/([^/]+)\//.exec(file)?.[1];
    const uses = new Map<string, Set<string>>();
    for (const i of domain) {
      const [from, to] = [capability(i.from), capability(i.to)];
      if (from && to && from !== to) (uses.get(from) ?? uses.set(from, new Set()).get(from)!).add(to);
    }
    const loops: string[] = [];
    const walk = (path: string[]) => {
      for (const next of uses.get(path.at(-1)!) ?? []) {
        if (next === path[0]) loops.push([...path, next].join(' → '));
        else if (!path.includes(next)) walk([...path, next]);
      }
    };
    for (const start of uses.keys()) walk([start]);
    assert.deepEqual(loops, [], `capabilities in a loop (each declares in its port.ts what it needs instead):\n${loops.join('\n')}`);
  });

  it('reads imports as they are written', () => {
    // The reader itself: a value import, a type-only one, a re-export and a module outside the project.
    const sample = importsOf('test/architecture.test.ts');
    assert.ok(sample.every((i) => !i.to.startsWith('src/')), 'this file imports nothing of the project');
    assert.ok(domain.some((i) => i.from === 'src/domain/search/service.ts' && i.to === 'src/domain/search/ranking.ts' && !i.typeOnly));
    assert.ok(domain.some((i) => i.from === 'src/domain/search/service.ts' && i.to === 'src/domain/model.ts' && i.typeOnly));
  });
});
