/**
 * docker-compose.yml read as data (LB-4): there is no Docker engine here, so the file is checked for what the process
 * test (loadBalancer.test.ts) relies on: the topology it reproduces, from the same nginx template.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const root = path.join(__dirname, '../..');
const compose = parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true });
const template = readFileSync(path.join(root, 'deploy/nginx/tessera.conf.template'), 'utf8');

describe('docker-compose.yml (LB-4)', () => {
  const services: Record<string, any> = compose.services;
  const instances = Object.keys(services).filter((name) => name.startsWith('tessera-'));

  it('runs PostgreSQL, two Tessera instances and nginx; only nginx publishes a port (no collision when instances are added)', () => {
    expect(Object.keys(services).sort()).toEqual(['nginx', 'postgres', 'tessera-1', 'tessera-2']);
    expect(Object.entries(services).filter(([, service]) => service.ports).map(([name]) => name)).toEqual(['nginx']);
    expect(services.nginx.ports).toEqual(['7575:80']);
  });

  it('each instance: PostgreSQL, TRUST_PROXY, a readiness health check, started after PostgreSQL is healthy', () => {
    for (const name of instances) {
      const service = services[name];
      expect(service.environment).toMatchObject({ DATABASE_URL: expect.stringMatching(/^postgres:\/\/.*@postgres:5432\//), TRUST_PROXY: 'true' });
      expect(service.healthcheck.test.join(' ')).toContain('/api/health/ready');
      expect(service.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
      expect(service.expose).toEqual([service.environment.PORT]);
    }
  });

  it('nginx: the shared template, pointed at both instances, started once they are healthy', () => {
    expect(services.nginx.volumes).toEqual(['./deploy/nginx/tessera.conf.template:/etc/nginx/templates/default.conf.template:ro']);
    expect(services.nginx.environment).toEqual({ TESSERA_1: 'tessera-1:7575', TESSERA_2: 'tessera-2:7575', LISTEN_PORT: '80' });
    expect(services.nginx.depends_on).toEqual(Object.fromEntries(instances.map((name) => [name, { condition: 'service_healthy' }])));
    const placeholders = [...new Set([...template.matchAll(/\$\{(\w+)\}/g)].map((m) => m[1]))].sort();
    expect(placeholders).toEqual(['LISTEN_PORT', 'TESSERA_1', 'TESSERA_2']);
  });

  it('the template proxies the change feeds unbuffered and forwards the client address', () => {
    const events = /location ~ \^\/api\/boards\/\[\^\/\]\+\/events\$ \{([^}]*)\}/.exec(template)?.[1] ?? '';
    expect(events).toContain('proxy_buffering off;');
    expect(events).toContain('proxy_read_timeout 1h;');
    // LB-2: the client's socket address replaces any X-Forwarded-For the client sent (never appended to it).
    expect(template).toContain('proxy_set_header X-Forwarded-For $remote_addr;');
    expect(template).not.toContain('$proxy_add_x_forwarded_for');
    expect(template).toMatch(/upstream tessera \{\n(?:.*\n)*?    keepalive \d+;\n\}/);
  });
});
