import { readFileSync } from 'node:fs';
import path from 'node:path';
import { listOperations } from './openapi';
import { formatReport, runFuzz } from './runner';
import { contractFetch } from '../support/contract';
import { useTestServer } from '../support/server';

/**
 * The CI-sized fuzz run: every operation of generated/openapi.json against the in-process server, fixed seed, bounded
 * budget (FUZZ_RUNS valid requests per operation, half as many invalid ones, plus one without credentials).
 */
const runs = Number(process.env.FUZZ_RUNS ?? 20);
const seed = Number(process.env.FUZZ_SEED ?? 20240611);
const document = JSON.parse(readFileSync(path.resolve(__dirname, '../../generated/openapi.json'), 'utf8'));

const server = useTestServer();

it('finds no contract violation on any operation', async () => {
  const lines: string[] = [];
  const report = await runFuzz({
    baseUrl: server.url,
    document,
    apiKey: server.adminKey,
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
