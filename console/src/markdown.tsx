import { useLayoutEffect, useRef } from 'preact/hooks';
import { renderAnswer } from '../../widget/src/ui/dom.js';

/** A source an answer cites, as the API gives it (a transcript's citations may lack a title or URL). */
export interface Cited {
  ref?: number;
  title?: string;
  url?: string;
}

/**
 * An answer's markdown rendered as the widgets render it (the widget's own renderer:
 * streaming-markdown, then DOMPurify; raw HTML in the text shown as text, images dropped),
 * its `[n]` markers linked to the n-th of `sources`.
 */
export function Markdown({ text, sources = [] }: { text: string; sources?: readonly Cited[] }) {
  const element = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    renderAnswer(element.current!, text, sources.map((s) => ({ ref: s.ref, title: s.title ?? '', url: s.url ?? '' })));
  }, [text, sources]);
  return <div class="content md" ref={element} />;
}
