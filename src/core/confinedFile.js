'use strict';
/**
 * Reading a file named inside a directory, confined to it (CONV-6, PROV-7), in plain JavaScript: the CLI's converter
 * calls it directly and provisioning on a worker thread (src/boards/fleet/provisioningSources.ts), outside any
 * TypeScript loader. See confinedFile.d.ts for what it answers. Only a regular file whose real path (links followed)
 * lies inside the directory, of at most `maxBytes` bytes, is read: a link leading out of it, a FIFO, a device, a socket
 * or a directory is refused unread, and the file is opened non-blocking (a FIFO swapped in after the checks cannot hang
 * the open) and checked again once open.
 */
const { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync, statSync } = require('node:fs');
const path = require('node:path');

const inside = (root, real) => real === root || real.startsWith(root.endsWith(path.sep) ? root : root + path.sep);

/**
 * `relative` read inside `directory` (called `directoryName` in the reasons): `{ text }`, `{ missing: true }` when there is no such entry (or a link to
 * nothing), or `{ refused: reason }`.
 */
function readConfinedFile(directory, relative, maxBytes, directoryName = 'the directory') {
  const root = realpathSync(directory);
  const target = path.resolve(root, relative);
  if (!inside(root, target)) return { refused: `is outside ${directoryName}: refused, not read` };
  if (!lstatSync(target, { throwIfNoEntry: false })) return { missing: true };
  let real;
  try {
    real = realpathSync(target);
  } catch (error) {
    if (error.code === 'ENOENT') return { missing: true };
    return { refused: `cannot be resolved (${error.code}): refused, not read` };
  }
  if (!inside(root, real)) return { refused: `leads outside ${directoryName} (a link): refused, not read` };
  const notRegular = 'is not a regular file (a FIFO, device, socket or directory): refused, not read';
  const tooLarge = `is larger than ${maxBytes} bytes: refused, not read`;
  const stat = statSync(real);
  if (!stat.isFile()) return { refused: notRegular };
  if (stat.size > maxBytes) return { refused: tooLarge };
  let fd;
  try {
    fd = openSync(real, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0));
  } catch (error) {
    return { refused: `cannot be opened (${error.code}): refused, not read` };
  }
  try {
    // The entry may have been replaced between the checks and the open: what was opened is checked again.
    const opened = fstatSync(fd);
    if (!opened.isFile()) return { refused: notRegular };
    // At most one byte past the cap is read: enough to know the file is too large, whatever it grew to.
    const buffer = Buffer.allocUnsafe(maxBytes + 1);
    let length = 0;
    while (length < buffer.length) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    if (length > maxBytes) return { refused: tooLarge };
    return { text: buffer.toString('utf8', 0, length) };
  } finally {
    closeSync(fd);
  }
}

module.exports = { readConfinedFile };
