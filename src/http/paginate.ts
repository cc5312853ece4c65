import type { FastifyRequest } from 'fastify';
import { lastPage, type Page } from '../domain/pagination.js';

/**
 * Presents a page as SPEC.md's `{data, links, meta}`. Links keep the request's other
 * query parameters and use LORE_PUBLIC_URL when set (else the request's own host).
 */
export function presentPage<T>(request: FastifyRequest, page: Page<T>, publicUrl: string | undefined) {
  const last = lastPage(page.total, page.perPage);
  const base = new URL(request.url, publicUrl ?? `${request.protocol}://${request.host}`);
  const link = (n: number) => {
    const url = new URL(base);
    url.searchParams.set('page', String(n));
    url.searchParams.set('per_page', String(page.perPage));
    return url.toString();
  };
  return {
    data: page.items,
    links: {
      first: link(1),
      last: link(last),
      prev: page.page > 1 ? link(Math.min(page.page - 1, last)) : null,
      next: page.page < last ? link(page.page + 1) : null,
    },
    meta: { current_page: page.page, last_page: last, per_page: page.perPage, total: page.total },
  };
}
