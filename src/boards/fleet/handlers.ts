import type { HandlerMap } from '../../core/operation';
import { requirePrincipal } from '../../core/operation';
import { historyContext } from '../history/record';
import { assertPermission } from '../../identity/principal';
import { boardDrift } from './drift';
import { provisioningPrincipal, provisioningStatus } from './provisioner';
import { provisioningReadLimits } from './provisioningSources';
import { applyBoardSet } from './setApply';
import type { BoardCaches } from '../document/save';

/** A fleet of boards as code (FLEET-*): the set apply. */
export const boardFleetHandlers = ({ caches }: { caches: BoardCaches }) =>
  ({
    async applyBoardSet({ query, body }, ctx) {
      const history = historyContext(ctx, 'applyBoardSet');
      const plan = await applyBoardSet(ctx.db, {
        principal: requirePrincipal(ctx),
        managedBy: body.managedBy,
        files: body.boards,
        dryRun: query.dryRun ?? false,
        prune: query.prune ?? false,
        audit: { source: ctx, action: 'board.set.apply' },
        caches,
        // FLEET-8
        history: { ...history, origin: { managedBy: body.managedBy, commit: body.origin?.commit ?? null, message: body.origin?.message ?? null } },
      });
      return { status: 200, body: plan };
    },

    /** PROV-3: admin only (it names server paths). */
    async getProvisioningStatus(_input, ctx) {
      assertPermission(requirePrincipal(ctx), 'admin');
      return { status: 200, body: { sources: await provisioningStatus(ctx.db) } };
    },

    async getBoardDrift({ params }, ctx) {
      const drift = await boardDrift(ctx.db, ctx.principal, params.id, () => provisioningPrincipal(ctx.db, ctx.config.provisioningUser), provisioningReadLimits(ctx.config));
      return { status: 200, body: drift };
    },
  }) satisfies Partial<HandlerMap>;
