/**
 * `tessera users set-password <username> --password <p> --remote`: the password set on a running instance through
 * the API with an admin's key (PASS-1), for when the embedded database is in use by the server (the local command
 * needs it to itself).
 */
import { UsageError } from '../errors';
import { TesseraApi } from './api';
import { resolveConnection, type ConnectionOptions } from './connection';

export async function setPasswordRemote(connection: ConnectionOptions, username: string, password: string | undefined): Promise<{ updated: true; url: string }> {
  if (password === undefined) throw new UsageError('Missing --password');
  const resolved = resolveConnection(connection);
  if (!resolved.apiKey) throw new UsageError('--remote needs an admin\'s API key: --api-key, TESSERA_API_KEY or a context (tessera login)');
  const api = new TesseraApi(resolved);
  const userId = await api.userIdByName(username);
  if (!userId) throw new UsageError(`No user named "${username}" on ${resolved.url}`);
  await api.setUserPassword(userId, password);
  return { updated: true, url: resolved.url };
}
