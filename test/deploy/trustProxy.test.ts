/**
 * LB-2: which address is the client's, by TRUST_PROXY, over HTTP on the real app (the failed login's audit entry
 * names it). The client connects from 127.0.0.2; the server listens on 127.0.0.1.
 */
import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig } from '../../src/config/config';
import { requestFrom } from '../support/fromAddress';
import { startTestServer, TestServer } from '../support/server';

/** The address the audit log records for a failed login sent from 127.0.0.2 with `forwardedFor` (if any). */
async function recordedAddress(server: TestServer, forwardedFor?: string): Promise<string | null> {
  const username = `nobody-${randomBytes(3).toString('hex')}`;
  const answer = await requestFrom('127.0.0.2', `${server.directUrl}/api/auth/login`, {
    method: 'POST',
    headers: forwardedFor ? { 'X-Forwarded-For': forwardedFor } : {},
    body: { username, password: 'wrong-password-1' },
  });
  expect(answer.status).toBe(401);
  const entries = (await server.call('GET', '/api/audit?action=auth.login')).body as { details: { username: string }; clientAddress: string | null }[];
  return entries.find((entry) => entry.details.username === username)!.clientAddress;
}

async function withServer(trustProxy: string | undefined, test: (server: TestServer) => Promise<void>): Promise<void> {
  const server = await startTestServer(trustProxy === undefined ? {} : { TRUST_PROXY: trustProxy });
  try {
    await test(server);
  } finally {
    await server.stop();
  }
}

describe('LB-2: TRUST_PROXY', () => {
  it('LB-2: unset, X-Forwarded-For is ignored: the socket address is the client\'s', async () => {
    await withServer(undefined, async (server) => {
      expect(await recordedAddress(server)).toBe('127.0.0.2');
      expect(await recordedAddress(server, '203.0.113.77')).toBe('127.0.0.2');
    });
  }, 120_000);

  it('LB-2: true is one proxy: the rightmost X-Forwarded-For entry (the one the proxy wrote), never a leftmost one a client wrote', async () => {
    await withServer('true', async (server) => {
      expect(await recordedAddress(server, '198.51.100.5')).toBe('198.51.100.5');
      expect(await recordedAddress(server, '203.0.113.77, 198.51.100.5')).toBe('198.51.100.5');
      expect(await recordedAddress(server)).toBe('127.0.0.2');
    });
  }, 120_000);

  it('HTTP-12: an X-Forwarded-For entry that is not an IP address is never the client address: the socket\'s is', async () => {
    await withServer('true', async (server) => {
      expect(await recordedAddress(server, 'garbage<script>')).toBe('127.0.0.2');
      expect(await recordedAddress(server, 'x'.repeat(3000))).toBe('127.0.0.2');
      expect(await recordedAddress(server, '203.0.113.77, not-an-address')).toBe('127.0.0.2');
      // A valid address is still believed, IPv6 included.
      expect(await recordedAddress(server, '2001:db8::7')).toBe('2001:db8::7');
    });
  }, 120_000);

  it('LB-2: a hop count of 2 takes the second entry from the right', async () => {
    await withServer('2', async (server) => {
      expect(await recordedAddress(server, '203.0.113.77, 198.51.100.5, 192.0.2.9')).toBe('198.51.100.5');
    });
  }, 120_000);

  it('LB-2: a list of proxy addresses: X-Forwarded-For is believed only from them', async () => {
    await withServer('127.0.0.1, 10.0.0.0/8', async (server) => {
      // 127.0.0.2 is not a listed proxy: its header is ignored.
      expect(await recordedAddress(server, '203.0.113.77')).toBe('127.0.0.2');
    });
    await withServer('127.0.0.2/32', async (server) => {
      // From the listed proxy: the rightmost entry that is not a listed proxy.
      expect(await recordedAddress(server, '203.0.113.77, 198.51.100.5')).toBe('198.51.100.5');
    });
  }, 180_000);

  it('LB-2: TRUST_PROXY is parsed strictly', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '3' }).trustProxy).toBe(3);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8, fd00::/8' }).trustProxy).toEqual(['loopback', '10.0.0.0/8', 'fd00::/8']);
    for (const bad of ['yes please', '10.0.0.0/33', '300.1.1.1', '*', '127.0.0.1/8/1']) {
      expect(() => loadConfig({ TRUST_PROXY: bad })).toThrow(ConfigError);
    }
    expect(() => loadConfig({ TRUST_PROXY: 'everyone' })).toThrow(/TRUST_PROXY must be false, true \(one proxy in front\), a number of proxies/);
  });
});
