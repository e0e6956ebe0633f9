/**
 * The tRPC procedures external automation calls (TRPC-4), each the REST operation it stands for, run through
 * RequestContext.invoke: the same security, validation, rules, answers and messages. Only the shape of the input
 * and output differs.
 */
import { ApiError } from '../core/errors';
import type { InvokeInput, OperationId, RequestContext } from '../core/operation';
import { homeBoardId } from '../boards/management/boards';

export interface Procedure {
  type: 'query' | 'mutation';
  run(ctx: RequestContext, input: unknown): Promise<unknown>;
}

type Args = Record<string, unknown>;

/** The input as an object of arguments; 400 for anything else (a procedure with arguments needs them). */
function argsOf(input: unknown): Args {
  if (input === undefined) return {};
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new ApiError('BAD_REQUEST', 'Input must be an object');
  return input as Args;
}

/** A string argument that becomes a path parameter (400 when missing, as a REST route with that parameter would be). */
function param(args: Args, name: string): string {
  const value = args[name];
  if (typeof value !== 'string' || value === '') throw new ApiError('BAD_REQUEST', 'Input validation failed', { issues: [{ instancePath: `/${name}`, message: 'must be a non-empty string' }] });
  return value;
}

/** Everything but the named arguments: the rest of a `{id, ...fields}` input is the body. */
const without = (args: Args, ...names: string[]) => Object.fromEntries(Object.entries(args).filter(([key]) => !names.includes(key)));

function operation(type: Procedure['type'], operationId: OperationId, map: (args: Args) => InvokeInput = () => ({}), output = (body: unknown) => body): Procedure {
  return { type, run: async (ctx, input) => output((await ctx.invoke(operationId, map(argsOf(input)))).body) };
}

const byId = (args: Args) => ({ params: { id: param(args, 'id') } });
const byIdWithBody = (...omit: string[]) => (args: Args) => ({ params: { id: param(args, 'id') }, body: without(args, 'id', ...omit) });

export const procedures: Record<string, Procedure> = {
  'board.getAllBoards': operation('query', 'listBoards'),
  'board.getBoardByName': operation('query', 'getBoardByName', (args) => ({ params: { name: param(args, 'name') } })),
  'board.getHomeBoard': {
    type: 'query',
    run: async (ctx) => (await ctx.invoke('getBoard', { params: { id: await homeBoardId(ctx.db, ctx.principal) } })).body,
  },
  'board.getBoardPermissions': operation('query', 'getBoardPermissions', byId),
  'board.createBoard': operation('mutation', 'createBoard', (args) => ({ body: args })),
  'board.duplicateBoard': operation('mutation', 'duplicateBoard', byIdWithBody()),
  'board.renameBoard': operation('mutation', 'renameBoard', byIdWithBody()),
  'board.changeBoardVisibility': operation('mutation', 'changeBoardVisibility', byIdWithBody()),
  'board.deleteBoard': operation('mutation', 'deleteBoard', byId),
  'board.setHomeBoard': operation('mutation', 'setHomeBoard', byId),
  'board.setMobileHomeBoard': operation('mutation', 'setMobileHomeBoard', byId),
  'board.savePartialBoardSettings': operation('mutation', 'updateBoardSettings', byIdWithBody()),
  // The PUT without expectedVersion, as the reference's saveBoard takes none.
  'board.saveBoard': operation('mutation', 'saveBoard', byIdWithBody('expectedVersion')),
  'board.saveLayouts': operation('mutation', 'saveBoardLayouts', byIdWithBody()),
  'app.all': operation('query', 'listApps'),
  'app.byId': operation('query', 'getApp', byId),
  'app.selectable': operation('query', 'listSelectableApps'),
  'app.create': operation(
    'mutation',
    'createApp',
    (args) => ({ body: args }),
    (body) => ({ ...(body as Args), id: (body as Args).appId }),
  ),
  'app.update': operation('mutation', 'updateApp', byIdWithBody()),
  'app.delete': operation('mutation', 'deleteApp', byId),
  'integration.all': operation('query', 'listIntegrations'),
};
