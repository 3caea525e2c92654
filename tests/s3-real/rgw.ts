/**
 * A throwaway Ceph RADOS Gateway on loopback: one monitor, one OSD on `memstore` (RAM, no disk
 * image), and radosgw with the beast frontend on 127.0.0.1, all under one temporary directory and
 * all children of this process (foreground daemons, stopped by pid). Installs Debian's packages
 * when they are missing and this process may (root with apt-get); otherwise reports why not.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../scripts/free-port.js';

const run = promisify(execFile);

/** The packages that bring ceph-mon, ceph-osd, radosgw and the ceph/radosgw-admin tools. */
const RGW_PACKAGES = ['radosgw', 'ceph-mon', 'ceph-osd'];
const BINARIES = ['setpriv', 'ceph-mon', 'ceph-osd', 'radosgw', 'radosgw-admin', 'ceph', 'monmaptool', 'ceph-authtool'];
/** Per apt-get step; `.ci/run` gives the whole suite 14 minutes. */
const INSTALL_TIMEOUT_MS = 5 * 60_000;
const START_TIMEOUT_MS = 120_000;

export type Availability = { available: true; installed: boolean } | { available: false; reason: string };

export interface RunningRgw {
  url: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** `ceph version 16.2.15 (…) pacific (stable)` */
  version: string;
  stop(): Promise<void>;
}

async function missingBinaries(): Promise<string[]> {
  const missing: string[] = [];
  for (const name of BINARIES) {
    try {
      await run('sh', ['-c', `command -v ${name}`]);
    } catch {
      missing.push(name);
    }
  }
  return missing;
}

/** Ceph's binaries, installed with apt-get when missing and possible. */
export async function ensureRgwInstalled(log: (line: string) => void): Promise<Availability> {
  const missing = await missingBinaries();
  if (missing.length === 0) return { available: true, installed: false };
  if (process.getuid?.() !== 0)
    return { available: false, reason: `missing ${missing.join(', ')}, and installing ${RGW_PACKAGES.join(' ')} needs root` };
  try {
    await run('sh', ['-c', 'command -v apt-get']);
  } catch {
    return { available: false, reason: `missing ${missing.join(', ')}, and there is no apt-get to install ${RGW_PACKAGES.join(' ')}` };
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () =>
    run('apt-get', ['install', '-y', '--no-install-recommends', ...RGW_PACKAGES], {
      env,
      timeout: INSTALL_TIMEOUT_MS,
      maxBuffer: 64 * 1024 * 1024,
    });
  log(`installing ${RGW_PACKAGES.join(' ')} with apt-get`);
  try {
    await install();
  } catch {
    // A fresh machine's package lists may be stale or empty.
    try {
      await run('apt-get', ['update'], { env, timeout: INSTALL_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 });
      await install();
    } catch (error) {
      const detail = ((error as { stderr?: string }).stderr ?? (error as Error).message).trim().split('\n').slice(-3).join(' / ');
      return { available: false, reason: `apt-get could not install ${RGW_PACKAGES.join(' ')}: ${detail}` };
    }
  }
  const still = await missingBinaries();
  if (still.length > 0)
    return { available: false, reason: `after installing ${RGW_PACKAGES.join(' ')}, still missing ${still.join(', ')}` };
  return { available: true, installed: true };
}

function cephConf(dir: string, fsid: string, monPort: number, rgwPort: number): string {
  return `[global]
fsid = ${fsid}
mon host = v2:127.0.0.1:${monPort}
mon initial members = a
public addr = 127.0.0.1
ms bind msgr1 = false
ms bind ipv6 = false
auth cluster required = none
auth service required = none
auth client required = none
ms mon client mode = crc
ms client mode = crc
run dir = ${dir}
admin socket = ${dir}/$name.asok
log file = ${dir}/$name.log
keyring = ${dir}/keyring
mon data = ${dir}/mon/$name
osd data = ${dir}/osd/$name
osd objectstore = memstore
memstore device bytes = 1073741824
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon warn on pool no redundancy = false
[client.rgw]
rgw data = ${dir}/rgw
rgw frontends = beast endpoint=127.0.0.1:${rgwPort}
rgw thread pool size = 64
`;
}

async function until<T>(what: string, deadline: number, probe: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Boots the cluster and creates one S3 user with fresh random keys. */
export async function startRgw(): Promise<RunningRgw> {
  const dir = mkdtempSync(join(tmpdir(), 'b2-mcp-rgw-'));
  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const [monPort, rgwPort] = [await freePort(), await freePort()];
    const fsid = randomUUID();
    const conf = join(dir, 'ceph.conf');
    mkdirSync(join(dir, 'mon'));
    mkdirSync(join(dir, 'osd', 'ceph-0'), { recursive: true });
    mkdirSync(join(dir, 'rgw'));
    writeFileSync(conf, cephConf(dir, fsid, monPort, rgwPort));
    const c = ['-c', conf];
    await run('ceph-authtool', ['--create-keyring', join(dir, 'keyring'), '--gen-key', '-n', 'mon.', '--cap', 'mon', 'allow *']);
    await run('monmaptool', ['--create', '--addv', 'a', `[v2:127.0.0.1:${monPort}]`, '--fsid', fsid, join(dir, 'monmap')]);
    await run('ceph-mon', [...c, '--mkfs', '-i', 'a', '--monmap', join(dir, 'monmap'), '--keyring', join(dir, 'keyring')]);
    // setpriv (util-linux) execs the daemon with a parent-death signal: a test process that dies
    // without stop() (a killed worker, a timeout) takes its daemons with it.
    const daemon = (command: string, args: string[]) => {
      const child = spawn('setpriv', ['--pdeathsig', 'KILL', '--', command, ...c, '-f', ...args], { stdio: 'ignore' });
      children.push(child);
      return child;
    };
    daemon('ceph-mon', ['-i', 'a']);
    const deadline = Date.now() + START_TIMEOUT_MS;
    const osdId = (await run('ceph', [...c, '--connect-timeout', '60', 'osd', 'create'], { timeout: 90_000 })).stdout.trim();
    await run('ceph-osd', [...c, '-i', osdId, '--mkfs', '--osd-data', join(dir, 'osd', 'ceph-0')]);
    daemon('ceph-osd', ['-i', osdId, '--osd-data', join(dir, 'osd', 'ceph-0')]);
    daemon('radosgw', ['-n', 'client.rgw']);
    const url = `http://127.0.0.1:${rgwPort}`;
    await until('radosgw to answer', deadline, async () => ((await fetch(url)).status === 200 ? true : undefined));
    const accessKeyId = `RGW${randomBytes(8).toString('hex').toUpperCase()}`;
    const secretAccessKey = randomBytes(24).toString('base64url');
    await until('the S3 user', deadline, async () => {
      await run(
        'radosgw-admin',
        [
          ...c,
          '-n',
          'client.rgw',
          'user',
          'create',
          '--uid=b2-mcp-test',
          '--display-name=b2-mcp test',
          `--access-key=${accessKeyId}`,
          `--secret-key=${secretAccessKey}`,
        ],
        { timeout: 30_000 },
      );
      return true;
    });
    const version = (await run('radosgw', ['--version'])).stdout.trim();
    return { url, accessKeyId, secretAccessKey, version, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
