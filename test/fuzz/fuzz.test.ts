import { readFileSync } from 'node:fs';
import path from 'node:path';
import { listOperations } from './openapi';
import { formatReport, runFuzz } from './runner';
import { contractFetch } from '../support/contract';
import { useTestServer } from '../support/server';

/**
 * The CI-sized fuzz run: every operation of generated/openapi.json against the in-process server, fixed seed, bounded
 * budget (FUZZ_RUNS valid requests per operation, half as many invalid ones, plus one without credentials).
 *
 * Kept only for what schemathesis (`npm run schemathesis`, CONTRACT-2) does not check: it runs in the contract run
 * (`npm run contract`), where every generated request and answer also passes Prism's validating proxy (a second
 * reading of the document, by another implementation) and the server checks each of its own replies against the
 * document (VALIDATE_RESPONSES). The checks themselves (no 5xx, declared statuses and types, schema-valid bodies,
 * invalid input rejected, 401 without credentials) are schemathesis' own and run there with every other check, so
 * the plain jest runs (PGlite, PostgreSQL) skip this file. `FUZZ_ALWAYS=1` runs it anyway.
 */
const runs = Number(process.env.FUZZ_RUNS ?? 20);
const seed = Number(process.env.FUZZ_SEED ?? 20240611);
const document = JSON.parse(readFileSync(path.resolve(__dirname, '../../generated/openapi.json'), 'utf8'));

const underProxy = process.env.CONTRACT_PROXY === '1' || process.env.FUZZ_ALWAYS === '1';
// No server to start for a skipped run.
const server = underProxy ? useTestServer() : null;

(underProxy ? it : it.skip)('finds no contract violation on any operation (through the contract proxy)', async () => {
  const lines: string[] = [];
  const report = await runFuzz({
    baseUrl: server!.url,
    document,
    apiKey: server!.adminKey,
    runs,
    seed,
    fetch: contractFetch,
    log: (l) => lines.push(l),
  });
  const summary = formatReport(report, listOperations(document).length);
  process.stdout.write(`\n${lines.join('\n')}\n${summary}\n`);
  expect(report.operations.map((o) => o.operationId).sort()).toEqual(listOperations(document).map((o) => o.operationId).sort());
  expect(report.failures).toEqual([]);
}, 300_000);
