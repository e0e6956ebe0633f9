import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config/config';
import { createDatabase, Db } from '../db/database';
import { lockDataDir } from '../db/dataDirLock';
import { migrateToLatest } from '../db/migrate';
import { ApiError } from '../core/errors';
import { deleteApiKey, insertApiKey, listApiKeys } from '../identity/apiKeys';
import { bootstrapAdmin } from '../identity/bootstrap';
import { addMember, createGroup, findGroupIdByName, listGroups, removeMember, setGroupPermissions } from '../identity/groups';
import { globalPermissions, GlobalPermission, isGlobalPermission } from '../identity/permissions';
import type { Principal } from '../identity/principal';
import { createUser, deleteUser, findUserIdByName, listUsers, setPassword } from '../identity/users';

const usage = `Usage: tessera <command> [options]     (or: npm run cli -- <command> [options])

Works on the local database named by DATABASE_URL, or the embedded one in DATA_DIR (default ./data;
stop the server first: the embedded database allows one process at a time).

  migrate                                         apply database migrations
  users list
  users create <username> [--password P] [--email E] [--group NAME]...
  users delete <username>
  users set-password <username> --password P
  groups list
  groups create <name>
  groups delete <name>
  groups add-member <group> <username>
  groups remove-member <group> <username>
  groups set-permissions <group> [permission...]  replace the group's global permissions
  api-keys create <username> [--name N] [--scope PERMISSION]... [--expires-at ISO-8601]
  api-keys list <username>
  api-keys delete <key-id>
  permissions                                     list global permission names

Output is JSON (one document per command).`;

class UsageError extends Error {}

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

function permissionsFrom(values: string[]): GlobalPermission[] {
  const unknown = values.filter((v) => !isGlobalPermission(v));
  if (unknown.length > 0) throw new UsageError(`Unknown permissions: ${unknown.join(', ')} (see: tessera permissions)`);
  return values as GlobalPermission[];
}

export async function runCli(argv: string[], db: Db): Promise<unknown> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      password: { type: 'string' },
      email: { type: 'string' },
      group: { type: 'string', multiple: true },
      name: { type: 'string' },
      scope: { type: 'string', multiple: true },
      'expires-at': { type: 'string' },
    },
  });
  const [area, action, ...args] = positionals;
  const arg = (i: number, what: string) => {
    if (!args[i]) throw new UsageError(`Missing ${what}`);
    return args[i];
  };
  switch (`${area} ${action ?? ''}`.trim()) {
    case 'migrate':
      return { migrated: true };
    case 'permissions':
      return globalPermissions;
    case 'users list':
      return listUsers(db);
    case 'users create': {
      const groupIds = await Promise.all((values.group ?? []).map((g) => requireGroupId(db, g)));
      const userId = await createUser(db, { username: arg(0, 'username'), password: values.password, email: values.email, groupIds });
      return { userId };
    }
    case 'users delete':
      await deleteUser(db, await requireUserId(db, arg(0, 'username')), null);
      return { deleted: true };
    case 'users set-password':
      if (!values.password) throw new UsageError('Missing --password');
      await setPassword(db, await requireUserId(db, arg(0, 'username')), values.password);
      return { updated: true };
    case 'groups list':
      return listGroups(db);
    case 'groups create':
      return { groupId: await createGroup(db, arg(0, 'group name'), null) };
    case 'groups delete': {
      const groupId = await requireGroupId(db, arg(0, 'group name'));
      await db('groups').where({ id: groupId }).del();
      return { deleted: true };
    }
    case 'groups add-member':
      await addMember(db, await requireGroupId(db, arg(0, 'group name')), await requireUserId(db, arg(1, 'username')));
      return { added: true };
    case 'groups remove-member':
      await removeMember(db, await requireGroupId(db, arg(0, 'group name')), await requireUserId(db, arg(1, 'username')));
      return { removed: true };
    case 'groups set-permissions':
      return {
        permissions: await setGroupPermissions(db, await requireGroupId(db, arg(0, 'group name')), permissionsFrom(args.slice(1))),
      };
    case 'api-keys create': {
      const userId = await requireUserId(db, arg(0, 'username'));
      const key = await insertApiKey(db, {
        userId,
        name: values.name ?? null,
        scopes: values.scope ? permissionsFrom(values.scope) : null,
        expiresAt: values['expires-at'] ?? null,
      });
      return key;
    }
    case 'api-keys list':
      return listApiKeys(db, operator, await requireUserId(db, arg(0, 'username')));
    case 'api-keys delete':
      await deleteApiKey(db, operator, arg(0, 'key id'));
      return { deleted: true };
    default:
      throw new UsageError(area ? `Unknown command: ${positionals.join(' ')}` : 'No command given');
  }
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
    console.log(usage);
    return argv.length === 0 ? 2 : 0;
  }
  const config = loadConfig();
  const unlock = config.databaseUrl ? () => {} : lockDataDir(config.dataDir, 'the tessera CLI');
  const db = createDatabase({ databaseUrl: config.databaseUrl, pgliteDir: config.databaseUrl ? null : config.dataDir, poolMax: 2 });
  try {
    await migrateToLatest(db);
    await bootstrapAdmin(db, { apiKey: config.bootstrapAdminApiKey, password: config.bootstrapAdminPassword }).then((result) => {
      if (result.generatedApiKey) console.error(`Bootstrap admin API key (shown once): ${result.generatedApiKey}`);
    });
    const result = await runCli(argv, db);
    console.log(JSON.stringify(result, null, 2));
    return 0;
  } finally {
    await db.destroy();
    unlock();
  }
}

/** Runs the CLI with process.argv and exits with its status. */
export function cliEntry(): void {
  main().then(
    (code) => process.exit(code),
    (error) => {
      if (error instanceof UsageError || error instanceof ConfigError) {
        console.error(`tessera: ${error.message}\n\n${usage}`);
        process.exit(2);
      }
      if (error instanceof ApiError || (error instanceof Error && error.message.startsWith('The data directory'))) {
        console.error(`tessera: ${error.message}`);
        process.exit(1);
      }
      console.error(`tessera: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}

if (require.main === module) cliEntry();
