import { audited } from '../observability/audit';
import type { HandlerMap } from '../core/operation';
import { requirePrincipal } from '../core/operation';
import { assertPermission } from '../identity/principal';
import { readServerBoardSettings, updateServerBoardSettings } from './serverSettings';

/** Server-wide board settings (admin). */
export const settingsHandlers = {
  async getServerBoardSettings(_input, ctx) {
    assertPermission(requirePrincipal(ctx), 'admin');
    return { status: 200, body: await readServerBoardSettings(ctx.db) };
  },

  async updateServerBoardSettings({ body }, ctx) {
    assertPermission(requirePrincipal(ctx), 'admin');
    const settings = await audited(ctx, { action: 'settings.update', targetType: 'settings', details: { fields: Object.keys(body ?? {}) } }, (trx) =>
      updateServerBoardSettings(trx, body),
    );
    return { status: 200, body: settings };
  },
} satisfies Partial<HandlerMap>;
