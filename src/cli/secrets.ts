/**
 * `tessera secrets rotate-key` (SECRET-6): re-encrypts every integration secret from the current key (the one the
 * server would load: SECRET_ENCRYPTION_KEY, SECRET_ENCRYPTION_KEY_FILE or the data directory's generated key) to a
 * new one, in one transaction. Stop the servers first, then start them with the new key.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import type { Command } from 'commander';
import { UsageError } from './errors';

/* eslint-disable @typescript-eslint/no-require-imports -- the database drivers are loaded on use, as in main.ts */

type Runner = (work: () => Promise<unknown>) => Promise<void>;

export function addSecretCommands(program: Command, run: Runner): void {
  const secrets = program.command('secrets').description('integration secrets: key rotation');
  secrets
    .command('rotate-key')
    .description('re-encrypt every integration secret under a new key, in one transaction (stop the servers first)')
    .option('--new-key-file <file>', 'a file holding the new key (64 hex digits or base64 of 32 bytes)')
    .option('--generate', 'generate the new key and replace the data directory\'s key file (embedded database with a generated key only)')
    .action((options: { newKeyFile?: string; generate?: boolean }) =>
      run(async () => {
        if (!options.newKeyFile === !options.generate) throw new UsageError('give exactly one of --new-key-file <file> or --generate');
        const { loadConfig } = require('../config/config') as typeof import('../config/config');
        const { loadSecretCipher, generatedKeyPath } = require('../integrations/secrets/key') as typeof import('../integrations/secrets/key');
        const { SecretCipher, parseSecretKey } = require('../integrations/secrets/cipher') as typeof import('../integrations/secrets/cipher');
        const { rotateSecrets } = require('../integrations/secrets/store') as typeof import('../integrations/secrets/store');
        const { withLocalDatabase } = require('./localDatabase') as typeof import('./localDatabase');
        const config = loadConfig();
        const current = loadSecretCipher(config);
        let nextKey: Buffer;
        let pending: string | null = null;
        if (options.generate) {
          if (current.source !== 'data directory') {
            throw new UsageError(`the current key comes from ${current.source}: give the new one with --new-key-file and set it there after the rotation`);
          }
          nextKey = randomBytes(32);
          // Written beside the key file first: the rename after the commit is the only step that can be left undone.
          pending = `${generatedKeyPath(config.dataDir)}.next`;
          const fd = openSync(pending, 'w', 0o600);
          writeSync(fd, `${nextKey.toString('hex')}\n`);
          closeSync(fd);
        } else {
          nextKey = parseSecretKey(readFileSync(options.newKeyFile!, 'utf8'), `--new-key-file ${options.newKeyFile}`);
        }
        const next = new SecretCipher(nextKey);
        try {
          const result = await withLocalDatabase((db) => rotateSecrets(db, current.cipher, next), { bootstrap: false });
          if (pending) renameSync(pending, generatedKeyPath(config.dataDir));
          return {
            ...result,
            previousKeyId: current.cipher.keyId,
            keyId: next.keyId,
            next: pending ? 'the data directory now holds the new key' : `start the servers with the new key in ${current.source}`,
          };
        } catch (error) {
          if (pending) rmSync(pending, { force: true });
          throw error;
        }
      }),
    );
}
