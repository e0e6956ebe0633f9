import type { HandlerMap } from '../../core/operation';
import { requirePrincipal } from '../../core/operation';
import { historyContext } from '../history/record';
import { assertPermission } from '../../identity/principal';
import { boardDrift } from './drift';
import { provisioningPrincipal, provisioningStatus } from './provisioner';
import { provisioningReadLimits } from './provisioningSources';
import { applyBoardSet } from './setApply';
import type { BoardCaches } from '../document/save';
import { audited } from '../../observability/audit';
import { listLabels, releaseLabel, transferLabel } from '../management/labels';

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
        force: query.force ?? false,
        audit: { source: ctx, action: 'board.set.apply' },
        caches,
        // FLEET-8
        history: { ...history, origin: { managedBy: body.managedBy, commit: body.origin?.commit ?? null, message: body.origin?.message ?? null } },
      });
      return { status: 200, body: plan };
    },

    /** FLEET-15: the labels, their owners and board counts (admin). */
    async listBoardLabels(_input, ctx) {
      return { status: 200, body: { labels: await listLabels(ctx.db, requirePrincipal(ctx)) } };
    },

    /** FLEET-15: an admin gives a label to a user. */
    async setBoardLabelOwner({ params, body }, ctx) {
      const entry = await audited(ctx, { action: 'board.label.owner', targetType: 'boardSet', targetId: params.label, details: { userId: body.userId } }, (trx) =>
        transferLabel(trx, requirePrincipal(ctx), params.label, body.userId),
      );
      return { status: 200, body: entry };
    },

    /** FLEET-15: an admin releases a label (idempotent; an entry only when it had an owner). */
    async releaseBoardLabel({ params }, ctx) {
      await audited<boolean>(
        ctx,
        (released) => (released ? { action: 'board.label.release', targetType: 'boardSet', targetId: params.label } : null),
        (trx) => releaseLabel(trx, requirePrincipal(ctx), params.label),
      );
      return { status: 204, body: undefined };
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
