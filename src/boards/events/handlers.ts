import type { HandlerMap, RequestContext } from '../../core/operation';
import { headerList, ResponseTakeover } from '../../core/operation';
import { badRequest } from '../../core/errors';
import { assertBoardAccess } from '../access';
import type { BoardEventHub } from './hub';

/** EVENT-5: streams are counted per user, or per client address for anonymous callers. */
const callerKeyOf = (ctx: RequestContext) => (ctx.principal ? `user:${ctx.principal.userId}` : `address:${ctx.clientIp}`);

/** `Last-Event-ID` (EventSource sends it when it reconnects): the revision the client saw last. */
function lastEventIdOf(ctx: RequestContext): number | null {
  const value = headerList(ctx, 'last-event-id')?.trim();
  if (value === undefined || value === '') return null;
  // The document declares an int32 revision; leading zeros read as the same number.
  if (!/^\d+$/.test(value) || Number(value) > 2147483647) throw badRequest('Last-Event-ID must be a revision number');
  return Number(value);
}

/** GET /api/boards/{id}/events: the board's change feed as Server-Sent Events (EVENT-1..6). */
export const boardEventHandlers = ({ events }: { events: BoardEventHub }) =>
  ({
    async streamBoardEvents({ params }, ctx) {
      await assertBoardAccess(ctx.db, params.id, ctx.principal, 'view');
      const lastEventId = lastEventIdOf(ctx);
      const callerKey = callerKeyOf(ctx);
      const release = await events.reserve(callerKey);
      return {
        status: 200,
        body: new ResponseTakeover(async (req, res) => {
          try {
            await events.open({ boardId: params.id, res, headers: req.headers, principal: ctx.principal, callerKey, lastEventId, release, head: req.method === 'HEAD' });
          } catch (error) {
            release();
            throw error;
          }
        }),
      };
    },
  }) satisfies Partial<HandlerMap>;
