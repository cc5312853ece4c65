import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mdxAsMarkdown } from './mdx.js';

describe('mdxAsMarkdown', () => {
  it('turns a command component into the code block it renders', () => {
    const page = "import PackageManagerCommand from '@components/PackageManagerCommand.astro';\n\nTo install it without saving:\n\n<PackageManagerCommand command=\"npm install express --no-save\" />\n\nDone.";
    const text = mdxAsMarkdown(page);
    assert.match(text, /To install it without saving:\n\n```sh\nnpm install express --no-save\n```\n\nDone\./);
    assert.doesNotMatch(text, /import|PackageManager/);
  });

  it('reads nested parameters as labelled text, not as indented code', () => {
    const page = [
      '### express.json()',
      '',
      '<Signature returns="Function">',
      '  <Fragment slot="attributes">',
      '    <Param name="options" type="Object" optional>',
      '      Configures how the JSON body is parsed.',
      '',
      '      <Fragment slot="properties">',
      '        <Param name="limit" type="Number | String" default=\'"100kb"\'>',
      '          Controls the maximum request body size.',
      '        </Param>',
      '      </Fragment>',
      '    </Param>',
      '  </Fragment>',
      '</Signature>',
    ].join('\n');
    const lines = mdxAsMarkdown(page).split('\n').filter((l) => l.trim() !== '');
    assert.deepEqual(lines, ['### express.json()', '`options`: Configures how the JSON body is parsed.', '`limit` (default: `"100kb"`): Controls the maximum request body size.']);
  });

  it('drops tags written over several lines, labels callouts and leaves code alone', () => {
    const page = [
      '<MiddlewareInfo',
      '  version="3.0.0"',
      '  github="https://github.com/expressjs/method-override"',
      '/>',
      '',
      '<Alert type="warning">',
      '',
      'Validate the body.',
      '',
      '</Alert>',
      '',
      '```jsx',
      '<Tabs command="npm test" />',
      'export const x = 1;',
      '```',
    ].join('\n');
    const text = mdxAsMarkdown(page);
    assert.doesNotMatch(text, /version=|github=|MiddlewareInfo/);
    assert.match(text, /Warning: Validate the body\./);
    assert.match(text, /```jsx\n<Tabs command="npm test" \/>\nexport const x = 1;\n```/);
  });
});
