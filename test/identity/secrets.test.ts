/**
 * Passwords are bcrypt hashes made and compared on worker threads (SEC-2, SEC-6): the hashes are the ones bcrypt has
 * always stored, so hashes written before stay valid, and many checks at once all get their own answer.
 */
import bcrypt from 'bcryptjs';
import { hashPassword, passwordMatches } from '../../src/identity/secrets';

describe('SEC-6: password hashing on worker threads', () => {
  it('makes standard bcrypt hashes (cost 10) that bcrypt verifies, and verifies hashes bcrypt made', async () => {
    const hash = await hashPassword('correct horse');
    expect(hash).toMatch(/^\$2[aby]\$10\$[./A-Za-z0-9]{53}$/);
    expect(bcrypt.compareSync('correct horse', hash)).toBe(true);
    const older = bcrypt.hashSync('battery staple', 10);
    expect(await passwordMatches('battery staple', older)).toBe(true);
    expect(await passwordMatches('battery stapler', older)).toBe(false);
  });

  it('a missing user never matches, whatever the password (the decoy comparison)', async () => {
    expect(await passwordMatches('', null)).toBe(false);
    expect(await passwordMatches('anything', null)).toBe(false);
  });

  it('answers each of many concurrent checks with its own result', async () => {
    const hash = bcrypt.hashSync('right', 4);
    const passwords = Array.from({ length: 12 }, (_, i) => (i % 3 === 0 ? 'right' : `wrong${i}`));
    expect(await Promise.all(passwords.map((password) => passwordMatches(password, hash)))).toEqual(passwords.map((password) => password === 'right'));
  });

  it('a malformed stored hash never matches, and the workers go on', async () => {
    expect(await passwordMatches('x', 'not-a-hash')).toBe(false);
    expect(await passwordMatches('right', bcrypt.hashSync('right', 4))).toBe(true);
  });
});
