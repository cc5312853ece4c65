import { Marked } from 'marked';
import sanitizeHtml from 'sanitize-html';
import { anchors } from '../domain/ingestion/text/sections.js';

const marked = new Marked({ gfm: true, breaks: false, async: false });

/** What answer HTML may contain: text formatting, lists, code, tables and http(s)/mailto links. */
const POLICY: sanitizeHtml.IOptions = {
  allowedTags: ['p', 'br', 'strong', 'em', 'b', 'i', 'code', 'pre', 'ul', 'ol', 'li', 'blockquote', 'a', 'sup', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'hr', 'del'],
  allowedAttributes: { a: ['href', 'title'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowProtocolRelative: false,
  transformTags: { a: sanitizeHtml.simpleTransform('a', { rel: 'noopener noreferrer nofollow', target: '_blank' }) },
};
// The transform adds rel and target; they must survive the attribute filter.
POLICY.allowedAttributes = { a: ['href', 'title', 'rel', 'target'] };

/** Markdown → HTML that is safe to insert into a page (no scripts, handlers or javascript: links). */
export function markdownToHtml(markdown: string): string {
  return sanitizeHtml(marked.parse(markdown, { async: false }), POLICY).trim();
}

/**
 * Streams markdown as HTML block by block: text is held until a blank line ends a block
 * (or the stream ends), then that block is rendered and sanitised, so every piece sent is
 * complete, safe HTML. Code fences are kept whole.
 */
export class HtmlBlockStream {
  private buffer = '';

  push(delta: string): string {
    this.buffer += delta;
    let out = '';
    for (;;) {
      const end = blockEnd(this.buffer);
      if (end < 0) return out;
      out += markdownToHtml(this.buffer.slice(0, end));
      this.buffer = this.buffer.slice(end).replace(/^\n+/, '');
    }
  }

  flush(): string {
    const rest = this.buffer;
    this.buffer = '';
    return rest.trim() ? markdownToHtml(rest) : '';
  }
}

/** Index after the first complete block (ended by a blank line outside a code fence), or -1. */
function blockEnd(text: string): number {
  let inFence = false;
  let offset = 0;
  for (const line of text.split('\n')) {
    const next = offset + line.length + 1;
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    else if (!inFence && line.trim() === '' && offset > 0 && next <= text.length) return next;
    offset = next;
  }
  return -1;
}

/** What a rendered document may contain: the answer policy plus headings with their anchor ids. */
const DOCUMENT_POLICY: sanitizeHtml.IOptions = {
  ...POLICY,
  allowedTags: [...(POLICY.allowedTags as string[]), 'h1', 'h2', 'h3', 'h4', 'h5', 'h6'],
  allowedAttributes: { ...POLICY.allowedAttributes, h1: ['id'], h2: ['id'], h3: ['id'], h4: ['id'], h5: ['id'], h6: ['id'] },
  transformTags: {},
};

/**
 * A whole markdown document → safe HTML for a page of its own: links stay in the page, and
 * every heading gets its anchor id as GitHub (and `markdownSections`, for the section it opens)
 * makes it, counted over all levels (`limits`, `limits-1`), so a sub-section's link lands on it.
 */
export function documentToHtml(markdown: string): string {
  const anchor = anchors();
  const document = new Marked({
    gfm: true,
    async: false,
    renderer: {
      heading({ tokens, depth, text }) {
        const explicit = /\s*\{#([\w-]+)\}\s*$/.exec(text);
        return `<h${depth} id="${explicit ? explicit[1] : anchor(text)}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
      },
    },
  });
  return sanitizeHtml(document.parse(markdown, { async: false }), DOCUMENT_POLICY).trim();
}
