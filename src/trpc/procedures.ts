/**
 * The tRPC procedures external automation calls (TRPC-4), each the REST operation it stands for, run through
 * RequestContext.invoke: the same security, validation, rules, answers and messages. Only the shape of the input
 * and output differs.
 */
import { ApiError } from '../core/errors';
import type { InvokeInput, OperationId, RequestContext } from '../core/operation';
import { homeBoardId } from '../boards/management/boards';
import type { components } from '../../generated/api';

type Schemas = components['schemas'];

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

function invalid(name: string, message: string): ApiError {
  return new ApiError('BAD_REQUEST', 'Input validation failed', { issues: [{ instancePath: `/${name}`, message }] });
}

/** `{query, limit}` of Homarr's search procedures: query a string, limit 1-100 (default 10). */
function searchArgs(args: Args): { query: string; limit: number } {
  if (typeof args.query !== 'string') throw invalid('query', 'must be a string');
  const limit = args.limit ?? 10;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 100) throw invalid('limit', 'must be an integer from 1 to 100');
  return { query: args.query, limit };
}

type UserBody = Schemas['User'];
type GroupBody = Schemas['Group'];

/**
 * Homarr's user and group shapes (TRPC-5) from the REST answers: `name` is the username; Tessera keeps no profile
 * image, e-mail verification or sign-in provider other than its own credentials.
 */
const homarrUser = (user: UserBody) => ({ id: user.id, name: user.username, email: user.email, image: null });

function homarrGroup(group: GroupBody, users: UserBody[], detail: boolean) {
  const byId = new Map(users.map((user) => [user.id, user]));
  const members = group.memberIds.flatMap((id) => (byId.has(id) ? [homarrUser(byId.get(id)!)] : []));
  const base = { id: group.id, name: group.name, ownerId: group.ownerId, homeBoardId: group.homeBoardId, mobileHomeBoardId: group.mobileHomeBoardId, position: group.position };
  if (!detail) return { ...base, members };
  const owner = group.ownerId ? byId.get(group.ownerId) : undefined;
  return {
    ...base,
    members: members.map((member) => ({ ...member, provider: 'credentials' })),
    permissions: group.permissions,
    owner: owner ? homarrUser(owner) : null,
  };
}

const allUsers = async (ctx: RequestContext) => (await ctx.invoke('listUsers', {})).body as UserBody[];
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
  // TRPC-5: what Homarr clients call to manage users and groups, in Homarr's shapes.
  'user.getAll': operation('query', 'listUsers', () => ({}), (body) => (body as UserBody[]).map((user) => ({ ...homarrUser(user), emailVerified: null }))),
  'user.search': {
    type: 'query',
    run: async (ctx, input) => {
      const { query, limit } = searchArgs(argsOf(input));
      const needle = query.toLowerCase();
      const users = await allUsers(ctx);
      return users.filter((user) => user.username.toLowerCase().includes(needle)).slice(0, limit).map((user) => ({ id: user.id, name: user.username, image: null }));
    },
  },
  'group.getAll': {
    type: 'query',
    run: async (ctx) => {
      const groups = (await ctx.invoke('listGroups', {})).body as GroupBody[];
      const users = await allUsers(ctx);
      return groups.map((group) => homarrGroup(group, users, false));
    },
  },
  'group.getById': {
    type: 'query',
    run: async (ctx, input) => {
      const group = (await ctx.invoke('getGroup', { params: { groupId: param(argsOf(input), 'id') } })).body as GroupBody;
      return homarrGroup(group, await allUsers(ctx), true);
    },
  },
  'group.addMember': operation('mutation', 'addGroupMember', (args) => ({ params: { groupId: param(args, 'groupId') }, body: { userId: param(args, 'userId') } })),
  'group.removeMember': operation('mutation', 'removeGroupMember', (args) => ({ params: { groupId: param(args, 'groupId'), userId: param(args, 'userId') } })),
};
