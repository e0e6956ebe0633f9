import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, copyFile, mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { eventually } from './eventually';
import { unique } from './unique';
import { freePort } from '../../scripts/free-port';

const run = promisify(execFile);
const busybox = process.env.BUSYBOX_PATH ?? '/usr/bin/busybox';

/**
 * Podman's Docker-compatible API service (Debian `podman`, `scripts/ensure-services.sh`) on a socket in a temporary
 * directory, with its own storage there too (`--root`, `--runroot`), so parallel runs never see each other's
 * containers. No registry is reachable: the one image is imported from a rootfs holding Debian's static busybox.
 * Containers can be created (not started: crun cannot set rlimits on these machines).
 */
export interface PodmanService {
  socketPath: string;
  image: string;
  /** Serves the same storage over plain HTTP too (`podman system service tcp://…`); answers the DOCKER_HOST value. */
  serveTcp(): Promise<string>;
  /** `podman create` with the given name and labels; returns the container's id. */
  createContainer(name: string, labels?: Record<string, string>): Promise<string>;
  /** `podman rm` of a container made by `createContainer`. */
  removeContainer(id: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startPodman(): Promise<PodmanService> {
  const dir = await mkdtemp(path.join(tmpdir(), 'tessera-podman-'));
  const socketPath = path.join(dir, 'docker.sock');
  const flags = ['--root', path.join(dir, 'root'), '--runroot', path.join(dir, 'run'), '--storage-driver', 'vfs', '--cgroup-manager', 'cgroupfs', '--events-backend', 'file', '--tmpdir', path.join(dir, 'tmp')];
  const podman = (...args: string[]) => run('podman', [...flags, ...args], { timeout: 120_000 });
  const services: ChildProcess[] = [];
  const created: string[] = [];
  const stop = async () => {
    if (created.length > 0) await podman('rm', '--force', ...created).catch(() => undefined);
    for (const service of services) {
      if (service.exitCode !== null || service.signalCode !== null) continue;
      const exited = new Promise((resolve) => service.once('exit', resolve));
      service.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  /** Starts `podman system service` on `address` and waits until `/_ping` answers 200 through `probe`. */
  const serve = async (address: string, probe: () => Promise<number>) => {
    const service = spawn('podman', [...flags, 'system', 'service', '--time=0', address], { stdio: ['ignore', 'ignore', 'pipe'] });
    services.push(service);
    let stderr = '';
    service.stderr!.on('data', (chunk) => (stderr += String(chunk)));
    await eventually(async () => {
      if (service.exitCode !== null) throw new Error(`podman system service exited: ${stderr}`);
      const status = await probe();
      if (status !== 200) throw new Error(`podman _ping answered ${status}`);
    });
  };
  try {
    await mkdir(path.join(dir, 'rootfs', 'bin'), { recursive: true });
    await mkdir(path.join(dir, 'tmp'));
    await copyFile(busybox, path.join(dir, 'rootfs', 'bin', 'busybox'));
    const image = `localhost/${unique('tessera-test')}:1`;
    await run('sh', ['-c', `tar -C "$1" -c . | podman ${flags.map((flag) => `'${flag}'`).join(' ')} import - "$2"`, 'sh', path.join(dir, 'rootfs'), image], { timeout: 120_000 });
    await serve(`unix://${socketPath}`, () => ping({ socketPath }));
    return {
      socketPath,
      image,
      async serveTcp() {
        const port = await freePort();
        await serve(`tcp://127.0.0.1:${port}`, () => ping({ host: '127.0.0.1', port }));
        return `tcp://127.0.0.1:${port}`;
      },
      async createContainer(name, labels = {}) {
        const labelArgs = Object.entries(labels).flatMap(([key, value]) => ['--label', `${key}=${value}`]);
        const { stdout } = await podman('create', '--name', name, ...labelArgs, image, '/bin/busybox', 'true');
        const id = stdout.trim();
        created.push(id);
        return id;
      },
      async removeContainer(id) {
        await podman('rm', '--force', id);
        if (created.includes(id)) created.splice(created.indexOf(id), 1);
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function ping(where: { socketPath: string } | { host: string; port: number }): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ ...where, path: '/_ping' }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}
