import { hashPassword, verifyPassword } from '../../../src/app/owners/password-hasher';

describe('password hashing (scrypt)', () => {
  it('verifies the right password only, with a fresh salt each time and its parameters stored', async () => {
    const hash = await hashPassword('correct horse battery staple');
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(await verifyPassword('correct horse battery staple', hash)).toBe(true);
    expect(await verifyPassword('correct horse battery stapl', hash)).toBe(false);
    expect(await hashPassword('correct horse battery staple')).not.toBe(hash);
    expect(await verifyPassword('anything', 'bcrypt$whatever')).toBe(false);
  });
});
