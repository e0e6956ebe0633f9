/**
 * The local admin commands (users, groups, API keys, permissions, migrate): they work on the local database with
 * full rights, as a database administrator would, on the input rules of the REST operation each one stands for (CLI-3:
 * the same OpenAPI schemas, so `users create 'evil;rm'` is the REST route's 400). One table describes them; `runCli` runs them from an argv (tests
 * call it with their own database) and `addAdminCommands` gives each one its commander command.
 */
import { parseArgs } from 'node:util';
import type { Command } from 'commander';
import type { Db } from '../db/database';
import { deleteApiKey, insertApiKey, listApiKeys } from '../identity/apiKeys';
import { addMember, createGroup, findGroupIdByName, listGroups, removeMember, setGroupPermissions } from '../identity/groups';
import { globalPermissions, GlobalPermission, isGlobalPermission } from '../identity/permissions';
import { loadPrincipal, type Principal } from '../identity/principal';
import { loadBoardAccess } from '../boards/access';
import type { McpMode } from '../config/config';
import { createUser, deleteUser, findUserIdByName, listUsers, setPassword } from '../identity/users';
import { validateOperationInput, validateSchemaValue } from '../core/requestValidation';
import { UsageError } from './errors';
import pino from 'pino';
import { audited, AuditEvent } from '../observability/audit';
import { Group } from '../db/models';
import type { ConnectionOptions } from './remote/connection';
import { setPasswordRemote } from './remote/users';

export interface AdminOptions {
  password?: string;
  email?: string;
  group?: string[];
  name?: string;
  scope?: string[];
  expiresAt?: string;
  board?: string[];
  mcpMode?: string;
  agentApprove?: string;
}

/** The options admin commands take, by their key in AdminOptions. */
const optionSpecs = {
  password: { flag: 'password', value: 'password', multiple: false, description: 'the password' },
  email: { flag: 'email', value: 'email', multiple: false, description: 'the e-mail address' },
  group: { flag: 'group', value: 'name', multiple: true, description: 'a group to add the user to (repeatable)' },
  name: { flag: 'name', value: 'name', multiple: false, description: 'a name for the key' },
  scope: { flag: 'scope', value: 'permission', multiple: true, description: 'limit the key to this permission (repeatable)' },
  expiresAt: { flag: 'expires-at', value: 'iso-8601', multiple: false, description: 'when the key expires' },
  board: { flag: 'board', value: 'board-id', multiple: true, description: 'limit the key to this board (repeatable; KEY-7)' },
  mcpMode: { flag: 'mcp-mode', value: 'read-only|propose|write', multiple: false, description: "narrow the server's MCP mode for the key (KEY-9)" },
  agentApprove: { flag: 'agent-approve', value: 'yes|no', multiple: false, description: 'let the key apply its own MCP proposals without a person (KEY-10)' },
} as const satisfies Record<keyof AdminOptions, { flag: string; value: string; multiple: boolean; description: string }>;

interface AdminArgument {
  name: string;
  /** How a missing argument is named in `Missing <what>`. */
  what: string;
  /** Takes the remaining arguments (possibly none). */
  variadic?: boolean;
}

interface AdminCommand {
  /** One word (`migrate`) or area and action (`users create`). */
  name: string;
  description: string;
  args: AdminArgument[];
  options: (keyof AdminOptions)[];
  run(db: Db, args: string[], options: AdminOptions): Promise<unknown>;
  /** The same on a running instance over its API (`--remote`, with `--url`, `--api-key`, `--context`). */
  remote?(args: string[], options: AdminOptions & ConnectionOptions): Promise<unknown>;
  /** Said after the local command's failure because the embedded database is in use by the server. */
  whenInUse?(args: string[]): string;
}

/**
 * AUDIT-1/2: a local admin command's change and its audit entry in one transaction, surface `cli`, no client address
 * or request id, the actor named `local-admin` (no user). The entry is in the table; the CLI prints no log line.
 */
const cliAudited = <T>(db: Db, event: AuditEvent | ((result: T) => AuditEvent), work: (trx: Db) => Promise<T>) =>
  audited<T>(
    { db, logger: pino({ level: 'silent' }), requestId: null, clientIp: null, surface: 'cli', principal: { userId: null, username: 'local-admin', apiKeyId: null } },
    event,
    work,
  );

// The CLI acts with full rights on the local database, like a database administrator would.
const operator: Principal = {
  userId: 'cli',
  username: 'cli',
  groupIds: [],
  permissions: new Set(globalPermissions),
  authMethod: 'apiKey',
  apiKeyId: null,
};

async function requireUserId(db: Db, username: string): Promise<string> {
  const id = await findUserIdByName(db, username);
  if (!id) throw new UsageError(`No user named "${username}"`);
  return id;
}

async function requireGroupId(db: Db, name: string): Promise<string> {
  const id = await findGroupIdByName(db, name);
  if (!id) throw new UsageError(`No group named "${name}"`);
  return id;
}

/** `--agent-approve yes|no`. */
function yesNo(value: string): boolean {
  if (value === 'yes' || value === 'true') return true;
  if (value === 'no' || value === 'false') return false;
  throw new UsageError(`--agent-approve must be yes or no, got "${value}"`);
}

/** KEY-7: a key is limited only to boards its owner may view (any other id is unknown, as over the API). */
async function assertUserSeesBoards(db: Db, userId: string, boardIds: readonly string[]): Promise<void> {
  const owner = await loadPrincipal(db, userId, { authMethod: 'session', apiKeyId: null, scopes: null });
  const unknown: string[] = [];
  for (const id of new Set(boardIds)) {
    const access = await loadBoardAccess(db, id, owner);
    if (!access?.canView) unknown.push(id);
  }
  if (unknown.length > 0) throw new UsageError(`Unknown board ids: ${unknown.join(', ')}`);
}

function permissionsFrom(values: string[]): GlobalPermission[] {
  const unknown = values.filter((v) => !isGlobalPermission(v));
  if (unknown.length > 0) throw new UsageError(`Unknown permissions: ${unknown.join(', ')} (see: tessera permissions)`);
  return values as GlobalPermission[];
}

const username: AdminArgument = { name: 'username', what: 'username' };
const group: AdminArgument = { name: 'group', what: 'group name' };

const adminCommands: AdminCommand[] = [
  { name: 'migrate', description: 'apply database migrations', args: [], options: [], run: async () => ({ migrated: true }) },
  { name: 'permissions', description: 'list global permission names', args: [], options: [], run: async () => globalPermissions },
  { name: 'users list', description: 'list users', args: [], options: [], run: async (db) => (await listUsers(db)).items },
  {
    name: 'users create',
    description: 'create a user',
    args: [username],
    options: ['password', 'email', 'group'],
    async run(db, [name], options) {
      if (options.password === undefined) throw new UsageError('Missing --password');
      const groupIds = await Promise.all((options.group ?? []).map((g) => requireGroupId(db, g)));
      const body = { username: name, password: options.password, ...(options.email !== undefined && { email: options.email }), ...(groupIds.length > 0 && { groupIds }) };
      validateOperationInput('createUser', { body });
      const userId = await cliAudited<string>(db, (id) => ({ action: 'user.create', targetType: 'user', targetId: id, details: { username: name } }), (trx) =>
        createUser(trx, body),
      );
      return { userId };
    },
  },
  {
    name: 'users delete',
    description: 'delete a user',
    args: [username],
    options: [],
    async run(db, [name]) {
      const userId = await requireUserId(db, name);
      await cliAudited(db, { action: 'user.delete', targetType: 'user', targetId: userId }, (trx) => deleteUser(trx, userId, null));
      return { deleted: true };
    },
  },
  {
    name: 'users set-password',
    description: "set a user's password (--password is required); --remote: on the running instance, with an admin's API key",
    args: [username],
    options: ['password'],
    remote: ([name], options) => setPasswordRemote(options, name, options.password),
    whenInUse: ([name]) =>
      `To set the password while the server runs: tessera users set-password ${name} --password <password> --remote (the admin's API key in TESSERA_API_KEY or --api-key, the instance in TESSERA_URL or --url).`,
    async run(db, [name], options) {
      if (options.password === undefined) throw new UsageError('Missing --password');
      validateSchemaValue('Password', options.password, 'password');
      const userId = await requireUserId(db, name);
      await cliAudited(db, { action: 'user.password', targetType: 'user', targetId: userId }, (trx) => setPassword(trx, userId, options.password!));
      return { updated: true };
    },
  },
  { name: 'groups list', description: 'list groups', args: [], options: [], run: async (db) => (await listGroups(db)).items },
  {
    name: 'groups create',
    description: 'create a group',
    args: [group],
    options: [],
    async run(db, [name]) {
      validateOperationInput('createGroup', { body: { name } });
      const groupId = await cliAudited<string>(db, (id) => ({ action: 'group.create', targetType: 'group', targetId: id, details: { name } }), (trx) =>
        createGroup(trx, name, null),
      );
      return { groupId };
    },
  },
  {
    name: 'groups delete',
    description: 'delete a group',
    args: [group],
    options: [],
    async run(db, [name]) {
      const groupId = await requireGroupId(db, name);
      await cliAudited(db, { action: 'group.delete', targetType: 'group', targetId: groupId }, async (trx) => { await Group.query(trx).deleteById(groupId); });
      return { deleted: true };
    },
  },
  {
    name: 'groups add-member',
    description: 'add a user to a group',
    args: [group, username],
    options: [],
    async run(db, [groupName, user]) {
      const [groupId, userId] = [await requireGroupId(db, groupName), await requireUserId(db, user)];
      await cliAudited(db, { action: 'group.member.add', targetType: 'group', targetId: groupId, details: { userId } }, (trx) => addMember(trx, groupId, userId));
      return { added: true };
    },
  },
  {
    name: 'groups remove-member',
    description: 'remove a user from a group',
    args: [group, username],
    options: [],
    async run(db, [groupName, user]) {
      const [groupId, userId] = [await requireGroupId(db, groupName), await requireUserId(db, user)];
      await cliAudited(db, { action: 'group.member.remove', targetType: 'group', targetId: groupId, details: { userId } }, (trx) =>
        removeMember(trx, groupId, userId),
      );
      return { removed: true };
    },
  },
  {
    name: 'groups set-permissions',
    description: "replace the group's global permissions",
    args: [group, { name: 'permission', what: 'permission', variadic: true }],
    options: [],
    async run(db, [groupName, ...permissions]) {
      const groupId = await requireGroupId(db, groupName);
      const body = { permissions: permissionsFrom(permissions) };
      validateOperationInput('setGroupPermissions', { params: { groupId }, body });
      const granted = await cliAudited(db, { action: 'group.permissions', targetType: 'group', targetId: groupId, details: { permissions: body.permissions } }, (trx) =>
        setGroupPermissions(trx, groupId, body.permissions),
      );
      return { permissions: granted };
    },
  },
  {
    name: 'api-keys create',
    description: 'create an API key for a user (printed once)',
    args: [username],
    options: ['name', 'scope', 'expiresAt', 'board', 'mcpMode', 'agentApprove'],
    async run(db, [user], options) {
      const body = {
        userId: await requireUserId(db, user),
        ...(options.name !== undefined && { name: options.name }),
        ...(options.scope !== undefined && { scopes: permissionsFrom(options.scope) }),
        ...(options.expiresAt !== undefined && { expiresAt: options.expiresAt }),
        ...(options.board !== undefined && { boardIds: options.board }),
        ...(options.mcpMode !== undefined && { mcpMode: options.mcpMode as McpMode }),
        ...(options.agentApprove !== undefined && { agentApprove: yesNo(options.agentApprove) }),
      };
      validateOperationInput('createApiKey', { body });
      if (body.boardIds) await assertUserSeesBoards(db, body.userId, body.boardIds);
      return cliAudited<Awaited<ReturnType<typeof insertApiKey>>>(
        db,
        (key) => ({ action: 'apikey.create', targetType: 'apikey', targetId: key.id, details: { userId: key.userId, name: key.name, scopes: key.scopes, expiresAt: key.expiresAt } }),
        (trx) =>
          insertApiKey(trx, {
            userId: body.userId,
            name: body.name ?? null,
            scopes: body.scopes ?? null,
            expiresAt: body.expiresAt ?? null,
            boardIds: body.boardIds ?? null,
            mcpMode: body.mcpMode ?? null,
            agentApprove: body.agentApprove ?? false,
          }),
      );
    },
  },
  {
    name: 'api-keys list',
    description: "list a user's API keys",
    args: [username],
    options: [],
    run: async (db, [user]) => (await listApiKeys(db, operator, await requireUserId(db, user))).items,
  },
  {
    name: 'api-keys delete',
    description: 'delete an API key',
    args: [{ name: 'key-id', what: 'key id' }],
    options: [],
    async run(db, [keyId]) {
      await cliAudited(db, { action: 'apikey.revoke', targetType: 'apikey', targetId: keyId }, (trx) => deleteApiKey(trx, operator, keyId));
      return { deleted: true };
    },
  },
];

const adminAreas: Record<string, string> = {
  users: 'manage users (local database)',
  groups: 'manage groups and their global permissions (local database)',
  'api-keys': 'manage API keys (local database)',
};

function requiredArguments(command: AdminCommand, args: string[]): string[] {
  command.args.forEach((arg, i) => {
    if (!arg.variadic && !args[i]) throw new UsageError(`Missing ${arg.what}`);
  });
  return args;
}

/** Runs one admin command given as an argv (`['users', 'create', 'alice', '--password', 'x']`) on `db`. */
export async function runCli(argv: string[], db: Db): Promise<unknown> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: Object.fromEntries(Object.values(optionSpecs).map((spec) => [spec.flag, { type: 'string', multiple: spec.multiple }])),
  });
  const [area, action] = positionals;
  const command = adminCommands.find((c) => c.name === area || c.name === `${area} ${action}`);
  if (!command) throw new UsageError(area ? `Unknown command: ${positionals.join(' ')}` : 'No command given');
  const options = Object.fromEntries(
    Object.entries(optionSpecs).flatMap(([key, spec]) => (values[spec.flag] === undefined ? [] : [[key, values[spec.flag]]])),
  ) as AdminOptions;
  const args = positionals.slice(command.name.split(' ').length);
  return command.run(db, requiredArguments(command, args), options);
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/**
 * Adds every admin command to `program`; `run` opens the local database for the chosen one (help and usage errors
 * never get that far).
 */
export function addAdminCommands(program: Command, run: (task: (db: Db) => Promise<unknown>) => Promise<void>, runRemote: (work: () => Promise<unknown>) => Promise<void>): void {
  const areas = new Map<string, Command>();
  for (const command of adminCommands) {
    const words = command.name.split(' ');
    let parent = program;
    if (words.length === 2) {
      const [area] = words;
      if (!areas.has(area)) areas.set(area, program.command(area).description(adminAreas[area]));
      parent = areas.get(area)!;
    }
    const sub = parent.command(words[words.length - 1]).description(command.description);
    for (const arg of command.args) sub.argument(arg.variadic ? `[${arg.name}...]` : `<${arg.name}>`);
    for (const key of command.options) {
      const spec = optionSpecs[key];
      const flags = `--${spec.flag} <${spec.value}>`;
      if (spec.multiple) sub.option(flags, spec.description, collect);
      else sub.option(flags, spec.description);
    }
    if (command.remote) {
      sub
        .option('--remote', 'on the running instance over its API, with an admin\'s API key (while the server uses the embedded database)')
        .option('--url <url>', 'with --remote: the instance (default: $TESSERA_URL, or the config file)')
        .option('--api-key <id.token>', 'with --remote: an admin\'s API key (default: $TESSERA_API_KEY, or the config file)')
        .option('--context <name>', 'with --remote: a context of the config file');
    }
    sub.action(async (...params: unknown[]) => {
      const self = params[params.length - 1] as Command;
      const args = self.processedArgs.flatMap((value: string | string[] | undefined) => value ?? []);
      const options = self.opts<AdminOptions & ConnectionOptions & { remote?: boolean }>();
      if (command.remote && options.remote) return runRemote(() => command.remote!(args, options));
      try {
        return await run((db) => command.run(db, args, options));
      } catch (error) {
        // PASS-1: the embedded database is the server's while it runs; say how to do the same through it.
        if (command.whenInUse && error instanceof Error && / is in use by /.test(error.message)) throw new Error(`${error.message} ${command.whenInUse(args)}`);
        throw error;
      }
    });
  }
}
