import * as smd from 'streaming-markdown';
import DOMPurify from 'dompurify';

// An inert document: elements built here load nothing (no image requests, no scripts).
let inert: Document | undefined;
let purifier: ReturnType<typeof DOMPurify> | undefined;

function sanitizer(): ReturnType<typeof DOMPurify> {
  if (purifier) return purifier;
  purifier = DOMPurify(window);
  // Links open in a new tab and cannot reach back to the page.
  purifier.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'A' && node.hasAttribute('href')) {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer nofollow');
    }
  });
  return purifier;
}

// The library's token constants (not its Token object, which would then be bundled too).
const TAGS: Partial<Record<smd.Token, string>> = {
  [smd.BLOCKQUOTE]: 'blockquote', [smd.PARAGRAPH]: 'p', [smd.LINE_BREAK]: 'br', [smd.RULE]: 'hr',
  [smd.HEADING_1]: 'h1', [smd.HEADING_2]: 'h2', [smd.HEADING_3]: 'h3', [smd.HEADING_4]: 'h4', [smd.HEADING_5]: 'h5', [smd.HEADING_6]: 'h6',
  [smd.ITALIC_AST]: 'em', [smd.ITALIC_UND]: 'em', [smd.STRONG_AST]: 'strong', [smd.STRONG_UND]: 'strong', [smd.STRIKE]: 's',
  [smd.CODE_INLINE]: 'code', [smd.LINK]: 'a', [smd.RAW_URL]: 'a', [smd.IMAGE]: 'img',
  [smd.LIST_UNORDERED]: 'ul', [smd.LIST_ORDERED]: 'ol', [smd.LIST_ITEM]: 'li', [smd.TABLE]: 'table', [smd.TABLE_ROW]: 'tr',
  [smd.EQUATION_BLOCK]: 'code', [smd.EQUATION_INLINE]: 'code', [smd.CHECKBOX]: 'span',
};

/**
 * A streaming-markdown renderer building into `root`, whose document is inert (the library's
 * default renderer uses the page's document, where an image starts loading when created).
 */
function renderer(root: HTMLElement): smd.Default_Renderer {
  const doc = root.ownerDocument;
  return {
    data: { nodes: [root], index: 0 },
    add_token(data, type) {
      if (type === smd.DOCUMENT) return;
      let parent = data.nodes[data.index]!;
      let tag = TAGS[type];
      if (type === smd.CODE_BLOCK || type === smd.CODE_FENCE) {
        parent = parent.appendChild(doc.createElement('pre'));
        tag = 'code';
      } else if (type === smd.TABLE_ROW) {
        const section = parent.children.length === 0 ? 'thead' : parent.children.length === 1 ? 'tbody' : '';
        parent = section ? parent.appendChild(doc.createElement(section)) : (parent.children[1] as HTMLElement);
      } else if (type === smd.TABLE_CELL) {
        tag = parent.parentElement?.tagName === 'THEAD' ? 'th' : 'td';
      }
      data.nodes[++data.index] = parent.appendChild(doc.createElement(tag ?? 'span'));
    },
    end_token(data) {
      data.index -= 1;
    },
    add_text(data, text) {
      data.nodes[data.index]!.appendChild(doc.createTextNode(text));
    },
    set_attr(data, type, value) {
      data.nodes[data.index]!.setAttribute(smd.attr_to_html_attr(type), value);
    },
  };
}

export interface MarkdownOptions {
  /** Keep images (`![alt](url)`); off, they are dropped. Default true. */
  images?: boolean;
}

/**
 * Markdown → sanitised HTML (streaming-markdown, then DOMPurify). Raw HTML in the text is
 * shown as text, never parsed; links get target=_blank and rel=noopener; `javascript:` and
 * other unsafe URLs, event handlers, scripts, styles and forms are removed.
 */
export function markdown(text: unknown, options: MarkdownOptions = {}): string {
  inert ??= document.implementation.createHTMLDocument('');
  const root = inert.createElement('div');
  const parser = smd.parser(renderer(root));
  smd.parser_write(parser, String(text ?? ''));
  smd.parser_end(parser);
  return sanitizer().sanitize(root.innerHTML, {
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed', 'svg', 'math', ...(options.images === false ? ['img'] : [])],
    FORBID_ATTR: ['style', 'id', 'name'],
    ALLOW_DATA_ATTR: false,
  });
}

/** A search snippet (server HTML whose only markup is the `<mark>` of matched words) → safe HTML: only mark, b and em, without attributes. */
export function snippetHtml(html: string): string {
  return sanitizer().sanitize(html, { ALLOWED_TAGS: ['mark', 'b', 'em'], ALLOWED_ATTR: [] });
}
