/**
 * VIEW-5: the board page's Content-Security-Policy, widened only as far as the board's widgets need: images from
 * `https:` (app icons, markdown images) and from the `http:` origins of the board's own app icons, frames only
 * from the origins of its iframe widgets. Script, style and connections stay the instance's own (PAGE-5).
 */
import type { Db } from '../db/database';
import type { Principal } from '../identity/principal';
import { listBoardApps, type BoardApp } from '../apps/boardApps';
import { policyOrigin } from '../apps/urls';
import { Item } from '../db/models';

export interface PageSources {
  /** `http:` origins of app icons (https: icons are allowed as a class). */
  imageOrigins: string[];
  /** http(s) origins of iframe widgets' embed URLs. */
  frameOrigins: string[];
}

/**
 * The sources a board's widgets need, from its readable apps and its iframe items' options. Pure. SEC-8: only origins
 * whose host passes the strict grammar (policyOrigin): a stored value with `;`, `,` or `*` in its host (written before
 * the write rules refused it, or an iframe option, which is stored as sent) adds nothing to the policy.
 */
export function pageSources(apps: readonly { iconUrl: string }[], frameOptions: readonly unknown[]): PageSources {
  const imageOrigins = new Set(apps.flatMap((app) => policyOrigin(app.iconUrl, ['http:']) ?? []));
  const frameOrigins = new Set(
    frameOptions.flatMap((options) => policyOrigin(typeof options === 'object' && options !== null ? (options as Record<string, unknown>).embedUrl : null, ['http:', 'https:']) ?? []),
  );
  return { imageOrigins: [...imageOrigins].sort(), frameOrigins: [...frameOrigins].sort() };
}

/** The base policy with `img-src` widened and `frame-src` added for these sources. Pure. */
export function widenPolicy(policy: string, sources: PageSources): string {
  const directives = policy.split(';').map((d) => d.trim()).filter(Boolean);
  const out = directives.map((directive) => (directive.startsWith('img-src ') ? `img-src 'self' data: https: ${sources.imageOrigins.join(' ')}`.trim() : directive));
  if (!out.some((d) => d.startsWith('img-src '))) out.push(`img-src 'self' data: https: ${sources.imageOrigins.join(' ')}`.trim());
  if (sources.frameOrigins.length > 0) out.push(`frame-src ${sources.frameOrigins.join(' ')}`);
  return out.join('; ');
}

/**
 * What the board page of `boardId` needs, as the caller may read it (the caller has view access): the sources of its
 * policy, and the board's readable apps (VIEW-2), which the page is served with (VIEW-7). Two queries more.
 */
export async function loadPageSources(db: Db, principal: Principal | null, boardId: string): Promise<PageSources & { apps: BoardApp[] }> {
  const [apps, frames] = await Promise.all([
    listBoardApps(db, principal, boardId),
    Item.query(db).where({ boardId, kind: 'iframe' }).select('options').castTo<{ options: unknown }[]>(),
  ]);
  return { ...pageSources(apps, frames.map((row) => row.options)), apps };
}
