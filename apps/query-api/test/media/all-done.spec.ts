import { allDone } from '../../src/media/all-done';

describe('allDone', () => {
  it('gives every value, in order, as Promise.all does', async () => {
    await expect(allDone([Promise.resolve(1), Promise.resolve('two')])).resolves.toEqual([1, 'two']);
  });

  it('throws the first rejection only once the slower promises have settled', async () => {
    let slowDone = false;
    const slow = new Promise<void>((resolve) =>
      setTimeout(() => {
        slowDone = true;
        resolve();
      }, 50),
    );
    await expect(allDone([Promise.reject(new Error('store down')), slow, Promise.reject(new Error('later'))])).rejects.toThrow('store down');
    expect(slowDone).toBe(true);
  });
});
