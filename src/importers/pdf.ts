/**
 * A PDF's text (Mozilla's pdf.js, legacy build for Node: no canvas, no worker thread), page
 * after page, lines as pdf.js ends them, and its title from the document information. Scanned
 * PDFs (images without a text layer) give no text.
 */
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

/** Pages read, at most (a manual of a thousand pages is several entries' worth anyway). */
const MAX_PAGES = 2_000;

export async function pdfText(bytes: Uint8Array): Promise<{ title: string | null; text: string }> {
  const document = await getDocument({ data: bytes, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0 }).promise;
  try {
    const info = (await document.getMetadata().catch(() => null))?.info as { Title?: unknown } | undefined;
    const title = typeof info?.Title === 'string' && info.Title.trim() !== '' ? info.Title.trim() : null;
    const pages: string[] = [];
    for (let n = 1; n <= Math.min(document.numPages, MAX_PAGES); n++) {
      const page = await document.getPage(n);
      const content = await page.getTextContent();
      let text = '';
      for (const item of content.items) {
        if (!('str' in item)) continue;
        text += item.str + (item.hasEOL ? '\n' : '');
      }
      pages.push(text.replace(/[ \t]+\n/g, '\n').trim());
      page.cleanup();
    }
    return { title, text: pages.filter((p) => p !== '').join('\n\n') };
  } finally {
    await document.destroy();
  }
}
