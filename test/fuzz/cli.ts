/**
 * npm run fuzz -- --base-url http://127.0.0.1:7575 [--runs 50] [--seed 42] [--api-key <id>.<token>] [--spec file.json]
 *                 [--only opA,opB]
 *
 * Fuzzes a live instance with the schema-driven fuzzer (test/fuzz/runner.ts). The document defaults to the one the
 * instance serves at /api/openapi.json; the key defaults to $TESSERA_API_KEY. Use an admin key on a disposable
 * instance: the run creates (and deletes) users, groups, keys and every other resource the document describes.
 * Exit code 1 when a check failed.
 */
import { readFileSync } from 'node:fs';
import { formatReport, runFuzz } from './runner';
import { listOperations } from './openapi';

function argument(name: string): string | undefined {
  const args = process.argv.slice(2);
  const i = args.indexOf(`--${name}`);
  if (i >= 0) return args[i + 1];
  const inline = args.find((a) => a.startsWith(`--${name}=`));
  return inline?.slice(name.length + 3);
}

async function main(): Promise<void> {
  const baseUrl = argument('base-url') ?? process.env.TESSERA_URL;
  if (!baseUrl) {
    console.error('usage: npm run fuzz -- --base-url URL [--runs N] [--seed S] [--api-key KEY] [--spec FILE] [--only opA,opB]');
    process.exit(2);
  }
  const runs = Number(argument('runs') ?? 25);
  const seed = Number(argument('seed') ?? Date.now() % 1_000_000);
  const apiKey = argument('api-key') ?? process.env.TESSERA_API_KEY;
  const specFile = argument('spec');
  const document = specFile
    ? JSON.parse(readFileSync(specFile, 'utf8'))
    : await fetch(`${baseUrl.replace(/\/+$/, '')}/api/openapi.json`).then((r) => {
        if (!r.ok) throw new Error(`GET /api/openapi.json answered ${r.status}`);
        return r.json();
      });
  if (!apiKey) console.warn('warning: no --api-key / TESSERA_API_KEY: authenticated operations will only see 401s');
  console.log(`fuzzing ${baseUrl} with seed ${seed}, ${runs} runs per operation`);
  const report = await runFuzz({
    baseUrl,
    document,
    apiKey,
    runs,
    seed,
    only: argument('only')?.split(','),
    log: (line) => console.log(line),
  });
  console.log(formatReport(report, listOperations(document).length));
  console.log(`replay with: --seed ${seed} --runs ${runs}`);
  process.exit(report.failures.length > 0 ? 1 : 0);
}

main().catch((error) => {
  console.error(error);
  process.exit(2);
});
