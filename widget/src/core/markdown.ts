import DOMPurify from 'dompurify';
import * as smd from 'streaming-markdown';

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

const T = smd.Token;
const TAGS: Partial<Record<smd.Token, string>> = {
  [T.Blockquote]: 'blockquote', [T.Paragraph]: 'p', [T.Line_Break]: 'br', [T.Rule]: 'hr',
  [T.Heading_1]: 'h1', [T.Heading_2]: 'h2', [T.Heading_3]: 'h3', [T.Heading_4]: 'h4', [T.Heading_5]: 'h5', [T.Heading_6]: 'h6',
  [T.Italic_Ast]: 'em', [T.Italic_Und]: 'em', [T.Strong_Ast]: 'strong', [T.Strong_Und]: 'strong', [T.Strike]: 's',
  [T.Code_Inline]: 'code', [T.Link]: 'a', [T.Raw_URL]: 'a', [T.Image]: 'img',
  [T.List_Unordered]: 'ul', [T.List_Ordered]: 'ol', [T.List_Item]: 'li', [T.Table]: 'table', [T.Table_Row]: 'tr',
  [T.Equation_Block]: 'code', [T.Equation_Inline]: 'code', [T.Checkbox]: 'span',
};

/**
 * A streaming-markdown renderer building into `root`, whose document is inert (the library's
 * default renderer uses the page's document, where an image starts loading when created).
 */
function renderer(root: HTMLElement): smd.Default_Renderer {
  const doc = root.ownerDocument;
  return {
    data: { nodes: [root, root, root, root, root, root], index: 0 },
    add_token(data, type) {
      if (type === T.Document) return;
      let parent = data.nodes[data.index]!;
      let tag = TAGS[type];
      if (type === T.Code_Block || type === T.Code_Fence) {
        parent = parent.appendChild(doc.createElement('pre'));
        tag = 'code';
      } else if (type === T.Table_Row) {
        const section = parent.children.length === 0 ? 'thead' : parent.children.length === 1 ? 'tbody' : '';
        parent = section ? parent.appendChild(doc.createElement(section)) : (parent.children[1] as HTMLElement);
      } else if (type === T.Table_Cell) {
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
  smd.parser_write(parser, typeof text === 'string' ? text : String(text ?? ''));
  smd.parser_end(parser);
  return sanitizer().sanitize(root.innerHTML, {
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed', 'svg', 'math', ...(options.images === false ? ['img'] : [])],
    FORBID_ATTR: ['style', 'id', 'name'],
    ALLOW_DATA_ATTR: false,
  });
}
