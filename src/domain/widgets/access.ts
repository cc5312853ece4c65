import { requireOrganisation, requirePermission, requireSources, type Principal } from '../access/principal.js';
import type { Permission } from '../../shared/permissions.js';
import { isApiKey } from '../access/apiKeys.js';
import { secretMatches } from '../access/credentials.js';
import { ForbiddenError, UnauthenticatedError } from '../errors.js';
import type { IntegrationService } from '../search/integrations.js';
import type { StoredWidget } from './port.js';

/** What a widget request presents: the page's Origin header and any bearer credential. */
export interface WidgetCredentials {
  origin: string | null;
  bearer: string | null;
}

/** The host (with a non-default port) of an http(s) Origin header, lower-cased; null otherwise. */
export function originHost(origin: string | null): string | null {
  if (!origin) return null;
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host.toLowerCase() : null;
  } catch {
    return null;
  }
}

/** Whether the Origin is exactly on the widget's websites list (`example.com` does not admit `www.example.com`). */
export function originAllowed(widget: Pick<StoredWidget, 'websites'>, origin: string | null): boolean {
  const host = originHost(origin);
  return host !== null && widget.websites.includes(host);
}

/**
 * Authorises a widget request by any one of (SPEC.md "Widget authentication"): the Origin on
 * the websites list; the widget's secret key as bearer (hashes compared in constant time); an
 * organisation API key of the widget's organisation with `permission` covering every source
 * of the widget's integration. Refusals: no credential → 401; a bearer that is neither a
 * valid key nor this widget's secret (another widget's secret included: it is simply not
 * this widget's credential) → 401; a key of another organisation, without the permission
 * or limited to other sources → 403; only an Origin off the list → 403.
 */
export async function authoriseWidget(
  deps: { apiKeys: { authenticate(bearer: string): Promise<Principal> }; integrations: Pick<IntegrationService, 'get'> },
  widget: StoredWidget,
  credentials: WidgetCredentials,
  permission: Permission,
): Promise<'origin' | 'secret' | 'key'> {
  if (originAllowed(widget, credentials.origin)) return 'origin';
  const { bearer } = credentials;
  if (bearer !== null && isApiKey(bearer)) {
    const principal = await deps.apiKeys.authenticate(bearer);
    requireOrganisation(principal, widget.organisationId);
    requirePermission(principal, permission);
    const integration = await deps.integrations.get(principal, widget.integration_id);
    requireSources(principal, integration.collection_ids);
    return 'key';
  }
  if (bearer !== null) {
    if (secretMatches(bearer, widget.secretHash)) return 'secret';
    throw new UnauthenticatedError();
  }
  if (credentials.origin !== null) throw new ForbiddenError('This website is not allowed to use this widget.');
  throw new UnauthenticatedError();
}
