/**
 * The contract run (`npm run contract`, CONTRACT_PROXY=1): startTestServer puts `prism proxy` (no `--errors`) in
 * front of the server; every response that passes through contractFetch is checked against its `sl-violations`
 * header (rule: contractProblems in prism.ts), and the proxy's log is scanned for response violations of requests
 * made any other way. Problems make stop() throw, which fails the test file. With CONTRACT_REPORT_DIR set, every
 * exchange is appended to a JSON-lines file there, for the coverage summary of scripts/contract.ts. Under jest the
 * Prisms come from one pool for the whole run (test/support/contractHub), started once rather than once per server.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { contractProblems, startPrism } from './prism';

interface ActiveProxy {
  problems: string[];
}

const active = new Map<string, ActiveProxy>();
/** This test file (jest loads this module afresh for each file): the Prism pool reuses a Prism only for another file. */
const fileToken = randomUUID();

export async function startContractProxy(upstream: string): Promise<{ url: string; stop(): Promise<void> }> {
  const hub = process.env.CONTRACT_HUB_URL;
  let url: string;
  let release: () => Promise<string>;
  if (hub) {
    const attached = (await callHub(hub, '/attach', { upstream, owner: process.pid, file: fileToken })) as { slot: number; url: string };
    url = attached.url;
    release = async () => ((await callHub(hub, '/detach', { slot: attached.slot })) as { output: string }).output;
  } else {
    const prism = await startPrism({ mode: 'proxy', upstream });
    url = prism.url;
    release = async () => {
      await prism.stop();
      return prism.output();
    };
  }
  const entry: ActiveProxy = { problems: [] };
  active.set(url, entry);
  return {
    url,
    async stop() {
      active.delete(url);
      const logged = (await release()).split('\n').filter((line) => /Violation: response/.test(line));
      const problems = [...entry.problems];
      if (logged.length > 0 && problems.length === 0) problems.push(...logged.map((l) => `prism log: ${l.trim()}`));
      if (problems.length > 0) {
        throw new Error(`Contract violations reported by prism proxy (${problems.length}):\n  ${problems.slice(0, 50).join('\n  ')}`);
      }
    },
  };
}

/** The Prism pool of the contract run (test/support/contractHub/hub.js). */
async function callHub(hub: string, route: string, body: object): Promise<unknown> {
  const response = await fetch(`${hub}${route}`, { method: 'POST', body: JSON.stringify(body) });
  if (response.status !== 200) throw new Error(`contract hub ${route} failed: ${response.status} ${await response.text()}`);
  return response.json();
}

/** fetch, plus the contract check when the URL points at an active contract proxy. */
export async function contractFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  for (const [prefix, proxy] of active) {
    if (!url.startsWith(prefix)) continue;
    const pathAndQuery = url.slice(prefix.length);
    proxy.problems.push(...contractProblems(method, pathAndQuery, response.status, response.headers.get('sl-violations')));
    const dir = process.env.CONTRACT_REPORT_DIR;
    if (dir) {
      mkdirSync(dir, { recursive: true });
      appendFileSync(
        path.join(dir, `traffic-${process.pid}.jsonl`),
        JSON.stringify({ method, path: pathAndQuery.split('?')[0], status: response.status }) + '\n',
      );
    }
  }
  return response;
}
