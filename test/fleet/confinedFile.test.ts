/**
 * CONV-6, PROV-7: the one confined reader the converter and provisioning share (src/core/confinedFile.js), on files.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readConfinedFile } from '../../src/core/confinedFile';

const root = mkdtempSync(path.join(os.tmpdir(), 'tessera-confined-'));
const dir = path.join(root, 'in');
afterAll(() => rmSync(root, { recursive: true, force: true }));
mkdirSync(path.join(dir, 'sub'), { recursive: true });
writeFileSync(path.join(dir, 'ok.yaml'), 'a: 1\n');
writeFileSync(path.join(dir, 'sub', 'inner.yaml'), 'b: 2\n');
writeFileSync(path.join(dir, 'big.yaml'), 'x'.repeat(101));
writeFileSync(path.join(root, 'secret.yaml'), 'secret: 1\n');
symlinkSync(path.join(root, 'secret.yaml'), path.join(dir, 'out.yaml'));
symlinkSync('sub/inner.yaml', path.join(dir, 'in-link.yaml'));
symlinkSync('/dev/zero', path.join(dir, 'zero.yaml'));
symlinkSync(path.join(dir, 'nothing.yaml'), path.join(dir, 'dangling.yaml'));
execFileSync('mkfifo', [path.join(dir, 'fifo.yaml')]);

describe('the confined reader (CONV-6, PROV-7)', () => {
  it('PROV-7: reads a regular file inside the directory, also through a link that stays inside', () => {
    expect(readConfinedFile(dir, 'ok.yaml', 100)).toEqual({ text: 'a: 1\n' });
    expect(readConfinedFile(dir, 'in-link.yaml', 100)).toEqual({ text: 'b: 2\n' });
  });

  it('PROV-7: a missing entry or a link to nothing is missing', () => {
    expect(readConfinedFile(dir, 'none.yaml', 100)).toEqual({ missing: true });
    expect(readConfinedFile(dir, 'dangling.yaml', 100)).toEqual({ missing: true });
  });

  it('PROV-7: a link out of the directory, /dev/zero, a FIFO, a directory, a file past the cap and a name leaving the directory are refused unread', () => {
    expect(readConfinedFile(dir, 'out.yaml', 100, 'the input directory')).toEqual({ refused: 'leads outside the input directory (a link): refused, not read' });
    expect(readConfinedFile(dir, 'zero.yaml', 100)).toEqual({ refused: 'leads outside the directory (a link): refused, not read' });
    expect(readConfinedFile(dir, 'fifo.yaml', 100)).toEqual({ refused: 'is not a regular file (a FIFO, device, socket or directory): refused, not read' });
    expect(readConfinedFile(dir, 'sub', 100)).toEqual({ refused: 'is not a regular file (a FIFO, device, socket or directory): refused, not read' });
    expect(readConfinedFile(dir, 'big.yaml', 100)).toEqual({ refused: 'is larger than 100 bytes: refused, not read' });
    expect(readConfinedFile(dir, '../secret.yaml', 100)).toEqual({ refused: 'is outside the directory: refused, not read' });
  });

  it('PROV-7: a device inside the directory (zero read from /dev) is refused as not a regular file', () => {
    expect(readConfinedFile('/dev', 'zero', 100)).toEqual({ refused: 'is not a regular file (a FIFO, device, socket or directory): refused, not read' });
  });
});
