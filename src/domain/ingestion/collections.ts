import { randomUUID } from 'node:crypto';
import { NotFoundError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Collection, Scope } from '../model.js';
import type { Page, PageRequest } from '../pagination.js';
import type { CollectionRepository } from './port.js';

export interface CollectionService {
  list(scope: Scope, page: PageRequest): Promise<Page<Collection>>;
  create(scope: Scope, name: string): Promise<Collection>;
  /** Throws NotFoundError for unknown ids and for collections of other organisations. */
  get(scope: Scope, id: string): Promise<Collection>;
  update(scope: Scope, id: string, name: string): Promise<Collection>;
  /** Deletes the collection and everything in it. */
  delete(scope: Scope, id: string): Promise<void>;
}

export function createCollectionService(deps: { collections: CollectionRepository }): CollectionService {
  const { collections } = deps;
  const found = (collection: Collection | null): Collection => {
    if (!collection) throw new NotFoundError('Collection');
    return collection;
  };
  return {
    list: (scope, page) => collections.list(scope, page),
    create: (scope, name) => collections.create(scope, randomUUID(), name),
    async get(scope, id) {
      return found(isUuid(id) ? await collections.get(scope, id) : null);
    },
    async update(scope, id, name) {
      return found(isUuid(id) ? await collections.update(scope, id, name) : null);
    },
    async delete(scope, id) {
      if (!isUuid(id) || !(await collections.delete(scope, id))) throw new NotFoundError('Collection');
    },
  };
}
