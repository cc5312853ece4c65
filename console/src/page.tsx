import type { ComponentChildren, VNode } from 'preact';
import type { Paged } from './resources.js';
import { Pager, Show, type Loaded } from './ui.js';

/**
 * A console page: a section named by its heading (`${id}-title`), whose row also holds `head`
 * (a link back, actions, filters or a note), then the page's content.
 */
export function Page({ id, title, head, children }: { id: string; title: ComponentChildren; head?: ComponentChildren; children?: ComponentChildren }) {
  return (
    <section aria-labelledby={`${id}-title`}>
      <header class="page-head">
        <h1 id={`${id}-title`}>{title}</h1>
        {head}
      </header>
      {children}
    </section>
  );
}

/** A table of `rows`: `columns` are the head row's cells and `row` makes each item's row (keyed). */
export function Table<T>({ columns, rows, row, testid }: { columns: ComponentChildren; rows: readonly T[]; row: (item: T) => VNode; testid?: string }) {
  return (
    <table data-testid={testid}>
      <thead>
        <tr>{columns}</tr>
      </thead>
      <tbody>{rows.map(row)}</tbody>
    </table>
  );
}

/**
 * A loaded list as a table in a card: loading and errors as `Show` gives them; `empty` in
 * place of the card when the list has nothing (without it, an empty table); `caption` above
 * the table; a pager under it when `onPage` is given. `columns` and `row` as for `Table`.
 */
export function ListTable<T>({
  list,
  columns,
  row,
  empty,
  caption,
  onPage,
}: {
  list: Loaded<Paged<T>>;
  columns: ComponentChildren;
  row: (item: T) => VNode;
  empty?: ComponentChildren;
  caption?: (meta: Paged<T>['meta']) => ComponentChildren;
  onPage?: (page: number) => void;
}) {
  return (
    <Show loaded={list}>
      {(l) =>
        l.data.length === 0 && empty ? (
          empty
        ) : (
          <div class="card">
            {caption?.(l.meta)}
            <Table columns={columns} rows={l.data} row={row} />
            {onPage && <Pager page={l.meta.current_page} last={l.meta.last_page} onPage={onPage} />}
          </div>
        )
      }
    </Show>
  );
}
